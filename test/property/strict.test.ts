/**
 * `strict: true`: for a corpus of schemas, the announced strict schema accepts a value exactly when the tool
 * (which first takes out the `null`s of optional properties) validates it. Values are drawn from the strict
 * schema's own shape, with leaves now and then replaced by a value of another kind (`null` included).
 */
import { Validator } from '@cfworker/json-schema';
import { scope } from 'arktype';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import {
  invokeTool,
  type JsonSchemaObject,
  ToolDefinitionError,
  type ToolParameters,
  tool,
} from '../../src/index';

type Json = JsonSchemaObject;

type Node = { name: string; note?: string | undefined; children: Node[] };
const zodNode: z.ZodType<Node> = z.object({
  name: z.string(),
  note: z.string().optional(),
  get children() {
    return z.array(zodNode).max(2);
  },
});
const valibotNode: v.GenericSchema<Node> = v.object({
  name: v.string(),
  note: v.optional(v.string()),
  children: v.pipe(v.array(v.lazy(() => valibotNode)), v.maxLength(2)),
});
const arktypeNode = scope({ node: { name: 'string', 'note?': 'string', children: 'node[] <= 2' } }).export()
  .node;
const zod3Node: z3.ZodType<Node> = z3.lazy(() =>
  z3.object({ name: z3.string(), note: z3.string().optional(), children: z3.array(zod3Node).max(2) }),
);

const CORPUS: Array<[string, ToolParameters]> = [
  ['zod: optional and required', z.object({ a: z.string().optional(), b: z.number() })],
  [
    'zod: defaults and optional arrays',
    z.object({ n: z.int().min(0).max(9).default(3), tags: z.array(z.string()).optional() }),
  ],
  [
    'zod: optional nested object with optional fields',
    z.object({ nested: z.object({ x: z.boolean().optional(), y: z.enum(['p', 'q']) }).optional() }),
  ],
  [
    'zod: discriminated union with optional fields',
    z.object({
      u: z.discriminatedUnion('k', [
        z.object({ k: z.literal('a'), x: z.string().optional() }),
        z.object({ k: z.literal('b'), y: z.number().optional() }),
      ]),
    }),
  ],
  [
    'zod: open objects narrowed to their properties',
    z.object({
      loose: z.looseObject({ a: z.string(), b: z.number().optional() }),
      rest: z.array(z.object({ k: z.boolean() }).catchall(z.string())).optional(),
    }),
  ],
  ['zod: required nullable', z.object({ n: z.string().nullable(), m: z.literal('k').optional() })],
  [
    'JSON Schema: bounds',
    {
      type: 'object',
      properties: { q: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 10 } },
      required: ['q'],
    },
  ],
  [
    'JSON Schema: $defs and $ref',
    {
      type: 'object',
      properties: {
        node: { $ref: '#/$defs/node' },
        list: { type: 'array', items: { $ref: '#/$defs/node' } },
      },
      $defs: {
        node: {
          type: 'object',
          properties: { v: { type: 'number' }, label: { type: 'string' } },
          required: ['v'],
        },
      },
    },
  ],
  [
    'JSON Schema: optional union of kinds',
    {
      type: 'object',
      properties: { v: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, w: { enum: ['x', 1] } },
    },
  ],
  // A recursive root is announced as a `$ref` to its definition: the strict root is that definition, inlined.
  ['zod: recursive root through z.lazy() (a root $ref)', z.lazy(() => zodNode)],
  ['valibot: recursive root through lazy() (a root $ref)', v.lazy(() => valibotNode)],
  ['arktype: cyclic scope at the root (a root $ref)', arktypeNode],
  ['zod 3: recursive root through z.lazy()', zod3Node],
  [
    'JSON Schema: $ref at the root',
    {
      $ref: '#/$defs/query',
      $defs: {
        query: {
          type: 'object',
          properties: { q: { type: 'string' }, page: { type: 'integer' }, sub: { $ref: '#/$defs/query' } },
          required: ['q'],
        },
      },
    },
  ],
];

function resolve(schema: Json, root: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  if (ref === '#') return root;
  const name = ref.split('/').at(-1) as string;
  return (root.$defs as Record<string, Json>)[name] as Json;
}

const OTHER = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 3 }),
  fc.integer({ min: -2, max: 12 }),
  fc.boolean(),
  fc.constant({}),
  fc.constant([]),
);

/** Values shaped by the strict schema; a leaf is now and then replaced by a value of another kind. */
function shaped(node: Json, root: Json, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(node, root);
  if (depth > 4) return OTHER;
  let made: fc.Arbitrary<unknown>;
  if (Array.isArray(schema.anyOf))
    made = fc.oneof(...schema.anyOf.map((b) => shaped(b as Json, root, depth + 1)));
  else if ('const' in schema) made = fc.constant(schema.const);
  else if (Array.isArray(schema.enum)) made = fc.constantFrom(...schema.enum);
  else {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    made = fc.oneof(
      ...types.map((type): fc.Arbitrary<unknown> => {
        switch (type) {
          case 'object': {
            const properties = (schema.properties ?? {}) as Record<string, Json>;
            const model: Record<string, fc.Arbitrary<unknown>> = {};
            for (const [key, value] of Object.entries(properties))
              model[key] = shaped(value, root, depth + 1);
            return fc.record(model);
          }
          case 'array':
            return fc.array(shaped(schema.items as Json, root, depth + 1), { maxLength: 3 });
          case 'string':
            return fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('p', 'q', 'k', 'a'));
          case 'integer':
            return fc.integer({ min: -2, max: 12 });
          case 'number':
            return fc.oneof(fc.integer({ min: -2, max: 12 }), fc.double({ min: -10, max: 10, noNaN: true }));
          case 'boolean':
            return fc.boolean();
          default:
            return fc.constant(null);
        }
      }),
    );
  }
  // The root stays an object: toolwire reads `null` or absent arguments as `{}` before any schema.
  return depth === 0 ? made : fc.oneof({ weight: 6, arbitrary: made }, { weight: 1, arbitrary: OTHER });
}

describe('strict: true', () => {
  it.each(CORPUS)(
    '%s: the strict announcement accepts exactly what the tool validates',
    async (_, parameters) => {
      const strict = tool({
        name: 'strict',
        description: 'd',
        parameters,
        strict: true,
        execute: (input) => input,
      });
      const announced = strict.definition.parameters as Json;
      const validator = new Validator(JSON.parse(JSON.stringify(announced)), '2020-12', false);
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(shaped(announced, announced), async (value) => {
          const result = await invokeTool(strict, value);
          const announcedAccepts = validator.validate(value).valid;
          if (announcedAccepts) accepted += 1;
          expect({ value, ok: result.status === 'ok' }).toEqual({ value, ok: announcedAccepts });
        }),
        { numRuns: 300, seed: 17 },
      );
      // The draw reaches both sides of the line.
      expect(accepted).toBeGreaterThan(10);
      expect(accepted).toBeLessThan(300);
    },
  );

  it.each(CORPUS)('%s: execute sees the same input as without strict', async (_, parameters) => {
    const strict = tool({ name: 's', description: 'd', parameters, strict: true, execute: (input) => input });
    const plain = tool({ name: 'p', description: 'd', parameters, execute: (input) => input });
    const announced = strict.definition.parameters as Json;
    const validator = new Validator(JSON.parse(JSON.stringify(announced)), '2020-12', false);
    await fc.assert(
      fc.asyncProperty(shaped(announced, announced), async (value) => {
        fc.pre(validator.validate(value).valid);
        const viaStrict = await invokeTool(strict, value);
        const withoutNulls = await invokeTool(plain, viaStrict.value as object);
        expect(withoutNulls.value).toEqual(viaStrict.value);
      }),
      { numRuns: 150, seed: 17 },
    );
  });
});

describe('strict: true at the root', () => {
  const union = [
    [
      'zod 4 discriminated union',
      z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('a'), x: z.number() }),
        z.object({ kind: z.literal('b') }),
      ]),
      'oneOf',
    ],
    ['zod 4 union', z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]), 'anyOf'],
    [
      'zod 3 discriminated union',
      z3.discriminatedUnion('kind', [
        z3.object({ kind: z3.literal('a'), x: z3.number() }),
        z3.object({ kind: z3.literal('b') }),
      ]),
      'anyOf',
    ],
    [
      'valibot variant',
      v.variant('k', [v.object({ k: v.literal('a') }), v.object({ k: v.literal('b') })]),
      'oneOf',
    ],
    ['arktype .or()', scope({ a: { k: "'a'" }, b: { k: "'b'" } }).type('a | b'), 'anyOf'],
    [
      'JSON Schema oneOf',
      {
        type: 'object',
        oneOf: [
          { type: 'object', properties: { k: { const: 'a' } }, required: ['k'] },
          { type: 'object', properties: { k: { const: 'b' } }, required: ['k'] },
        ],
      },
      'oneOf',
    ],
    [
      'JSON Schema $ref to a union',
      {
        $ref: '#/$defs/u',
        $defs: {
          u: {
            anyOf: [
              { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
              { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
            ],
          },
        },
      },
      'anyOf',
    ],
  ] as Array<[string, ToolParameters, string]>;

  it.each(union)('refuses a %s at the root, naming the fix', (_, parameters, keyword) => {
    const make = () => tool({ name: 'u', description: 'd', parameters, strict: true, execute: () => 'x' });
    expect(make).toThrow(ToolDefinitionError);
    expect(make).toThrow(
      `tool "u": parameters cannot be made strict at #/${keyword}: a union at the root cannot be made strict: ` +
        `OpenAI takes a function's parameters only as one object, with no "anyOf" or "oneOf" at the top level; ` +
        'make the union a property of an object (z.object({ input: <the union> }), v.object({ input: … }), ' +
        'type({ input: … }))',
    );
    try {
      make();
    } catch (error) {
      expect((error as ToolDefinitionError).code).toBe('unsupported_schema');
    }
  });

  it('makes the same union strict once it is a property, as the refusal says', () => {
    const input = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('a'), x: z.number() }),
      z.object({ kind: z.literal('b') }),
    ]);
    const wrapped = tool({
      name: 'w',
      description: 'd',
      parameters: z.object({ input }),
      strict: true,
      execute: () => 'x',
    });
    expect(wrapped.definition.parameters).toMatchObject({ type: 'object', required: ['input'] });
  });

  it('announces a root $ref as its definition, and removes the nulls of its optional properties', async () => {
    const parameters = scope({ node: { name: 'string', 'note?': 'string', children: 'node[]' } }).type({
      root: 'node',
      'top?': 'string',
    });
    const strict = tool({
      name: 'reca',
      description: 'd',
      parameters,
      strict: true,
      execute: (input) => input,
    });
    const announced = strict.definition.parameters as Json;
    expect(announced.$ref).toBeUndefined();
    expect(announced.required).toEqual(['root', 'top']);
    expect(announced.additionalProperties).toBe(false);
    const sent = {
      root: { name: 'a', note: null, children: [{ name: 'b', note: 'n', children: [] }] },
      top: null,
    };
    expect(new Validator(JSON.parse(JSON.stringify(announced)), '2020-12', false).validate(sent).valid).toBe(
      true,
    );
    const result = await invokeTool(strict, sent);
    expect(result.status).toBe('ok');
    expect(result.value).toEqual({ root: { name: 'a', children: [{ name: 'b', note: 'n', children: [] }] } });
  });
});
