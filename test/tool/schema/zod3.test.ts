import { describe, expect, it } from 'vitest';
import { z } from 'zod3';
import { invokeTool, tool } from '../../../src/index';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;
const find = tool({
  name: 'find',
  description: 'Finds things.',
  parameters: z.object({
    q: z.string().min(1).describe('Query'),
    page: z.number().int().positive().default(1),
    filters: z.array(z.object({ field: z.string().min(1), op: z.enum(['eq', 'ne']) })).optional(),
  }),
  execute: echo,
});

describe('zod 3 parameters', () => {
  it('announces the input side with descriptions, defaults (not required), enums and nested arrays', () => {
    expect(find.definition.parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', minLength: 1, description: 'Query' },
        page: { type: 'integer', exclusiveMinimum: 0, default: 1 },
        filters: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              field: { type: 'string', minLength: 1 },
              op: { type: 'string', enum: ['eq', 'ne'] },
            },
            required: ['field', 'op'],
          },
        },
      },
      required: ['q'],
    });
  });

  it('returns invalid_arguments naming each path with zod’s message', async () => {
    const result = await invokeTool(find, { q: 5, page: 0, filters: [{ field: '', op: 'eq' }] });
    expect(result).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for find: q: Expected string, received number; page: Number must be greater than 0; ' +
        'filters[0].field: String must contain at least 1 character(s)',
    });
  });

  it('gives execute the parsed output, defaults applied', async () => {
    expect(await invokeTool(find, { q: 'shoes' })).toMatchObject({
      status: 'ok',
      value: { q: 'shoes', page: 1 },
    });
  });

  it('announces no additionalProperties for a stripping object and false for .strict()', () => {
    const strict = tool({
      name: 'strict',
      description: 'd',
      parameters: z.object({ a: z.string() }).strict(),
      execute: echo,
    });
    expect(find.definition.parameters).not.toHaveProperty('additionalProperties');
    expect(strict.definition.parameters.additionalProperties).toBe(false);
  });

  it('announces tuples with prefixItems (JSON Schema 2020-12)', () => {
    const pair = tool({
      name: 'pair',
      description: 'd',
      parameters: z.object({ p: z.tuple([z.string(), z.number()]).rest(z.boolean()) }),
      execute: echo,
    });
    expect(pair.definition.parameters.properties).toEqual({
      p: {
        type: 'array',
        minItems: 2,
        prefixItems: [{ type: 'string' }, { type: 'number' }],
        items: { type: 'boolean' },
      },
    });
  });

  it('announces a recursive schema with a $ref to its first occurrence', async () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const tree = tool({
      name: 'tree',
      description: 'd',
      parameters: z.object({ root: node }),
      execute: echo,
    });
    expect(tree.definition.parameters.properties).toEqual({
      root: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/properties/root' } },
        },
        required: ['name', 'children'],
      },
    });
    const bad = { root: { name: 'a', children: [{ name: 1, children: [] }] } };
    expect((await invokeTool(tree, bad)).output).toBe(
      'Invalid arguments for tree: root.children[0].name: Expected string, received number',
    );
  });

  it('announces the input side of a transform', async () => {
    const count = tool({
      name: 'count',
      description: 'd',
      parameters: z.object({ text: z.string().transform((s) => s.length) }),
      execute: ({ text }) => text,
    });
    expect(count.definition.parameters.properties).toEqual({ text: { type: 'string' } });
    expect(await invokeTool(count, { text: 'abcd' })).toMatchObject({ status: 'ok', output: '4' });
  });

  it.each([
    ['z.date()', z.object({ v: z.date() })],
    ['z.bigint()', z.object({ v: z.bigint() })],
    ['z.map()', z.object({ v: z.map(z.string(), z.string()) })],
    ['z.set()', z.object({ v: z.set(z.string()) })],
    ['z.symbol()', z.object({ v: z.symbol() })],
    ['z.function()', z.object({ v: z.function() })],
  ])('refuses %s at definition time', (what, parameters) => {
    expectDefinitionError(
      () => tool({ name: 'x', description: 'd', parameters, execute: echo }),
      'unsupported_schema',
      `tool "x": parameters cannot be expressed as JSON Schema: ${what} cannot be represented in JSON Schema`,
    );
  });

  it('refuses z.preprocess(), whose accepted input JSON Schema cannot describe', () => {
    expectDefinitionError(
      () =>
        tool({
          name: 'pre',
          description: 'd',
          parameters: z.object({ v: z.preprocess((x) => String(x), z.string()) }),
          execute: echo,
        }),
      'unsupported_schema',
      'tool "pre": parameters cannot be expressed as JSON Schema: z.preprocess() accepts whatever its function turns into a valid value, which JSON Schema cannot describe; describe what the model sends and use .transform() instead',
    );
  });

  it('refuses parameters that do not describe an object', () => {
    expectDefinitionError(
      () => tool({ name: 'arr', description: 'd', parameters: z.array(z.string()), execute: echo }),
      'invalid_parameters',
      'tool "arr": parameters must describe a JSON object (JSON Schema "type": "object"), got "type": "array"',
    );
  });
});
