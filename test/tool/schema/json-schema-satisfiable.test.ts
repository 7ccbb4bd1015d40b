/**
 * A plain JSON Schema holding a schema that no value can pass by its own keywords is refused when the tool is made
 * (`invalid_parameters`, docs/reference/errors.md), naming where and why; one that some value passes is accepted.
 */
import { describe, expect, it } from 'vitest';
import { invokeTool, tool } from '../../../src/index';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;
const make = (parameters: Record<string, unknown>) =>
  tool({ name: 't', description: 'd', parameters: parameters as never, execute: echo });
const property = (schema: Record<string, unknown>) => ({
  type: 'object',
  properties: { p: schema },
  required: ['p'],
});

describe('a JSON Schema no value can pass', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'a minimum above the maximum',
      { type: 'object', properties: { n: { type: 'number', minimum: 5, maximum: 1 } }, required: ['n'] },
      '#/properties/n: minimum 5 and maximum 1 leave no number between them',
    ],
    [
      'an exclusive bound at the other bound',
      property({ type: 'number', exclusiveMinimum: 1, maximum: 1 }),
      '#/properties/p: exclusiveMinimum 1 and maximum 1 leave no number between them',
    ],
    [
      "draft-04's exclusiveMaximum: true at the minimum",
      {
        $schema: 'http://json-schema.org/draft-04/schema#',
        ...property({ type: 'number', minimum: 2, maximum: 2, exclusiveMaximum: true }),
      },
      '#/properties/p: minimum 2 and exclusiveMaximum 2 leave no number between them',
    ],
    [
      'integer bounds with no integer between them',
      property({ type: 'integer', minimum: 1.2, maximum: 1.8 }),
      '#/properties/p: minimum 1.2 and maximum 1.8 leave no integer between them',
    ],
    [
      'a minLength above the maxLength',
      property({ type: 'string', minLength: 5, maxLength: 2 }),
      '#/properties/p: minLength 5 is above maxLength 2',
    ],
    [
      'a minItems above the maxItems',
      property({ type: 'array', minItems: 3, maxItems: 1 }),
      '#/properties/p: minItems 3 is above maxItems 1',
    ],
    [
      'a minContains above the maxContains',
      property({ type: 'array', contains: { type: 'string' }, minContains: 2, maxContains: 1 }),
      '#/properties/p: minContains 2 is above maxContains 1',
    ],
    [
      'a minProperties above the maxProperties',
      property({ type: 'object', minProperties: 2, maxProperties: 1 }),
      '#/properties/p: minProperties 2 is above maxProperties 1',
    ],
    [
      'a required property that additionalProperties: false forbids',
      { type: 'object', required: ['x'], additionalProperties: false },
      '#: the required property "x" is not in properties, and additionalProperties is false',
    ],
    [
      'a required property whose schema is false',
      { type: 'object', properties: { x: false }, required: ['x'] },
      '#: the required property "x" is false in properties',
    ],
    [
      'more required properties than maxProperties',
      { type: 'object', required: ['a', 'b'], maxProperties: 1 },
      '#: 2 properties are required, above maxProperties 1',
    ],
    ['an empty enum', property({ enum: [] }), '#/properties/p: enum is empty'],
    [
      'an enum of another type',
      property({ type: 'string', enum: [1, 2] }),
      '#/properties/p: no value of enum is a string',
    ],
    [
      'a const of another type',
      property({ type: ['string', 'boolean'], const: 5 }),
      '#/properties/p: const is an integer, not a string or a boolean',
    ],
    [
      'every type of a list ruled out',
      property({ type: ['string', 'number'], minLength: 3, maxLength: 1, minimum: 3, maximum: 1 }),
      '#/properties/p: minLength 3 is above maxLength 1; minimum 3 and maximum 1 leave no number between them',
    ],
    [
      'a contradiction in the items minItems asks for, in every branch of anyOf',
      {
        type: 'object',
        properties: {
          p: {
            type: 'array',
            minItems: 1,
            items: { anyOf: [{ type: 'string', minLength: 9, maxLength: 3 }] },
          },
        },
      },
      '#/properties/p/items/anyOf/0: minLength 9 is above maxLength 3',
    ],
    [
      'a contradiction in allOf',
      property({ allOf: [{ type: 'integer', minimum: 1, maximum: 0 }] }),
      '#/properties/p/allOf/0: minimum 1 and maximum 0 leave no number between them',
    ],
    [
      'a contradiction in a prefix item minItems asks for',
      property({ type: 'array', minItems: 1, prefixItems: [{ enum: [] }] }),
      '#/properties/p/prefixItems/0: enum is empty',
    ],
  ])('refuses %s, naming where and why', (_name, parameters, problem) => {
    expectDefinitionError(
      () => make(parameters),
      'invalid_parameters',
      `tool "t": parameters holds a schema no value can pass: ${problem}`,
    );
  });

  it('refuses an outputSchema no value can pass', () => {
    expectDefinitionError(
      () =>
        tool({
          name: 't',
          description: 'd',
          outputSchema: { type: 'integer', minimum: 3, maximum: 2 },
          execute: () => 3,
        }),
      'invalid_output_schema',
      'tool "t": outputSchema holds a schema no value can pass: #: minimum 3 and maximum 2 leave no number between them',
    );
  });
});

describe('a JSON Schema some value passes', () => {
  it.each<[string, Record<string, unknown>, unknown]>([
    ['equal inclusive bounds', property({ type: 'number', minimum: 1, maximum: 1 }), { p: 1 }],
    ['bounds on a schema without a type (a string passes)', property({ minimum: 5, maximum: 1 }), { p: 'x' }],
    [
      'a contradiction on one type of a list',
      property({ type: ['string', 'null'], minLength: 5, maxLength: 2 }),
      { p: null },
    ],
    ['an integer const where numbers are allowed', property({ type: 'number', const: 5 }), { p: 5 }],
    [
      'a required property a pattern allows',
      { type: 'object', required: ['x1'], patternProperties: { '^x': {} }, additionalProperties: false },
      { x1: true },
    ],
    ['a property that may never be given', { type: 'object', properties: { x: { not: {} } } }, {}],
    // Where a schema that takes nothing is an idiom or harmless (a value need not pass it): not judged.
    [
      'a contradiction under not',
      property({ not: { type: 'string', minLength: 5, maxLength: 1 } }),
      { p: 'x' },
    ],
    [
      'an if nothing passes (always else)',
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's then keyword, not a thenable
      property({ if: { type: 'integer', minimum: 1, maximum: 0 }, then: { type: 'string' } }),
      { p: 3 },
    ],
    [
      'a definition nothing uses',
      { type: 'object', $defs: { Never: { type: 'integer', minimum: 1, maximum: 0 } } },
      {},
    ],
    [
      'an empty object said with propertyNames',
      property({ type: 'object', propertyNames: { enum: [] } }),
      { p: {} },
    ],
    ['an empty array said with items', property({ type: 'array', items: { enum: [] } }), { p: [] }],
    [
      'additionalProperties no value passes',
      { type: 'object', additionalProperties: { type: 'integer', minimum: 1, maximum: 0 } },
      {},
    ],
    [
      'one dead branch of oneOf',
      property({ oneOf: [{ type: 'string' }, { type: 'integer', minimum: 1, maximum: 0 }] }),
      { p: 'x' },
    ],
    [
      'minContains within maxItems',
      property({ type: 'array', contains: { const: 1 }, minContains: 2, maxItems: 2 }),
      { p: [1, 1] },
    ],
  ])('accepts %s', async (_name, parameters, args) => {
    const result = await invokeTool(make(parameters), args);
    expect(result).toMatchObject({ status: 'ok', value: args });
  });

  it('refuses the call, not the tool, when only a combination of schemas contradicts (allOf, $ref)', async () => {
    const both = make(property({ allOf: [{ type: 'string' }, { type: 'number' }] }));
    expect((await invokeTool(both, { p: 'x' })).status).toBe('invalid_arguments');
  });
});
