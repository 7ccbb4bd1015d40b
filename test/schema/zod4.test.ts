import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool, tool } from '../../src/index';
import { expectDefinitionError } from '../fixtures/schema/definition-error';

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

describe('zod 4 parameters', () => {
  it('announces the input side with descriptions, defaults (not required), enums and nested arrays', () => {
    expect(find.definition.parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', minLength: 1, description: 'Query' },
        page: { default: 1, type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
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
    expect(result.status).toBe('invalid_arguments');
    expect(result.output).toBe(
      'Invalid arguments for find: q: Invalid input: expected string, received number; ' +
        'page: Too small: expected number to be >0; ' +
        'filters[0].field: Too small: expected string to have >=1 characters',
    );
  });

  it('gives execute the parsed output, defaults applied', async () => {
    const result = await invokeTool(find, '{"q":"shoes"}');
    expect(result).toMatchObject({
      status: 'ok',
      value: { q: 'shoes', page: 1 },
      output: '{"q":"shoes","page":1}',
    });
  });

  it('announces the input side of a transform and runs execute with its output', async () => {
    const count = tool({
      name: 'count',
      description: 'Counts characters.',
      parameters: z.object({ text: z.string().transform((s) => s.length) }),
      execute: ({ text }) => text * 2,
    });
    expect(count.definition.parameters).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(await invokeTool(count, { text: 'abc' })).toMatchObject({ status: 'ok', output: '6' });
  });

  it('leaves a refinement out of the announcement and reports it from validation', async () => {
    const more = tool({
      name: 'more',
      description: 'More than one.',
      parameters: z.object({ n: z.number().refine((n) => n > 1, 'must be more than 1') }),
      execute: echo,
    });
    expect(more.definition.parameters).toEqual({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
    expect((await invokeTool(more, { n: 0 })).output).toBe(
      'Invalid arguments for more: n: must be more than 1',
    );
  });

  it('reports a bad discriminator at its path', async () => {
    const shape = tool({
      name: 'shape',
      description: 'Draws a shape.',
      parameters: z.object({
        shape: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('circle'), r: z.number() }),
          z.object({ kind: z.literal('square'), side: z.number() }),
        ]),
      }),
      execute: echo,
    });
    expect((await invokeTool(shape, { shape: { kind: 'tri' } })).output).toBe(
      "Invalid arguments for shape: shape.kind: Invalid discriminator value. Expected 'circle' | 'square'",
    );
  });

  it('refuses z.date() at definition time', () => {
    expectDefinitionError(
      () => tool({ name: 'when', description: 'd', parameters: z.object({ at: z.date() }), execute: echo }),
      'unsupported_schema',
      'tool "when": parameters cannot be expressed as JSON Schema: Date cannot be represented in JSON Schema',
    );
  });

  it('refuses z.bigint() at definition time', () => {
    expectDefinitionError(
      () => tool({ name: 'big', description: 'd', parameters: z.object({ n: z.bigint() }), execute: echo }),
      'unsupported_schema',
      'tool "big": parameters cannot be expressed as JSON Schema: BigInt cannot be represented in JSON Schema',
    );
  });

  it('refuses parameters that do not describe an object', () => {
    expectDefinitionError(
      () => tool({ name: 'str', description: 'd', parameters: z.string(), execute: echo }),
      'invalid_parameters',
      'tool "str": parameters must describe a JSON object (JSON Schema "type": "object"), got "type": "string"',
    );
  });
});
