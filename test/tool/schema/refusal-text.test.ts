/**
 * What the model reads for arguments its tool refuses, one table for every kind of schema: the same tool written
 * with zod 4, zod 3, valibot, arktype and a plain JSON Schema, the same bad arguments, and one text for each,
 * whichever library checks them (src/tool/schema/explain.ts). The one documented difference: a check the
 * announcement cannot state (a refinement) keeps its library's message.
 */
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z as z4 } from 'zod';
import { z as z3 } from 'zod3';
import { invokeTool, type ToolParameters, tool } from '../../../src/index';
import { MAX_ISSUE_LINE } from '../../../src/tool/model-text';

const LIBRARIES: Array<[kind: string, parameters: unknown]> = [
  [
    'zod 4',
    z4.strictObject({
      name: z4.string().min(2).max(5),
      age: z4.number().int().min(0),
      kind: z4.enum(['a', 'b']),
      tags: z4.array(z4.string()).max(2),
      pick: z4.union([z4.string(), z4.number()]),
      shape: z4.discriminatedUnion('t', [
        z4.object({ t: z4.literal('c'), r: z4.number() }),
        z4.object({ t: z4.literal('s'), w: z4.number() }),
      ]),
      email: z4.email().optional(),
      level: z4.union([z4.literal(1), z4.literal(2)]),
      pair: z4.tuple([z4.string(), z4.number()]),
    }),
  ],
  [
    'zod 3',
    z3
      .object({
        name: z3.string().min(2).max(5),
        age: z3.number().int().min(0),
        kind: z3.enum(['a', 'b']),
        tags: z3.array(z3.string()).max(2),
        pick: z3.union([z3.string(), z3.number()]),
        shape: z3.discriminatedUnion('t', [
          z3.object({ t: z3.literal('c'), r: z3.number() }),
          z3.object({ t: z3.literal('s'), w: z3.number() }),
        ]),
        email: z3.string().email().optional(),
        level: z3.union([z3.literal(1), z3.literal(2)]),
        pair: z3.tuple([z3.string(), z3.number()]),
      })
      .strict(),
  ],
  [
    'valibot',
    v.strictObject({
      name: v.pipe(v.string(), v.minLength(2), v.maxLength(5)),
      age: v.pipe(v.number(), v.integer(), v.minValue(0)),
      kind: v.picklist(['a', 'b']),
      tags: v.pipe(v.array(v.string()), v.maxLength(2)),
      pick: v.union([v.string(), v.number()]),
      shape: v.variant('t', [
        v.object({ t: v.literal('c'), r: v.number() }),
        v.object({ t: v.literal('s'), w: v.number() }),
      ]),
      email: v.optional(v.pipe(v.string(), v.email())),
      level: v.union([v.literal(1), v.literal(2)]),
      pair: v.strictTuple([v.string(), v.number()]),
    }),
  ],
  [
    'arktype',
    type({
      '+': 'reject',
      name: '2 <= string <= 5',
      age: 'number.integer >= 0',
      kind: "'a' | 'b'",
      tags: 'string[] <= 2',
      pick: 'string | number',
      shape: type({ t: "'c'", r: 'number' }).or({ t: "'s'", w: 'number' }),
      'email?': 'string.email',
      level: '1 | 2',
      pair: ['string', 'number'],
    }),
  ],
  [
    'JSON Schema',
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 5 },
        age: { type: 'integer', minimum: 0 },
        kind: { type: 'string', enum: ['a', 'b'] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
        pick: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        shape: {
          oneOf: [
            {
              type: 'object',
              properties: { t: { const: 'c' }, r: { type: 'number' } },
              required: ['t', 'r'],
            },
            {
              type: 'object',
              properties: { t: { const: 's' }, w: { type: 'number' } },
              required: ['t', 'w'],
            },
          ],
        },
        email: { type: 'string', format: 'email' },
        level: { anyOf: [{ const: 1 }, { const: 2 }] },
        pair: {
          type: 'array',
          prefixItems: [{ type: 'string' }, { type: 'number' }],
          items: false,
          minItems: 2,
        },
      },
      required: ['name', 'age', 'kind', 'tags', 'pick', 'shape', 'level', 'pair'],
    },
  ],
];

const GOOD = {
  name: 'abc',
  age: 3,
  kind: 'a',
  tags: ['x'],
  pick: 'p',
  shape: { t: 'c', r: 1 },
  level: 1,
  pair: ['p', 1],
};
const { name: _name, ...withoutName } = GOOD;

/** Bad arguments, and the one text every kind gives for them (after `Invalid arguments for find: `). */
const BAD: Array<[what: string, args: object, text: string]> = [
  ['a wrong type', { ...GOOD, name: 5 }, 'name: expected a string of 2 to 5 characters, received 5'],
  ['a missing property', withoutName, 'name: expected a string of 2 to 5 characters, received nothing'],
  // An object given to invokeTool: a property set to undefined is an absent one, as in JSON.
  [
    'a property set to undefined',
    { ...GOOD, name: undefined },
    'name: expected a string of 2 to 5 characters, received nothing',
  ],
  ['null', { ...GOOD, name: null }, 'name: expected a string of 2 to 5 characters, received null'],
  [
    'a string too long',
    { ...GOOD, name: 'abcdefg' },
    'name: expected a string of 2 to 5 characters, received a string of 7 characters',
  ],
  ['a fraction for an integer', { ...GOOD, age: 1.5 }, 'age: expected an integer >= 0, received 1.5'],
  ['a number too small', { ...GOOD, age: -1 }, 'age: expected an integer >= 0, received -1'],
  // The JSON Schema path listed this one twice (its type, then its enum).
  [
    'a value of no enum, of the wrong type',
    { ...GOOD, kind: 5 },
    'kind: expected one of "a", "b", received 5',
  ],
  ['a value of no enum', { ...GOOD, kind: 'c' }, 'kind: expected one of "a", "b", received "c"'],
  ['a wrong array item', { ...GOOD, tags: ['x', 3] }, 'tags[1]: expected a string, received 3'],
  [
    'too many items',
    { ...GOOD, tags: ['x', 'y', 'z'] },
    'tags: expected an array of at most 2 items, each a string, received an array of 3 items',
  ],
  // zod said only `Invalid input` here.
  [
    'a value no variant of a union takes',
    { ...GOOD, pick: true },
    'pick: expected a number or a string, received true',
  ],
  [
    'a discriminator no variant takes',
    { ...GOOD, shape: { t: 'x' } },
    'shape.t: expected one of "c", "s", received "x"',
  ],
  [
    'a wrong field of the variant chosen',
    { ...GOOD, shape: { t: 'c', r: 'no' } },
    'shape.r: expected a number, received "no"',
  ],
  [
    'an unknown property',
    { ...GOOD, extra: 1 },
    'extra: expected no such property (known: age, email, kind, level, name, pair, pick, shape, tags), received 1',
  ],
  // A union of literals reads as the enum it equals (zod 3 and arktype announce an enum, the others an anyOf).
  ['a value no literal takes', { ...GOOD, level: 3 }, 'level: expected one of 1, 2, received 3'],
  // A closed tuple reads by its length (zod announces maxItems, the others items: false).
  [
    'a tuple too long',
    { ...GOOD, pair: ['p', 1, 2] },
    'pair: expected an array of exactly 2 items, received an array of 3 items',
  ],
  [
    'a malformed email',
    { ...GOOD, email: 'nope' },
    'email: expected a string in the format "email", received "nope"',
  ],
  [
    'several mistakes',
    { ...GOOD, name: 5, kind: 'c', tags: ['x', 3] },
    'name: expected a string of 2 to 5 characters, received 5; kind: expected one of "a", "b", received "c"; ' +
      'tags[1]: expected a string, received 3',
  ],
];

describe.each(LIBRARIES)('refused arguments, %s', (_kind, parameters) => {
  const find = tool({
    name: 'find',
    description: 'Finds.',
    parameters: parameters as ToolParameters,
    execute: () => 'ok',
  });

  it('accepts the good arguments', async () => {
    expect(await invokeTool(find, GOOD)).toMatchObject({ status: 'ok' });
  });

  it.each(BAD)('reads the same for %s', async (_what, args, text) => {
    expect(await invokeTool(find, args)).toMatchObject({
      status: 'invalid_arguments',
      output: `Invalid arguments for find: ${text}`,
    });
  });
});

describe('refused arguments, what the announcement cannot say', () => {
  it('keeps the library’s message for a refinement, after the announcement’s issues', async () => {
    const more = tool({
      name: 'more',
      description: 'd',
      parameters: z4.object({ n: z4.number().refine((n) => n > 1, 'must be more than 1'), s: z4.string() }),
      execute: () => 'ok',
    });
    expect((await invokeTool(more, { n: 0, s: 1 })).output).toBe(
      'Invalid arguments for more: s: expected a string, received 1; n: must be more than 1',
    );
  });
});

describe('refused arguments, redacted', () => {
  it('replaces the value of a sensitive field it shows, as in every text the model reads', async () => {
    const unlock = tool({
      name: 'unlock',
      description: 'd',
      sensitiveFieldNames: ['code'],
      parameters: z4.object({ code: z4.enum(['open']), n: z4.number() }),
      execute: () => 'ok',
    });
    expect((await invokeTool(unlock, { code: 'hunter2', n: 'hunter2' })).output).toBe(
      'Invalid arguments for unlock: code: expected "open", received "[redacted]"; n: expected a number, received "[redacted]"',
    );
  });
});

describe('refused arguments, bounded', () => {
  const many = tool({
    name: 'many',
    description: 'd',
    parameters: {
      type: 'object',
      properties: {
        v: { anyOf: [1, 2, 3, 4, 5, 6].map((minLength) => ({ type: 'string', minLength })) },
        e: { enum: Array.from({ length: 12 }, (_, n) => `value${n}`) },
        s: { type: 'string', pattern: `^${'x'.repeat(80)}$` },
        k: { type: 'string', enum: ['a'] },
      },
    },
    execute: () => 'ok',
  });

  it('names at most four variants of a union, then counts the rest', async () => {
    expect((await invokeTool(many, { v: 1 })).output).toBe(
      'Invalid arguments for many: v: expected a string of at least 1 character, a string of at least 2 characters, ' +
        'a string of at least 3 characters, a string of at least 4 characters or 2 more, received 1',
    );
  });

  it('names at most eight values of an enum, and cuts long values and patterns', async () => {
    expect((await invokeTool(many, { e: 'z'.repeat(100), s: 'y' })).output).toBe(
      'Invalid arguments for many: e: expected one of "value0", "value1", "value10", "value11", "value2", "value3", ' +
        `"value4", "value5", or 4 more, received a string of 100 characters; s: expected a string matching /^${'x'.repeat(38)}…/, received "y"`,
    );
  });
});

describe('refused arguments, counted', () => {
  const wide = (count: number) => {
    const names = Array.from({ length: count }, (_, n) => `p${n}`);
    return tool({
      name: 'wide',
      description: 'd',
      parameters: {
        type: 'object',
        properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
        required: names,
      },
      execute: () => 'ok',
    });
  };
  const ending = async (count: number) => (await invokeTool(wide(count), {})).output.split('; ').at(-1);

  it('counts the issues past the ten it lists exactly, up to a hundred', async () => {
    expect(await ending(11)).toBe('and 1 more');
    expect(await ending(100)).toBe('and 90 more');
  });

  it('says "over" once the explanation stops at a hundred with more to say', async () => {
    expect(await ending(101)).toBe('and over 90 more');
    expect(await ending(250)).toBe('and over 90 more');
  });
});

describe('refused arguments, a long enum', () => {
  // An enum of more than 32 values read as none: the model was told "expected one of , received …".
  const values = Array.from({ length: 40 }, (_, n) => `v${String(n).padStart(2, '0')}`);
  const expected =
    'Invalid arguments for big: e: expected one of "v00", "v01", "v02", "v03", "v04", "v05", "v06", "v07", ' +
    'or 32 more, received "zz"';
  it.each([
    ['JSON Schema', { type: 'object', properties: { e: { enum: values } }, required: ['e'] }],
    ['zod 4', z4.object({ e: z4.enum(values as [string, ...string[]]) })],
    ['zod 3', z3.object({ e: z3.enum(values as [string, ...string[]]) })],
    ['valibot', v.object({ e: v.picklist(values) })],
    ['arktype', type({ e: type.enumerated(...values) })],
  ])('names its first eight values and counts the rest, %s', async (_kind, parameters) => {
    const big = tool({
      name: 'big',
      description: 'd',
      parameters: parameters as ToolParameters,
      execute: () => 'ok',
    });
    expect((await invokeTool(big, { e: 'zz' })).output).toBe(expected);
    expect((await invokeTool(big, { e: 'v39' })).output).toBe('ok');
  });
});

describe('refused arguments, long keys and messages', () => {
  const HUGE = 'k'.repeat(200_000);
  const CUT = `"${'k'.repeat(38)}…" (200000 characters)`;
  const LONG: Array<[kind: string, parameters: unknown]> = [
    [
      'zod 4',
      z4.strictObject({
        rec: z4.record(z4.string(), z4.number()),
        inner: z4.strictObject({ a: z4.number() }),
      }),
    ],
    [
      'zod 3',
      z3
        .object({
          rec: z3.record(z3.string(), z3.number()),
          inner: z3.object({ a: z3.number() }).strict(),
        })
        .strict(),
    ],
    [
      'valibot',
      v.strictObject({
        rec: v.record(v.string(), v.number()),
        inner: v.strictObject({ a: v.number() }),
      }),
    ],
    [
      'arktype',
      type({ '+': 'reject', rec: 'Record<string, number>', inner: { '+': 'reject', a: 'number' } }),
    ],
    [
      'JSON Schema',
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          rec: { type: 'object', additionalProperties: { type: 'number' } },
          inner: {
            type: 'object',
            additionalProperties: false,
            properties: { a: { type: 'number' } },
            required: ['a'],
          },
        },
        required: ['rec', 'inner'],
      },
    ],
  ];
  const OK = { rec: {}, inner: { a: 1 } };
  const ROWS: Array<[what: string, args: object, text: string]> = [
    [
      'a huge unknown key',
      { ...OK, [HUGE]: 1 },
      `[${CUT}]: expected no such property (known: inner, rec), received 1`,
    ],
    ['a huge record key', { ...OK, rec: { [HUGE]: 'x' } }, `rec[${CUT}]: expected a number, received "x"`],
    [
      'a huge key in a nested path',
      { ...OK, inner: { a: 1, [HUGE]: 1 } },
      `inner[${CUT}]: expected no such property (known: a), received 1`,
    ],
  ];

  describe.each(LONG)('%s', (_kind, parameters) => {
    const keys = tool({
      name: 'keys',
      description: 'd',
      parameters: parameters as ToolParameters,
      execute: () => 'ok',
    });
    it.each(ROWS)('cuts %s to its start and length', async (_what, args, text) => {
      expect(await invokeTool(keys, args)).toMatchObject({
        status: 'invalid_arguments',
        output: `Invalid arguments for keys: ${text}`,
      });
    });
  });

  // arktype says `must be <what>` of its own.
  const REFINED: Array<[kind: string, parameters: unknown, said: string]> = [
    ['zod 4', z4.object({ n: z4.number().refine((n) => n > 1, HUGE) }), ''],
    ['zod 3', z3.object({ n: z3.number().refine((n) => n > 1, HUGE) }), ''],
    [
      'valibot',
      v.object({
        n: v.pipe(
          v.number(),
          v.check((n) => n > 1, HUGE),
        ),
      }),
      '',
    ],
    ['arktype', type({ n: type('number').narrow((n, ctx) => n > 1 || ctx.mustBe(HUGE)) }), 'must be '],
  ];
  it.each(REFINED)('cuts a huge refinement message, %s', async (_kind, parameters, said) => {
    const refined = tool({
      name: 'refined',
      description: 'd',
      parameters: parameters as ToolParameters,
      execute: () => 'ok',
    });
    const { status, output } = await invokeTool(refined, { n: 0 });
    expect(status).toBe('invalid_arguments');
    const line = `n: ${said}`;
    expect(output).toBe(
      `Invalid arguments for refined: ${line}${'k'.repeat(MAX_ISSUE_LINE - line.length - 1)}…`,
    );
  });

  it('cuts a huge property name the schema declares, in a path and among the known ones', async () => {
    const wide = tool({
      name: 'wide',
      description: 'd',
      parameters: {
        type: 'object',
        additionalProperties: false,
        properties: { [HUGE]: { type: 'number' } },
        required: [HUGE],
      },
      execute: () => 'ok',
    });
    expect((await invokeTool(wide, { x: 1 })).output).toBe(
      `Invalid arguments for wide: [${CUT}]: expected a number, received nothing; ` +
        `x: expected no such property (known: ${CUT}), received 1`,
    );
  });
});

describe('refused arguments, keywords that judge an object or an array as a whole', () => {
  // Each of these was read as "expected an object, received an object" (or "expected any value, received …"):
  // true of the value and of no use to a model mending its call.
  const refused = async (parameters: unknown, args: Record<string, unknown>) =>
    (
      await invokeTool(
        tool({ name: 't', description: 'd', parameters: parameters as ToolParameters, execute: () => 'ok' }),
        args,
      )
    ).output;
  const pair = { a: { type: 'string' }, b: { type: 'string' } };

  it('says nothing more inside a value it has refused whole, when two schemas apply to it', async () => {
    const list = {
      allOf: [
        { type: 'array', items: { enum: [{ x: 'a' }, { x: 'b' }] } },
        { items: { properties: { x: { type: 'string' } } } },
      ],
    };
    expect(await refused({ type: 'object', properties: { list } }, { list: [{ x: 5 }] })).toBe(
      'Invalid arguments for t: list[0]: expected one of {"x":"a"}, {"x":"b"}, received an object',
    );
  });

  it('says which branch of if / then / else failed, and where', async () => {
    const conditional = {
      type: 'object',
      properties: { kind: { type: 'string' }, b: { type: 'string' } },
      if: { properties: { kind: { const: 'x' } }, required: ['kind'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword
      then: { required: ['b'] },
      else: { properties: { b: { maxLength: 1 } } },
    };
    expect(await refused(conditional, { kind: 'x' })).toBe(
      'Invalid arguments for t: b: expected a string, received nothing',
    );
    expect(await refused(conditional, { kind: 'y', b: 'long' })).toBe(
      'Invalid arguments for t: b: expected a string of at most 1 character, received a string of 4 characters',
    );
  });

  it('says what the then or else an if chose asks of a value that is no object', async () => {
    const conditional = (rules: object) => ({ type: 'object', properties: { x: rules }, required: ['x'] });
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword
    const number = { if: { type: 'number' }, then: { minimum: 5 }, else: { type: 'string' } };
    expect(await refused(conditional(number), { x: -1 })).toBe(
      'Invalid arguments for t: x: expected a value >= 5, received -1',
    );
    expect(await refused(conditional(number), { x: true })).toBe(
      'Invalid arguments for t: x: expected a string, received true',
    );
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword
    const even = { type: 'number', if: { minimum: 0 }, then: { multipleOf: 2 } };
    expect(await refused(conditional(even), { x: 3 })).toBe(
      'Invalid arguments for t: x: expected a number that is a multiple of 2, received 3',
    );
  });

  it('names a property another one requires (dependentRequired, draft-07 dependencies)', async () => {
    const expected = 'Invalid arguments for t: b: expected a string (as a is given), received nothing';
    expect(
      await refused({ type: 'object', properties: pair, dependentRequired: { a: ['b'] } }, { a: 'x' }),
    ).toBe(expected);
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: pair,
      dependencies: { a: ['b'] },
    };
    expect(await refused(draft07, { a: 'x' })).toBe(expected);
  });

  it('applies a dependent schema of a property given', async () => {
    const dependent = {
      type: 'object',
      properties: pair,
      dependentSchemas: { a: { properties: { b: { minLength: 3 } }, required: ['b'] } },
    };
    expect(await refused(dependent, { a: 'x', b: 'y' })).toBe(
      'Invalid arguments for t: b: expected a string of at least 3 characters, received a string of 1 character',
    );
  });

  it('names a property whose name is refused (propertyNames, a zod record of enum keys)', async () => {
    expect(await refused({ type: 'object', propertyNames: { pattern: '^[a-z]+$' } }, { ok: 1, A1: 2 })).toBe(
      'Invalid arguments for t: A1: expected a name matching /^[a-z]+$/, received "A1"',
    );
    const record = z4.object({ r: z4.record(z4.enum(['a', 'b']), z4.number()) });
    expect(await refused(record, { r: { a: 1, b: 2, c: 3 } })).toBe(
      'Invalid arguments for t: r.c: expected a name one of "a", "b", received "c"',
    );
  });

  it('names the repeated item of an array whose items must be unique, and what an array must contain', async () => {
    const lists = {
      type: 'object',
      properties: {
        u: { type: 'array', uniqueItems: true },
        c: { type: 'array', contains: { const: 5 } },
        m: { type: 'array', contains: { type: 'string' }, minContains: 2 },
      },
    };
    expect(await refused(lists, { u: [1, { a: 1, b: 2 }, { b: 2, a: 1 }], c: [1], m: ['x', 1] })).toBe(
      'Invalid arguments for t: u[2]: expected an item unlike the ones before it, received an object; ' +
        'c: expected an array holding 5, received an array of 1 item; ' +
        'm: expected an array holding at least 2 items each a string, received an array of 2 items',
    );
  });

  it('says how many properties an object must have (minProperties, maxProperties)', async () => {
    const counted = {
      type: 'object',
      properties: {
        few: { type: 'object', minProperties: 2 },
        one: { type: 'object', minProperties: 1, maxProperties: 1 },
      },
    };
    expect(await refused(counted, { few: { a: 1 }, one: {} })).toBe(
      'Invalid arguments for t: few: expected an object of at least 2 properties, received an object with 1 property; ' +
        'one: expected an object of exactly 1 property, received an object with 0 properties',
    );
  });

  it('names what unevaluatedProperties and unevaluatedItems refuse', async () => {
    const closed = {
      type: 'object',
      allOf: [{ properties: { a: { type: 'string' } } }],
      properties: { l: { type: 'array', prefixItems: [{ type: 'number' }], unevaluatedItems: false } },
      unevaluatedProperties: false,
    };
    expect(await refused(closed, { a: 'x', l: [1, 2], b: 1 })).toBe(
      'Invalid arguments for t: l[1]: expected at most 1 item, received 2; ' +
        'b: expected no such property (known: a, l), received 1',
    );
    expect(
      await refused(
        { type: 'object', properties: { x: { type: 'object', propertyNames: false } } },
        { x: { a: 1 } },
      ),
    ).toBe('Invalid arguments for t: x.a: expected no such property, received 1');
  });

  it('says what a value must not be (not)', async () => {
    expect(await refused({ type: 'object', properties: { a: { not: { const: 'x' } } } }, { a: 'x' })).toBe(
      'Invalid arguments for t: a: expected anything but "x", received "x"',
    );
    expect(await refused({ type: 'object', properties: pair, not: { required: ['a'] } }, { a: 'x' })).toBe(
      'Invalid arguments for t: (root): expected a value its "not" schema refuses, received an object',
    );
  });
});

describe('refused arguments, a union of objects', () => {
  const UNIONS: Array<[kind: string, parameters: unknown]> = [
    ['zod 4', z4.union([z4.object({ a: z4.string() }), z4.object({ b: z4.number() })])],
    ['zod 3', z3.union([z3.object({ a: z3.string() }), z3.object({ b: z3.number() })])],
    ['valibot', v.union([v.object({ a: v.string() }), v.object({ b: v.number() })])],
    ['arktype', type({ a: 'string' }).or({ b: 'number' })],
    [
      'JSON Schema',
      {
        anyOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
        ],
      },
    ],
  ];

  // Both read `an object`: it said `(root): expected an object, received an object`.
  it.each(UNIONS)(
    '%s: enters the shape whose keys were sent, else names each by what it requires',
    async (_, parameters) => {
      const pick = tool({
        name: 'pick',
        description: 'd',
        parameters: parameters as ToolParameters,
        execute: () => 'ok',
      });
      expect(await invokeTool(pick, { a: 1 })).toMatchObject({
        status: 'invalid_arguments',
        output: 'Invalid arguments for pick: a: expected a string, received 1',
      });
      expect(await invokeTool(pick, { c: 1 })).toMatchObject({
        status: 'invalid_arguments',
        output:
          'Invalid arguments for pick: (root): expected an object with a or an object with b, received an object',
      });
    },
  );
});
