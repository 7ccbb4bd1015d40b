import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { faultsOf, ruleOf } from '../../src/wire/issue-text';

/** Every fault of `value` against `schema`, as `path: rule` (`(root)` for the value itself). */
function faults(schema: z.ZodMiniType, value: unknown): string[] {
  const parsed = schema.safeParse(value, { error: ruleOf });
  if (parsed.success) return [];
  return parsed.error.issues
    .flatMap((issue) => faultsOf(issue))
    .map(({ path, rule }) => `${path.length === 0 ? '(root)' : path.join('.')}: ${rule}`);
}

const SECRET = 'sk-live-0123456789abcdef';

describe('ruleOf: the rule of every issue code zod/mini raises, in words', () => {
  const cases: Array<[string, z.ZodMiniType, unknown, string[]]> = [
    // invalid_type
    ['a string', z.string(), 1, ['(root): must be a string']],
    ['a number', z.number(), '1', ['(root): must be a number']],
    ['a finite number', z.number(), Number.NaN, ['(root): must be a finite number']],
    ['an integer', z.number().check(z.int()), 1.5, ['(root): must be an integer']],
    ['a boolean', z.boolean(), 'yes', ['(root): must be a boolean']],
    ['an object', z.object({}), [], ['(root): must be an object']],
    ['a record is an object', z.record(z.string(), z.unknown()), 'x', ['(root): must be an object']],
    ['an array', z.array(z.string()), {}, ['(root): must be an array']],
    ['null', z.null(), 0, ['(root): must be null']],
    // too_small, too_big: characters, items, numbers
    ['a short string', z.string().check(z.minLength(2)), 'x', ['(root): must be at least 2 characters']],
    ['one character', z.string().check(z.minLength(1)), '', ['(root): must be at least 1 character']],
    ['a long string', z.string().check(z.maxLength(3)), 'abcd', ['(root): must be at most 3 characters']],
    ['an exact length', z.string().check(z.length(2)), 'abc', ['(root): must be exactly 2 characters']],
    ['too few items', z.array(z.string()).check(z.minLength(1)), [], ['(root): must have at least 1 item']],
    [
      'too many items',
      z.array(z.string()).check(z.maxLength(2)),
      ['a', 'b', 'c'],
      ['(root): must have at most 2 items'],
    ],
    [
      'too many in a set',
      z.set(z.string()).check(z.maxSize(1)),
      new Set(['a', 'b']),
      ['(root): must have at most 1 item'],
    ],
    ['a small number', z.number().check(z.minimum(3)), 2, ['(root): must be at least 3']],
    ['a large number', z.number().check(z.maximum(3)), 4, ['(root): must be at most 3']],
    ['a positive number', z.number().check(z.positive()), 0, ['(root): must be greater than 0']],
    ['a negative number', z.number().check(z.negative()), 0, ['(root): must be less than 0']],
    ['a safe integer', z.number().check(z.int()), 2 ** 53, ['(root): must be at most 9007199254740991']],
    [
      'a safe negative integer',
      z.number().check(z.int()),
      -(2 ** 53),
      ['(root): must be at least -9007199254740991'],
    ],
    // invalid_format
    [
      'a pattern without words',
      z.string().check(z.regex(/^a+$/)),
      'b',
      ['(root): must match the pattern /^a+$/'],
    ],
    [
      'a pattern with words',
      z.string().check(z.regex(/^a+$/, { error: 'must be a run of a' })),
      'b',
      ['(root): must be a run of a'],
    ],
    ['a prefix', z.string().check(z.startsWith('ab')), 'x', ['(root): must start with "ab"']],
    ['a suffix', z.string().check(z.endsWith('ab')), 'x', ['(root): must end with "ab"']],
    ['an inclusion', z.string().check(z.includes('ab')), 'x', ['(root): must include "ab"']],
    ['lower case', z.string().check(z.lowercase()), 'X', ['(root): must be in lowercase']],
    ['a string format', z.email(), 'x', ['(root): must be a valid email']],
    // not_multiple_of, unrecognized_keys, invalid_value
    ['a multiple', z.number().check(z.multipleOf(5)), 3, ['(root): must be a multiple of 5']],
    [
      'no other fields',
      z.strictObject({ a: z.number() }),
      { a: 1, b: 2, c: 3 },
      ['(root): must have no other fields (it has 2 others)'],
    ],
    ['a literal', z.literal(true), false, ['(root): must be true']],
    ['an enum', z.enum(['a', 'b', 'c']), 'd', ['(root): must be "a", "b" or "c"']],
    // invalid_union
    [
      'a discriminated union',
      z.discriminatedUnion('type', [z.object({ type: z.literal('a') }), z.object({ type: z.literal('b') })]),
      { type: 'c' },
      ['type: must be "a" or "b"'],
    ],
    ['a union of kinds', z.union([z.string(), z.number()]), true, ['(root): must be a string or a number']],
    [
      'a union listing values',
      z.union([z.enum(['a', 'b']), z.object({ n: z.number() })]),
      5,
      ['(root): must be "a" or "b", or an object'],
    ],
    [
      'a union the value took the shape of',
      z.union([z.enum(['a', 'b']), z.object({ n: z.number() })]),
      { n: 'x' },
      ['n: must be a number'],
    ],
    [
      'a union with words of its own',
      z.union([z.string(), z.number()], { error: 'must be a name or a count' }),
      true,
      ['(root): must be a name or a count'],
    ],
    // invalid_key, invalid_element: the key is left out of the path
    [
      'a record key',
      z.object({ steps: z.record(z.string().check(z.maxLength(3)), z.unknown()) }),
      { steps: { [SECRET]: 1 } },
      ['steps: every key must be at most 3 characters'],
    ],
    [
      'a map key',
      z.object({ m: z.map(z.object({ k: z.string() }), z.number()) }),
      { m: new Map([[{ k: 1 }, 1]]) },
      ['m: every key must be a string'],
    ],
    [
      'a map value',
      z.object({ m: z.map(z.object({}), z.number()) }),
      { m: new Map([[{}, 'x']]) },
      ['m: every value must be a number'],
    ],
    // custom
    [
      'a refinement with words',
      z.number().check(z.refine((n) => n !== 0, { error: 'must not be 0' })),
      0,
      ['(root): must not be 0'],
    ],
    ['a refinement without', z.number().check(z.refine((n) => n !== 0)), 0, ['(root): is not valid']],
  ];

  it.each(cases)('%s', (_name, schema, value, expected) => {
    expect(faults(schema, value)).toEqual(expected);
  });

  // z.xor() came after zod 4.1.
  it.skipIf(!('xor' in z))('an exclusive union', () => {
    const xor = (z as unknown as { xor: typeof z.union }).xor;
    expect(faults(xor([z.string(), z.string().check(z.minLength(1))]), 'x')).toEqual([
      '(root): must match exactly one of its forms',
    ]);
  });

  it('quotes no value and no key the sender chose', () => {
    const schema = z.object({
      a: z.string().check(z.maxLength(3)),
      b: z.enum(['x']),
      c: z.strictObject({}),
      d: z.record(z.string().check(z.maxLength(3)), z.unknown()),
      e: z.string().check(z.regex(/^x$/)),
    });
    const said = faults(schema, { a: SECRET, b: SECRET, c: { [SECRET]: 1 }, d: { [SECRET]: 1 }, e: SECRET });
    expect(said).toHaveLength(5);
    expect(said.join('\n')).not.toContain('sk-live');
  });
});
