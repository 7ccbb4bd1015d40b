/**
 * Turns whatever was passed as `parameters` or `outputSchema` into a {@link SchemaAdapter}, at definition time:
 * detection of the kind, conversion to JSON Schema, and every failure as a {@link ToolDefinitionError}.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ToolDefinitionError } from '../../errors';
import { isPlainObject } from '../../json';
import { arkTypeAdapter, arkTypeMessage, isArkTypeSchema } from './arktype';
import { guardUnlessProved, guardWithAnnounced, jsonSchemaAdapter } from './json-schema';
import { UnsatisfiableSchemaError } from './json-schema-satisfiable';
import { isValibotSchema, isZod3Schema } from './library-kinds';
import { noneAdapter } from './none';
import { objectRoot } from './object-root';
import {
  hasStandardJsonSchema,
  isStandardSchema,
  standardAdapter,
  standardInputJsonSchema,
} from './standard';
import type { JsonObject, SchemaAdapter } from './types';
import { valibotAdapter } from './valibot';
import { zod3Adapter, zod3InputJsonSchema } from './zod3';
import { isLegacyZod3Schema, legacyZod3AsStandard, unreadableZodReason } from './zod3-legacy';
import { isZod4Schema, zod4Adapter } from './zod4';

export type { JsonObject, SchemaAdapter, SchemaKind, ValidationIssue, ValidationResult } from './types';

/** Where a schema comes from, for error messages: `tool "search_orders"` and `parameters`. */
export interface SchemaOrigin {
  /** Names the tool, e.g. `tool "search_orders"`. */
  owner: string;
  /** The option holding the schema: `parameters` (or `inputSchema`) or `outputSchema`. */
  field: 'parameters' | 'inputSchema' | 'outputSchema' | 'outputType' | 'schema';
  /** `true` when the schema must describe a JSON object (tool parameters). */
  requireObject: boolean;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an instance of ${value.constructor?.name || 'an unknown class'}`;
  return `a ${typeof value}`;
}

function libraryAdapter(schema: Parameters<typeof isArkTypeSchema>[0]): SchemaAdapter {
  if (isArkTypeSchema(schema)) return arkTypeAdapter(schema);
  // zod 4 first: `zod/mini` has no Standard JSON Schema, and zod converts it itself.
  if (isZod4Schema(schema)) return zod4Adapter(schema);
  if (hasStandardJsonSchema(schema)) {
    return standardAdapter('standard', schema, standardInputJsonSchema(schema));
  }
  if (isZod3Schema(schema)) return zod3Adapter(schema);
  if (isValibotSchema(schema)) return valibotAdapter(schema);
  throw new Error(
    `the ${JSON.stringify(schema['~standard'].vendor)} Standard Schema does not implement Standard JSON Schema ` +
      '(`~standard.jsonSchema`); pass a JSON Schema object instead, or a zod, valibot or arktype schema',
  );
}

/**
 * Removes `$schema` and makes the schema plain JSON, detached from the library's objects; for parameters, the
 * root as src/tool/schema/object-root.ts announces it.
 */
function finish(schema: JsonObject, origin: SchemaOrigin): JsonObject {
  const { $schema: _dialect, ...rest } = JSON.parse(JSON.stringify(schema)) as JsonObject;
  if (!origin.requireObject) return rest;
  const root = objectRoot(rest);
  if (root === undefined) {
    const got = 'type' in rest ? `"type": ${JSON.stringify(rest.type)}` : `no "type"`;
    throw new ToolDefinitionError(
      'invalid_parameters',
      `${origin.owner}: ${origin.field} must describe a JSON object (JSON Schema "type": "object"), got ${got}`,
    );
  }
  return root;
}

/**
 * Resolves `parameters` (or `outputSchema`) to an adapter. `undefined` means no parameters. An `outputSchema`
 * given as a Standard Schema is used for validation only (its `jsonSchema` is `{}`): it is never announced.
 *
 * @throws ToolDefinitionError `invalid_parameters` / `invalid_output_schema` when the value is none of the
 *   accepted kinds (or parameters do not describe an object); `unsupported_schema` when it cannot be expressed
 *   as JSON Schema (e.g. `z.date()`), with the library's reason in the message and the original in `cause`.
 */
export function resolveSchema(value: unknown, origin: SchemaOrigin): SchemaAdapter {
  if (value === undefined) return noneAdapter();
  const kindCode =
    origin.field === 'parameters' || origin.field === 'inputSchema'
      ? 'invalid_parameters'
      : 'invalid_output_schema';
  // An output schema is only validated, never announced: any Standard Schema will do (z.date() included).
  if (origin.field === 'outputSchema' && isStandardSchema(value)) {
    return standardAdapter('standard', value, {}, isArkTypeSchema(value) ? arkTypeMessage : undefined);
  }
  if (origin.field === 'outputSchema' && isLegacyZod3Schema(value)) {
    return standardAdapter('zod3', legacyZod3AsStandard(value), {});
  }
  const library = isStandardSchema(value) || isLegacyZod3Schema(value);
  // Everything in here may meet what a library returns (a cycle, a schema too deep for the stack): any
  // failure is the developer's to see at definition time, as a ToolDefinitionError.
  try {
    let adapter: SchemaAdapter;
    if (isStandardSchema(value)) adapter = libraryAdapter(value);
    else if (isLegacyZod3Schema(value)) {
      // zod before 3.24: validated through its own API, converted like any zod 3 (src/tool/schema/zod3-legacy.ts).
      const jsonSchema = zod3InputJsonSchema(value as unknown as StandardSchemaV1);
      adapter = standardAdapter('zod3', legacyZod3AsStandard(value), jsonSchema);
    } else if (unreadableZodReason(value) !== undefined) {
      throw new ToolDefinitionError(
        kindCode,
        `${origin.owner}: ${origin.field} ${unreadableZodReason(value)}`,
      );
    } else if (isPlainObject(value)) adapter = jsonSchemaAdapter(value);
    else {
      throw new ToolDefinitionError(
        kindCode,
        `${origin.owner}: ${origin.field} must be a Standard Schema (zod, valibot, arktype, …), a JSON Schema ` +
          `object or undefined, got ${describeValue(value)}`,
      );
    }
    const finished: SchemaAdapter = { ...adapter, jsonSchema: finish(adapter.jsonSchema, origin) };
    // Parameters are announced: validation must refuse what the announcement refuses (see guardWithAnnounced),
    // which a JSON Schema does by itself and a zod 4 schema of trusted constructs was proved to do.
    const proof = finished.acceptsOnlyAnnounced;
    const guarded =
      origin.requireObject && finished.kind !== 'json-schema' && finished.kind !== 'none' && proof !== true;
    if (!guarded) return finished;
    return typeof proof === 'function' ? guardUnlessProved(finished, proof) : guardWithAnnounced(finished);
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const code = library ? 'unsupported_schema' : kindCode;
    const what = library
      ? 'cannot be expressed as JSON Schema'
      : error instanceof UnsatisfiableSchemaError
        ? 'holds a schema no value can pass'
        : 'is not a valid JSON Schema';
    throw new ToolDefinitionError(code, `${origin.owner}: ${origin.field} ${what}: ${reason}`, {
      cause: error,
    });
  }
}
