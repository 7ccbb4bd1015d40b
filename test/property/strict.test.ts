/**
 * `strict: true`: for a corpus of schemas, the announced strict schema accepts a value exactly when the tool
 * (which first takes out the `null`s of optional properties) validates it. Values are drawn from the strict
 * schema's own shape, with leaves now and then replaced by a value of another kind (`null` included).
 */
import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool, type JsonSchemaObject, type ToolParameters, tool } from '../../src/index';

type Json = JsonSchemaObject;

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
];

function resolve(schema: Json, root: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
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
