/**
 * The 2020-12 translation of JSON Schema parameters written for an older draft (`to202012`,
 * src/tool/schema/json-schema.ts) accepts exactly what the schema accepts in its own draft: random schemas of each draft, made of
 * the keywords whose form or meaning changed between drafts, are validated in their draft by
 * `@cfworker/json-schema` and, translated, in 2020-12, on values near them.
 */
import { type SchemaDraft, Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { to202012 } from '../../src/tool/schema/json-schema';
import { awkwardJson, nearSchema } from '../support/near-schema';

type Schema = Record<string, unknown>;
const URI: Record<string, string> = {
  '4': 'http://json-schema.org/draft-04/schema#',
  '7': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
};

/** Schemas of a draft: bounds, tuples, dependencies, definitions and $refs, combinators. */
function schemaOf(draft: string): fc.Arbitrary<Schema> {
  const old = draft === '4';
  const { node } = fc.letrec<{ node: Schema; leaf: Schema }>((tie) => ({
    leaf: fc.oneof(
      fc.constantFrom<Schema>(
        { type: 'string' },
        { type: 'integer' },
        { type: ['number', 'null'] },
        {},
        { $ref: '#/definitions/d' },
      ),
      fc.record(
        {
          minimum: fc.integer({ min: -2, max: 2 }),
          exclusiveMinimum: old ? fc.boolean() : fc.integer({ min: -2, max: 2 }),
        },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          maximum: fc.integer({ min: -2, max: 2 }),
          exclusiveMaximum: old ? fc.boolean() : fc.integer({ min: -2, max: 2 }),
        },
        { requiredKeys: [] },
      ),
      fc.record({ minLength: fc.nat(2), enum: fc.constant(['a', 'ab', 1, null]) }, { requiredKeys: [] }),
    ),
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('leaf'),
      fc.record(
        {
          items: fc.oneof(tie('node'), fc.array(tie('node'), { minLength: 1, maxLength: 2 })),
          additionalItems: fc.oneof(fc.boolean(), tie('node')),
          minItems: fc.nat(2),
        },
        { requiredKeys: ['items'] },
      ),
      fc.record(
        {
          properties: fc.record({ a: tie('node'), b: tie('node') }, { requiredKeys: [] }),
          required: fc.subarray(['a', 'b']),
          additionalProperties: fc.oneof(fc.boolean(), tie('node')),
          dependencies: fc.record({ a: fc.oneof(fc.constant(['b']), tie('node')) }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      ),
      fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) }),
      fc.record({ not: tie('node') }),
      fc.record({ $ref: fc.constant('#/definitions/d'), type: fc.constantFrom('string', 'object') }),
    ),
  }));
  return (
    fc
      .record({ root: node, d: node })
      // The definition refers to nothing: a $ref cycle that makes no progress overflows any validator's stack.
      .map(({ root, d }) => ({
        $schema: URI[draft],
        ...root,
        definitions: {
          d: JSON.parse(JSON.stringify(d).replaceAll('"$ref":"#/definitions/d"', '"minimum":0')),
        },
      }))
      .map((schema) => JSON.parse(JSON.stringify(schema)) as Schema)
  );
}

describe.each(['4', '7', '2019-09'])('a draft-%s schema translated to 2020-12', (draft) => {
  it('accepts exactly what the schema accepts in its draft', () => {
    const property = fc.property(
      schemaOf(draft).chain((schema) => {
        const translated = to202012(schema);
        return fc.tuple(
          fc.constant(schema),
          fc.constant(translated),
          fc.array(fc.oneof(nearSchema(translated), awkwardJson), { minLength: 4, maxLength: 4 }),
        );
      }),
      ([schema, translated, values]) => {
        const original = new Validator(structuredClone(schema) as never, draft as SchemaDraft, false);
        const now = new Validator(structuredClone(translated) as never, '2020-12', false);
        for (const value of values) {
          if (original.validate(value).valid !== now.validate(value).valid) return false;
        }
        return true;
      },
    );
    const details = fc.check(property, { numRuns: 300, seed: 20_261_201 });
    expect(String(details.errorInstance ?? ''), JSON.stringify(details.counterexample)).toBe('');
    expect(details.counterexample).toBeNull();
  });
});
