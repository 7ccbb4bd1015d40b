/**
 * Turns whatever was passed as `parameters` or `outputSchema` (or a question's `schema`, an agent's
 * `outputType`) into a {@link SchemaAdapter}, at definition time, every failure a {@link ToolDefinitionError}.
 * In order:
 * - recognising the schema libraries whose adapters are optional parts (zod 3, also from before Standard
 *   Schema, and valibot): recognition is in the core, conversion comes with their entry (./optional-parts.ts);
 * - {@link resolveSchema}: the kind of schema found, its adapter made (or refused when its part is not
 *   registered, naming the import), its JSON Schema finished for announcement, and the guard added that makes
 *   validation refuse what the announcement refuses (./announced.ts).
 *
 * This is the folder's face: what the other floors use of it is exported here.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ToolDefinitionError, ToolwireError } from '../../errors';
import { isPlainObject } from '../../json';
import {
  ANY_OBJECT,
  anyObjectAdapter,
  type JsonObject,
  noneAdapter,
  type SchemaAdapter,
  UnsatisfiableSchemaError,
} from './adapter';
import { objectRoot, withAnnounced, withOwnPropertiesOnly } from './announced';
import { arkTypeAdapter, arkTypeMessage, isArkTypeSchema } from './arktype';
import { type OptionalParts, PART_IMPORTS, registeredPart } from './optional-parts';
import {
  hasStandardJsonSchema,
  isStandardSchema,
  standardAdapter,
  standardInputJsonSchema,
} from './standard';
import { zod3Validate } from './zod-parse';
import { isZod4Schema, zod4Adapter, zod4Validate } from './zod4';

export type { JsonObject, SchemaAdapter, SchemaKind, ValidationIssue, ValidationResult } from './adapter';
export { integerAt } from './announced';

/** `true` for a zod 3 schema: vendor `zod` and a `_def.typeName` (zod 4 keeps its definition in `_zod`). */
export function isZod3Schema(schema: StandardSchemaV1): boolean {
  if (schema['~standard'].vendor !== 'zod') return false;
  const def = (schema as unknown as { _def?: { typeName?: unknown } })._def;
  return typeof def?.typeName === 'string' && !('_zod' in schema);
}

/** `true` for a valibot schema (Standard Schema vendor `valibot`). */
export function isValibotSchema(schema: StandardSchemaV1): boolean {
  return schema['~standard'].vendor === 'valibot';
}

/*
 * zod 3 before 3.24, which has no Standard Schema (`~standard`): read through zod's own API. Validation is
 * `safeParse` (or `safeParseAsync` when zod says the schema is asynchronous), its issues having the same
 * `{ path, message }` shape, so an `outputSchema` of it needs nothing more; as parameters, its JSON Schema comes
 * from `toolwire/zod3`'s converter as for any zod 3 (it reads `_def`, which these versions share). A schema from
 * before zod 3 (no `_def.typeName`) is refused, saying so.
 */
/** What toolwire reads of a zod 3 schema from before 3.24. */
export interface LegacyZod3Schema<Output = unknown> {
  readonly _def: { readonly typeName: string };
  readonly _output: Output;
  safeParse(value: unknown): LegacyResult;
  safeParseAsync(value: unknown): Promise<LegacyResult>;
}

type LegacyResult =
  | { success: true; data: unknown }
  | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };

const looksLikeZod = (value: unknown): value is Record<string, unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  !('~standard' in value) &&
  typeof (value as { _def?: unknown })._def === 'object' &&
  typeof (value as { safeParse?: unknown }).safeParse === 'function';

/** `true` for a zod 3 schema without Standard Schema (zod 3.0 to 3.23). */
export function isLegacyZod3Schema(value: unknown): value is LegacyZod3Schema {
  return (
    looksLikeZod(value) &&
    typeof (value._def as { typeName?: unknown }).typeName === 'string' &&
    typeof value.safeParseAsync === 'function'
  );
}

/** Why a zod-like schema toolwire does not read is refused, or `undefined` for anything else. */
export function unreadableZodReason(value: unknown): string | undefined {
  if (!looksLikeZod(value) || isLegacyZod3Schema(value)) return undefined;
  return 'looks like a zod schema from before zod 3 (no _def.typeName), which toolwire does not read; upgrade zod to 3.24 or later';
}

/** Each library's object schema, as a refusal of a shape names it. */
const OBJECT_SCHEMA: Readonly<Record<string, string>> = {
  zod: 'z.object({ … })',
  valibot: 'v.object({ … })',
  arktype: 'type({ … })',
};

/**
 * Why an object whose every value is a library's schema (a shape: `{ a: z.string() }`, what the MCP SDK's
 * `inputSchema` takes) is refused, naming the object schema to wrap it in; `undefined` for anything else.
 */
function shapeReason(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const libraries = Object.values(value).map(schemaLibraryOf);
  const [vendor] = libraries;
  if (vendor === undefined || libraries.includes(undefined)) return undefined;
  const wrapper = OBJECT_SCHEMA[vendor] ?? `${vendor}'s object schema`;
  return `is an object of ${vendor} schemas (a shape), not a schema: wrap it in ${wrapper}`;
}

/**
 * The library `value` is a schema of, as a message names it: its Standard Schema `vendor` (`zod`, `valibot`,
 * `arktype`, …), `zod` for a zod schema without Standard Schema; `undefined` for a value that is no library's schema.
 */
export function schemaLibraryOf(value: unknown): string | undefined {
  if (isStandardSchema(value)) {
    const vendor = (value['~standard'] as { vendor?: unknown }).vendor;
    return typeof vendor === 'string' ? vendor : 'zod';
  }
  return looksLikeZod(value) ? 'zod' : undefined;
}

const SYNC_REFUSED = /async|promise/i;

function toResult(result: LegacyResult): StandardSchemaV1.Result<unknown> {
  if (result.success) return { value: result.data };
  return { issues: result.error.issues.map((issue) => ({ message: issue.message, path: issue.path })) };
}

/**
 * The schema as a Standard Schema (vendor `zod`): `safeParse`, or `safeParseAsync` when zod refuses to parse
 * it synchronously (an async refinement or transform: zod throws, naming the async). Validated through
 * {@link legacyZod3Adapter}, which goes straight to `safeParseAsync` once the schema is known to be async.
 */
export function legacyZod3AsStandard(schema: LegacyZod3Schema): StandardSchemaV1 {
  return {
    '~standard': {
      version: 1,
      vendor: 'zod',
      validate: (value) => {
        try {
          return toResult(schema.safeParse(value));
        } catch (error) {
          if (!(error instanceof Error) || !SYNC_REFUSED.test(error.message)) throw error;
          return schema.safeParseAsync(value).then(toResult);
        }
      },
    },
  };
}

/** Adapter for a zod 3 schema from before 3.24, each refinement and transform run once per call (./zod-parse.ts). */
function legacyZod3Adapter(schema: LegacyZod3Schema, jsonSchema: JsonObject): SchemaAdapter {
  const standard = legacyZod3AsStandard(schema);
  return { ...standardAdapter('zod3', standard, jsonSchema), validate: zod3Validate(schema, standard) };
}

/** Where a schema comes from, for error messages: `tool "search_orders"` and `parameters`. */
export interface SchemaOrigin {
  /** Names the tool, e.g. `tool "search_orders"`. */
  owner: string;
  /** The option holding the schema: `parameters` (or `inputSchema`) or `outputSchema`. */
  field: 'parameters' | 'inputSchema' | 'outputSchema' | 'outputType' | 'schema';
  /** `true` when the schema must describe a JSON object (tool parameters). */
  requireObject: boolean;
}

/** What a value that is no schema is, for a message: `null`, `an array`, `an instance of Date`, `a number`. */
function kindOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an instance of ${value.constructor?.name || 'an unknown class'}`;
  return `a ${typeof value}`;
}

/**
 * An optional part a definition reads (./optional-parts.ts): its name, and what in the definition needs it, as a
 * refusal says it (`parameters is a plain JSON Schema`, `strict is true`).
 */
export interface PartNeed {
  readonly name: keyof OptionalParts;
  readonly what: string;
}

/**
 * The optional part reading `value` as `field` takes, registered or not: `zod3` and `valibot` for those schemas
 * (announced fields only: an `outputSchema` of a Standard Schema is only validated), `jsonSchema` for a plain JSON
 * Schema; `undefined` for what the core reads alone (zod 4, arktype, Standard JSON Schema, none) and for what is
 * no schema (refused by {@link resolveSchema} as such).
 */
export function partNeeded(value: unknown, field: SchemaOrigin['field']): PartNeed | undefined {
  const announced = field !== 'outputSchema';
  const need = (name: keyof OptionalParts, kind: string) => ({ name, what: `${field} is ${kind}` });
  if (isStandardSchema(value)) {
    if (!announced || isArkTypeSchema(value) || isZod4Schema(value) || hasStandardJsonSchema(value)) {
      return undefined;
    }
    if (isZod3Schema(value)) return need('zod3', 'a zod 3 schema');
    return isValibotSchema(value) ? need('valibot', 'a valibot schema') : undefined;
  }
  if (isLegacyZod3Schema(value)) return announced ? need('zod3', 'a zod 3 schema') : undefined;
  if (
    value !== ANY_OBJECT &&
    unreadableZodReason(value) === undefined &&
    shapeReason(value) === undefined &&
    isPlainObject(value)
  ) {
    return need('jsonSchema', 'a plain JSON Schema');
  }
  return undefined;
}

/**
 * Refuses, once, a definition by `owner` that needs optional parts no entry registered, naming every import they
 * need: `tool "add": parameters is a plain JSON Schema and strict is true, which toolwire reads only after
 * \`import 'toolwire/json-schema'\` and \`import 'toolwire/strict'\` (once, before the tools are defined)`.
 * Nothing when every part needed is registered.
 *
 * @throws ToolDefinitionError `unsupported_schema`.
 */
export function refuseMissingParts(owner: string, needs: ReadonlyArray<PartNeed | undefined>): void {
  const missing = needs.filter(
    (need): need is PartNeed => need !== undefined && registeredPart(need.name) === undefined,
  );
  if (missing.length > 0) throw missingParts(owner, missing);
}

/** The refusal of {@link refuseMissingParts} for the parts `missing`. */
function missingParts(owner: string, missing: readonly PartNeed[]): ToolDefinitionError {
  const imports = [...new Set(missing.map((need) => `\`import '${PART_IMPORTS[need.name]}'\``))];
  return new ToolDefinitionError(
    'unsupported_schema',
    `${owner}: ${listed(missing.map((need) => need.what))}, which toolwire reads only after ${listed(imports)} ` +
      '(once, before the tools are defined)',
  );
}

/** `['a']` → `a`, `['a', 'b', 'c']` → `a, b and c`. */
const listed = (items: readonly string[]) =>
  items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * The optional part `name`, for a schema described as `what` (`a zod 3 schema`).
 * @throws ToolDefinitionError `unsupported_schema` naming the import that registers it, when none did.
 */
function part<K extends keyof OptionalParts>(
  name: K,
  what: string,
  origin: SchemaOrigin,
): NonNullable<OptionalParts[K]> {
  const found = registeredPart(name);
  if (found !== undefined) return found;
  throw missingParts(origin.owner, [{ name, what: `${origin.field} is ${what}` }]);
}

function libraryAdapter(schema: StandardSchemaV1, origin: SchemaOrigin): SchemaAdapter {
  if (isArkTypeSchema(schema)) return arkTypeAdapter(schema);
  // zod 4 first: `zod/mini` has no Standard JSON Schema, and zod converts it itself.
  if (isZod4Schema(schema)) return zod4Adapter(schema);
  if (hasStandardJsonSchema(schema)) {
    return standardAdapter('standard', schema, standardInputJsonSchema(schema));
  }
  if (isZod3Schema(schema)) return part('zod3', 'a zod 3 schema', origin).adapter(schema);
  if (isValibotSchema(schema)) return part('valibot', 'a valibot schema', origin).adapter(schema);
  throw new Error(
    `the ${JSON.stringify(schema['~standard'].vendor)} Standard Schema does not implement Standard JSON Schema ` +
      '(`~standard.jsonSchema`); pass a JSON Schema object instead, or a zod, valibot or arktype schema',
  );
}

/**
 * Removes `$schema` and makes the schema plain JSON, detached from the library's objects; for parameters, the
 * root as {@link objectRoot} announces it.
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
 * given as a Standard Schema is used for validation only (its `jsonSchema` is `{}`): it is never announced, so it
 * needs no optional part.
 *
 * @throws ToolDefinitionError `invalid_parameters` / `invalid_output_schema` when the value is none of the
 *   accepted kinds (or parameters do not describe an object); `unsupported_schema` when it cannot be expressed
 *   as JSON Schema (e.g. `z.date()`), with the library's reason in the message and the original in `cause`, or
 *   when it is a zod 3 or valibot schema or a plain JSON Schema whose optional part was not registered, naming
 *   the import that registers it.
 */
export function resolveSchema(value: unknown, origin: SchemaOrigin): SchemaAdapter {
  if (value === undefined) return noneAdapter();
  if (value === ANY_OBJECT) return anyObjectAdapter();
  const kindCode =
    origin.field === 'parameters' || origin.field === 'inputSchema'
      ? 'invalid_parameters'
      : 'invalid_output_schema';
  // An output schema is only validated, never announced: any Standard Schema will do (z.date() included).
  if (origin.field === 'outputSchema' && isStandardSchema(value)) {
    const adapter = standardAdapter(
      'standard',
      value,
      {},
      isArkTypeSchema(value) ? arkTypeMessage : undefined,
    );
    if (isZod4Schema(value)) return { ...adapter, validate: zod4Validate(value) };
    if (isZod3Schema(value)) return { ...adapter, validate: zod3Validate(value as never, value) };
    return adapter;
  }
  if (origin.field === 'outputSchema' && isLegacyZod3Schema(value)) return legacyZod3Adapter(value, {});
  const library = isStandardSchema(value) || isLegacyZod3Schema(value);
  // Everything in here may meet what a library returns (a cycle, a schema too deep for the stack): any
  // failure is the developer's to see at definition time, as a ToolDefinitionError.
  try {
    let adapter: SchemaAdapter;
    if (isStandardSchema(value)) adapter = libraryAdapter(value, origin);
    else if (isLegacyZod3Schema(value)) {
      // zod before 3.24: validated through its own API, converted like any zod 3.
      const convert = part('zod3', 'a zod 3 schema', origin).inputJsonSchema;
      const jsonSchema = convert(value as unknown as StandardSchemaV1);
      adapter = legacyZod3Adapter(value, jsonSchema);
    } else if (unreadableZodReason(value) !== undefined) {
      throw new ToolDefinitionError(
        kindCode,
        `${origin.owner}: ${origin.field} ${unreadableZodReason(value)}`,
      );
    } else if (shapeReason(value) !== undefined) {
      throw new ToolDefinitionError(kindCode, `${origin.owner}: ${origin.field} ${shapeReason(value)}`);
    } else if (isPlainObject(value)) {
      adapter = part('jsonSchema', 'a plain JSON Schema', origin).adapter(value);
    } else {
      throw new ToolDefinitionError(
        kindCode,
        `${origin.owner}: ${origin.field} must be a Standard Schema (zod, valibot, arktype, …), a JSON Schema ` +
          `object or undefined, got ${kindOfValue(value)}`,
      );
    }
    const finished: SchemaAdapter = { ...adapter, jsonSchema: finish(adapter.jsonSchema, origin) };
    // Parameters are announced: validation must refuse what the announcement refuses, which a JSON Schema does
    // by itself and a zod 4 schema of trusted constructs was proved to do; and a library's refusal is told in
    // the announcement's words, as a JSON Schema's is (see withAnnounced).
    const announcedLibrary =
      origin.requireObject && finished.kind !== 'json-schema' && finished.kind !== 'none';
    return announcedLibrary
      ? withAnnounced(withOwnPropertiesOnly(finished), finished.acceptsOnlyAnnounced !== true)
      : finished;
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const code = library ? 'unsupported_schema' : kindCode;
    // The code that reads it could not be loaded (the Node entry's zod 3 converter, src/node.ts).
    const unread = error instanceof ToolwireError && error.code === 'load_failed';
    // Read by walks that recurse: a schema nested thousands of levels deep overflows the stack.
    const tooDeep = error instanceof RangeError && /stack/i.test(reason);
    const what = unread
      ? 'could not be read'
      : tooDeep
        ? 'nests too deeply to be read (name a part that repeats once and refer to it: $defs and $ref)'
        : library
          ? 'cannot be expressed as JSON Schema'
          : error instanceof UnsatisfiableSchemaError
            ? 'holds a schema no value can pass'
            : 'is not a valid JSON Schema';
    throw new ToolDefinitionError(code, `${origin.owner}: ${origin.field} ${what}: ${reason}`, {
      cause: error,
    });
  }
}
