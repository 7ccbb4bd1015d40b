/**
 * valibot adapter: validation through Standard Schema, JSON Schema of the input side through
 * `@valibot/to-json-schema` (which has no runtime dependency on valibot itself).
 *
 * @see https://valibot.dev/guides/json-schema/
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { toJsonSchema } from '@valibot/to-json-schema';
import { standardAdapter } from './standard';
import type { JsonObject, SchemaAdapter } from './types';

/** `true` for a valibot schema (Standard Schema vendor `valibot`). */
export function isValibotSchema(schema: StandardSchemaV1): boolean {
  return schema['~standard'].vendor === 'valibot';
}

/** Transformations that hand on the value they get: a brand, a flavour or `readonly` only change its type. */
const IDENTITIES = new Set(['brand', 'flavor', 'readonly']);
/** valibot types that accept `undefined` alone, which no JSON value is. */
const ONLY_UNDEFINED = new Set(['undefined', 'void']);

/** Where a pipe's input side ended: the announcement as it was before its first transformation. */
const FROZEN = Symbol('toolwire.valibot.frozen');
type Frozen = JsonObject & { [FROZEN]?: JsonObject };

/**
 * The announcement after one action of a pipe. `@valibot/to-json-schema` stops the input side of a pipe at
 * its first schema or conversion (`transform`, `toNumber` …) but converts the actions after a rewrite
 * (`trim`, `toLowerCase`, `mapItems` …), whose checks judge the rewritten value, not the input: from the first
 * rewrite on, the announcement stays as it was (the closest superset; validation's verdict wins). Identities
 * (`brand`, `readonly`, `flavor`) and annotations change nothing; a validation JSON Schema cannot express
 * (`check`, `graphemes` …) is left out, as a refinement.
 */
function overrideAction({
  valibotAction,
  jsonSchema,
  errors,
}: {
  valibotAction: { kind: string; type: string };
  jsonSchema: Frozen;
  errors?: [string, ...string[]];
}): Frozen | undefined {
  const frozen = jsonSchema[FROZEN];
  if (frozen !== undefined) return { ...structuredClone(frozen), [FROZEN]: frozen };
  if (valibotAction.kind === 'transformation' && !IDENTITIES.has(valibotAction.type)) {
    const { [FROZEN]: _none, ...before } = jsonSchema;
    return { ...structuredClone(before), [FROZEN]: before };
  }
  return errors !== undefined ? jsonSchema : undefined;
}

/**
 * JSON Schema (input side) of a valibot schema. Validation actions JSON Schema cannot express (`check`,
 * custom predicates) are left out, so the announced schema is the closest superset and the failure is
 * reported to the model by validation; everything structural is exact. `v.undefined()` and `v.void()` are
 * `{ "not": {} }` (see {@link overrideAction} for pipes).
 *
 * @throws Error from `@valibot/to-json-schema` for a schema JSON cannot carry, e.g.
 *   `The "date" schema cannot be converted to JSON Schema.`
 */
export function valibotInputJsonSchema(schema: StandardSchemaV1): JsonObject {
  const converted = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0], {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'throw',
    overrideAction: overrideAction as never,
    overrideSchema: ({ valibotSchema }) => (ONLY_UNDEFINED.has(valibotSchema.type) ? { not: {} } : undefined),
  });
  return JSON.parse(JSON.stringify(converted)) as JsonObject;
}

/** Adapter for a valibot schema. @throws Error when the input side cannot be expressed as JSON Schema. */
export function valibotAdapter(schema: StandardSchemaV1): SchemaAdapter {
  return standardAdapter('valibot', schema, valibotInputJsonSchema(schema));
}
