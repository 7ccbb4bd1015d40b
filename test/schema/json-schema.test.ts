import { describe, expect, it } from 'vitest';
import { invokeTool, tool } from '../../src/index';
import { expectDefinitionError } from '../fixtures/schema/definition-error';

const echo = (input: unknown) => input;
const parameters = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    q: { type: 'string', minLength: 1, description: 'Query' },
    page: { type: 'integer', minimum: 1, default: 1 },
    filters: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string', minLength: 1 }, op: { enum: ['eq', 'ne'] } },
        required: ['field', 'op'],
      },
    },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['q'],
} as const;
const find = tool({ name: 'find', description: 'Finds things.', parameters, execute: echo });

describe('JSON Schema parameters', () => {
  it('announces the schema as written, without $schema', () => {
    const { $schema: _dialect, ...rest } = parameters;
    expect(find.definition.parameters).toEqual(rest);
  });

  it('does not share objects with the schema it was given', () => {
    expect(find.definition.parameters.properties).not.toBe(parameters.properties);
    expect(Object.isFrozen(find.definition.parameters)).toBe(true);
  });

  it('returns invalid_arguments with JSON pointers rendered as paths', async () => {
    const result = await invokeTool(find, { q: 5, page: 0, filters: [{ field: '', op: 'eq' }] });
    expect(result).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for find: q: Instance type "number" is invalid. Expected "string"; page: 0 is less than 1; ' +
        'filters[0].field: String is too short (0 < 1)',
    });
  });

  it('puts a missing required property in the path', async () => {
    expect((await invokeTool(find, { filters: [{ field: 'a' }] })).output).toBe(
      'Invalid arguments for find: q: missing required property; filters[0].op: missing required property',
    );
  });

  it('quotes keys that are not identifiers and keeps numeric object keys as keys', async () => {
    expect((await invokeTool(find, { q: 'x', tags: { 'a b': 1, '0': 2 } })).output).toBe(
      'Invalid arguments for find: tags["0"]: Instance type "number" is invalid. Expected "string"; ' +
        'tags["a b"]: Instance type "number" is invalid. Expected "string"',
    );
  });

  it('names a property refused by additionalProperties: false', async () => {
    const closed = tool({
      name: 'closed',
      description: 'd',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false },
      execute: echo,
    });
    expect((await invokeTool(closed, { id: 'x', extra: 1 })).output).toBe(
      'Invalid arguments for closed: extra: is not allowed',
    );
  });

  it('reports an anyOf once, not once per branch', async () => {
    const either = tool({
      name: 'either',
      description: 'd',
      parameters: { type: 'object', properties: { id: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
      execute: echo,
    });
    expect((await invokeTool(either, { id: true })).output).toBe(
      'Invalid arguments for either: id: Instance does not match any subschemas',
    );
  });

  it('gives execute the arguments as sent (defaults are announced, not applied)', async () => {
    expect(await invokeTool(find, { q: 'x' })).toMatchObject({ status: 'ok', value: { q: 'x' } });
  });

  it('honours the draft named by $schema', async () => {
    const draft4 = tool({
      name: 'old',
      description: 'd',
      parameters: {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        properties: { n: { type: 'number', minimum: 1, exclusiveMinimum: true } },
      },
      execute: echo,
    });
    expect((await invokeTool(draft4, { n: 1 })).status).toBe('invalid_arguments');
    expect((await invokeTool(draft4, { n: 2 })).status).toBe('ok');
  });

  it('follows local $refs', async () => {
    const linked = tool({
      name: 'linked',
      description: 'd',
      parameters: {
        type: 'object',
        $defs: { sku: { type: 'string', pattern: '^[A-Z]+-[0-9]+$' } },
        properties: { sku: { $ref: '#/$defs/sku' } },
      },
      execute: echo,
    });
    expect((await invokeTool(linked, { sku: 'nope' })).output).toBe(
      'Invalid arguments for linked: sku: String does not match pattern',
    );
  });

  it('accepts a subschema object used in two places', async () => {
    const id = { type: 'string', minLength: 1 };
    const shared = tool({
      name: 'shared',
      description: 'd',
      parameters: { type: 'object', properties: { from: id, to: id } },
      execute: echo,
    });
    expect(shared.definition.parameters.properties).toEqual({ from: id, to: id });
    expect((await invokeTool(shared, { from: '', to: 'b' })).output).toBe(
      'Invalid arguments for shared: from: String is too short (0 < 1)',
    );
  });

  it('refuses a $ref that does not point inside the schema', () => {
    expectDefinitionError(
      () =>
        tool({
          name: 'dangling',
          description: 'd',
          parameters: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
          execute: echo,
        }),
      'invalid_parameters',
      'tool "dangling": parameters is not a valid JSON Schema: "$ref": "#/$defs/missing" does not point inside the schema',
    );
  });

  it('refuses a schema that is not an object schema', () => {
    expectDefinitionError(
      () => tool({ name: 'str', description: 'd', parameters: { type: 'string' }, execute: echo }),
      'invalid_parameters',
      'tool "str": parameters must describe a JSON object (JSON Schema "type": "object"), got "type": "string"',
    );
    expectDefinitionError(
      () => tool({ name: 'untyped', description: 'd', parameters: { properties: {} }, execute: echo }),
      'invalid_parameters',
      'tool "untyped": parameters must describe a JSON object (JSON Schema "type": "object"), got no "type"',
    );
  });

  it('refuses malformed keywords and values that are not JSON', () => {
    expectDefinitionError(
      () =>
        tool({ name: 'req', description: 'd', parameters: { type: 'object', required: 'a' }, execute: echo }),
      'invalid_parameters',
      'tool "req": parameters is not a valid JSON Schema: "required" must be an array of strings',
    );
    expectDefinitionError(
      () =>
        tool({
          name: 'props',
          description: 'd',
          parameters: { type: 'object', properties: [] },
          execute: echo,
        }),
      'invalid_parameters',
      'tool "props": parameters is not a valid JSON Schema: "properties" must be an object',
    );
    expectDefinitionError(
      () =>
        tool({
          name: 'fn',
          description: 'd',
          parameters: { type: 'object', default: () => ({}) },
          execute: echo,
        }),
      'invalid_parameters',
      'tool "fn": parameters is not a valid JSON Schema: it holds a function, which is not JSON',
    );
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expectDefinitionError(
      () => tool({ name: 'cycle', description: 'd', parameters: cyclic, execute: echo }),
      'invalid_parameters',
      'tool "cycle": parameters is not a valid JSON Schema: it is not JSON (it refers to itself)',
    );
  });
});
