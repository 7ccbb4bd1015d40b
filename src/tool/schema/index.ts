/**
 * Turns whatever was passed as `parameters` or `outputSchema` into a {@link SchemaAdapter}, at definition time:
 * detection of the kind, conversion to JSON Schema, and every failure as a {@link ToolDefinitionError}.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ToolDefinitionError } from '../../errors';
import { isPlainObject } from '../../json';
import type { JsonObject, SchemaAdapter } from './adapter';
import { noneAdapter } from './adapter';
import { arkTypeAdapter, arkTypeMessage, isArkTypeSchema } from './arktype';
import {
  guardUnlessProved,
  guardWithAnnounced,
  jsonSchemaAdapter,
  UnsatisfiableSchemaError,
} from './json-schema';
import {
  hasStandardJsonSchema,
  isStandardSchema,
  standardAdapter,
  standardInputJsonSchema,
} from './standard';
import type * as Valibot from './valibot';
import { valibotAdapter } from './valibot';
import type * as Zod3 from './zod3';
import {
  isLegacyZod3Schema,
  legacyZod3AsStandard,
  unreadableZodReason,
  zod3Adapter,
  zod3InputJsonSchema,
} from './zod3';
import { isZod4Schema, zod4Adapter } from './zod4';

export type { JsonObject, SchemaAdapter, SchemaKind, ValidationIssue, ValidationResult } from './adapter';

/*
 * The root of tool parameters: what it announces, given that validation only ever sees objects there (the
 * arguments are decoded to a JSON object first: `[]` and `42` are refused before validation, `null` becomes
 * `{}`, see src/call/arguments.ts). A root that says "object" in any way JSON Schema can (a `type`, every
 * branch of an `anyOf` / `oneOf` that can hold an object, one part of an `allOf`, a `$ref` to such a schema,
 * as `z.union()` of objects, `.nullable()`, `z.lazy()`, valibot's `lazy()` or an arktype cycle announce it) is
 * announced with `"type": "object"` at the top and without the branches that can hold no object, which refuses
 * the same objects. A root that can hold no object, or that never says so (`{}`, `z.unknown()`), is refused.
 */
/**
 * What a schema says about objects: `object` when every value it accepts is an object (or it accepts none),
 * `none` when it accepts no object, `some` when it may accept objects without saying so.
 */
type ObjectKind = 'object' | 'none' | 'some';

const BRANCHES = ['anyOf', 'oneOf'] as const;
// Keywords that only annotate: a root made of one branch and these is that branch.
const ANNOTATIONS = new Set(['title', 'description', 'examples', 'default', 'deprecated', '$comment']);

/** The value a local JSON Pointer (`#/$defs/node`) points to in `root`, or `undefined`. */
function resolveLocal(root: JsonObject, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (!isPlainObject(current)) return undefined;
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function typeKind(type: unknown): ObjectKind | undefined {
  if (type === undefined) return undefined;
  const names = Array.isArray(type) ? type : [type];
  return names.includes('object') ? 'object' : 'none';
}

function valuesKind(values: readonly unknown[]): ObjectKind {
  return values.some(isPlainObject) ? (values.every(isPlainObject) ? 'object' : 'some') : 'none';
}

/** The kind of `schema`, following local `$ref`s (`seen` stops a `$ref` cycle, which says nothing). */
function kindOf(schema: unknown, root: JsonObject, seen: ReadonlySet<string>): ObjectKind {
  if (schema === false) return 'none';
  if (!isPlainObject(schema)) return 'some';
  const kinds: ObjectKind[] = [];
  const push = (kind: ObjectKind | undefined) => kind !== undefined && kinds.push(kind);
  push(typeKind(schema.type));
  if (Object.hasOwn(schema, 'const')) push(valuesKind([schema.const]));
  if (Array.isArray(schema.enum)) push(valuesKind(schema.enum));
  if (schema.not === true || (isPlainObject(schema.not) && Object.keys(schema.not).length === 0))
    push('none');
  for (const keyword of BRANCHES) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const open = branches.map((branch) => kindOf(branch, root, seen)).filter((kind) => kind !== 'none');
    push(open.length === 0 ? 'none' : open.every((kind) => kind === 'object') ? 'object' : 'some');
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) push(kindOf(part, root, seen));
  if (typeof schema.$ref === 'string' && !seen.has(schema.$ref)) {
    const target = resolveLocal(root, schema.$ref);
    if (target !== undefined) push(kindOf(target, root, new Set([...seen, schema.$ref])));
  }
  if (kinds.includes('none')) return 'none';
  return kinds.includes('object') ? 'object' : 'some';
}

/**
 * `schema` as the root of parameters: with `"type": "object"`, the `anyOf` / `oneOf` branches that can hold no
 * object left out (a single one left merged into the root when nothing else constrains there), or `undefined`
 * when the schema does not describe objects.
 *
 * @example
 * ```ts
 * objectRoot({ anyOf: [{ type: 'object', properties: {} }, { type: 'null' }] }); // { type: 'object', properties: {} }
 * objectRoot({ $ref: '#/$defs/node', $defs: { node: { type: 'object' } } }); // { type: 'object', $ref: …, $defs: … }
 * objectRoot({ type: 'string' }); // undefined
 * ```
 */
export function objectRoot(schema: JsonObject): JsonObject | undefined {
  if (kindOf(schema, schema, new Set()) !== 'object') return undefined;
  let out: JsonObject = { ...schema };
  for (const keyword of BRANCHES) {
    const branches = out[keyword];
    if (!Array.isArray(branches)) continue;
    const open = branches.filter((branch) => kindOf(branch, schema, new Set()) !== 'none');
    const others = Object.keys(out).filter((key) => key !== keyword && !ANNOTATIONS.has(key));
    const only = open[0];
    if (open.length === 1 && others.length === 0 && isPlainObject(only) && !Object.hasOwn(only, '$defs')) {
      const { [keyword]: _branches, ...annotations } = out;
      out = { ...annotations, ...only };
    } else out[keyword] = open;
  }
  if (out.type === 'object') return out;
  const { type: _types, ...rest } = out;
  return { type: 'object', ...rest };
}

/*
 * Whether a tool's JSON Schema says "integer" at a place in its arguments: integers past 2^53 are refused there,
 * because the model's number was rounded when it was parsed (see src/call/argument-limits.ts).
 */
type Schema = { readonly [key: string]: unknown };

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Schemas to follow at most, for `$ref` loops and combinator explosions. */
const MAX_SCHEMAS = 256;

/** The schema a local `$ref` (`#/$defs/Id`, `#/definitions/Id`, `#`) points to in `root`. */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    at = isSchema(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined;
  }
  return isSchema(at) ? at : undefined;
}

/** `schema` and every schema it applies through `$ref`, `allOf`, `anyOf` and `oneOf`. */
function expand(root: Schema, schemas: Schema[]): Schema[] {
  const out: Schema[] = [];
  const pending = [...schemas];
  while (pending.length > 0 && out.length < MAX_SCHEMAS) {
    const schema = pending.pop() as Schema;
    if (out.includes(schema)) continue;
    out.push(schema);
    if (typeof schema.$ref === 'string') {
      const target = resolveRef(root, schema.$ref);
      if (target !== undefined) pending.push(target);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      const branches = schema[keyword];
      if (Array.isArray(branches)) pending.push(...branches.filter(isSchema));
    }
  }
  return out;
}

/** The schemas that apply to the value at `key` of a value `schema` applies to. */
function childSchemas(schema: Schema, key: PropertyKey): Schema[] {
  const out: Schema[] = [];
  if (typeof key === 'number') {
    const { prefixItems, items } = schema;
    if (Array.isArray(prefixItems) && key < prefixItems.length) out.push(prefixItems[key] as Schema);
    else if (Array.isArray(items)) out.push((items[key] ?? schema.additionalItems) as Schema);
    else out.push(items as Schema);
    return out.filter(isSchema);
  }
  const name = String(key);
  const { properties, patternProperties, additionalProperties } = schema;
  if (isSchema(properties) && Object.hasOwn(properties, name)) out.push(properties[name] as Schema);
  else {
    let matched = false;
    if (isSchema(patternProperties)) {
      for (const [pattern, sub] of Object.entries(patternProperties)) {
        try {
          if (new RegExp(pattern, 'u').test(name)) {
            out.push(sub as Schema);
            matched = true;
          }
        } catch {
          // a pattern JavaScript cannot read applies to nothing here
        }
      }
    }
    if (!matched) out.push(additionalProperties as Schema);
  }
  return out.filter(isSchema);
}

function types(schema: Schema): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * `true` when the schemas that apply at `path` of the arguments say `integer` and none says `number`: an
 * integer past 2^53 there was rounded when it was parsed, and no schema would take it as a plain number.
 *
 * @param schema - the tool's announced parameters (`tool.definition.parameters`).
 * @param path - keys and array indices from the root of the arguments.
 */
export function integerAt(schema: unknown, path: readonly PropertyKey[]): boolean {
  if (!isSchema(schema)) return false;
  let at = expand(schema, [schema]);
  for (const key of path) {
    at = expand(
      schema,
      at.flatMap((item) => childSchemas(item, key)),
    );
    if (at.length === 0) return false;
  }
  const said = at.flatMap(types);
  return said.includes('integer') && !said.includes('number');
}

/*
 * Which library a Standard Schema comes from, for the libraries whose adapters the browser build leaves out of
 * its first download (zod 3, valibot: see src/tool/schema/subpaths.ts): detection stays in, conversion comes
 * with `toolwire/zod3` / `toolwire/valibot`.
 */
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
 * Where the browser build of `toolwire` finds the zod 3 and valibot adapters it leaves out of its first download
 * (with their converters, `zod-to-json-schema` and `@valibot/to-json-schema`): `toolwire/zod3` and
 * `toolwire/valibot` (src/zod3.ts, src/valibot.ts) put them here when imported, and the
 * stand-ins browser-build.ts swaps in for src/tool/schema/zod3.ts and valibot.ts read them from here. A global
 * keyed by `Symbol.for`, so that it is one registry however the application's bundler splits or duplicates
 * modules.
 */
/** The adapters registered so far. */
export interface SubpathAdapters {
  /** src/tool/schema/zod3.ts, from `toolwire/zod3`. */
  zod3?: Pick<typeof Zod3, 'zod3Adapter' | 'zod3InputJsonSchema'>;
  /** src/tool/schema/valibot.ts, from `toolwire/valibot`. */
  valibot?: Pick<typeof Valibot, 'valibotAdapter' | 'valibotInputJsonSchema'>;
}

const KEY = Symbol.for('toolwire.schema-adapters');

/** The registry, created on first use. */
export function subpathAdapters(): SubpathAdapters {
  const holder = globalThis as { [KEY]?: SubpathAdapters };
  holder[KEY] ??= {};
  return holder[KEY];
}

/**
 * The adapter of `library`, registered by `subpath`.
 * @throws Error with the one line that fixes it when `subpath` was not imported (src/tool/schema/index.ts
 *   reports it as the tool's `unsupported_schema` error at definition time).
 */
export function registered<K extends keyof SubpathAdapters>(
  library: K,
  subpath: string,
): NonNullable<SubpathAdapters[K]> {
  const found = subpathAdapters()[library];
  if (found !== undefined) return found;
  throw new Error(
    `${library === 'zod3' ? 'zod 3' : library} schemas are converted by the browser build of toolwire only ` +
      `after \`import '${subpath}'\` (once, before the tools are defined)`,
  );
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
