import { type } from 'arktype';
import { describe, expect, it } from 'vitest';
import { invokeTool, tool } from '../../../src/index';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;
const find = tool({
  name: 'find',
  description: 'Finds things.',
  parameters: type({
    q: type('string > 0').describe('a query'),
    page: ['number.integer > 0', '=', 1],
    'filters?': type({ field: 'string > 0', op: "'eq' | 'ne'" }).array(),
  }),
  execute: echo,
});

describe('arktype parameters', () => {
  it('announces the input side with descriptions, defaults (not required), enums and nested arrays', () => {
    expect(find.definition.parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', description: 'a query', minLength: 1 },
        page: { type: 'integer', exclusiveMinimum: 0, default: 1 },
        filters: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string', minLength: 1 }, op: { enum: ['eq', 'ne'] } },
            required: ['field', 'op'],
          },
        },
      },
      required: ['q'],
    });
  });

  it('returns invalid_arguments without repeating the path arktype puts in its messages', async () => {
    const result = await invokeTool(find, { q: 5, page: 0, filters: [{ field: '', op: 'eq' }] });
    expect(result).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for find: q: must be a query (was a number); page: must be positive (was 0); ' +
        'filters[0].field: must be non-empty',
    });
  });

  it('gives execute the parsed output, defaults applied', async () => {
    expect(await invokeTool(find, { q: 'shoes' })).toMatchObject({
      status: 'ok',
      value: { q: 'shoes', page: 1 },
    });
  });

  it('announces the input side of a morph', async () => {
    const count = tool({
      name: 'count',
      description: 'd',
      parameters: type({ text: type('string').pipe((s) => s.length) }),
      execute: ({ text }) => text,
    });
    expect(count.definition.parameters.properties).toEqual({ text: { type: 'string' } });
    expect(await invokeTool(count, { text: 'abc' })).toMatchObject({ status: 'ok', output: '3' });
  });

  it('leaves a narrow() out of the announcement and reports it from validation', async () => {
    const more = tool({
      name: 'more',
      description: 'd',
      parameters: type({ n: type('number').narrow((n) => n > 1) }),
      execute: echo,
    });
    expect(more.definition.parameters.properties).toEqual({ n: { type: 'number' } });
    expect((await invokeTool(more, { n: 0 })).output).toBe(
      'Invalid arguments for more: n: must be valid according to an anonymous predicate (was 0)',
    );
  });

  it('refuses an array where the announced schema says object, although a Record type accepts one', async () => {
    const tagged = tool({
      name: 'tagged',
      description: 'd',
      parameters: type({ tags: 'Record<string, string>' }),
      execute: echo,
    });
    expect((await invokeTool(tagged, { tags: [] })).output).toBe(
      'Invalid arguments for tagged: tags: Instance type "array" is invalid. Expected "object"',
    );
  });

  it.each([
    ['a Date', type({ at: 'Date' })],
    ['a bigint value', type({ at: 'bigint' })],
    ['an instance of Map', type({ at: type.instanceOf(Map) })],
  ])(
    'refuses %s at definition time (where the Standard JSON Schema route would announce {})',
    (what, parameters) => {
      expectDefinitionError(
        () => tool({ name: 'x', description: 'd', parameters, execute: echo }),
        'unsupported_schema',
        `tool "x": parameters cannot be expressed as JSON Schema: ${what} cannot be represented in JSON Schema`,
      );
    },
  );

  it('refuses parameters that do not describe an object', () => {
    expectDefinitionError(
      () => tool({ name: 'num', description: 'd', parameters: type('number'), execute: echo }),
      'invalid_parameters',
      'tool "num": parameters must describe a JSON object (JSON Schema "type": "object"), got "type": "number"',
    );
  });
});
