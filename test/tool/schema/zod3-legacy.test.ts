/** zod 3 before 3.24 (no Standard Schema), tried with the real zod 3.23.8 (devDependency `zod323`). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod323';
import { invokeTool, tool } from '../../../src/index';
import { isLegacyZod3Schema, resolveSchema } from '../../../src/tool/schema';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const origin = { owner: 'tool "t"', field: 'parameters', requireObject: true } as const;

describe('zod 3.23 parameters', () => {
  const search = tool({
    name: 'search',
    description: 'd',
    parameters: z.object({
      q: z.string().min(1).describe('Query'),
      limit: z.number().int().max(10).default(5),
    }),
    execute: ({ q, limit }) => `${q}:${limit}`,
  });

  it('is told from a Standard Schema: no ~standard, a _def.typeName and safeParse', () => {
    expect('~standard' in z.string()).toBe(false);
    expect(isLegacyZod3Schema(z.string())).toBe(true);
  });

  it('announces the input side as zod 3.25 would', () => {
    expect(search.definition.parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', minLength: 1, description: 'Query' },
        limit: { type: 'integer', maximum: 10, default: 5 },
      },
      required: ['q'],
    });
  });

  it('validates and parses with zod, defaults applied, paths rendered', async () => {
    expect(await invokeTool(search, { q: 'x' })).toMatchObject({ status: 'ok', output: 'x:5' });
    expect(await invokeTool(search, { q: '', limit: 11 })).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for search: q: expected a string of at least 1 character, received a string of 0 characters; limit: expected an integer <= 10, received 11',
    });
  });

  it('awaits an asynchronous refinement through safeParseAsync', async () => {
    const adapter = resolveSchema(
      z.object({ n: z.number().refine(async (n) => n > 0, 'must be positive') }),
      origin,
    );
    expect(await adapter.validate({ n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    expect(await adapter.validate({ n: -1 })).toEqual({
      ok: false,
      issues: [{ path: 'n', message: 'must be positive' }],
    });
  });

  it('refuses what JSON Schema cannot express, naming it', () => {
    expectDefinitionError(
      () => resolveSchema(z.object({ d: z.date() }), origin),
      'unsupported_schema',
      'tool "t": parameters cannot be expressed as JSON Schema: z.date() cannot be represented in JSON Schema',
    );
  });

  it('is validated only, never announced, as an outputSchema', async () => {
    const adapter = resolveSchema(z.date(), {
      owner: 'tool "t"',
      field: 'outputSchema',
      requireObject: false,
    });
    expect(adapter.jsonSchema).toEqual({});
    expect((await adapter.validate(new Date())).ok).toBe(true);
  });
});

describe('a zod schema from before zod 3', () => {
  it('is refused naming what it is and the fix', () => {
    const zod2Like = {
      _def: { t: 'object', shape: () => ({}) },
      parse: () => ({}),
      safeParse: () => ({ success: true }),
    };
    expectDefinitionError(
      () => resolveSchema(zod2Like, origin),
      'invalid_parameters',
      'tool "t": parameters looks like a zod schema from before zod 3 (no _def.typeName), which toolwire does not read; upgrade zod to 3.24 or later',
    );
  });
});
