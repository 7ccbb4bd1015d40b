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
import { overrideAction, overrideSchemaWith } from './valibot-hooks';

/**
 * JSON Schema (input side) of a valibot schema. Validation actions JSON Schema cannot express (`check`,
 * custom predicates) are left out, so the announced schema is the closest superset and the failure is
 * reported to the model by validation; everything structural is exact (see src/tool/schema/valibot-hooks.ts
 * for pipes, `undefined()`, tuples and the non-optional wrappers).
 *
 * @throws Error from `@valibot/to-json-schema` for a schema JSON cannot carry, e.g.
 *   `The "date" schema cannot be converted to JSON Schema.`
 */
export function valibotInputJsonSchema(schema: StandardSchemaV1): JsonObject {
  return JSON.parse(JSON.stringify(convert(schema))) as JsonObject;
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
