/**
 * What every schema kind does alike, run over one table: the same tool (`find`: a described query, a page that
 * defaults to 1, optional nested filters) written in each kind, the same arguments, and what each kind must
 * announce, refuse and pass to `execute`. A row per kind: zod 4, zod 3, valibot, arktype, JSON Schema, and none
 * (no `parameters`). What only one kind does stays in its own file (zod4.test.ts, json-schema.test.ts, ...).
 */
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z as z4 } from 'zod';
import { z as z3 } from 'zod3';
import { invokeTool, type ToolParameters, tool } from '../../../src/index';
import type { JsonObject, SchemaAdapter } from '../../../src/tool/schema/adapter';
import { withOwnPropertiesOnly } from '../../../src/tool/schema/announced';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;

/** The arguments every kind is given, with three mistakes: a number for a string, 0 for a page, an empty field. */
const BAD = { q: 5, page: 0, filters: [{ field: '', op: 'eq' }] };

/** What the filters announce, as each kind writes an enum of two strings. */
const filters = (op: Record<string, unknown>) => ({
  type: 'array',
  items: {
    type: 'object',
    properties: { field: { type: 'string', minLength: 1 }, op },
    required: ['field', 'op'],
  },
});

interface Library {
  kind: string;
  /** `find`'s parameters in this kind. */
  find: unknown;
  /** What `find` announces. */
  announced: Record<string, unknown>;
  /** What the model reads for {@link BAD} (see {@link BAD_TEXT}). */
  invalid: string;
  /** What `execute` gets for `{"q":"shoes"}`. */
  parsed: Record<string, unknown>;
  /** A field given as a string and handed to `execute` as its length, where the kind has transforms. */
  transform?: unknown;
  /** A number field with a check JSON Schema cannot say (more than 1), and the message it fails 0 with. */
  refine?: [schema: unknown, message: string];
  /** `tags`: a record of strings (which some libraries would accept an array for), how it is announced, and the message for `[]`. */
  record: [schema: unknown, announced: Record<string, unknown>, message: string];
  /** Parameters that do not describe an object, and the type they describe. */
  notObject: [schema: unknown, type: string];
  /** Fields JSON Schema cannot represent: what, the parameters holding one, and the converter's reason. */
  unrepresentable: Array<[what: string, schema: unknown, reason: string]>;
}

const ARRAY_NOT_OBJECT = 'expected an object, received an array of 0 items';
/**
 * What the model reads for {@link BAD}, the same for every kind: told from the announced schema. The kinds differ
 * only where their schemas do: zod and arktype say `.positive()` (`> 0`), valibot and the JSON Schema `>= 1`.
 */
const BAD_TEXT = (page: string) =>
  `q: expected a string of at least 1 character, received 5; page: expected an integer ${page}, received 0; ` +
  'filters[0].field: expected a string of at least 1 character, received a string of 0 characters';
const GT0 = BAD_TEXT('> 0');
const GE1 = BAD_TEXT('>= 1');
const RECORD = { type: 'object', additionalProperties: { type: 'string' } };
/** A record as the converters that also name the keys' type announce it. */
const RECORD_NAMED = { ...RECORD, propertyNames: { type: 'string' } };

const LIBRARIES: Library[] = [
  {
    kind: 'zod 4',
    find: z4.object({
      q: z4.string().min(1).describe('Query'),
      page: z4.number().int().positive().default(1),
      filters: z4.array(z4.object({ field: z4.string().min(1), op: z4.enum(['eq', 'ne']) })).optional(),
    }),
    announced: {
      q: { type: 'string', minLength: 1, description: 'Query' },
      page: { default: 1, type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
      filters: filters({ type: 'string', enum: ['eq', 'ne'] }),
    },
    invalid: GT0,
    parsed: { q: 'shoes', page: 1 },
    transform: z4.object({ text: z4.string().transform((s) => s.length) }),
    refine: [
      z4.object({ n: z4.number().refine((n) => n > 1, 'must be more than 1') }),
      'must be more than 1',
    ],
    record: [z4.object({ tags: z4.record(z4.string(), z4.string()) }), RECORD_NAMED, ARRAY_NOT_OBJECT],
    notObject: [z4.string(), 'string'],
    unrepresentable: [
      ['z.date()', z4.object({ at: z4.date() }), 'Date cannot be represented in JSON Schema'],
      ['z.bigint()', z4.object({ n: z4.bigint() }), 'BigInt cannot be represented in JSON Schema'],
    ],
  },
  {
    kind: 'zod 3',
    find: z3.object({
      q: z3.string().min(1).describe('Query'),
      page: z3.number().int().positive().default(1),
      filters: z3.array(z3.object({ field: z3.string().min(1), op: z3.enum(['eq', 'ne']) })).optional(),
    }),
    announced: {
      q: { type: 'string', minLength: 1, description: 'Query' },
      page: { type: 'integer', exclusiveMinimum: 0, default: 1 },
      filters: filters({ type: 'string', enum: ['eq', 'ne'] }),
    },
    invalid: GT0,
    parsed: { q: 'shoes', page: 1 },
    transform: z3.object({ text: z3.string().transform((s) => s.length) }),
    refine: [
      z3.object({ n: z3.number().refine((n) => n > 1, 'must be more than 1') }),
      'must be more than 1',
    ],
    record: [z3.object({ tags: z3.record(z3.string(), z3.string()) }), RECORD, ARRAY_NOT_OBJECT],
    notObject: [z3.array(z3.string()), 'array'],
    unrepresentable: [
      ['z.date()', z3.object({ v: z3.date() }), 'z.date() cannot be represented in JSON Schema'],
      ['z.bigint()', z3.object({ v: z3.bigint() }), 'z.bigint() cannot be represented in JSON Schema'],
      [
        'z.map()',
        z3.object({ v: z3.map(z3.string(), z3.string()) }),
        'z.map() cannot be represented in JSON Schema',
      ],
      ['z.set()', z3.object({ v: z3.set(z3.string()) }), 'z.set() cannot be represented in JSON Schema'],
      ['z.symbol()', z3.object({ v: z3.symbol() }), 'z.symbol() cannot be represented in JSON Schema'],
      ['z.function()', z3.object({ v: z3.function() }), 'z.function() cannot be represented in JSON Schema'],
    ],
  },
  {
    kind: 'valibot',
    find: v.object({
      q: v.pipe(v.string(), v.minLength(1), v.description('Query')),
      page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
      filters: v.optional(
        v.array(v.object({ field: v.pipe(v.string(), v.minLength(1)), op: v.picklist(['eq', 'ne']) })),
      ),
    }),
    announced: {
      q: { type: 'string', minLength: 1, description: 'Query' },
      page: { type: 'integer', minimum: 1, default: 1 },
      filters: filters({ enum: ['eq', 'ne'], type: 'string' }),
    },
    invalid: GE1,
    parsed: { q: 'shoes', page: 1 },
    transform: v.object({
      text: v.pipe(
        v.string(),
        v.transform((s) => s.length),
      ),
    }),
    refine: [
      v.object({
        n: v.pipe(
          v.number(),
          v.check((n) => n > 1, 'must be more than 1'),
        ),
      }),
      'must be more than 1',
    ],
    record: [v.object({ tags: v.record(v.string(), v.string()) }), RECORD_NAMED, ARRAY_NOT_OBJECT],
    notObject: [v.array(v.string()), 'array'],
    unrepresentable: [
      ['v.date()', v.object({ at: v.date() }), 'The "date" schema cannot be converted to JSON Schema.'],
      ['v.bigint()', v.object({ at: v.bigint() }), 'The "bigint" schema cannot be converted to JSON Schema.'],
    ],
  },
  {
    kind: 'arktype',
    find: type({
      q: type('string > 0').describe('a query'),
      page: ['number.integer > 0', '=', 1],
      'filters?': type({ field: 'string > 0', op: "'eq' | 'ne'" }).array(),
    }),
    announced: {
      q: { type: 'string', description: 'a query', minLength: 1 },
      page: { type: 'integer', exclusiveMinimum: 0, default: 1 },
      filters: filters({ enum: ['eq', 'ne'] }),
    },
    invalid: GT0,
    parsed: { q: 'shoes', page: 1 },
    transform: type({ text: type('string').pipe((s) => s.length) }),
    refine: [
      type({ n: type('number').narrow((n) => n > 1) }),
      'must be valid according to an anonymous predicate (was 0)',
    ],
    record: [type({ tags: 'Record<string, string>' }), RECORD, ARRAY_NOT_OBJECT],
    notObject: [type('number'), 'number'],
    unrepresentable: [
      ['a Date', type({ at: 'Date' }), 'a Date cannot be represented in JSON Schema'],
      ['a bigint value', type({ at: 'bigint' }), 'a bigint value cannot be represented in JSON Schema'],
      [
        'an instance of Map',
        type({ at: type.instanceOf(Map) }),
        'an instance of Map cannot be represented in JSON Schema',
      ],
    ],
  },
  {
    kind: 'JSON Schema',
    find: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        q: { type: 'string', minLength: 1, description: 'Query' },
        page: { type: 'integer', minimum: 1, default: 1 },
        filters: filters({ enum: ['eq', 'ne'] }),
      },
      required: ['q'],
    },
    // Announced as written, without $schema.
    announced: {
      q: { type: 'string', minLength: 1, description: 'Query' },
      page: { type: 'integer', minimum: 1, default: 1 },
      filters: filters({ enum: ['eq', 'ne'] }),
    },
    invalid: GE1,
    // Defaults are announced, not applied: execute gets the arguments as sent.
    parsed: { q: 'shoes' },
    record: [{ type: 'object', properties: { tags: RECORD } }, RECORD, ARRAY_NOT_OBJECT],
    notObject: [{ type: 'string' }, 'string'],
    unrepresentable: [],
  },
];

const define = (name: string, parameters: unknown, execute: (input: never) => unknown = echo) =>
  tool({ name, description: 'd', parameters: parameters as ToolParameters, execute: execute as typeof echo });

describe.each(LIBRARIES)('$kind parameters', (library) => {
  const find = define('find', library.find);

  it('announces the input side with descriptions, defaults (not required), enums and nested arrays', () => {
    expect(find.definition.parameters).toEqual({
      type: 'object',
      properties: library.announced,
      required: ['q'],
    });
    expect(Object.isFrozen(find.definition.parameters)).toBe(true);
  });

  it('returns invalid_arguments naming each path with what the announcement expects there', async () => {
    expect(await invokeTool(find, BAD)).toMatchObject({
      status: 'invalid_arguments',
      output: `Invalid arguments for find: ${library.invalid}`,
    });
  });

  it('gives execute the parsed output, from arguments sent as an object or as JSON text', async () => {
    for (const sent of [{ q: 'shoes' }, '{"q":"shoes"}']) {
      expect(await invokeTool(find, sent)).toMatchObject({
        status: 'ok',
        value: library.parsed,
        output: JSON.stringify(library.parsed),
      });
    }
  });

  it.runIf(library.transform)(
    'announces the input side of a transform and runs execute with its output',
    async () => {
      const count = define('count', library.transform, ({ text }: { text: number }) => text * 2);
      expect(count.definition.parameters).toEqual({
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      });
      expect(await invokeTool(count, { text: 'abc' })).toMatchObject({ status: 'ok', output: '6' });
    },
  );

  it.runIf(library.refine)(
    'leaves a refinement out of the announcement and reports it from validation',
    async () => {
      const [schema, message] = library.refine ?? [];
      const more = define('more', schema);
      expect(more.definition.parameters).toEqual({
        type: 'object',
        properties: { n: { type: 'number' } },
        required: ['n'],
      });
      expect(await invokeTool(more, { n: 0 })).toMatchObject({
        status: 'invalid_arguments',
        output: `Invalid arguments for more: n: ${message}`,
      });
      expect(await invokeTool(more, { n: 2 })).toMatchObject({ status: 'ok', value: { n: 2 } });
    },
  );

  it('refuses an array where the announced schema says object, whatever a record type accepts', async () => {
    const [schema, announced, message] = library.record;
    const tagged = define('tagged', schema);
    expect(tagged.definition.parameters.properties).toEqual({ tags: announced });
    expect(await invokeTool(tagged, { tags: [] })).toMatchObject({
      status: 'invalid_arguments',
      output: `Invalid arguments for tagged: tags: ${message}`,
    });
    expect(await invokeTool(tagged, { tags: { a: 'b' } })).toMatchObject({ status: 'ok' });
  });

  it('refuses parameters that do not describe an object', () => {
    const [schema, described] = library.notObject;
    expectDefinitionError(
      () => define('bad', schema),
      'invalid_parameters',
      `tool "bad": parameters must describe a JSON object (JSON Schema "type": "object"), got "type": "${described}"`,
    );
  });

  it.runIf(library.unrepresentable.length > 0).each(library.unrepresentable)(
    'refuses %s at definition time, with the converter’s reason',
    (_, schema, reason) => {
      expectDefinitionError(
        () => define('x', schema),
        'unsupported_schema',
        `tool "x": parameters cannot be expressed as JSON Schema: ${reason}`,
      );
    },
  );
});

describe('no parameters', () => {
  const ping = tool({ name: 'ping', description: 'd', execute: echo });

  it('announces an object with no properties', () => {
    expect(ping.definition.parameters).toEqual({ type: 'object', properties: {} });
  });

  it.each([[BAD], [{ q: 'shoes' }], ['{"q":"shoes"}'], [''], [null]])(
    'gives execute {} for %j, whatever it holds',
    async (sent) => {
      expect(await invokeTool(ping, sent)).toMatchObject({ status: 'ok', value: {}, output: '{}' });
    },
  );
});

/** Every kind, with no `parameters` as the sixth. */
const KINDS: Array<[kind: string, parameters: unknown]> = [
  ...LIBRARIES.map((library) => [library.kind, library.find] as [string, unknown]),
  ['none', undefined],
];

describe.each(KINDS)('%s: arguments that are not a JSON object', (_, parameters) => {
  const find =
    parameters === undefined
      ? tool({ name: 'find', description: 'd', execute: echo })
      : define('find', parameters);

  it.each([
    ['[1]', 'array'],
    ['"text"', 'string'],
    ['7', 'number'],
  ])('refuses %s before the schema sees it, the same for every kind', async (sent, what) => {
    expect(await invokeTool(find, sent)).toMatchObject({
      status: 'invalid_arguments',
      output: `Invalid arguments for find: expected a JSON object, got ${what}`,
    });
  });
});

describe('properties named as Object.prototype’s (constructor, toString, valueOf)', () => {
  const KINDS: Array<[string, unknown]> = [
    [
      'zod 4',
      z4.object({
        constructor: z4.string(),
        toString: z4.number().optional(),
        valueOf: z4.string().default('d'),
        inner: z4.object({ hasOwnProperty: z4.boolean().optional() }),
      }),
    ],
    [
      'zod 3',
      z3.object({
        constructor: z3.string(),
        toString: z3.number().optional(),
        valueOf: z3.string().default('d'),
        inner: z3.object({ hasOwnProperty: z3.boolean().optional() }),
      }),
    ],
    [
      'valibot',
      v.object({
        constructor: v.string(),
        toString: v.optional(v.number()),
        valueOf: v.optional(v.string(), 'd'),
        inner: v.object({ hasOwnProperty: v.optional(v.boolean()) }),
      }),
    ],
    [
      'arktype',
      type({
        constructor: 'string',
        'toString?': 'number',
        valueOf: ['string', '=', 'd'],
        inner: { 'hasOwnProperty?': 'boolean' },
      }),
    ],
  ];

  it.each(KINDS)(
    '%s: leaves them out when absent (the prototype’s are no values), applying defaults',
    async (_, parameters) => {
      let received: unknown;
      const made = tool({
        name: 'p',
        description: 'd',
        parameters: parameters as ToolParameters,
        execute: (input) => {
          received = input;
          return 'ran';
        },
      });
      expect(await invokeTool(made, '{"constructor":"c","inner":{}}')).toMatchObject({ status: 'ok' });
      expect(received).toEqual({ constructor: 'c', valueOf: 'd', inner: {} });
      // execute gets ordinary objects.
      expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
      expect(Object.getPrototypeOf((received as { inner: object }).inner)).toBe(Object.prototype);
      expect(await invokeTool(made, '{"inner":{"hasOwnProperty":1}}')).toMatchObject({
        status: 'invalid_arguments',
        output:
          'Invalid arguments for p: constructor: expected a string, received nothing; inner.hasOwnProperty: expected a boolean, received 1',
      });
    },
  );

  it('leaves the adapter of a schema that declares none as it is: the same object, no copy of the arguments', () => {
    const validate = (value: unknown) => ({ ok: true as const, value });
    const adapterOf = (jsonSchema: JsonObject): SchemaAdapter => ({ kind: 'zod4', jsonSchema, validate });
    const plain = adapterOf({
      type: 'object',
      properties: {
        name: { type: 'string' },
        default: { type: 'object', properties: { toStringValue: { type: 'string' } } },
        list: { type: 'array', items: { type: 'object', properties: { value: { type: 'number' } } } },
      },
      required: ['name'],
      $defs: { node: { type: 'object', properties: { constructorName: { type: 'string' } } } },
    });
    expect(withOwnPropertiesOnly(plain)).toBe(plain);
    for (const declares of [
      { properties: { list: { items: { properties: { valueOf: { type: 'number' } } } } } },
      { properties: { a: { type: 'object', required: ['constructor'] } } },
      { $defs: { node: { properties: { toString: { type: 'string' } } } } },
    ]) {
      const adapter = adapterOf({ type: 'object', ...declares });
      expect(withOwnPropertiesOnly(adapter)).not.toBe(adapter);
    }
  });

  it('finds them under a property named as a data keyword (default, enum, const, examples)', async () => {
    const made = tool({
      name: 'p',
      description: 'd',
      parameters: z4.object({ default: z4.object({ toString: z4.number().optional() }) }),
      execute: (input) => input,
    });
    expect(await invokeTool(made, '{"default":{}}')).toMatchObject({
      status: 'ok',
      output: '{"default":{}}',
    });
  });
});
