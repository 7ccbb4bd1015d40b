import { describe, expect, it } from 'vitest';
import { invokeTool, tool } from '../../../src/index';
import { resolveSchema } from '../../../src/tool/schema';
import { to202012 } from '../../../src/tool/schema/json-schema';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const origin = { owner: 'tool "t"', field: 'parameters', requireObject: true } as const;
const D4 = 'http://json-schema.org/draft-04/schema#';
const D6 = 'http://json-schema.org/draft-06/schema#';
const D7 = 'http://json-schema.org/draft-07/schema#';
const D2019 = 'https://json-schema.org/draft/2019-09/schema';
const D2020 = 'https://json-schema.org/draft/2020-12/schema';

describe('JSON Schema parameters of each draft, announced in 2020-12', () => {
  it('draft-04: boolean exclusive bounds, id, tuples, definitions, dependencies; const is not a draft-04 keyword', () => {
    expect(
      to202012({
        $schema: D4,
        id: 'https://example.com/order.json',
        type: 'object',
        definitions: {
          n: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false },
        },
        properties: {
          n: { $ref: '#/definitions/n' },
          pair: {
            type: 'array',
            items: [{ type: 'string' }, { $ref: '#/definitions/n' }],
            additionalItems: false,
          },
          k: { const: 'ignored in draft-04', type: 'string' },
        },
        dependencies: { a: ['b'], b: { required: ['a'] } },
      }),
    ).toEqual({
      $id: 'https://example.com/order.json',
      type: 'object',
      $defs: { n: { type: 'number', exclusiveMinimum: 0, maximum: 9 } },
      properties: {
        n: { $ref: '#/$defs/n' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { $ref: '#/$defs/n' }], items: false },
        k: { type: 'string' },
      },
      dependentRequired: { a: ['b'] },
      dependentSchemas: { b: { required: ['a'] } },
    });
  });

  it('draft-06 and -07: the siblings of a $ref are ignored (annotations kept); if/then/else is not draft-06', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/definitions/a', type: 'number', description: 'd' } },
    };
    const definitions = { a: { type: 'string' } };
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword
    const conditional = { if: { required: ['a'] }, then: { required: ['b'] } };
    expect(to202012({ $schema: D7, ...schema, definitions, ...conditional })).toEqual({
      type: 'object',
      properties: { a: { $ref: '#/$defs/a', description: 'd' } },
      $defs: definitions,
      ...conditional,
    });
    expect(to202012({ $schema: D6, ...schema, definitions, ...conditional })).toEqual({
      type: 'object',
      properties: { a: { $ref: '#/$defs/a', description: 'd' } },
      $defs: definitions,
    });
  });

  it('rewrites a $ref under a property or definition named as a data keyword (default, enum, const, examples)', () => {
    const schema = {
      $schema: D7,
      type: 'object',
      properties: { default: { $ref: '#/definitions/const' }, enum: { items: { $ref: '#/definitions/n' } } },
      definitions: {
        const: { type: 'string' },
        n: { type: 'number' },
        examples: { $ref: '#/definitions/n' },
      },
    };
    expect(to202012(schema)).toEqual({
      type: 'object',
      properties: { default: { $ref: '#/$defs/const' }, enum: { items: { $ref: '#/$defs/n' } } },
      $defs: { const: { type: 'string' }, n: { type: 'number' }, examples: { $ref: '#/$defs/n' } },
    });
  });

  it('keeps a draft-07 dependency on a property named __proto__, announced and validated', async () => {
    const parsed = (dependency: string) =>
      JSON.parse(`{"$schema":"${D7}","type":"object","dependencies":{"__proto__":${dependency}}}`);
    expect(JSON.stringify(to202012(parsed('["y"]')))).toBe(
      '{"type":"object","dependentRequired":{"__proto__":["y"]}}',
    );
    const schema = parsed('{"required":["x"]}');
    expect(JSON.stringify(to202012(schema))).toBe(
      '{"type":"object","dependentSchemas":{"__proto__":{"required":["x"]}}}',
    );
    const echo = tool({ name: 't', description: 'd', parameters: schema, execute: () => 'ran' });
    const refused = await invokeTool(echo, JSON.parse('{"__proto__":1}'));
    expect([refused.status, refused.output]).toEqual([
      'invalid_arguments',
      'Invalid arguments for t: x: expected any value, received nothing',
    ]);
    expect((await invokeTool(echo, JSON.parse('{"__proto__":1,"x":2}'))).status).toBe('ok');
  });

  it('2019-09: tuples and a root $recursiveRef; prefixItems is not a 2019-09 keyword', () => {
    expect(
      to202012({
        $schema: D2019,
        $recursiveAnchor: true,
        type: 'object',
        properties: {
          t: { items: [{ type: 'string' }], additionalItems: { type: 'number' }, prefixItems: [false] },
        },
        additionalProperties: { $recursiveRef: '#' },
      }),
    ).toEqual({
      type: 'object',
      properties: { t: { prefixItems: [{ type: 'string' }], items: { type: 'number' } } },
      additionalProperties: { $ref: '#' },
    });
  });

  it('2020-12: as written, without the keywords 2020-12 does not have', () => {
    const schema = {
      type: 'object',
      prefixItems: [true],
      additionalItems: false,
      dependencies: { a: ['b'] },
    };
    expect(to202012({ $schema: D2020, ...schema })).toEqual({ type: 'object', prefixItems: [true] });
  });

  it('no $schema: 2020-12, with the forms 2020-12 gives no meaning read as the earlier drafts meant them', () => {
    expect(
      to202012({
        type: 'object',
        properties: {
          t: { items: [{ type: 'string' }], additionalItems: false },
          n: { minimum: 1, exclusiveMinimum: true },
        },
        definitions: { a: {} },
      }),
    ).toEqual({
      type: 'object',
      properties: { t: { prefixItems: [{ type: 'string' }], items: false }, n: { exclusiveMinimum: 1 } },
      $defs: { a: {} },
    });
  });

  it('validates as the draft says: draft-04 exclusiveMinimum: true refuses the bound, draft-07 ignores $ref siblings', async () => {
    const d4 = resolveSchema(
      {
        $schema: D4,
        type: 'object',
        properties: { n: { type: 'number', minimum: 1, exclusiveMinimum: true } },
      },
      origin,
    );
    expect(d4.jsonSchema).toEqual({
      type: 'object',
      properties: { n: { type: 'number', exclusiveMinimum: 1 } },
    });
    expect((await d4.validate({ n: 1 })).ok).toBe(false);
    expect((await d4.validate({ n: 1.5 })).ok).toBe(true);
    const d7 = resolveSchema(
      {
        $schema: D7,
        type: 'object',
        definitions: { s: { type: 'string' } },
        properties: { s: { $ref: '#/definitions/s', maxLength: 1 } },
      },
      origin,
    );
    expect((await d7.validate({ s: 'long' })).ok).toBe(true);
  });

  it('never announces a $schema, so no older draft is passed off as 2020-12', () => {
    const t = tool({
      name: 'old',
      description: 'd',
      parameters: { $schema: D4, type: 'object', properties: {} },
      execute: () => '',
    });
    expect(t.definition.parameters).toEqual({ type: 'object', properties: {} });
  });

  it.each([
    [
      { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' },
      '#/$schema: "http://json-schema.org/draft-03/schema#" is not a dialect toolwire reads (draft-04, draft-06, draft-07, 2019-09 or 2020-12)',
    ],
    [
      { $schema: D2020, type: 'object', properties: { t: { items: [{}] } } },
      '#/properties/t/items: an array of schemas is draft 2019-09 and earlier; 2020-12 says prefixItems',
    ],
    [
      { $schema: D2020, type: 'object', properties: { n: { minimum: 1, exclusiveMinimum: true } } },
      '#/properties/n/exclusiveMinimum: a boolean is draft-04; 2020-12 takes the bound itself',
    ],
    [
      { $schema: D2019, type: 'object', properties: { a: { $recursiveAnchor: true } } },
      '#/properties/a/$recursiveAnchor: a $recursiveAnchor below the root is not translated; write the schema in 2020-12',
    ],
    // A $recursiveRef becomes a $ref: one that closes a cycle without moving into the value is refused as such.
    [
      { $schema: D2019, $recursiveAnchor: true, type: 'object', allOf: [{ $recursiveRef: '#' }] },
      '#/allOf/0/$ref: this $ref leads back to itself without moving into the value',
    ],
    [
      { $dynamicAnchor: 'n', type: 'object', properties: { c: { items: { $dynamicRef: '#other' } } } },
      "#/properties/c/items/$dynamicRef: a $dynamicRef is read only beside no $ref, naming the root's $dynamicAnchor; write the recursion with $defs and $ref",
    ],
    [
      { type: 'object', properties: { c: { $dynamicAnchor: 'n', type: 'object' } } },
      '#/properties/c/$dynamicAnchor: a $dynamicAnchor below the root is not translated; write the recursion with $defs and $ref',
    ],
  ])('refuses what it does not read, naming where: %j', (schema, problem) => {
    expectDefinitionError(
      () => resolveSchema(schema, origin),
      'invalid_parameters',
      `tool "t": parameters is not a valid JSON Schema: ${problem}`,
    );
  });
});

describe("2020-12's $dynamicRef", () => {
  // The validator does not read $dynamicRef: announced as written, it checked nothing there.
  it("is a $ref to the root when it names the root's $dynamicAnchor: announced so, and validated", async () => {
    const tree = tool({
      name: 'tree',
      description: 'd',
      parameters: {
        $schema: D2020,
        $dynamicAnchor: 'node',
        type: 'object',
        properties: { v: { type: 'number' }, kids: { type: 'array', items: { $dynamicRef: '#node' } } },
      },
      execute: () => 'ran',
    });
    expect(tree.definition.parameters).toEqual({
      type: 'object',
      properties: { v: { type: 'number' }, kids: { type: 'array', items: { $ref: '#' } } },
    });
    expect(await invokeTool(tree, { v: 1, kids: [{ v: 2, kids: [] }] })).toMatchObject({ status: 'ok' });
    expect(await invokeTool(tree, { kids: [{ v: 'x' }] })).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for tree: kids[0].v: expected a number, received "x"',
    });
  });
});
