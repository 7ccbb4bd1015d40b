/**
 * arktype adapter. arktype implements Standard JSON Schema, but that route silently announces `{}` for a
 * `Date`; its own `toJsonSchema()` reports each unrepresentable construct through a `fallback` hook instead,
 * which this adapter uses to fail at definition time (dates, bigints, symbols, class instances) and to
 * announce the input side of morphs.
 *
 * @see https://arktype.io/docs/json-schema for the `fallback` codes.
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { standardAdapter } from './standard';
import type { JsonObject, SchemaAdapter } from './types';

/** The part of a fallback context this adapter reads (arktype's `ToJsonSchema.FallbackContext`). */
interface FallbackContext {
  code: string;
  base: JsonObject;
  domain?: string;
  proto?: { name?: string };
  unit?: unknown;
}

interface ArkTypeLike {
  toJsonSchema(options: {
    dialect: null;
    fallback: Record<string, (ctx: FallbackContext) => JsonObject | undefined>;
  }): JsonObject;
}

/** `true` for an arktype `Type` (vendor `arktype` with its own `toJsonSchema`). */
export function isArkTypeSchema(schema: StandardSchemaV1): boolean {
  return (
    schema['~standard'].vendor === 'arktype' &&
    typeof (schema as unknown as Partial<ArkTypeLike>).toJsonSchema === 'function'
  );
}

function unrepresentable(ctx: FallbackContext): never {
  let what: string;
  if (ctx.code === 'date') what = 'a Date';
  else if (ctx.code === 'domain') what = `a ${ctx.domain ?? 'non-JSON'} value`;
  else if (ctx.code === 'proto') what = `an instance of ${ctx.proto?.name || 'a class'}`;
  else if (ctx.code === 'unit') what = `the value ${String(ctx.unit)}`;
  else if (ctx.code === 'symbolKey') what = 'a symbol key';
  else what = `a construct (${ctx.code})`;
  throw new Error(`${what} cannot be represented in JSON Schema`);
}

/**
 * JSON Schema (input side) of an arktype `Type`. Morphs announce their input (`base`); narrowing predicates
 * (`.narrow()`) are left out, so the announced schema is the closest superset and validation reports the
 * failure; a default that is not JSON is not announced; `undefined` is `{ "not": {} }`.
 *
 * @throws Error naming the construct, e.g. `a Date cannot be represented in JSON Schema`.
 */
export function arkTypeInputJsonSchema(schema: StandardSchemaV1): JsonObject {
  return (schema as unknown as ArkTypeLike).toJsonSchema({
    dialect: null,
    fallback: {
      morph: (ctx) => ctx.base,
      predicate: (ctx) => ctx.base,
      defaultValue: () => undefined,
      // `undefined` is no JSON value: a branch of it accepts none (an absent key is announced by `required`).
      unit: (ctx) => (ctx.unit === undefined ? { not: {} } : unrepresentable(ctx)),
      default: unrepresentable,
    },
  });
}

/** arktype puts the path in front of its message (`items[0].sku must be…`); `problem` is the text without it. */
export function arkTypeMessage(issue: StandardSchemaV1.Issue): string {
  const problem = (issue as { problem?: unknown }).problem;
  return typeof problem === 'string' && problem !== '' ? problem : issue.message;
}

/** Adapter for an arktype `Type`. @throws Error when the input side cannot be expressed as JSON Schema. */
export function arkTypeAdapter(schema: StandardSchemaV1): SchemaAdapter {
  return standardAdapter('arktype', schema, arkTypeInputJsonSchema(schema), arkTypeMessage);
}
