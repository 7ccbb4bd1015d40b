/**
 * The proof behind leaving out the check against the announcement for trusted zod 4 schemas: on generated JSON
 * values (shaped like the announced schema, at its edges: surrogate pairs, lone surrogates, integer and float
 * limits, missing and extra properties, `__proto__` and `constructor` keys, nulls, any JSON value anywhere),
 * whatever validation accepts, the announced JSON Schema accepts too, checked with the validator the guard
 * uses. The same property run on schemas that are not trusted finds where zod accepts more, which shows the
 * values reach the places where the two part.
 */
import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveSchema } from '../../src/tool/schema';
import type { JsonObject, SchemaAdapter, ValidationResult } from '../../src/tool/schema/adapter';
import { zod4Adapter } from '../../src/tool/schema/zod4';
import { asJson, nearSchema } from '../support/near-schema';

const origin = { owner: 'tool "t"', field: 'parameters', requireObject: true } as const;

const trusted: Record<string, z.ZodType> = {
  search: z.object({
    q: z.string().min(1).max(20),
    page: z.int().positive().default(1),
    limit: z.number().gte(1).lte(100).optional(),
  }),
  'arrays, enums, nullables': z.object({
    tags: z.array(z.string().max(3)).max(3),
    sort: z.enum(['asc', 'desc']).nullable(),
    exact: z.boolean(),
  }),
  'unions and refinements': z.object({
    mode: z.union([z.literal('a'), z.int32()]),
    note: z.string().refine((s) => !s.includes('a')),
  }),
  'integers at their limits': z.strictObject({ id: z.uint32(), safe: z.int(), small: z.int32() }),
  'floats at their limits': z.strictObject({
    single: z.float32(),
    double: z.float64(),
    near: z.number().lt(0.5).gt(-0.5),
  }),
  'non-empty strings and arrays': z.object({
    name: z.string().nonempty(),
    list: z.array(z.number()).nonempty(),
  }),
  'loose objects and records of anything': z.looseObject({
    a: z.string().max(2),
    meta: z.record(z.string(), z.unknown()),
    c: z.object({ x: z.number() }).catchall(z.unknown()),
  }),
  'a discriminated union': z.object({
    shape: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('circle'), r: z.number().positive() }),
      z.object({ kind: z.enum(['square', 'rect']), side: z.number() }),
      z.object({ kind: z.literal(3), x: z.null() }),
    ]),
  }),
  'a tuple with optional items': z.object({
    point: z.tuple([z.number(), z.number(), z.string().optional()]),
  }),
  'a tuple with a rest and an exact length': z.object({
    rest: z.tuple([z.string()], z.int()),
    pair: z.array(z.number()).length(2),
  }),
  wrappers: z.object({
    a: z.string().optional().nullable(),
    b: z.string().max(1).default('x').readonly(),
    c: z.string().prefault('y'),
    d: z.string().exactOptional(),
  }),
  'literals, null, anything, nonoptional': z.object({
    e: z.literal([1, 'one', true, null]),
    f: z.null(),
    g: z.any(),
    h: z.unknown(),
    req: z.string().optional().nonoptional(),
  }),
  'a transform piped on': z.object({
    n: z
      .string()
      .max(3)
      .transform((s) => s.length)
      .pipe(z.number().max(2)),
  }),
  'z.stringbool()': z.object({ b: z.stringbool() }),
  'a codec': z.object({ c: z.codec(z.string().max(4), z.number(), { decode: Number, encode: String }) }),
  'a pipe into an email': z.object({ d: z.string().pipe(z.email()) }),
  'descriptions and metadata': z.object({
    a: z.string().describe('d').nullable(),
    b: z.number().meta({ title: 'B', examples: [1] }),
    c: z.array(z.string().describe('c')).describe('cs'),
  }),
};

const untrusted: Record<string, z.ZodType> = {
  'z.coerce.number()': z.object({ n: z.coerce.number() }),
  '.catch()': z.object({ n: z.number().catch(0) }),
  'a record of numbers': z.object({ r: z.record(z.string(), z.number()) }),
  'a catchall of numbers': z.object({ c: z.object({}).catchall(z.number()) }),
  'a key named constructor': z.object({ constructor: z.unknown() }),
  'a tuple with a rest after an item that takes undefined': z.object({
    t: z.tuple([z.unknown()], z.string()),
  }),
  '.meta({ minLength })': z.object({ s: z.string().meta({ minLength: 3 }) }),
  'a check given its own when': z.object({ s: z.string().min(3, { when: () => false } as never) }),
  'z.xor() with a refined option': z.object({
    x: z.xor([z.object({ a: z.number() }).refine(() => false), z.object({ a: z.number() })]),
  }),
  '.multipleOf()': z.object({ n: z.number().multipleOf(0.1) }),
};

/** Runs `adapter` against its announcement (the guard's validator) on values near the announcement. */
function compare(adapter: SchemaAdapter, announced: JsonObject, seed: number) {
  const validator = new Validator(structuredClone(announced) as never, '2020-12', false);
  const counts = { accepted: 0, refused: 0 };
  const property = fc.property(nearSchema(announced).map(asJson), (args) => {
    const result = adapter.validate(args) as ValidationResult;
    if (!result.ok) {
      counts.refused++;
      return true;
    }
    counts.accepted++;
    return validator.validate(args).valid;
  });
  return { details: fc.check(property, { numRuns: 1_000, seed }), counts };
}

describe('trusted zod 4 parameters', () => {
  it.each(Object.entries(trusted))('accept only arguments their announcement accepts: %s', (_, schema) => {
    const adapter = resolveSchema(schema, origin);
    expect(adapter.acceptsOnlyAnnounced).toBe(true);
    // The guard removes `format` from the announcement; there is none here, so the announcement is its check.
    expect(JSON.stringify(adapter.jsonSchema)).not.toContain('"format"');
    const { details, counts } = compare(adapter, adapter.jsonSchema, 20_240_601);
    expect(details.counterexample).toBeNull();
    // Both verdicts occurred often enough (1% of the runs at least) for the property to compare something.
    expect(counts.accepted).toBeGreaterThanOrEqual(10);
    expect(counts.refused).toBeGreaterThanOrEqual(10);
  });
});

describe('zod 4 parameters that are not trusted', () => {
  it.each(Object.entries(untrusted))('accept arguments their announcement refuses: %s', (_, schema) => {
    expect(resolveSchema(schema, origin).acceptsOnlyAnnounced).toBeUndefined();
    const unguarded = zod4Adapter(schema);
    const { $schema: _dialect, ...announced } = unguarded.jsonSchema;
    const { details } = compare(unguarded, announced, 20_240_601);
    expect(details.failed).toBe(true);
  });
});
