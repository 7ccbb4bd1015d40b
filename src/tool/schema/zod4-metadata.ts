/**
 * Whether a zod 4 schema's metadata only annotates its announcement. zod merges the metadata of `.describe()`
 * and `.meta()` into the JSON Schema as it is, so `z.string().meta({ minLength: 3 })` announces a constraint
 * zod never checks. The announcement is compared with zod's translation of the same schema without any
 * metadata: they must be the same but for annotations.
 *
 * @module
 */
import { isPlainObject } from '../../json';
import type { JsonObject } from './types';

/** Keywords that annotate and never make a validator refuse (JSON Schema 2020-12 meta-data vocabulary). */
const META_ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);
// Keywords whose value maps names to subschemas, holds a subschema, or lists subschemas.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_VALUES = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
]);

/** A registry with nothing in it, for zod's `metadata` option: zod reads metadata (and ids) through `get`. */
export const NO_METADATA = { get: () => undefined };

/** `true` for `{ "type": … }` alone, the branch zod folds into a `type` list. */
function isBareType(branch: unknown): branch is { type: string | string[] } {
  if (!isPlainObject(branch)) return false;
  const keys = Object.keys(branch);
  const type = branch.type;
  return (
    keys.length === 1 &&
    keys[0] === 'type' &&
    (typeof type === 'string' || (Array.isArray(type) && type.every((t) => typeof t === 'string')))
  );
}

/**
 * `anyOf` of bare types as a `type` list, as zod writes it when no branch carries metadata: the same
 * constraint, so that a description on a nullable's inner schema does not count as a difference.
 */
function foldTypeUnion(schema: JsonObject): void {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length === 0 || schema.type !== undefined) return;
  if (!branches.every(isBareType)) return;
  const types = [...new Set(branches.flatMap((branch) => branch.type))];
  delete schema.anyOf;
  schema.type = types.length === 1 ? types[0] : types;
}

/** A copy of a schema without annotations, its bare-type unions folded (plain objects have no prototype). */
function withoutAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations);
  if (!isPlainObject(schema)) return schema;
  const out: JsonObject = Object.create(null);
  for (const [key, value] of Object.entries(schema)) {
    if (META_ANNOTATIONS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
      const map: JsonObject = Object.create(null);
      for (const [name, child] of Object.entries(value)) map[name] = withoutAnnotations(child);
      out[key] = map;
    } else out[key] = SCHEMA_VALUES.has(key) ? withoutAnnotations(value) : value;
  }
  foldTypeUnion(out);
  return out;
}

/** Deep equality of JSON values, objects compared regardless of key order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => sameJson(item, b[index]))
    );
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aKeys = Object.keys(a);
  const bRecord = b as JsonObject;
  return (
    aKeys.length === Object.keys(b).length &&
    aKeys.every((key) => Object.hasOwn(b, key) && sameJson((a as JsonObject)[key], bRecord[key]))
  );
}

/**
 * `true` when `announced`, the JSON Schema zod gave for a schema, says the same as `translateBare()`, zod's
 * translation of that schema with {@link NO_METADATA}, annotations (`description`, `title`, `examples`,
 * `default` …) aside. `false` when metadata adds or changes a constraint (`.meta({ minLength: 3 })`), moves a
 * schema to `$defs` (`.meta({ id })`) or when the second translation throws.
 *
 * @example
 * ```ts
 * const schema = z.object({ q: z.string().describe('Query') });
 * const translate = (metadata?: unknown) =>
 *   schema['~standard'].jsonSchema.input({ target: 'draft-2020-12', libraryOptions: { metadata } });
 * metadataOnlyAnnotates(translate(), () => translate(NO_METADATA)); // true
 * ```
 */
export function metadataOnlyAnnotates(announced: JsonObject, translateBare: () => unknown): boolean {
  let bare: unknown;
  try {
    bare = translateBare();
  } catch {
    return false;
  }
  return sameJson(withoutAnnotations(announced), withoutAnnotations(bare));
}
