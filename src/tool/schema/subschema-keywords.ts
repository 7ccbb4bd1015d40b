/**
 * The JSON Schema keywords whose values are themselves schemas, by shape (JSON Schema 2020-12 Core §10, with
 * `additionalItems` and `definitions` of the earlier drafts). One list for every walk over a schema's
 * subschemas: the definition-time check (./json-schema-check.ts) and the dialect translation
 * (./json-schema-dialect.ts).
 *
 * @module
 */

/** Keywords whose value is one schema. */
export const SUBSCHEMA_KEYWORDS: readonly string[] = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
];

/** Keywords whose value is a non-empty array of schemas. */
export const SUBSCHEMA_LIST_KEYWORDS: readonly string[] = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** Keywords whose value maps names to schemas. */
export const SUBSCHEMA_MAP_KEYWORDS: readonly string[] = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
];
