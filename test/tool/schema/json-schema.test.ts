import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { invokeTool, tool } from '../../../src/index';
import { definitionRefusal, expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;

/** The engine's message for a pattern the validator (which compiles with the u flag) cannot compile. */
function regexError(pattern: string): string {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${pattern} compiles`);
}

const TYPES = 'expected one of "array", "boolean", "integer", "null", "number", "object", "string"';
/** Schemas that every call would fail on, and the problem `tool()` names instead. */
const MALFORMED: Array<[string, Record<string, unknown>, string]> = [
  ['an unknown type', { type: 'bogus' }, `#/type: "bogus" is not a JSON Schema type (${TYPES})`],
  [
    'an unknown type of a property',
    { type: 'object', properties: { kind: { type: 'enum' } } },
    `#/properties/kind/type: "enum" is not a JSON Schema type (${TYPES})`,
  ],
  [
    'an unknown type in a list of types',
    { type: 'object', properties: { a: { type: ['string', 'nil'] } } },
    `#/properties/a/type/1: "nil" is not a JSON Schema type (${TYPES})`,
  ],
  [
    'an empty list of types',
    { type: 'object', properties: { a: { type: [] } } },
    '#/properties/a/type: expected a type name or a non-empty array of them, got an empty array',
  ],
  [
    'a type that is not a string',
    { type: 'object', properties: { a: { type: 7 } } },
    '#/properties/a/type: expected a type name or a non-empty array of them, got 7',
  ],
  [
    'a pattern that is not a string',
    { type: 'object', properties: { a: { type: 'string', pattern: 5 } } },
    '#/properties/a/pattern: expected a string (a regular expression), got 5',
  ],
  [
    'required: true on a property (draft 3)',
    { type: 'object', properties: { a: { type: 'string', required: true } } },
    '#/properties/a/required: expected an array of property names, got true',
  ],
  [
    'a required entry that is not a string',
    { type: 'object', required: ['a', 2] },
    '#/required/1: expected a property name (a string), got 2',
  ],
  [
    'a property schema written as a type name',
    { type: 'object', properties: { a: 'string' } },
    '#/properties/a: expected a schema (an object or a boolean), got "string"',
  ],
  [
    'items that is not a schema',
    { type: 'object', properties: { a: { type: 'array', items: 'string' } } },
    '#/properties/a/items: expected a schema (an object or a boolean) or an array of schemas, got "string"',
  ],
  [
    'an anyOf that is not an array',
    { type: 'object', properties: { a: { anyOf: { type: 'string' } } } },
    '#/properties/a/anyOf: expected a non-empty array of schemas, got an object',
  ],
  [
    'an empty oneOf',
    { type: 'object', properties: { a: { oneOf: [] } } },
    '#/properties/a/oneOf: expected a non-empty array of schemas, got an empty array',
  ],
  [
    'a bad schema inside allOf',
    { type: 'object', allOf: [{ type: 'object' }, { properties: { a: { type: 'str' } } }] },
    `#/allOf/1/properties/a/type: "str" is not a JSON Schema type (${TYPES})`,
  ],
  [
    'a bad schema inside $defs',
    { type: 'object', $defs: { a: { type: 'object', properties: { b: { minLength: -1 } } } } },
    '#/$defs/a/properties/b/minLength: expected a non-negative integer, got -1',
  ],
  [
    'a maxItems that is not an integer',
    { type: 'object', properties: { a: { type: 'array', maxItems: 2.5 } } },
    '#/properties/a/maxItems: expected a non-negative integer, got 2.5',
  ],
  [
    'a minimum written as a string',
    { type: 'object', properties: { a: { type: 'number', minimum: '5' } } },
    '#/properties/a/minimum: expected a number, got "5"',
  ],
  [
    'a multipleOf of 0',
    { type: 'object', properties: { a: { type: 'number', multipleOf: 0 } } },
    '#/properties/a/multipleOf: expected a number greater than 0, got 0',
  ],
  [
    'an exclusiveMinimum that is neither a number nor a boolean',
    { type: 'object', properties: { a: { type: 'number', exclusiveMinimum: 'no' } } },
    '#/properties/a/exclusiveMinimum: expected a number (or a boolean, in draft 4), got "no"',
  ],
  [
    'an enum that is not an array',
    { type: 'object', properties: { a: { enum: 'a' } } },
    '#/properties/a/enum: expected an array, got "a"',
  ],
  [
    'a uniqueItems that is not a boolean',
    { type: 'object', properties: { a: { type: 'array', uniqueItems: 'yes' } } },
    '#/properties/a/uniqueItems: expected a boolean, got "yes"',
  ],
  [
    'a format that is not a string',
    { type: 'object', properties: { a: { type: 'string', format: 1 } } },
    '#/properties/a/format: expected a string, got 1',
  ],
  [
    'a $ref that is not a string',
    { type: 'object', properties: { a: { $ref: 1 } } },
    '#/properties/a/$ref: expected a string, got 1',
  ],
  [
    'patternProperties that is not an object',
    { type: 'object', patternProperties: ['^a'] },
    '#/patternProperties: expected an object of schemas, got an array',
  ],
  [
    'a dependentRequired entry that is not a list of names',
    { type: 'object', dependentRequired: { a: 'b' } },
    '#/dependentRequired/a: expected an array of property names, got "b"',
  ],
  [
    'a dependencies entry that is neither a schema nor a list of names',
    { type: 'object', dependencies: { a: 5 } },
    '#/dependencies/a: expected a schema or an array of property names, got 5',
  ],
  [
    'a key with a tilde, escaped in the pointer',
    { type: 'object', properties: { 'a~b': { type: 'strin' } } },
    `#/properties/a~0b/type: "strin" is not a JSON Schema type (${TYPES})`,
  ],
];
const parameters = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    q: { type: 'string', minLength: 1, description: 'Query' },
    page: { type: 'integer', minimum: 1, default: 1 },
    filters: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string', minLength: 1 }, op: { enum: ['eq', 'ne'] } },
        required: ['field', 'op'],
      },
    },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['q'],
} as const;
const find = tool({ name: 'find', description: 'Finds things.', parameters, execute: echo });

// What every kind does alike (announcement, messages, refusals) is in adapters.test.ts.
describe('JSON Schema parameters', () => {
  it('does not share objects with the schema it was given', () => {
    expect(find.definition.parameters.properties).not.toBe(parameters.properties);
    expect(Object.isFrozen(find.definition.parameters)).toBe(true);
  });

  it('puts a missing required property in the path', async () => {
    expect((await invokeTool(find, { filters: [{ field: 'a' }] })).output).toBe(
      'Invalid arguments for find: q: expected a string of at least 1 character, received nothing; filters[0].op: expected one of "eq", "ne", received nothing',
    );
  });

  it('quotes keys that are not identifiers and keeps numeric object keys as keys', async () => {
    expect((await invokeTool(find, { q: 'x', tags: { 'a b': 1, '0': 2 } })).output).toBe(
      'Invalid arguments for find: tags["0"]: expected a string, received 2; tags["a b"]: expected a string, received 1',
    );
  });

  it('names a property refused by additionalProperties: false', async () => {
    const closed = tool({
      name: 'closed',
      description: 'd',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false },
      execute: echo,
    });
    expect((await invokeTool(closed, { id: 'x', extra: 1 })).output).toBe(
      'Invalid arguments for closed: extra: expected no such property (known: id), received 1',
    );
  });

  it('reports an anyOf once, not once per branch', async () => {
    const either = tool({
      name: 'either',
      description: 'd',
      parameters: { type: 'object', properties: { id: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
      execute: echo,
    });
    expect((await invokeTool(either, { id: true })).output).toBe(
      'Invalid arguments for either: id: expected a number or a string, received true',
    );
  });

  it('honours the draft named by $schema', async () => {
    const draft4 = tool({
      name: 'old',
      description: 'd',
      parameters: {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        properties: { n: { type: 'number', minimum: 1, exclusiveMinimum: true } },
      },
      execute: echo,
    });
    expect((await invokeTool(draft4, { n: 1 })).status).toBe('invalid_arguments');
    expect((await invokeTool(draft4, { n: 2 })).status).toBe('ok');
  });

  it('follows local $refs', async () => {
    const linked = tool({
      name: 'linked',
      description: 'd',
      parameters: {
        type: 'object',
        $defs: { sku: { type: 'string', pattern: '^[A-Z]+-[0-9]+$' } },
        properties: { sku: { $ref: '#/$defs/sku' } },
      },
      execute: echo,
    });
    expect((await invokeTool(linked, { sku: 'nope' })).output).toBe(
      'Invalid arguments for linked: sku: expected a string matching /^[A-Z]+-[0-9]+$/, received "nope"',
    );
  });

  it('accepts a subschema object used in two places', async () => {
    const id = { type: 'string', minLength: 1 };
    const shared = tool({
      name: 'shared',
      description: 'd',
      parameters: { type: 'object', properties: { from: id, to: id } },
      execute: echo,
    });
    expect(shared.definition.parameters.properties).toEqual({ from: id, to: id });
    expect((await invokeTool(shared, { from: '', to: 'b' })).output).toBe(
      'Invalid arguments for shared: from: expected a string of at least 1 character, received a string of 0 characters',
    );
  });

  it('says a schema nested thousands of levels deep is too deep, and how to write it', () => {
    let nested: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 5_000; level++) nested = { type: 'object', properties: { a: nested } };
    const refused = definitionRefusal(() =>
      tool({ name: 'deep', description: 'd', parameters: nested, execute: echo }),
    );
    expect(refused.code).toBe('invalid_parameters');
    expect(refused.message).toMatch(
      /^tool "deep": parameters nests too deeply to be read \(name a part that repeats once and refer to it: \$defs and \$ref\): \S/,
    );
  });

  it('refuses a $ref that does not point inside the schema', () => {
    expectDefinitionError(
      () =>
        tool({
          name: 'dangling',
          description: 'd',
          parameters: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
          execute: echo,
        }),
      'invalid_parameters',
      'tool "dangling": parameters is not a valid JSON Schema: #/properties/a/$ref: "#/$defs/missing" does not point inside the schema',
    );
  });

  it.each([
    [
      'an $anchor',
      {
        type: 'object',
        properties: { a: { $ref: '#item' } },
        $defs: { i: { $anchor: 'item', type: 'string' } },
      },
      '"#item" does not point inside the schema; write its JSON Pointer, "#/$defs/i" (a $ref is read as one)',
    ],
    [
      'an $anchor in a $defs entry named as a data keyword',
      {
        type: 'object',
        properties: { a: { $ref: '#item' } },
        $defs: { default: { $anchor: 'item', type: 'string' } },
      },
      '"#item" does not point inside the schema; write its JSON Pointer, "#/$defs/default" (a $ref is read as one)',
    ],
    [
      'the root’s $id',
      {
        $id: 'https://example.com/s.json',
        type: 'object',
        properties: { a: { $ref: 'https://example.com/s.json#/$defs/b' } },
        $defs: { b: { type: 'string' } },
      },
      '"https://example.com/s.json#/$defs/b" does not point inside the schema; write its JSON Pointer, "#/$defs/b" (a $ref is read as one)',
    ],
    [
      'a subschema’s $id',
      {
        type: 'object',
        properties: { a: { $ref: 'item.json' } },
        $defs: { b: { $id: 'item.json', type: 'string' } },
      },
      '"item.json" does not point inside the schema; write its JSON Pointer, "#/$defs/b" (a $ref is read as one)',
    ],
    [
      'another document',
      { type: 'object', properties: { a: { $ref: 'https://example.com/other.json' } } },
      '"https://example.com/other.json" does not point inside the schema (a $ref is read as a JSON Pointer into the schema, such as "#/$defs/item"; nothing is fetched)',
    ],
  ])('refuses a $ref to %s, saying which JSON Pointer to write', (_, parameters, problem) => {
    expectDefinitionError(
      () => tool({ name: 'named', description: 'd', parameters, execute: echo }),
      'invalid_parameters',
      `tool "named": parameters is not a valid JSON Schema: #/properties/a/$ref: ${problem}`,
    );
  });

  it('refuses a schema that says no type', () => {
    expectDefinitionError(
      () => tool({ name: 'untyped', description: 'd', parameters: { properties: {} }, execute: echo }),
      'invalid_parameters',
      'tool "untyped": parameters must describe a JSON object (JSON Schema "type": "object"), got no "type"',
    );
  });

  it('refuses malformed keywords and values that are not JSON', () => {
    expectDefinitionError(
      () =>
        tool({ name: 'req', description: 'd', parameters: { type: 'object', required: 'a' }, execute: echo }),
      'invalid_parameters',
      'tool "req": parameters is not a valid JSON Schema: #/required: expected an array of property names, got "a"',
    );
    expectDefinitionError(
      () =>
        tool({
          name: 'props',
          description: 'd',
          parameters: { type: 'object', properties: [] },
          execute: echo,
        }),
      'invalid_parameters',
      'tool "props": parameters is not a valid JSON Schema: #/properties: expected an object of schemas, got an empty array',
    );
    expectDefinitionError(
      () =>
        tool({
          name: 'fn',
          description: 'd',
          parameters: { type: 'object', default: () => ({}) },
          execute: echo,
        }),
      'invalid_parameters',
      'tool "fn": parameters is not a valid JSON Schema: it holds a function, which is not JSON',
    );
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expectDefinitionError(
      () => tool({ name: 'cycle', description: 'd', parameters: cyclic, execute: echo }),
      'invalid_parameters',
      'tool "cycle": parameters is not a valid JSON Schema: it is not JSON (it refers to itself)',
    );
  });

  it.each(MALFORMED)(
    'refuses %s at definition time, naming the tool, the field and the JSON pointer',
    (_, schema, problem) => {
      expectDefinitionError(
        () => tool({ name: 'bad', description: 'd', parameters: schema, execute: echo }),
        'invalid_parameters',
        `tool "bad": parameters is not a valid JSON Schema: ${problem}`,
      );
    },
  );

  it('refuses a pattern that is not a valid regular expression, with the engine’s reason', () => {
    const reason = regexError('(');
    expectDefinitionError(
      () =>
        tool({
          name: 'code',
          description: 'd',
          parameters: { type: 'object', properties: { code: { type: 'string', pattern: '(' } } },
          execute: echo,
        }),
      'invalid_parameters',
      `tool "code": parameters is not a valid JSON Schema: #/properties/code/pattern: "(" is not a valid regular expression (${reason})`,
    );
  });

  it('checks patterns as the validator compiles them, in Unicode mode', () => {
    // Valid without the u flag, a syntax error with it: the validator would throw on every call.
    const reason = regexError('\\-');
    expectDefinitionError(
      () =>
        tool({
          name: 'dash',
          description: 'd',
          parameters: { type: 'object', properties: { d: { type: 'string', pattern: '\\-' } } },
          execute: echo,
        }),
      'invalid_parameters',
      `tool "dash": parameters is not a valid JSON Schema: #/properties/d/pattern: "\\\\-" is not a valid regular expression (${reason})`,
    );
  });

  it('refuses a patternProperties key that is not a valid regular expression, escaping the pointer', () => {
    const reason = regexError('a/[');
    expectDefinitionError(
      () =>
        tool({
          name: 'keys',
          description: 'd',
          parameters: { type: 'object', patternProperties: { 'a/[': { type: 'string' } } },
          execute: echo,
        }),
      'invalid_parameters',
      `tool "keys": parameters is not a valid JSON Schema: #/patternProperties/a~1[: "a/[" is not a valid regular expression (${reason})`,
    );
  });

  it('checks an outputSchema given as JSON Schema the same way', () => {
    expectDefinitionError(
      () => tool({ name: 'out', description: 'd', outputSchema: { type: 'int' }, execute: echo }),
      'invalid_output_schema',
      'tool "out": outputSchema is not a valid JSON Schema: #/type: "int" is not a JSON Schema type (expected one of "array", "boolean", "integer", "null", "number", "object", "string")',
    );
  });

  it('accepts every draft’s forms of the keywords it checks, and keywords it does not know', () => {
    const lenient = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      title: 'Everything',
      'x-vendor': { type: 'bogus', pattern: '(' },
      definitions: { id: { type: ['string', 'null'], pattern: '^[a-z]+$', minLength: 1, maxLength: 9 } },
      properties: {
        id: { $ref: '#/definitions/id' },
        n: { type: 'number', minimum: 0, exclusiveMaximum: true, maximum: 10, multipleOf: 0.5 },
        tuple: {
          type: 'array',
          items: [{ type: 'string' }, true],
          additionalItems: false,
          uniqueItems: true,
        },
        list: { type: 'array', items: { type: 'integer' }, minItems: 0, contains: { const: 1 } },
        pick: { enum: ['a', 1, null], default: 'a', examples: [{ type: 'bogus' }] },
        either: { anyOf: [{ type: 'string' }, { type: 'integer' }], not: { const: '' } },
        nullable: { nullable: true, type: 'string', format: 'email' },
      },
      patternProperties: { '^x-\\p{L}+$': { type: 'string' } },
      additionalProperties: false,
      dependencies: { a: ['b'], b: { required: ['a'] } },
      dependentRequired: { c: ['d'] },
      required: ['id'],
      if: { properties: { n: { const: 1 } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword
      then: { required: ['list'] },
      else: true,
    };
    expect(() => tool({ name: 'ok', description: 'd', parameters: lenient, execute: echo })).not.toThrow();
  });
});

describe('a JSON Schema holding what is not JSON', () => {
  it.each([
    ['zod 4', z.string(), 'a zod'],
    ['zod 3', z3.string(), 'a zod'],
    ['valibot', v.string(), 'a valibot'],
    ['arktype', type('string'), 'an arktype'],
  ])(
    'refuses a %s schema inside it, naming its pointer, never announcing its internals',
    (_, inner, library) => {
      const vendor = library.split(' ')[1];
      expectDefinitionError(
        () =>
          tool({
            name: 'mixed',
            description: 'd',
            parameters: { type: 'object', properties: { q: { anyOf: [{ type: 'number' }, inner] } } },
            execute: echo,
          }),
        'invalid_parameters',
        `tool "mixed": parameters is not a valid JSON Schema: #/properties/q/anyOf/1: it holds ${library} schema, which a plain JSON Schema cannot: write the whole parameters with ${vendor} (its object schema around this one), or this part as JSON Schema`,
      );
    },
  );

  it('refuses an instance of a class that JSON would turn into something else, keeping a Date (its toJSON)', () => {
    expectDefinitionError(
      () =>
        tool({
          name: 'map',
          description: 'd',
          parameters: { type: 'object', properties: { a: { enum: new Map([['x', 1]]) } } },
          execute: echo,
        }),
      'invalid_parameters',
      'tool "map": parameters is not a valid JSON Schema: #/properties/a/enum: it holds a Map, which is not JSON',
    );
    const dated = tool({
      name: 'dated',
      description: 'd',
      parameters: { type: 'object', properties: { a: { type: 'string', default: new Date(0) } } },
      execute: echo,
    });
    expect(dated.definition.parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'string', default: '1970-01-01T00:00:00.000Z' } },
    });
  });
});

describe('arguments with a hundred thousand wrong items', () => {
  // The validator collected every item's error and spread them into the next level: past about 100,000 it
  // overflowed the stack on V8 (Node, Deno), which read as the tool failing, while Bun refused them.
  const ids = JSON.stringify({ ids: Array.from({ length: 120_000 }, () => 's') });
  const text =
    'Invalid arguments for wide: ' +
    Array.from({ length: 10 }, (_, index) => `ids[${index}]: expected an integer, received "s"`).join('; ');

  it.each([
    ['a JSON Schema', { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } }],
    ['a valibot schema', v.object({ ids: v.array(v.pipe(v.number(), v.integer())) })],
  ])('refuses them as invalid arguments, in the announced words, with %s', async (_, parameters) => {
    const execute = vi.fn(echo);
    const wide = tool({ name: 'wide', description: 'd', parameters: parameters as never, execute });
    const result = await invokeTool(wide, ids);
    expect(result.status).toBe('invalid_arguments');
    expect(result.output.startsWith(`${text}; and `)).toBe(true);
    expect(execute).not.toHaveBeenCalled();
  });

  // @cfworker/json-schema (4.1.6) goes on past the first wrong key of additionalProperties, patternProperties,
  // unevaluatedProperties and propertyNames, and the stack overflowed past about 70,000 of them.
  it.each([
    ['additionalProperties', { additionalProperties: false }, 'expected no such property'],
    ['patternProperties', { patternProperties: { '^k': { type: 'string' } } }, 'expected a string'],
    ['unevaluatedProperties', { unevaluatedProperties: false }, 'expected no such property'],
    ['propertyNames', { propertyNames: { maxLength: 1 } }, 'expected a name'],
  ])('refuses an object of 100,000 wrong keys under %s', async (_, keyword, said) => {
    const execute = vi.fn(echo);
    const parameters = { type: 'object', properties: { o: { type: 'object', ...keyword } } };
    const keyed = tool({ name: 'keyed', description: 'd', parameters: parameters as never, execute });
    const o = Object.fromEntries(Array.from({ length: 100_000 }, (_, index) => [`k${index}`, 0]));
    const result = await invokeTool(keyed, { o });
    expect(result.status).toBe('invalid_arguments');
    expect(result.output).toContain(`o.k0: ${said}`);
    expect(execute).not.toHaveBeenCalled();
  });
});
