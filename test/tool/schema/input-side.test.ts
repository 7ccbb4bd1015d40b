/**
 * What is announced where a library's checks do not judge the input as written: checks after a rewrite, patterns
 * with flags, parsers installed on a schema, and the zod 4 types no JSON argument can be.
 */
import { type } from 'arktype';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { z as z40 } from 'zod3/v4';
import { resolveSchema } from '../../../src/tool/schema';
import { supportsUnrepresentableHook } from '../../../src/tool/schema/zod4';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';
import { zodBefore } from '../../support/zod-version';

const origin = { owner: 'tool "t"', field: 'parameters', requireObject: true } as const;
const property = (schema: unknown) =>
  (resolveSchema(schema, origin).jsonSchema.properties as Record<string, unknown>).s;

describe('checks after a rewrite', () => {
  it.each([
    ['zod 4 .trim()', z.object({ s: z.string().max(5).trim().max(2) })],
    // zod 3.25's zod/v4 is zod 4.0, whose toJSONSchema takes no unrepresentable hook: the rules hold all the same.
    ['zod 4.0 .trim()', z40.object({ s: z40.string().max(5).trim().max(2) })],
    ['zod 3 .trim()', z3.object({ s: z3.string().max(5).trim().max(2) })],
  ])('are not announced, and the untrimmed input passes (%s)', async (_, schema) => {
    expect(property(schema)).toEqual({ type: 'string', maxLength: 5 });
    expect(await resolveSchema(schema, origin).validate({ s: ' ab ' })).toEqual({
      ok: true,
      value: { s: 'ab' },
    });
  });

  it('keep the description of the schema they are on (zod 4)', () => {
    expect(
      property(
        z.object({
          s: z
            .string()
            .toLowerCase()
            .regex(/^[a-z]+$/)
            .describe('d'),
        }),
      ),
    ).toEqual({
      type: 'string',
      description: 'd',
    });
  });
});

describe('patterns with flags', () => {
  it('are not announced by zod 4, which announced /abc/i as "abc" and so refused "ABC"', async () => {
    const schema = z.object({ s: z.string().regex(/abc/i).regex(/^a/) });
    expect(property(schema)).toEqual({ type: 'string', pattern: '^a' });
    expect((await resolveSchema(schema, origin).validate({ s: 'aBC' })).ok).toBe(true);
  });

  it('are not announced by zod 4.0 (zod 3.25’s zod/v4) either', async () => {
    const schema = z40.object({ s: z40.string().regex(/abc/i).regex(/^a/) });
    expect(property(schema)).toEqual({ type: 'string', pattern: '^a' });
    expect((await resolveSchema(schema, origin).validate({ s: 'aBC' })).ok).toBe(true);
  });

  it('are not announced by arktype, under a property of any name (default, enum, const, examples)', async () => {
    for (const name of ['s', 'default']) {
      const schema = type({ [name]: { a: /^x$/i } } as Record<string, { a: RegExp }>);
      expect(JSON.stringify(resolveSchema(schema, origin).jsonSchema)).not.toContain('pattern');
      expect((await resolveSchema(schema, origin).validate({ [name]: { a: 'X' } })).ok).toBe(true);
    }
  });

  it('are announced without their flags by zod 3, which dropped them', async () => {
    const schema = z3.object({ s: z3.string().regex(/^abc$/i) });
    expect((await resolveSchema(schema, origin).validate({ s: 'ABC' })).ok).toBe(true);
    expect((await resolveSchema(schema, origin).validate({ s: 'abd' })).ok).toBe(false);
  });
});

describe('a parser installed on a zod 4 schema', () => {
  it.skipIf(zodBefore('4.6.0'))(
    'is not trusted to accept only what the definition says: z.withParser(z.string(), String) accepts 0 (z.withParser() came in zod 4.6)',
    async () => {
      const schema = z.object({ s: z.withParser(z.string(), (input) => String(input) as never) });
      const adapter = resolveSchema(schema, origin);
      expect(adapter.acceptsOnlyAnnounced).toBeUndefined();
      expect(await adapter.validate({ s: 0 })).toEqual({
        ok: false,
        issues: [{ path: 's', message: 'expected a string, received 0' }],
      });
    },
  );
});

describe('zod 4 types no JSON argument can be', () => {
  it.each([
    [
      'z.promise(z.string())',
      z.promise(z.string()),
      'z.promise() hands execute a promise of its value, which no JSON argument is; describe the value itself',
    ],
    [
      'z.file()',
      z.file(),
      'z.file() accepts File objects, which JSON arguments cannot carry (a string or base64 can)',
    ],
    [
      'z.instanceof(Date)',
      z.instanceof(Date),
      // zod before 4.5 calls no unrepresentable hook: it refuses the schema all the same, in its own words.
      zodBefore('4.5.0')
        ? 'Custom types cannot be represented in JSON Schema'
        : 'z.custom() and z.instanceof() check their values with a function, which JSON Schema cannot represent',
    ],
  ])('refuses %s, naming it', (_, schema, reason) => {
    expectDefinitionError(
      () => resolveSchema(z.object({ s: schema }), origin),
      'unsupported_schema',
      `tool "t": parameters cannot be expressed as JSON Schema: ${reason}`,
    );
  });
});

describe('zod’s unrepresentable hook', () => {
  const made = (minor: number) => ({ _zod: { version: { major: 4, minor, patch: 0 } } });

  it('is passed from zod 4.5, which calls it, so that z.undefined() is announced and z.custom() named', () => {
    expect([4, 5, 6].map((minor) => supportsUnrepresentableHook(made(minor)))).toEqual([false, true, true]);
  });
});

describe('zod 4.0 types no JSON argument can be (zod 3.25’s zod/v4)', () => {
  it.each([
    [
      'z.promise(z.string())',
      z40.promise(z40.string()),
      'z.promise() hands execute a promise of its value, which no JSON argument is; describe the value itself',
    ],
    [
      'z.file()',
      z40.file(),
      'z.file() accepts File objects, which JSON arguments cannot carry (a string or base64 can)',
    ],
  ])('refuses %s, naming it', (_, schema, reason) => {
    expectDefinitionError(
      () => resolveSchema(z40.object({ s: schema }), origin),
      'unsupported_schema',
      `tool "t": parameters cannot be expressed as JSON Schema: ${reason}`,
    );
  });
});
