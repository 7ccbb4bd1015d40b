import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { invokeTool, tool } from '../../../src/index';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;
const find = tool({
  name: 'find',
  description: 'Finds things.',
  parameters: v.object({
    q: v.pipe(v.string(), v.minLength(1), v.description('Query')),
    page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
    filters: v.optional(
      v.array(v.object({ field: v.pipe(v.string(), v.minLength(1)), op: v.picklist(['eq', 'ne']) })),
    ),
  }),
  execute: echo,
});

describe('valibot parameters', () => {
  it('announces the input side with descriptions, defaults (not required), enums and nested arrays', () => {
    expect(find.definition.parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', minLength: 1, description: 'Query' },
        page: { type: 'integer', minimum: 1, default: 1 },
        filters: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              field: { type: 'string', minLength: 1 },
              op: { enum: ['eq', 'ne'], type: 'string' },
            },
            required: ['field', 'op'],
          },
        },
      },
      required: ['q'],
    });
  });

  it('returns invalid_arguments with { key } path segments rendered as a path', async () => {
    const result = await invokeTool(find, { q: 5, page: 0, filters: [{ field: '', op: 'eq' }] });
    expect(result).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for find: q: Invalid type: Expected string but received 5; ' +
        'page: Invalid value: Expected >=1 but received 0; ' +
        'filters[0].field: Invalid length: Expected >=1 but received 0',
    });
  });

  it('gives execute the parsed output, defaults applied', async () => {
    expect(await invokeTool(find, { q: 'shoes' })).toMatchObject({
      status: 'ok',
      value: { q: 'shoes', page: 1 },
    });
  });

  it('refuses an array where the announced schema says object, although v.record() accepts one', async () => {
    const tagged = tool({
      name: 'tagged',
      description: 'd',
      parameters: v.object({ tags: v.record(v.string(), v.string()) }),
      execute: echo,
    });
    expect(
      await v.safeParseAsync(v.object({ tags: v.record(v.string(), v.string()) }), { tags: [] }),
    ).toMatchObject({
      success: true,
    });
    expect((await invokeTool(tagged, { tags: [] })).output).toBe(
      'Invalid arguments for tagged: tags: Instance type "array" is invalid. Expected "object"',
    );
  });

  it('announces the input side of a transform', async () => {
    const count = tool({
      name: 'count',
      description: 'd',
      parameters: v.object({
        text: v.pipe(
          v.string(),
          v.transform((s) => s.length),
        ),
      }),
      execute: ({ text }) => text,
    });
    expect(count.definition.parameters.properties).toEqual({ text: { type: 'string' } });
    expect(await invokeTool(count, { text: 'abc' })).toMatchObject({ status: 'ok', output: '3' });
  });

  it('leaves a check() out of the announcement and reports it from validation', async () => {
    const more = tool({
      name: 'more',
      description: 'd',
      parameters: v.object({
        n: v.pipe(
          v.number(),
          v.check((n) => n > 1, 'must be more than 1'),
        ),
      }),
      execute: echo,
    });
    expect(more.definition.parameters.properties).toEqual({ n: { type: 'number' } });
    expect((await invokeTool(more, { n: 0 })).output).toBe(
      'Invalid arguments for more: n: must be more than 1',
    );
  });

  it('awaits async schemas', async () => {
    const slow = tool({
      name: 'slow',
      description: 'd',
      parameters: v.objectAsync({
        n: v.pipeAsync(
          v.number(),
          v.checkAsync(async (n) => n > 1, 'too small'),
        ),
      }),
      execute: echo,
    });
    expect((await invokeTool(slow, { n: 0 })).output).toBe('Invalid arguments for slow: n: too small');
    expect((await invokeTool(slow, { n: 2 })).status).toBe('ok');
  });

  it.each([
    ['date', v.object({ at: v.date() })],
    ['bigint', v.object({ at: v.bigint() })],
  ])('refuses v.%s() at definition time', (what, parameters) => {
    expectDefinitionError(
      () => tool({ name: 'x', description: 'd', parameters, execute: echo }),
      'unsupported_schema',
      `tool "x": parameters cannot be expressed as JSON Schema: The "${what}" schema cannot be converted to JSON Schema.`,
    );
  });

  it('refuses parameters that do not describe an object', () => {
    expectDefinitionError(
      () => tool({ name: 'arr', description: 'd', parameters: v.array(v.string()), execute: echo }),
      'invalid_parameters',
      'tool "arr": parameters must describe a JSON object (JSON Schema "type": "object"), got "type": "array"',
    );
  });
});
