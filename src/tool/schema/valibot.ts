/**
 * The valibot adapter that `toolwire/valibot` registers (the Node entry registers it too): validation through
 * Standard Schema, JSON Schema of the input side through `@valibot/to-json-schema` (which has no runtime
 * dependency on valibot itself). In order: toolwire's rules for what the converter announces, passed to it as
 * hooks; the conversion; the adapter. valibot schemas are recognised by the core (./index.ts).
 *
 * @see https://valibot.dev/guides/json-schema/
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { toJsonSchema } from '@valibot/to-json-schema';
import { cloneJson } from '../../json';
import { ANNOTATION_KEYWORDS, type JsonObject, type SchemaAdapter } from './adapter';
import { standardAdapter } from './standard';

/*
 * toolwire's rules for what `@valibot/to-json-schema` announces on the input side, passed to it as its
 * `overrideAction` and `overrideSchema` hooks:
 * - Pipes: the converter stops the input side at a pipe's first schema or conversion (`transform`,
 *   `toNumber` …) but goes on converting the actions after a rewrite (`trim`, `toLowerCase`, `mapItems` …),
 *   whose checks judge the rewritten value, not the input: from the first rewrite on, the announcement stays as
 *   it was (the closest superset; valibot's verdict wins). Identities (`brand`, `readonly`, `flavor`) and
 *   annotations change nothing; a validation JSON Schema cannot express (`check`, `graphemes` …) is left out,
 *   as a refinement. `metadata()` only annotates: a keyword it holds (`{ minLength: 3 }`) is not announced,
 *   valibot never checking it.
 * - A default that is a function (`optional(string(), () => crypto.randomUUID())`) is computed at each parse:
 *   it is not announced, since the value the converter computed once would be stale.
 * - `undefined()` and `void()` accept no JSON value: `{ "not": {} }`.
 * - A tuple's trailing items that accept `undefined` (`optional()` …) may be absent: its `minItems` counts the
 *   items up to the last one that does not (the converter counted them all, refusing `["a"]` for
 *   `tuple([string(), optional(number())])`, which valibot accepts).
 * - A `record()` whose keys are a `picklist()`, `enum()` or `literal()`, which the converter refuses though its
 *   `propertyNames` says it: announced so (valibot checks each key present, and requires none).
 * - `nonOptional()`, `nonNullable()`, `nonNullish()` (and `required()`, made of them), which the converter
 *   refuses: the wrapped schema, without `null` where it is refused.
 */
/** The part of a valibot schema or action these hooks read. */
interface ValibotNode {
  kind: string;
  type: string;
  items?: ValibotNode[];
  wrapped?: ValibotNode;
  key?: ValibotNode;
  metadata?: Record<string, unknown>;
  /** The default of `optional()`, `nullish()` …: a value, or a function computing one per parse. */
  default?: unknown;
}

/** Transformations that hand on the value they get: a brand, a flavour or `readonly` only change its type. */
const IDENTITIES = new Set(['brand', 'flavor', 'readonly']);
/** valibot types that accept `undefined` alone, which no JSON value is. */
const ONLY_UNDEFINED = new Set(['undefined', 'void']);
/** valibot types that accept `undefined` (an absent tuple item), whatever they wrap. */
const TAKE_UNDEFINED = new Set([
  'optional',
  'exact_optional',
  'nullish',
  'undefinedable',
  'undefined',
  'void',
  'any',
  'unknown',
]);
/** Record keys the converter refuses but announces, as `propertyNames`, exactly: a set of strings. */
const KEY_SETS = new Set(['picklist', 'enum', 'literal']);
const TUPLES = new Set(['tuple', 'loose_tuple', 'strict_tuple', 'tuple_with_rest']);

/** Where a pipe's input side ended: the announcement as it was before its first rewrite. */
const FROZEN = Symbol('toolwire.valibot.frozen');
type Frozen = JsonObject & { [FROZEN]?: JsonObject };

/** The `overrideAction` hook (see the rules above). */
function overrideAction({
  valibotAction,
  jsonSchema,
  errors,
}: {
  valibotAction: ValibotNode;
  jsonSchema: Frozen;
  errors?: [string, ...string[]];
}): Frozen | undefined {
  const frozen = jsonSchema[FROZEN];
  if (frozen !== undefined) return { ...cloneJson(frozen), [FROZEN]: frozen };
  if (valibotAction.kind === 'transformation' && !IDENTITIES.has(valibotAction.type)) {
    const { [FROZEN]: _none, ...before } = jsonSchema;
    return { ...cloneJson(before), [FROZEN]: before };
  }
  if (valibotAction.type === 'metadata' && valibotAction.metadata !== undefined) {
    const out: Frozen = { ...jsonSchema };
    for (const [key, value] of Object.entries(valibotAction.metadata)) {
      if (!ANNOTATION_KEYWORDS.has(key) && out[key] === value) delete out[key];
    }
    return out;
  }
  return errors !== undefined ? jsonSchema : undefined;
}

/** The `overrideSchema` hook, given the converter for a wrapped schema (see the rules above). */
function overrideSchemaWith(convert: (schema: ValibotNode) => JsonObject) {
  return ({ valibotSchema, jsonSchema }: { valibotSchema: ValibotNode; jsonSchema: JsonObject }) => {
    const { type } = valibotSchema;
    if (typeof valibotSchema.default === 'function' && Object.hasOwn(jsonSchema, 'default')) {
      const { default: _once, ...rest } = jsonSchema;
      return rest;
    }
    if (type === 'record' && KEY_SETS.has(valibotSchema.key?.type ?? '')) return jsonSchema;
    if (ONLY_UNDEFINED.has(type)) return { not: {} };
    if (TUPLES.has(type) && valibotSchema.items !== undefined) {
      const items = valibotSchema.items;
      let required = items.length;
      while (required > 0 && TAKE_UNDEFINED.has(items[required - 1]?.type ?? '')) required--;
      const { minItems: _all, ...rest } = jsonSchema;
      return required > 0 ? { ...rest, minItems: required } : rest;
    }
    if (
      (type === 'non_optional' || type === 'non_nullable' || type === 'non_nullish') &&
      valibotSchema.wrapped
    ) {
      const inner = convert(valibotSchema.wrapped);
      if (type === 'non_optional') return inner;
      return { allOf: [inner], not: { type: 'null' } };
    }
    return undefined;
  };
}

/**
 * JSON Schema (input side) of a valibot schema. Validation actions JSON Schema cannot express (`check`,
 * custom predicates) are left out, so the announced schema is the closest superset and the failure is
 * reported to the model by validation; everything structural is exact (see the rules above for pipes,
 * `undefined()`, tuples and the non-optional wrappers).
 *
 * @throws Error from `@valibot/to-json-schema` for a schema JSON cannot carry, e.g.
 *   `The "date" schema cannot be converted to JSON Schema.`
 */
function valibotInputJsonSchema(schema: StandardSchemaV1): JsonObject {
  // As converted, with the frozen copies' symbol keys: `resolveSchema` makes it plain JSON (its `finish`), once.
  return convert(schema);
}

/** One conversion with toolwire's hooks; a wrapped schema that needs its own is converted the same way. */
function convert(schema: unknown): JsonObject {
  return toJsonSchema(schema as Parameters<typeof toJsonSchema>[0], {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'throw',
    overrideAction: overrideAction as never,
    overrideSchema: overrideSchemaWith(convertWrapped) as never,
  }) as JsonObject;
}

function convertWrapped(schema: unknown): JsonObject {
  const { $schema: _dialect, ...inner } = convert(schema);
  if (inner.$defs !== undefined) {
    throw new Error(
      'a nonOptional(), nonNullable() or nonNullish() around a lazy() schema cannot be converted',
    );
  }
  return inner;
}

/** Adapter for a valibot schema. @throws Error when the input side cannot be expressed as JSON Schema. */
export function valibotAdapter(schema: StandardSchemaV1): SchemaAdapter {
  return standardAdapter('valibot', schema, valibotInputJsonSchema(schema));
}
