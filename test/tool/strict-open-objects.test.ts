/**
 * `strict: true` and open objects, one rule (src/tool/strict.ts): an object that declares properties is narrowed to
 * them whatever its `additionalProperties`; one that declares none is refused naming its JSON Pointer (strict mode
 * would make it `{}`), but for the root saying nothing of extra keys (a tool without input). Each form of open or
 * closed object, at each place a schema can sit.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool, type JsonSchemaObject, type ToolParameters, tool } from '../../src/index';
import { definitionRefusal } from '../fixtures/schema/definition-error';

type Json = Record<string, unknown>;

/** The JSON Schema toolwire announces for a zod schema (without strict). */
function announcedOf(schema: z.ZodType): Json {
  const made = tool({ name: 'p', description: 'd', parameters: z.object({ x: schema }), execute: () => 1 });
  return (made.definition.parameters.properties as Record<string, Json>).x as Json;
}

const A = { a: { type: 'string' } };
/** Objects that declare a property: each is narrowed to `{ a }`. */
const DECLARING: Array<[string, Json]> = [
  [
    'additionalProperties: true',
    { type: 'object', properties: A, required: ['a'], additionalProperties: true },
  ],
  [
    'additionalProperties: false',
    { type: 'object', properties: A, required: ['a'], additionalProperties: false },
  ],
  ['additionalProperties left out', { type: 'object', properties: A, required: ['a'] }],
  ['additionalProperties: {}', { type: 'object', properties: A, required: ['a'], additionalProperties: {} }],
  [
    'additionalProperties: a schema',
    { type: 'object', properties: A, required: ['a'], additionalProperties: { type: 'string' } },
  ],
  ['z.object', announcedOf(z.object({ a: z.string() }))],
  ['z.looseObject', announcedOf(z.looseObject({ a: z.string() }))],
  ['z.strictObject', announcedOf(z.strictObject({ a: z.string() }))],
  ['.passthrough()', announcedOf(z.object({ a: z.string() }).passthrough())],
  ['.catchall(z.string())', announcedOf(z.object({ a: z.string() }).catchall(z.string()))],
];
/** Objects that declare no property but take other keys: each is refused. */
const OPEN_WITHOUT_PROPERTIES: Array<[string, Json]> = [
  ['{ type: object }', { type: 'object' }],
  ['properties: {}', { type: 'object', properties: {} }],
  ['additionalProperties: true', { type: 'object', additionalProperties: true }],
  ['additionalProperties: {}', { type: 'object', additionalProperties: {} }],
  ['additionalProperties: a schema', { type: 'object', additionalProperties: { type: 'string' } }],
  ['z.record', announcedOf(z.record(z.string(), z.number()))],
  ['z.looseObject({})', announcedOf(z.looseObject({}))],
  ['z.object({}).catchall()', announcedOf(z.object({}).catchall(z.string()))],
];

/** Where the object sits in the parameters, and its JSON Pointer there. */
const PLACES: Array<[string, (inner: Json) => Json, string]> = [
  [
    'a property',
    (inner) => ({ type: 'object', properties: { x: inner }, required: ['x'] }),
    '#/properties/x',
  ],
  [
    'deeper',
    (inner) => ({
      type: 'object',
      properties: { y: { type: 'object', properties: { x: inner }, required: ['x'] } },
      required: ['y'],
    }),
    '#/properties/y/properties/x',
  ],
  [
    'array items',
    (inner) => ({ type: 'object', properties: { x: { type: 'array', items: inner } }, required: ['x'] }),
    '#/properties/x/items',
  ],
  [
    'an anyOf branch',
    (inner) => ({
      type: 'object',
      properties: { x: { anyOf: [{ type: 'string' }, inner] } },
      required: ['x'],
    }),
    '#/properties/x/anyOf/1',
  ],
  [
    'a $defs entry',
    (inner) => ({
      type: 'object',
      properties: { x: { $ref: '#/$defs/d' } },
      required: ['x'],
      $defs: { d: inner },
    }),
    '#/$defs/d',
  ],
];

const NARROWED = { type: 'object', properties: A, required: ['a'], additionalProperties: false };

function strictTool(parameters: Json) {
  return tool({
    name: 's',
    description: 'd',
    strict: true,
    parameters: parameters as ToolParameters,
    execute: (input) => input,
  });
}

/** The node at a JSON Pointer. */
function at(schema: JsonSchemaObject, pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Json)[key], schema);
}

/** A value of the parameters with `inner` at the place (as the object, an array item or the anyOf branch). */
function valueAt(place: string, inner: unknown): unknown {
  if (place === 'array items') return { x: [inner] };
  if (place === 'deeper') return { y: { x: inner } };
  return { x: inner };
}

describe('strict: true, an object that declares properties', () => {
  for (const [place, wrap, pointer] of PLACES) {
    it.each(DECLARING)(`%s, at ${place}: narrowed to its properties`, async (_, inner) => {
      const parameters = wrap(inner);
      const strict = strictTool(parameters);
      expect(at(strict.definition.parameters, pointer)).toEqual(NARROWED);
      // Validation still reads the original schema: a key beyond the properties is taken or refused as before.
      const plain = tool({
        name: 'p',
        description: 'd',
        parameters: parameters as ToolParameters,
        execute: (i) => i,
      });
      for (const extra of [{ a: 'v' }, { a: 'v', more: 'w' }, { a: 'v', more: 5 }]) {
        const value = valueAt(place, extra);
        const [viaStrict, viaPlain] = await Promise.all([
          invokeTool(strict, value),
          invokeTool(plain, value),
        ]);
        expect({ extra, status: viaStrict.status }).toEqual({ extra, status: viaPlain.status });
        expect(viaStrict.value).toEqual(viaPlain.value);
      }
    });
  }

  it.each(DECLARING)('%s, at the root: narrowed to its properties', (_, inner) => {
    expect(strictTool(inner).definition.parameters).toEqual(NARROWED);
  });
});

describe('strict: true, an object that declares no property', () => {
  for (const [place, wrap, pointer] of PLACES) {
    it.each(OPEN_WITHOUT_PROPERTIES)(`%s, at ${place}: refused, naming it`, (_, inner) => {
      expect(definitionRefusal(() => strictTool(wrap(inner)))).toEqual({
        code: 'unsupported_schema',
        message: `tool "s": parameters cannot be made strict at ${pointer}: an object without properties takes any keys (a record, a map, a free-form object), which strict mode would narrow to {}`,
      });
    });

    it(`additionalProperties: false, at ${place}: kept as the empty object it is`, () => {
      const strict = strictTool(wrap({ type: 'object', additionalProperties: false }));
      expect(at(strict.definition.parameters, pointer)).toEqual({
        type: 'object',
        additionalProperties: false,
        properties: {},
        required: [],
      });
    });
  }

  it.each([
    ['additionalProperties: true', { type: 'object', additionalProperties: true }],
    ['additionalProperties: {}', { type: 'object', additionalProperties: {} }],
    ['additionalProperties: a schema', { type: 'object', additionalProperties: { type: 'string' } }],
    ['z.record', z.record(z.string(), z.number())],
    ['z.looseObject({})', z.looseObject({})],
  ])('%s, at the root: refused, naming #', (_, parameters) => {
    expect(definitionRefusal(() => strictTool(parameters as Json))).toMatchObject({
      code: 'unsupported_schema',
      message: expect.stringContaining(
        'cannot be made strict at #: an object without properties takes any keys',
      ),
    });
  });

  it.each([
    ['no parameters', undefined],
    ['{ type: object }', { type: 'object' }],
    ['properties: {}', { type: 'object', properties: {} }],
    ['z.object({})', z.object({})],
    ['z.strictObject({})', z.strictObject({})],
  ])('%s, at the root: a tool without input', async (_, parameters) => {
    const made = tool({
      name: 's',
      description: 'd',
      strict: true,
      ...(parameters === undefined ? {} : { parameters: parameters as ToolParameters }),
      execute: () => 'ran',
    });
    expect(made.definition.parameters).toEqual({
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    });
    expect((await invokeTool(made, {})).status).toBe('ok');
  });
});
