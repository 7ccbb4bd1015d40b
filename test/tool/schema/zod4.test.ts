import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { z as z3v4 } from 'zod3/v4';
import { invokeTool, tool } from '../../../src/index';
import { resolveSchema } from '../../../src/tool/schema';
import { withAnnounced } from '../../../src/tool/schema/announced';
import { zod4Adapter } from '../../../src/tool/schema/zod4';
import { zodBefore } from '../../support/zod-version';

const echo = (input: unknown) => input;

// What every kind does alike (announcement, messages, transforms, refinements, refusals) is in adapters.test.ts.
describe('zod 4 parameters', () => {
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
      'Invalid arguments for shape: shape.kind: expected one of "circle", "square", received "tri"',
    );
  });
});

// Schemas zod accepts more of than their announcement: validation must still refuse what the model was told
// is invalid, with the announcement's message.
const looser: Array<[string, z.ZodType, unknown, string]> = [
  [
    'z.coerce.number() given "3"',
    z.object({ n: z.coerce.number() }),
    { n: '3' },
    'n: expected a number, received "3"',
  ],
  [
    '.catch() given nothing',
    z.object({ n: z.number().catch(1) }),
    {},
    'n: expected a number, received nothing',
  ],
  [
    'a record of numbers given a "__proto__" key',
    z.object({ r: z.record(z.string(), z.number()) }),
    '{"r":{"__proto__":"x"}}',
    'r.__proto__: expected a number, received "x"',
  ],
  [
    'z.unknown() named constructor, left out',
    z.object({ constructor: z.unknown() }),
    {},
    'constructor: expected any value, received nothing',
  ],
  [
    'a minimum length added by .meta()',
    z.object({ s: z.string().meta({ minLength: 3 }) }),
    { s: 'a' },
    's: expected a string of at least 3 characters, received a string of 1 character',
  ],
  [
    'a minimum length whose when skips it',
    z.object({ s: z.string().min(3, { when: () => false } as never) }),
    { s: 'a' },
    's: expected a string of at least 3 characters, received a string of 1 character',
  ],
  [
    'an extra key of a strict object piped into a union (zod goes on past it; the union drops it)',
    z.object({
      o: z
        .strictObject({ a: z.string() })
        .pipe(z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.number() })])),
    }),
    { o: { a: 'x', extra: 1 } },
    'o.extra: expected no such property (known: a), received 1',
  ],
  [
    'a too long string whose .superRefine() removes the issue',
    z.object({
      s: z
        .string()
        .max(3)
        .superRefine((_value, ctx) => {
          (ctx as unknown as { issues: unknown[] }).issues.length = 0;
        }),
    }),
    { s: 'abcdef' },
    's: expected a string of at most 3 characters, received a string of 6 characters',
  ],
  [
    'a wrong type whose .check(z.superRefine()), run anyway by its when, removes the issue',
    z.object({
      n: z.number().check(
        z.superRefine(
          (_value, ctx) => {
            (ctx as unknown as { issues: unknown[] }).issues.length = 0;
          },
          { when: () => true } as never,
        ),
      ),
    }),
    { n: 'x' },
    'n: expected a number, received "x"',
  ],
];
// zod announces a tuple's required items as `minItems` from 4.5; before, it announces no `minItems`, and the
// announcement and zod both accept `[]`.
const looserTuples: Array<[string, z.ZodType, unknown, string]> = [
  [
    'an empty tuple with a rest whose nonoptional first item defaults',
    z.object({ t: z.tuple([z.string().default('x').nonoptional()], z.number()) }),
    { t: [] },
    't: expected an array of at least 1 item, received an array of 0 items',
  ],
  [
    'an empty tuple with a rest whose first item takes undefined',
    z.object({ t: z.tuple([z.unknown()], z.string()) }),
    { t: [] },
    't: expected an array of at least 1 item, received an array of 0 items',
  ],
];

const search = z.object({
  query: z.string().min(1).max(5),
  page: z.int().positive().default(1),
  sort: z.enum(['newest', 'oldest']).nullable().optional(),
  tags: z.array(z.string()).max(2).optional(),
});
const searchArguments = [
  '{"query":"😀😀😀😀😀"}',
  '{"query":"abcdef","page":0,"sort":"up","tags":["a","b","c"],"x":1}',
  '{"query":"","page":1.5}',
  '{"page":9007199254740992,"sort":null}',
  '{"query":"a","tags":[1]}',
  '{"query":"a","__proto__":{"x":1}}',
];

describe('zod 4 parameters without Standard JSON Schema', () => {
  const expected = {
    type: 'object',
    properties: { a: { type: 'string', maxLength: 3 }, n: { type: 'number' } },
    required: ['a'],
  };

  it('takes zod/mini parameters: announced through zod’s converter, validated by the schema', async () => {
    const parameters = zm.object({ a: zm.string().check(zm.maxLength(3)), n: zm.optional(zm.number()) });
    const made = tool({ name: 'mini', description: 'd', parameters, execute: (input) => input.a });
    expect(made.definition.parameters).toEqual(expected);
    expect(await invokeTool(made, { a: 'ab', n: 1 })).toMatchObject({ status: 'ok', output: 'ab' });
    // The words are zod's locale's: English once classic zod is loaded (here), "Invalid input" with zod/mini alone.
    expect(await invokeTool(made, { a: 'abcd' })).toMatchObject({
      status: 'invalid_arguments',
      output: expect.stringMatching(/^Invalid arguments for mini: a: /),
    });
    const adapter = resolveSchema(parameters, {
      owner: 'tool "mini"',
      field: 'parameters',
      requireObject: true,
    });
    expect(adapter.kind).toBe('zod4');
    // The proof trusts only the zod minor its rules were checked against (4.6): before, the check stays.
    expect(adapter.acceptsOnlyAnnounced).toBe(zodBefore('4.6.0') ? undefined : true);
  });

  it('takes schemas of zod 3.25’s zod/v4, and keeps the check against their announcement (another zod minor)', async () => {
    const parameters = z3v4.object({ a: z3v4.string().max(3), n: z3v4.number().optional() });
    const made = tool({ name: 'copy', description: 'd', parameters, execute: (input) => input.a });
    expect(made.definition.parameters).toEqual(expected);
    expect(await invokeTool(made, { a: 'ab' })).toMatchObject({ status: 'ok', output: 'ab' });
    expect(await invokeTool(made, { a: 'abcd' })).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for copy: a: expected a string of at most 3 characters, received a string of 4 characters',
    });
    const adapter = resolveSchema(parameters, {
      owner: 'tool "copy"',
      field: 'parameters',
      requireObject: true,
    });
    expect(adapter.kind).toBe('zod4');
    expect(adapter.acceptsOnlyAnnounced).toBeUndefined();
  });
});

describe('zod 4 parameters and their announcement', () => {
  const refused = async (_: string, parameters: z.ZodType, args: unknown, message: string) => {
    const made = tool({ name: 'check', description: 'Checks.', parameters, execute: echo });
    const result = await invokeTool(made, args);
    expect(result).toMatchObject({
      status: 'invalid_arguments',
      output: `Invalid arguments for check: ${message}`,
    });
  };
  it.each(looser)(
    'returns invalid_arguments for %s, which zod accepts and the announcement refuses',
    refused,
  );
  it.skipIf(zodBefore('4.5.0')).each(looserTuples)(
    'returns invalid_arguments for %s, which zod accepts and the announcement refuses',
    refused,
  );

  // zod before 4.5 counts a string's length in UTF-16 units, so .max(5) refuses five emoji that the announced
  // maxLength (code points; JSON Schema has no count of UTF-16 units) accepts: zod's stricter verdict wins.

  it.skipIf(zodBefore('4.5.0'))(
    'gives zod’s verdicts for a schema of trusted constructs, refusals told from the announcement',
    async () => {
      const made = tool({ name: 'search', description: 'Finds.', parameters: search, execute: echo });
      const outputs = [];
      for (const args of searchArguments) outputs.push((await invokeTool(made, args)).output);
      expect(outputs).toEqual([
        '{"query":"😀😀😀😀😀","page":1}',
        'Invalid arguments for search: query: expected a string of 1 to 5 characters, received a string of 6 characters; ' +
          'page: expected an integer > 0, received 0; sort: expected null or one of "newest", "oldest", received "up"; ' +
          'tags: expected an array of at most 2 items, each a string, received an array of 3 items',
        'Invalid arguments for search: query: expected a string of 1 to 5 characters, received a string of 0 characters; ' +
          'page: expected an integer > 0, received 1.5',
        'Invalid arguments for search: query: expected a string of 1 to 5 characters, received nothing; ' +
          'page: 9007199254740992 is past the integers JavaScript holds exactly (±9007199254740991), ' +
          'so the number sent may have been rounded; send it as a string',
        'Invalid arguments for search: tags[0]: expected a string, received 1',
        '{"query":"a","page":1}',
      ]);
    },
  );

  it.skipIf(zodBefore('4.5.0'))(
    'validates a schema of trusted constructs as it would with the check against the announcement',
    async () => {
      const unchecked = zod4Adapter(search);
      const checked = withAnnounced(unchecked, true);
      const accepted = [
        '{"query":"abc","page":3,"sort":null,"tags":["x","y"]}',
        '{"query":"a","sort":"oldest","tags":[],"extra":true}',
      ];
      let ok = 0;
      for (const args of [...searchArguments, ...accepted]) {
        const value = JSON.parse(args) as unknown;
        const alone = await unchecked.validate(value);
        const both = await checked.validate(value);
        // The same verdict (a refusal is worded from the announcement either way).
        expect(both.ok).toBe(alone.ok);
        if (alone.ok) expect(both).toEqual(alone);
        if (alone.ok) ok += 1;
      }
      expect(ok).toBe(4); // both verdicts compared, not only zod's refusals
    },
  );

  // The proof trusts only the zod minor its rules were checked against (4.6).
  it.skipIf(zodBefore('4.6.0'))(
    'leaves the check against the announcement out only for a schema of trusted constructs',
    () => {
      const origin = { owner: 'tool "t"', field: 'parameters', requireObject: true } as const;
      expect(resolveSchema(search, origin).acceptsOnlyAnnounced).toBe(true);
      expect(resolveSchema(z.object({ n: z.coerce.number() }), origin).acceptsOnlyAnnounced).toBeUndefined();
      expect(
        resolveSchema(z.object({ s: z.string().meta({ minLength: 3 }) }), origin).acceptsOnlyAnnounced,
      ).toBe(undefined);
    },
  );

  // zod's second translation (without metadata) is spared when zod read no metadata: any metadata, however
  // reached, must still be compared.
  it.skipIf(zodBefore('4.6.0'))(
    'keeps the check when metadata adds a constraint through a parent, deep inside or by register()',
    () => {
      const origin = { owner: 'tool "t"', field: 'parameters', requireObject: true } as const;
      const trusted = (schema: z.ZodType) => resolveSchema(schema, origin).acceptsOnlyAnnounced;
      expect(trusted(z.object({ s: z.string().meta({ minLength: 3 }).max(9) }))).toBeUndefined();
      expect(
        trusted(z.object({ a: z.array(z.object({ s: z.string().meta({ minimum: 3 }) })) })),
      ).toBeUndefined();
      expect(trusted(z.object({ n: z.number().optional().meta({ maximum: 1 }) }))).toBeUndefined();
      const registered = z.number();
      z.globalRegistry.add(registered, { multipleOf: 2 } as never);
      expect(trusted(z.object({ n: registered }))).toBeUndefined();
      expect(trusted(z.object({ q: z.string().describe('Query').max(9) }))).toBe(true);
      expect(trusted(z.object({ q: z.string().max(9), n: z.number().int().optional() }))).toBe(true);
    },
  );

  // Such a schema's validator is made at its first refusal, not when the tool is defined.
  it.skipIf(zodBefore('4.6.0'))(
    'tells a refusal of a trusted schema from its announcement, synchronously, from the first on',
    () => {
      const origin = { owner: 'tool "t"', field: 'parameters', requireObject: true } as const;
      const adapter = resolveSchema(z.object({ n: z.number().max(3) }), origin);
      expect(adapter.acceptsOnlyAnnounced).toBe(true);
      expect(adapter.validate({ n: 2 })).toEqual({ ok: true, value: { n: 2 } });
      const issue = (message: string) => ({ ok: false, issues: [{ path: 'n', message }] });
      expect(adapter.validate({ n: 5 })).toEqual(issue('expected a number <= 3, received 5'));
      expect(adapter.validate({ n: 'x' })).toEqual(issue('expected a number <= 3, received "x"'));
    },
  );
});
