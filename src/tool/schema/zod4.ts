/**
 * zod 4 adapter. zod 4 describes its input side itself through Standard JSON Schema
 * (`~standard.jsonSchema.input`); `zod/mini` schemas (and zod 3.25's `zod/v4` copy), which do not carry it, go
 * through zod's own converter, `toJSONSchema`, as classic zod does. This adapter adds toolwire's rule for unknown
 * inputs, which zod would otherwise announce as the schema after a `z.preprocess()` (see
 * src/tool/schema/unknown-input.ts).
 *
 * @see https://zod.dev/json-schema for `override`, passed through Standard JSON Schema's `libraryOptions`.
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { toJSONSchema, type ZodMiniType } from 'zod/mini';
import { standardAdapter } from './standard';
import type { JsonObject, SchemaAdapter } from './types';
import { PREPROCESS_MESSAGE, UNKNOWN_PIPE_MESSAGE } from './unknown-input';
import {
  announceBeforeOverwrites,
  dropFlaggedPatterns,
  refuseNonJson,
  supportsUnrepresentableHook,
  unrepresentable,
} from './zod4-hooks';
import { zod4Trusted } from './zod4-trust';

/** The part of a zod 4 schema's internals this adapter reads (`schema._zod.def`). */
interface Zod4Like {
  _zod: { def: Zod4Def };
}
interface Zod4Def {
  type: string;
  in?: Zod4Like;
  out?: Zod4Like;
  innerType?: Zod4Like;
}

/** `true` for a zod 4 schema: vendor `zod` with its internals in `_zod`. */
export function isZod4Schema(schema: StandardSchemaV1): boolean {
  return schema['~standard'].vendor === 'zod' && '_zod' in schema;
}

// Wrappers whose input side is their inner schema's (plus `undefined` or `null`).
const INPUT_WRAPPERS = new Set(['optional', 'nullable', 'readonly']);

/** `true` when the schema takes any input: `z.unknown()`, `z.any()`, a bare transform, or one piped on. */
function takesAnyInput(def: Zod4Def): boolean {
  if (def.type === 'unknown' || def.type === 'any' || def.type === 'transform') return true;
  if (def.type === 'pipe') return def.in !== undefined && takesAnyInput(def.in._zod.def);
  if (INPUT_WRAPPERS.has(def.type))
    return def.innerType !== undefined && takesAnyInput(def.innerType._zod.def);
  return false;
}

/** `true` when the schema refuses some value: anything but `z.unknown()`, `z.any()` and their transforms. */
function narrows(def: Zod4Def): boolean {
  if (def.type === 'unknown' || def.type === 'any' || def.type === 'transform') return false;
  if (def.type === 'pipe') {
    return (
      (def.in !== undefined && narrows(def.in._zod.def)) ||
      (def.out !== undefined && narrows(def.out._zod.def))
    );
  }
  if (INPUT_WRAPPERS.has(def.type)) return def.innerType === undefined || narrows(def.innerType._zod.def);
  return true;
}

/** Refuses a pipe whose input is unknown and whose output is narrower (`z.preprocess()` is one). */
function refuseUnknownPipes(zodSchema: unknown): void {
  const def = (zodSchema as Partial<Zod4Like>)._zod?.def;
  if (def?.type !== 'pipe' || def.in === undefined || def.out === undefined) return;
  const input = def.in._zod.def;
  if (takesAnyInput(input) && narrows(def.out._zod.def)) {
    throw new Error(input.type === 'transform' ? PREPROCESS_MESSAGE : UNKNOWN_PIPE_MESSAGE);
  }
}

/** zod's translation of the input side, with zod's own options (`override`, `metadata`). */
function translate(schema: StandardSchemaV1, options: Record<string, unknown>): JsonObject {
  const libraryOptions = supportsUnrepresentableHook(schema) ? { unrepresentable, ...options } : options;
  const standard = schema['~standard'] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  if (standard.jsonSchema !== undefined) {
    return standard.jsonSchema.input({ target: 'draft-2020-12', libraryOptions }) as JsonObject;
  }
  return toJSONSchema(schema as unknown as ZodMiniType, {
    ...libraryOptions,
    io: 'input',
    target: 'draft-2020-12',
  }) as JsonObject;
}

/**
 * JSON Schema (input side) of a zod 4 schema, through Standard JSON Schema or, for `zod/mini`, `toJSONSchema`.
 *
 * @throws Error what zod throws for a type JSON Schema cannot express (`Date cannot be represented in JSON
 *   Schema`), or for a `z.preprocess()` or a pipe from `z.unknown()` into a narrower schema.
 */
export function zod4InputJsonSchema(schema: StandardSchemaV1): JsonObject {
  const hooked = supportsUnrepresentableHook(schema);
  return translate(schema, {
    override: ({ zodSchema, jsonSchema }: { zodSchema: never; jsonSchema: JsonObject }) => {
      refuseUnknownPipes(zodSchema);
      if (!hooked) return;
      refuseNonJson(zodSchema);
      announceBeforeOverwrites(zodSchema, jsonSchema);
      dropFlaggedPatterns(zodSchema, jsonSchema);
    },
  });
}

/**
 * Adapter for a zod 4 schema, marked {@link SchemaAdapter.acceptsOnlyAnnounced} when every construct in it is
 * trusted and its metadata only annotates (src/tool/schema/zod4-trust.ts).
 *
 * @throws Error when the input side cannot be expressed as JSON Schema.
 */
export function zod4Adapter(schema: StandardSchemaV1): SchemaAdapter {
  const jsonSchema = zod4InputJsonSchema(schema);
  const adapter = standardAdapter('zod4', schema, jsonSchema);
  const trusted = zod4Trusted(schema, jsonSchema, (options) => translate(schema, options));
  return trusted === false ? adapter : { ...adapter, acceptsOnlyAnnounced: trusted };
}
