/**
 * The zod 3 adapter that `toolwire/zod3` registers (the Node entry registers it too). zod 3 (3.24 and later)
 * implements Standard Schema for validation but cannot describe itself as JSON Schema, so its input side is
 * converted with `zod-to-json-schema`, refusing the types JSON cannot carry. In order: the rules the conversion
 * applies (through the converter's `override` and `postProcess` hooks), the conversion, the adapter. zod 3 is
 * recognised by the core (./index.ts), which also validates zod 3 from before 3.24 itself and converts it here
 * like any zod 3.
 *
 * The converter is handed in by the entry that registers the adapter ({@link zod3Part}): `toolwire/zod3` imports
 * it with the page; the Node entry loads it with `require` when the first zod 3 schema is read, so that a Node
 * process with no zod 3 tool never evaluates it (nor the copy of zod 3 it imports, `zod/v3`: ~30 ms of CPU at
 * start-up on Node 20).
 *
 * @see https://github.com/StefanTerdell/zod-to-json-schema for the options used here.
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type * as ZodToJsonSchema from 'zod-to-json-schema';
import {
  type JsonObject,
  looksComputed,
  PREPROCESS_MESSAGE,
  type SchemaAdapter,
  UNKNOWN_PIPE_MESSAGE,
} from './adapter';
import { standardAdapter } from './standard';
import { zod3Validate } from './zod-parse';

/** zod 3 type names whose values JSON cannot carry; `zod-to-json-schema` would map some of them silently. */
const UNREPRESENTABLE: Readonly<Record<string, string>> = {
  ZodDate: 'z.date()',
  ZodBigInt: 'z.bigint()',
  ZodMap: 'z.map()',
  ZodSet: 'z.set()',
  ZodFunction: 'z.function()',
  ZodPromise: 'z.promise()',
  ZodSymbol: 'z.symbol()',
  ZodNaN: 'z.nan()',
};
/**
 * zod 3 types that accept `undefined` alone, which no JSON value is: announced as `{ "not": {} }`; an object
 * key of one is optional (an absent key is `undefined`), which `zod-to-json-schema` leaves out of `required`.
 */
const ONLY_UNDEFINED = new Set(['ZodUndefined', 'ZodVoid']);

interface Zod3Def {
  typeName?: unknown;
  checks?: Array<{ kind?: unknown }>;
  effect?: { type?: unknown };
  schema?: Zod3Like;
  in?: Zod3Like;
  out?: Zod3Like;
  innerType?: Zod3Like;
  defaultValue?: unknown;
}
interface Zod3Like {
  _def: Zod3Def;
}

// Wrappers whose input side is their inner schema's (plus `undefined` or `null`).
const WRAPPERS = new Set(['ZodOptional', 'ZodNullable', 'ZodReadonly']);

/** `true` when `schema` takes any input: `z.unknown()`, `z.any()`, a preprocess, or one of these piped on. */
function takesAnyInput(def: Zod3Def): boolean {
  if (def.typeName === 'ZodUnknown' || def.typeName === 'ZodAny') return true;
  if (def.typeName === 'ZodEffects') {
    return def.effect?.type === 'preprocess' || (def.schema !== undefined && takesAnyInput(def.schema._def));
  }
  if (def.typeName === 'ZodPipeline') return def.in !== undefined && takesAnyInput(def.in._def);
  if (WRAPPERS.has(def.typeName as string))
    return def.innerType !== undefined && takesAnyInput(def.innerType._def);
  return false;
}

/**
 * `true` when `schema` refuses some value: anything but `z.unknown()` / `z.any()`, their transforms and
 * refinements (a refinement's condition is never announced: the announced schema is its closest superset).
 */
function narrows(def: Zod3Def): boolean {
  if (def.typeName === 'ZodUnknown' || def.typeName === 'ZodAny') return false;
  if (def.typeName === 'ZodEffects') return def.schema === undefined || narrows(def.schema._def);
  if (def.typeName === 'ZodPipeline') {
    return (def.in !== undefined && narrows(def.in._def)) || (def.out !== undefined && narrows(def.out._def));
  }
  if (WRAPPERS.has(def.typeName as string)) return def.innerType === undefined || narrows(def.innerType._def);
  return true;
}

/** zod 3 string checks that rewrite the value the checks after them read. */
const OVERWRITES = new Set(['trim', 'toLowerCase', 'toUpperCase']);

/**
 * A string with a check after `.trim()`, `.toLowerCase()` or `.toUpperCase()`, announced with the checks before
 * the first of those alone: the later ones judge the rewritten value, not the input (`.trim().max(2)` accepts
 * `" ab "`). The closest superset; zod's verdict wins. Anything else as `zod-to-json-schema` made it.
 */
function announceBeforeOverwrites(
  converter: Zod3Converter,
  jsonSchema: unknown,
  def: Zod3Def,
  refs: unknown,
): unknown {
  if (def.typeName !== 'ZodString' || def.checks === undefined) return jsonSchema;
  const first = def.checks.findIndex((check) => OVERWRITES.has(check.kind as string));
  if (first === -1 || first === def.checks.length - 1) return jsonSchema;
  const before = converter.parseStringDef(
    { ...def, checks: def.checks.slice(0, first) } as never,
    refs as never,
  );
  const { description } = jsonSchema as { description?: unknown };
  return description === undefined ? before : { ...before, description };
}

/**
 * A `.default()`'s announcement without its `default` when it looks computed at each parse
 * (`.default(() => new Date().toISOString())`; see `looksComputed` in ./adapter.ts); anything else as it is.
 */
function withoutComputedDefault(jsonSchema: unknown, def: Zod3Def): unknown {
  if (def.typeName !== 'ZodDefault' || typeof def.defaultValue !== 'function') return jsonSchema;
  if (typeof jsonSchema !== 'object' || jsonSchema === null || !Object.hasOwn(jsonSchema, 'default')) {
    return jsonSchema;
  }
  const { default: announced, ...rest } = jsonSchema as Record<string, unknown>;
  return looksComputed(announced, def.defaultValue as () => unknown) ? rest : jsonSchema;
}

/**
 * JSON Schema (input side) of a zod 3 schema. Objects that strip unknown keys (zod's default) announce no
 * `additionalProperties`, so the announced schema accepts what zod accepts; `.strict()` announces `false`.
 * Recursive schemas become `$ref`s to their first occurrence; shared ones are inlined.
 *
 * @throws Error naming the zod type when a part of the input cannot be expressed (e.g. `z.date()`), or for a
 *   `z.preprocess()` or a pipe from `z.unknown()` into a narrower schema (the rule for unknown inputs, ./adapter.ts).
 */
function inputJsonSchema(converter: Zod3Converter, schema: StandardSchemaV1): JsonObject {
  const { ignoreOverride } = converter;
  const result = converter.zodToJsonSchema(schema as never, {
    target: 'jsonSchema7', // numeric exclusiveMinimum; tuples are upgraded below
    $refStrategy: 'none',
    effectStrategy: 'input',
    pipeStrategy: 'input',
    removeAdditionalStrategy: 'strict',
    applyRegexFlags: true, // a /…/i pattern as the same pattern without flags (zod-to-json-schema drops flags)
    allowedAdditionalProperties: undefined,
    postProcess: (jsonSchema, def, refs) =>
      withoutComputedDefault(
        announceBeforeOverwrites(converter, jsonSchema, def as Zod3Def, refs),
        def as Zod3Def,
      ) as never,
    override: (def, refs, seen) => {
      const { typeName, effect } = def as Zod3Def;
      const what = typeof typeName === 'string' ? UNREPRESENTABLE[typeName] : undefined;
      if (what !== undefined) throw new Error(`${what} cannot be represented in JSON Schema`);
      if (ONLY_UNDEFINED.has(typeName as string)) return { not: {} };
      // The rule for unknown inputs (./adapter.ts).
      const zodDef = def as Zod3Def;
      if (typeName === 'ZodEffects' && effect?.type === 'preprocess') {
        if (zodDef.schema === undefined || narrows(zodDef.schema._def)) throw new Error(PREPROCESS_MESSAGE);
      }
      if (typeName === 'ZodPipeline' && zodDef.in !== undefined && zodDef.out !== undefined) {
        if (takesAnyInput(zodDef.in._def) && narrows(zodDef.out._def)) {
          throw new Error(
            zodDef.in._def.typeName === 'ZodEffects' && zodDef.in._def.effect?.type === 'preprocess'
              ? PREPROCESS_MESSAGE
              : UNKNOWN_PIPE_MESSAGE,
          );
        }
      }
      // A definition seen on the current path is a cycle: point back to it instead of degrading to `{}`.
      if (seen !== undefined && seen.path.length < refs.currentPath.length) {
        const isAncestor = seen.path.every((segment, index) => refs.currentPath[index] === segment);
        if (isAncestor) return { $ref: seen.path.join('/') };
      }
      return ignoreOverride;
    },
  });
  return upgradeTuples(result) as JsonObject;
}

/**
 * Rewrites draft-07 tuples (`items: [...]`, `additionalItems`) in the 2020-12 vocabulary toolwire
 * announces (`prefixItems`, `items`), in place.
 */
function upgradeTuples(node: unknown): unknown {
  if (Array.isArray(node)) {
    for (const child of node) upgradeTuples(child);
  } else if (typeof node === 'object' && node !== null) {
    const schema = node as Record<string, unknown>;
    if (Array.isArray(schema.items)) {
      schema.prefixItems = schema.items;
      delete schema.items;
      if ('additionalItems' in schema) {
        schema.items = schema.additionalItems;
        delete schema.additionalItems;
      }
    }
    for (const child of Object.values(schema)) upgradeTuples(child);
  }
  return node;
}

/** What the conversion uses of `zod-to-json-schema`. */
export type Zod3Converter = Pick<
  typeof ZodToJsonSchema,
  'zodToJsonSchema' | 'parseStringDef' | 'ignoreOverride'
>;

/** The zod 3 part an entry registers: the adapter and the conversion alone, as {@link OptionalParts} names them. */
export interface Zod3Part {
  /** Adapter for a zod 3 schema. @throws Error when the input side cannot be expressed as JSON Schema. */
  adapter(schema: StandardSchemaV1): SchemaAdapter;
  /** The input side of a zod 3 schema as JSON Schema (see {@link inputJsonSchema}). @throws as `adapter`. */
  inputJsonSchema(schema: StandardSchemaV1): JsonObject;
}

/**
 * The zod 3 part, converting with what `converter` gives: called at the first conversion, and its answer kept.
 * @throws at a conversion, whatever `converter` throws (the converter could not be loaded).
 */
export function zod3Part(converter: () => Zod3Converter): Zod3Part {
  let loaded: Zod3Converter | undefined;
  const convert = (schema: StandardSchemaV1) => {
    loaded ??= converter();
    return inputJsonSchema(loaded, schema);
  };
  return {
    adapter: (schema) => ({
      ...standardAdapter('zod3', schema, convert(schema)),
      validate: zod3Validate(schema as never, schema),
    }),
    inputJsonSchema: convert,
  };
}
