import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { z as z3 } from 'zod3';
import { z as z3v4 } from 'zod3/v4';
import { zod4DefinitionIsFaithful } from '../../../src/tool/schema/zod4';
import { zodBefore } from '../../support/zod-version';

enum Color {
  Red = 0,
  Blue = 'blue',
}

// Each is put in an object as a property's schema, as tool parameters have them.
const trusted: Array<[string, unknown]> = [
  ['z.string()', z.string()],
  ['z.string().max(5)', z.string().max(5)],
  ['z.string().min(1)', z.string().min(1)],
  ['z.string().min(0)', z.string().min(0)],
  ['z.string().nonempty()', z.string().nonempty()],
  ['z.number()', z.number()],
  ['z.number().int()', z.number().int()],
  ['z.int()', z.int()],
  ['z.int32()', z.int32()],
  ['z.uint32()', z.uint32()],
  ['z.float32()', z.float32()],
  ['z.float64()', z.float64()],
  ['z.number().positive()', z.number().positive()],
  ['z.number().nonnegative()', z.number().nonnegative()],
  ['z.number().gt(0).lt(1)', z.number().gt(0).lt(1)],
  ['z.number().min(1).max(10)', z.number().min(1).max(10)],
  ['z.boolean()', z.boolean()],
  ['z.null()', z.null()],
  ['z.any()', z.any()],
  ['z.unknown()', z.unknown()],
  ["z.literal('a')", z.literal('a')],
  ["z.literal([1, 'one', true, null])", z.literal([1, 'one', true, null])],
  ["z.enum(['a', 'b'])", z.enum(['a', 'b'])],
  ['z.enum(a TypeScript enum)', z.enum(Color)],
  ['z.object()', z.object({ a: z.string() })],
  ['z.strictObject()', z.strictObject({ a: z.string() })],
  ['z.looseObject()', z.looseObject({ a: z.string() })],
  ['z.object().catchall(z.unknown())', z.object({ a: z.string() }).catchall(z.unknown())],
  ['z.array().min(2).max(3)', z.array(z.string()).min(2).max(3)],
  ['z.array().length(2)', z.array(z.number()).length(2)],
  ['z.array().nonempty()', z.array(z.number()).nonempty()],
  ['z.tuple() with an optional item', z.tuple([z.string(), z.number().optional()])],
  ['z.tuple() with a rest', z.tuple([z.string()], z.number())],
  ['z.union()', z.union([z.string(), z.number(), z.object({ a: z.null() })])],
  [
    'z.discriminatedUnion() of literals and enums',
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('circle'), r: z.number() }),
      z.object({ kind: z.enum(['square', 'rect']), side: z.number() }),
    ]),
  ],
  ['z.record(z.string(), z.unknown())', z.record(z.string(), z.unknown())],
  ['.optional()', z.string().optional()],
  // Made only where zod has it (4.3): the table is built when the file loads, on every zod the suite runs on.
  ...(zodBefore('4.3.0') ? [] : [['.exactOptional()', z.string().exactOptional()] as [string, unknown]]),
  ['.nullable()', z.string().nullable()],
  ['.nonoptional() (from .required())', z.object({ a: z.string().optional() }).required()],
  ['.default()', z.number().default(1)],
  ['.prefault()', z.string().prefault('x')],
  ['.readonly()', z.array(z.string()).readonly()],
  ['.transform()', z.string().transform((s) => s.length)],
  ['.pipe() into an untrusted schema', z.string().pipe(z.email())],
  ['z.codec()', z.codec(z.string(), z.number(), { decode: Number, encode: String })],
  ['z.stringbool()', z.stringbool()],
  ['.refine()', z.string().refine((s) => s !== 'x')],
  [
    '.refine() given its own when (it can only add an issue)',
    z.string().refine(() => true, { when: () => true }),
  ],
  ['.transform() after a loose object', z.looseObject({ a: z.string() }).transform((o) => o.a)],
  [
    'a check after which only refinements come',
    z
      .string()
      .max(3)
      .refine((s) => s !== 'x'),
  ],
  ['.describe() and .meta()', z.string().describe('d').meta({ title: 'T' })],
  ['a zod/mini schema', zm.string().check(zm.maxLength(3))],
];

const untrusted: Array<[string, unknown]> = [
  ['z.coerce.number() (accepts "3", announced as a number)', z.coerce.number()],
  ['z.coerce.string()', z.coerce.string()],
  ['z.coerce.boolean()', z.coerce.boolean()],
  ['.catch() (accepts anything)', z.number().catch(0)],
  ['.regex() with flags (the announcement drops them)', z.string().regex(/abc/i)],
  ['.regex() without flags (the validator adds the u flag)', z.string().regex(/abc/)],
  ['z.email()', z.email()],
  ['z.string().email()', z.string().email()],
  ['z.uuid()', z.uuid()],
  ['.startsWith()', z.string().startsWith('a')],
  ['.includes()', z.string().includes('a')],
  ['.lowercase()', z.string().lowercase()],
  ['z.iso.date()', z.iso.date()],
  ['z.iso.datetime()', z.iso.datetime()],
  ['z.string().min(2) (UTF-16 units against code points)', z.string().min(2)],
  ['z.string().length(2)', z.string().length(2)],
  ['.trim() (rewrites the value before the next check)', z.string().trim().max(3)],
  ['.toLowerCase()', z.string().toLowerCase()],
  ['.multipleOf() (float remainders differ)', z.number().multipleOf(0.1)],
  ['a bound that is not finite', z.number().gt(Number.NEGATIVE_INFINITY)],
  ['a check given its own when', z.string().min(1, { when: () => false } as never)],
  [
    'a check after a custom check (which may rewrite the value)',
    z
      .string()
      .refine(() => true)
      .max(3),
  ],
  [
    '.superRefine() (its function gets the parse, and can remove the issues found before it)',
    z.number().superRefine(() => {}),
  ],
  ['.check(fn)', z.string().check(() => {})],
  [
    '.superRefine() after .max()',
    z
      .string()
      .max(3)
      .superRefine(() => {}),
  ],
  [
    '.check(z.superRefine()) given its own when',
    z.string().check(z.superRefine(() => {}, { when: () => true } as never)),
  ],
  [
    'a pipe from a strict object into a union (zod goes on past the extra key, the union drops it)',
    z
      .strictObject({ a: z.string() })
      .pipe(z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.number() })])),
  ],
  [
    'a transform of an object holding a strict object',
    z.object({ inner: z.strictObject({ a: z.string() }) }).transform((o) => o.inner),
  ],
  [
    'z.tuple() with a rest after a nonoptional item that defaults (an absent item gets the default)',
    z.tuple([z.string().default('x').nonoptional()], z.number()),
  ],
  ['z.lazy()', z.lazy(() => z.string())],
  ['z.templateLiteral()', z.templateLiteral(['a', z.number()])],
  ['z.custom()', z.custom<string>((value) => typeof value === 'string')],
  ['z.intersection()', z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() }))],
  ...(zodBefore('4.2.0')
    ? []
    : [
        [
          'z.xor() (oneOf, where zod may refuse an option the announcement accepts)',
          z.xor([z.string(), z.number()]),
        ] as [string, unknown],
      ]),
  [
    'z.discriminatedUnion() with unionFallback',
    z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })], {
      unionFallback: true,
    }),
  ],
  [
    'z.discriminatedUnion() with an optional discriminator',
    z.discriminatedUnion('k', [z.object({ k: z.literal('a').optional() }), z.object({ k: z.literal('b') })]),
  ],
  ['z.record(z.string(), z.number()) (zod skips a "__proto__" key)', z.record(z.string(), z.number())],
  ['z.record() with a checked key', z.record(z.string().min(1), z.unknown())],
  ['z.record() with an enum key', z.record(z.enum(['a', 'b']), z.unknown())],
  ['.catchall(z.number()) (zod skips a "__proto__" key)', z.object({}).catchall(z.number())],
  ['z.tuple() with a rest after an item that takes undefined', z.tuple([z.unknown()], z.string())],
  ['z.preprocess()', z.preprocess((value) => value, z.string())],
  ['z.transform()', z.transform((value) => value)],
  ['z.literal() of a BigInt', z.literal(1n)],
  ['z.never()', z.never()],
  ['z.nan()', z.nan()],
  ['z.date()', z.date()],
  ['z.bigint()', z.bigint()],
  ['z.set()', z.set(z.string())],
  ['z.map()', z.map(z.string(), z.string())],
];

const inObject = (schema: unknown) => z.object({ field: schema as z.ZodType });
const deepIn = (schema: unknown) =>
  z.object({
    list: z.array(z.union([z.string(), z.object({ inner: schema as z.ZodType }).optional()])),
  });

// The proof trusts only the zod minor its rules were checked against (4.6): with an older zod it trusts nothing.
describe.skipIf(zodBefore('4.6.0'))('zod4DefinitionIsFaithful', () => {
  it('trusts a typical tool schema', () => {
    const search = z.object({
      query: z.string().min(1).max(200).describe('What to look for'),
      page: z.int().positive().default(1),
      limit: z.number().int().gte(1).lte(100).optional(),
      ratio: z.number().gt(0).lt(1).nullable(),
      exact: z.boolean(),
      sort: z.enum(['newest', 'oldest']).optional(),
      tags: z.array(z.string().max(30)).max(10),
      owner: z.union([z.literal('me'), z.object({ id: z.string().min(1) })]),
      note: z.string().refine((s) => !s.includes('\n'), 'one line'),
    });
    expect(zod4DefinitionIsFaithful(search)).toBe(true);
  });

  it.each(trusted)('trusts %s', (_, schema) => {
    expect(zod4DefinitionIsFaithful(inObject(schema))).toBe(true);
  });

  it.each(trusted)('trusts %s deep in arrays, unions and optional objects', (_, schema) => {
    expect(zod4DefinitionIsFaithful(deepIn(schema))).toBe(true);
  });

  it.each(untrusted)('does not trust %s', (_, schema) => {
    expect(zod4DefinitionIsFaithful(inObject(schema))).toBe(false);
  });

  it.each(untrusted)('does not trust %s deep in arrays, unions and optional objects', (_, schema) => {
    expect(zod4DefinitionIsFaithful(deepIn(schema))).toBe(false);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])(
    'does not trust an object with a key named %s, found on Object.prototype by zod',
    (key) => {
      const shape: Record<string, z.ZodType> = {};
      Object.defineProperty(shape, key, { value: z.unknown(), enumerable: true });
      expect(zod4DefinitionIsFaithful(z.object(shape))).toBe(false);
    },
  );

  it('does not trust a literal or an enum whose values were changed after it was made', () => {
    const values = ['a', 'b'];
    const literal = z.literal(values);
    values.pop(); // zod still accepts "b"; the announcement, made from the values now, says only "a"
    expect(zod4DefinitionIsFaithful(z.object({ e: literal }))).toBe(false);
    const entries: Record<string, string> = { a: 'a', b: 'b' };
    const choice = z.enum(entries);
    delete entries.b;
    expect(zod4DefinitionIsFaithful(z.object({ e: choice }))).toBe(false);
    expect(zod4DefinitionIsFaithful(z.object({ e: z.literal(['a', 'b']), f: z.enum(['x']) }))).toBe(true);
  });

  it('does not trust a schema from a zod minor its rules were not checked against (zod 3.25’s zod/v4 is 4.0)', () => {
    expect(zod4DefinitionIsFaithful(z3v4.object({ a: z3v4.string() }))).toBe(false);
    expect(zod4DefinitionIsFaithful(z.object({ a: z3v4.string() }))).toBe(false);
    expect(zod4DefinitionIsFaithful(zm.object({ a: zm.string() }))).toBe(true);
  });

  it('does not trust a recursive schema', () => {
    const category = z.object({
      name: z.string(),
      get children() {
        return z.array(category);
      },
    });
    expect(zod4DefinitionIsFaithful(category)).toBe(false);
  });

  it('trusts a schema used twice that is not recursive', () => {
    const id = z.string().min(1);
    expect(zod4DefinitionIsFaithful(z.object({ a: id, b: z.array(id), c: id.optional() }))).toBe(true);
  });

  it('does not trust a schema with its own toJSONSchema', () => {
    const custom = z.string();
    Object.assign(custom._zod, { toJSONSchema: () => ({ type: 'string' }) });
    expect(zod4DefinitionIsFaithful(inObject(custom))).toBe(false);
  });

  it.each([
    ['a zod 3 schema', z3.object({ a: z3.string() })],
    ['a JSON Schema', { type: 'object' }],
    ['null', null],
    ['a string', 'z.object()'],
  ])('is false for %s', (_, value) => {
    expect(zod4DefinitionIsFaithful(value)).toBe(false);
  });
});
