/**
 * zod 4 as toolwire reads it. zod 4 describes its input side itself through Standard JSON Schema
 * (`~standard.jsonSchema.input`); `zod/mini` schemas (and zod 3.25's `zod/v4` copy), which do not carry it, go
 * through zod's own converter, `toJSONSchema`, as classic zod does. In order:
 * - the adapter, {@link zod4Adapter}, and the conversion of the input side, with toolwire's rule for unknown
 *   inputs (./adapter.ts), which zod would otherwise announce as the schema after a `z.preprocess()`;
 * - toolwire's rules for what zod announces, passed to its converter as hooks;
 * - the proof that a schema accepts nothing its announcement refuses ({@link zod4Trusted}), which spares its
 *   calls the check against the announcement: the walk over the definition, the rules it applies to each
 *   construct, and the check that metadata only annotates.
 *
 * @see https://zod.dev/json-schema for `override`, passed through Standard JSON Schema's `libraryOptions`.
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { clone, globalRegistry, safeParseAsync, toJSONSchema, type ZodMiniType } from 'zod/mini';
import { isPlainObject } from '../../json';
import {
  ANNOTATION_KEYWORDS,
  type JsonObject,
  looksComputed,
  PREPROCESS_MESSAGE,
  type SchemaAdapter,
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
  UNKNOWN_PIPE_MESSAGE,
} from './adapter';
import { standardAdapter } from './standard';
import { holdsAsyncFunction, type SafeParseResult, type ZodParseAsync, zodValidate } from './zod-parse';

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
  return inputTranslation(schema).jsonSchema;
}

/**
 * The input side's JSON Schema ({@link zod4InputJsonSchema}), with what toolwire's hooks saw on the way: every
 * schema zod translated (`translated`: zod calls `override` once for each, parents included), and whether a hook
 * changed more than an annotation (`rewritten`: a check after an overwrite, a flagged pattern).
 */
function inputTranslation(schema: StandardSchemaV1): {
  jsonSchema: JsonObject;
  translated: object[];
  rewritten: boolean;
} {
  const translated: object[] = [];
  let rewritten = false;
  const jsonSchema = translate(schema, {
    override: ({ zodSchema, jsonSchema }: { zodSchema: never; jsonSchema: JsonObject }) => {
      translated.push(zodSchema);
      refuseUnknownPipes(zodSchema);
      dropComputedDefault(zodSchema, jsonSchema);
      refuseNonJson(zodSchema);
      if (announceBeforeOverwrites(zodSchema, jsonSchema)) rewritten = true;
      if (dropFlaggedPatterns(zodSchema, jsonSchema)) rewritten = true;
    },
  });
  return { jsonSchema, translated, rewritten };
}

/**
 * Adapter for a zod 4 schema, marked {@link SchemaAdapter.acceptsOnlyAnnounced} when every construct in it is
 * trusted and its metadata only annotates ({@link zod4Trusted}).
 *
 * @throws Error when the input side cannot be expressed as JSON Schema.
 */
export function zod4Adapter(schema: StandardSchemaV1): SchemaAdapter {
  const { jsonSchema, translated, rewritten } = inputTranslation(schema);
  const adapter = { ...standardAdapter('zod4', schema, jsonSchema), validate: zod4Validate(schema) };
  // Without metadata read and no hook's rewrite, a translation without metadata would give this one again, which
  // then only annotates: zod's second translation is spared.
  const trusted =
    !rewritten && noMetadataRead(translated)
      ? zod4DefinitionIsFaithful(schema)
      : zod4Trusted(schema, jsonSchema, (options) => translate(schema, options));
  return trusted ? { ...adapter, acceptsOnlyAnnounced: true } : adapter;
}

/**
 * `true` when zod's translation read no metadata: the registry zod reads by default (its global one, where
 * `.describe()`, `.meta()` and `.register(z.globalRegistry, …)` put it; zod 4.6 keeps it at
 * `globalThis.__zod_globalRegistry`, shared by every copy of zod that loaded) holds none for any schema it
 * translated, nor for their parents (`get` merges a parent's). `false` when that registry is not there, or when
 * the copy of zod/mini toolwire translates with (for a schema without Standard JSON Schema) reads another one.
 */
function noMetadataRead(translated: readonly object[]): boolean {
  const registry = (globalThis as { __zod_globalRegistry?: { get?: unknown } }).__zod_globalRegistry;
  if (registry === undefined || registry !== globalRegistry || typeof registry.get !== 'function')
    return false;
  const get = registry.get as (schema: object) => unknown;
  return translated.every((node) => get.call(registry, node) === undefined);
}

/**
 * Validation of a zod 4 schema, each refinement and transform run once per call (./zod-parse.ts): classic zod's
 * own `safeParseAsync`, or zod's function of it for `zod/mini`, once the schema is known to be async.
 */
export function zod4Validate(schema: StandardSchemaV1): SchemaAdapter['validate'] {
  const own = (schema as { safeParseAsync?: unknown }).safeParseAsync;
  const parseAsync: ZodParseAsync =
    typeof own === 'function'
      ? (value) => own.call(schema, value) as Promise<SafeParseResult>
      : (value) => safeParseAsync(schema as unknown as ZodMiniType, value) as Promise<SafeParseResult>;
  return zodValidate(schema, parseAsync, holdsAsyncFunction(schema));
}

/*
 * toolwire's rules for what zod 4's `toJSONSchema` announces on the input side, passed to it as its
 * `unrepresentable` and `override` options. `override` is there from zod 4.0.0; `unrepresentable` takes a
 * function from 4.5 (an older zod would take it for "any"), so on an older zod `z.undefined()` and `z.void()` are
 * refused and `z.custom()` is refused in zod's words:
 * - `z.undefined()` and `z.void()` accept no JSON value (JSON has no `undefined`; an absent property is
 *   announced by `required`), so they are `{ "not": {} }`, and a literal's `undefined` is left out of its
 *   values (`{ "not": {} }` when it has no other). A bare `z.transform()` takes any input: `{}`.
 * - `z.custom()` and `z.instanceof()` are refused with a message naming them (zod says "Custom types").
 * - `z.promise()` is refused: zod accepts the inner value and hands `execute` a promise of it, which is no
 *   argument a model sends; so is `z.file()`, announced by zod as a binary string but accepting only `File`s.
 * - Checks after an overwrite (`.trim()`, `.toLowerCase()`, `z.overwrite()` …) judge the rewritten value, not
 *   the input: only the checks before the first overwrite are announced (the closest superset; zod's verdict
 *   wins). `.trim().max(2)` announces no `maxLength`, where zod alone announced `maxLength: 2` and the check
 *   against it refused `" ab "`, which zod accepts.
 * - A pattern whose regular expression has a flag that changes what it matches (`i`, `m`, `s`, and the
 *   stateful `g` and `y`) is not announced: zod announces its source without the flags, so `/^[a-z]+$/i`
 *   refused `"AB"`, which zod accepts (the closest superset; zod's verdict wins).
 */
interface HookSchema {
  _zod: {
    def: {
      type?: string;
      values?: unknown[];
      checks?: HookSchema[];
      check?: string;
      fn?: unknown;
      pattern?: unknown;
    };
    constr?: unknown;
  };
}

/** The zod 4 minor from which `toJSONSchema` takes a function as `unrepresentable` (older ones take it for "any"). */
const UNREPRESENTABLE_HOOK_MINOR = 5;

/** `true` when this zod 4 schema's `toJSONSchema` calls an `unrepresentable` function. */
export function supportsUnrepresentableHook(schema: unknown): boolean {
  const version = (schema as { _zod?: { version?: { major?: unknown; minor?: unknown } } })._zod?.version;
  return (
    version?.major === 4 && typeof version.minor === 'number' && version.minor >= UNREPRESENTABLE_HOOK_MINOR
  );
}

const CUSTOM_MESSAGE =
  'z.custom() and z.instanceof() check their values with a function, which JSON Schema cannot represent';

/** The `unrepresentable` option (see the rules above). */
export function unrepresentable({ zodSchema, message }: { zodSchema: HookSchema; message: string }) {
  const def = zodSchema._zod.def;
  if (def.type === 'undefined' || def.type === 'void') return { not: {} };
  if (def.type === 'transform') return 'any';
  if (def.type === 'custom') throw new Error(CUSTOM_MESSAGE);
  if (def.type === 'literal' && def.values?.every((value) => typeof value !== 'bigint')) {
    return def.values.some((value) => value !== undefined) ? 'any' : { not: {} };
  }
  throw new Error(message);
}

/**
 * For `.default()` and `.prefault()`, the announced `default` left out (in place) when it looks computed at each
 * parse (`.default(() => new Date().toISOString())`; see `looksComputed` in ./adapter.ts).
 */
export function dropComputedDefault(
  zodSchema: { _zod: { def: { type?: string } } },
  jsonSchema: JsonObject,
): void {
  const def = zodSchema._zod.def as { type?: string; defaultValue?: unknown };
  if ((def.type !== 'default' && def.type !== 'prefault') || !Object.hasOwn(jsonSchema, 'default')) return;
  if (looksComputed(jsonSchema.default, () => def.defaultValue)) delete jsonSchema.default;
}

/**
 * For a schema with a check after an overwrite, its announcement made from the checks before the first
 * overwrite alone (in place: the annotations stay); nothing for any other schema.
 */
export function announceBeforeOverwrites(zodSchema: HookSchema, jsonSchema: JsonObject): boolean {
  const def = zodSchema._zod.def;
  if (def.type === 'custom' && def.fn !== undefined) return false;
  const checks = def.checks ?? [];
  const first = checks.findIndex((check) => check._zod.def.check === 'overwrite');
  if (first === -1 || first === checks.length - 1) return false;
  const before = clone(
    zodSchema as unknown as ZodMiniType,
    { ...def, checks: checks.slice(0, first) } as never,
  );
  const { $schema: _dialect, ...bare } = toJSONSchema(before, {
    io: 'input',
    target: 'draft-2020-12',
    ...(supportsUnrepresentableHook(zodSchema) ? { unrepresentable } : {}),
  }) as JsonObject;
  for (const key of Object.keys(jsonSchema)) if (!ANNOTATION_KEYWORDS.has(key)) delete jsonSchema[key];
  Object.assign(jsonSchema, bare);
  return true;
}

/** Refuses `z.promise()` and `z.file()` (see the rules above). */
export function refuseNonJson(zodSchema: HookSchema): void {
  const type = zodSchema._zod.def.type;
  if (type === 'promise') {
    throw new Error(
      'z.promise() hands execute a promise of its value, which no JSON argument is; describe the value itself',
    );
  }
  if (type === 'file') {
    throw new Error(
      'z.file() accepts File objects, which JSON arguments cannot carry (a string or base64 can)',
    );
  }
}

/** Flags under which a pattern matches what its source matches as the validator compiles it (with `u`). */
const NEUTRAL_FLAGS = /^[duv]*$/;

function flaggedSource(pattern: unknown): string | undefined {
  return pattern instanceof RegExp && !NEUTRAL_FLAGS.test(pattern.flags) ? pattern.source : undefined;
}

/** Removes (in place) the `pattern`s of the schema's regular expressions that have a flag (see the rules above). */
export function dropFlaggedPatterns(zodSchema: HookSchema, jsonSchema: JsonObject): boolean {
  const def = zodSchema._zod.def;
  const flagged = new Set(
    [def.pattern, ...(def.checks ?? []).map((check) => check._zod.def.pattern)]
      .map(flaggedSource)
      .filter((source) => source !== undefined),
  );
  if (flagged.size === 0) return false;
  if (flagged.has(jsonSchema.pattern as string)) delete jsonSchema.pattern;
  if (!Array.isArray(jsonSchema.allOf)) return true;
  const kept = jsonSchema.allOf.filter(
    (part) =>
      !(typeof part === 'object' && part !== null && flagged.has((part as JsonObject).pattern as string)),
  );
  const only = kept[0] as JsonObject | undefined;
  if (kept.length > 1) jsonSchema.allOf = kept;
  else delete jsonSchema.allOf;
  if (kept.length === 1 && Object.keys(only ?? {}).length === 1 && jsonSchema.pattern === undefined) {
    jsonSchema.pattern = only?.pattern;
  } else if (kept.length === 1) jsonSchema.allOf = kept;
  return true;
}

/*
 * A proof, made once when a tool is defined, that a zod 4 schema accepts nothing its announced JSON Schema
 * refuses, so that `resolveSchema` can leave out the guard of `withAnnounced` (about 3 µs per call). zod may refuse
 * more (a refinement, a transform's issues): its verdict and messages win, as with the guard.
 *
 * The proof walks the definition (`schema._zod.def`, shared by zod and zod/mini) and trusts only what is listed
 * below, each for the stated reason; anything else keeps the guard. zod's translation of these constructs
 * (`~standard.jsonSchema.input`) is trusted as it is; metadata, which can add any keyword to it, is checked
 * apart ({@link metadataOnlyAnnotates}). test/tool/schema/zod4-faithful.test.ts holds a test per construct,
 * test/property/zod4-faithful.test.ts a property test comparing zod and the announcement on generated values.
 *
 * Trusted:
 * - `z.string()` with `.max(n)` and `.min(0 or 1)` / `.nonempty()`: zod counts UTF-16 units (code points in
 *   4.6.7), JSON Schema code points, never more than the units, so only a maximum, or a minimum of at most
 *   one, agrees whatever zod 4 counts.
 * - `z.number()` with `.gt()`, `.gte()`, `.lt()`, `.lte()` (and `.positive()` …) on a finite bound, and
 *   `.int()`, `z.int()`, `z.int32()`, `z.uint32()`, `z.float32()`, `z.float64()`: the same comparisons, and
 *   zod's `Number.isInteger` with a range is `"type": "integer"` with that range or stricter.
 * - `z.boolean()`, `z.null()`, `z.any()`, `z.unknown()`; `z.literal()` and `z.enum()` of strings, finite
 *   numbers, booleans and null (zod's SameValueZero and the validator's equality agree on those).
 * - `z.object()`, `z.looseObject()`, `z.strictObject()`, a catchall of `z.unknown()`, `z.any()` or
 *   `z.never()`, when no key is a name of `Object.prototype`: zod skips a `__proto__` key and finds
 *   `constructor` or `toString` on the prototype, where `required` looks at own properties only.
 * - `z.array()` with `.min()`, `.max()`, `.length()`; `z.tuple()` with or without a rest, when every required
 *   item refuses `undefined` (with a rest, zod does not check the length: it runs an absent item on `undefined`).
 * - `z.union()` (`anyOf`); `z.discriminatedUnion()` (`oneOf`) of `z.object()`s whose discriminator is a
 *   required `z.literal()` or `z.enum()` with values no other option has, so that at most one option's
 *   announcement can match.
 * - `z.record(z.string(), z.unknown())` (or `z.any()`): a record skips an input key `__proto__`, harmless only
 *   when the values may be anything.
 * - `.optional()`, `.exactOptional()`, `.nullable()`, `.nonoptional()`, `.default()`, `.prefault()`,
 *   `.readonly()`: the inner schema, with the optionality announced in `required`.
 * - `.pipe()`, `.transform()` after a schema, `z.codec()`, `z.stringbool()`: the input side (`in`), which is
 *   what is announced; the rest of the pipe only refuses more, as the pipe stops at the input side's first
 *   issue. Not when the input side may report an extra key (a strict object inside): zod goes on past that
 *   issue, and a union after it drops it.
 * - `.refine()`: it only adds an issue, provided no other check follows it on the same schema (it gets the
 *   value, which it could change for a later check). Not `.superRefine()` or `.check(fn)`, whose function
 *   gets the parse itself and can remove the issues found before it.
 *
 * Not trusted, among others: `coerce`; `.catch()`; every string format or pattern (`.email()`, `.regex()`,
 * `.startsWith()`, `.lowercase()`, `z.iso.*` …: the validator compiles `pattern` with the `u` flag, zod its
 * regex with its own flags, which the announcement drops); `.length(n)` and `.min(n > 1)` on strings;
 * overwrites (`.trim()`, `.toLowerCase()`), which rewrite the value later checks read; `.multipleOf()` (zod and
 * the validator compute float remainders differently); a check given its own `when`; `z.xor()` and
 * `unionFallback`; any other record or catchall; `z.lazy()` and any recursion; `z.intersection()`,
 * `z.templateLiteral()`, `z.custom()`; a schema with its own `_zod.toJSONSchema`; a schema parsed by a parser
 * installed on it (`z.withParser()`, `z.compile()`), which zod cannot check against the definition.
 *
 * A schema must not change after the tool is made (zod reads a union's options, a tuple's items, when it
 * parses, while the announcement was made at definition): the proof, like the announcement, holds for the
 * schema as it was then.
 */
/**
 * `true` when `schema` (announced as `announced`) was proved to accept nothing its announcement refuses: every
 * construct in it is trusted ({@link zod4DefinitionIsFaithful}) and its metadata only annotates
 * ({@link metadataOnlyAnnotates}). Then its parameters need no check against the announced JSON Schema after
 * zod validated them. `translate` is zod's translation of it with other library options (here: without
 * metadata).
 */
export function zod4Trusted(
  schema: StandardSchemaV1,
  announced: JsonObject,
  translate: (options: Record<string, unknown>) => JsonObject,
): boolean {
  return (
    zod4DefinitionIsFaithful(schema) &&
    metadataOnlyAnnotates(announced, () => translate({ metadata: NO_METADATA }))
  );
}

/** One walk over a schema: `open` holds the schemas being walked (a repeat is recursion), `done` the results. */
class Walk {
  readonly #open = new Set<object>();
  readonly #done = new Map<object, boolean>();

  faithful(node: unknown): boolean {
    if (!isZodNode(node) || this.#open.has(node)) return false;
    const known = this.#done.get(node);
    if (known !== undefined) return known;
    this.#open.add(node);
    let result: boolean;
    try {
      result =
        isCheckedVersion(node) &&
        node._zod.toJSONSchema === undefined &&
        !hasInstalledParser(node) &&
        (node._zod.parent === undefined || this.faithful(node._zod.parent)) &&
        checksAreFaithful(node) &&
        this.#typeIsFaithful(node);
    } catch {
      result = false; // e.g. a shape getter that throws: no proof
    }
    this.#open.delete(node);
    this.#done.set(node, result);
    return result;
  }

  #all(nodes: readonly unknown[] | undefined): boolean {
    return nodes?.every((node) => this.faithful(node)) === true;
  }

  #typeIsFaithful(node: ZodNode): boolean {
    const def = node._zod.def;
    switch (def.type) {
      case 'string':
      case 'number':
      case 'boolean':
        return def.coerce !== true;
      case 'null':
      case 'any':
      case 'unknown':
        return true;
      case 'literal':
        return Array.isArray(def.values) && valuesAreAnnounced(node, def.values);
      case 'enum':
        return (
          typeof def.entries === 'object' &&
          def.entries !== null &&
          valuesAreAnnounced(node, Object.values(def.entries))
        );
      case 'object':
        return this.#objectIsFaithful(def);
      case 'array':
        return this.faithful(def.element);
      case 'tuple':
        return this.#tupleIsFaithful(def);
      case 'union':
        return this.#unionIsFaithful(def);
      case 'record':
        return this.#recordIsFaithful(def);
      case 'pipe':
        return isZodNode(def.in) && this.faithful(def.in) && !mayReportUnknownKeys(def.in);
      default:
        return def.type !== undefined && WRAPPERS.has(def.type) && this.faithful(def.innerType);
    }
  }

  #tupleIsFaithful(def: ZodDef): boolean {
    const items = def.items;
    return (
      this.#all(items) &&
      items!.every((item) => item._zod.optin !== undefined || !mayAcceptUndefined(item)) &&
      (def.rest === undefined || def.rest === null || this.faithful(def.rest))
    );
  }

  #unionIsFaithful(def: ZodDef): boolean {
    // An exclusive union is announced as `oneOf`, which refuses a value two options accept: trusted only when
    // the announcements of two options cannot both match.
    if (def.inclusive === false) {
      if (def.unionFallback === true || !discriminatesApart(def.options ?? [], def.discriminator))
        return false;
    }
    return this.#all(def.options);
  }

  #recordIsFaithful(def: ZodDef): boolean {
    const { keyType, valueType } = def;
    if (!isZodNode(keyType) || !isZodNode(valueType)) return false;
    const key = keyType._zod.def;
    const plainStringKey =
      key.type === 'string' && key.check === undefined && (key.checks ?? []).length === 0;
    return (
      plainStringKey &&
      ANYTHING.has(valueType._zod.def.type ?? '') &&
      this.faithful(keyType) &&
      this.faithful(valueType)
    );
  }

  #objectIsFaithful(def: ZodDef): boolean {
    const shape = def.shape;
    if (typeof shape !== 'object' || shape === null) return false;
    for (const key of Object.keys(shape)) {
      if (key in Object.prototype || !this.faithful(shape[key])) return false;
    }
    const catchall = def.catchall;
    if (catchall === undefined) return true;
    if (!isZodNode(catchall)) return false;
    const type = catchall._zod.def.type;
    return type === 'never' || (ANYTHING.has(type ?? '') && this.faithful(catchall));
  }
}

/**
 * `true` when every construct in a zod 4 schema's definition is trusted (see the proof above): then zod
 * refuses whatever zod's own translation of the definition to JSON Schema refuses. Metadata is not looked at
 * here (see {@link metadataOnlyAnnotates}). Never throws; `false` for anything that is not a zod 4 schema.
 *
 * @example
 * ```ts
 * zod4DefinitionIsFaithful(z.object({ q: z.string().min(1), n: z.int().positive() })); // true
 * zod4DefinitionIsFaithful(z.object({ n: z.coerce.number() })); // false: "3" passes, "type": "number" refuses
 * ```
 */
export function zod4DefinitionIsFaithful(schema: unknown): boolean {
  return new Walk().faithful(schema);
}

/*
 * The rules the proof applies to one construct: the shape of a zod 4
 * definition as read here, which zod versions the rules were checked against, and per-construct predicates
 * (checks, optionality, unknown keys, discriminated unions). Each predicate is conservative: when unsure it
 * answers so that the guard stays.
 */
/** The part of a zod 4 schema (or check) the proof reads. */
export interface ZodNode {
  _zod: {
    def: ZodDef;
    version?: { major?: unknown; minor?: unknown };
    optin?: string;
    parent?: ZodNode;
    values?: ReadonlySet<unknown>;
    toJSONSchema?: unknown;
    run?: unknown;
    bag?: { fallbackRun?: unknown; validator?: unknown };
    constr?: new (def: { check: string }) => ZodNode;
  };
}
export interface ZodDef {
  type?: string;
  check?: string;
  checks?: ZodNode[];
  coerce?: boolean;
  when?: unknown;
  minimum?: unknown;
  value?: unknown;
  format?: unknown;
  values?: unknown[];
  entries?: Record<string, unknown>;
  shape?: Record<string, ZodNode>;
  catchall?: ZodNode;
  element?: ZodNode;
  items?: ZodNode[];
  rest?: ZodNode | null;
  options?: ZodNode[];
  discriminator?: unknown;
  unionFallback?: boolean;
  inclusive?: boolean;
  keyType?: ZodNode;
  valueType?: ZodNode;
  innerType?: ZodNode;
  in?: ZodNode;
  out?: ZodNode;
}

export function isZodNode(value: unknown): value is ZodNode {
  const zod = (value as { _zod?: { def?: unknown } } | null)?._zod;
  return typeof zod === 'object' && zod !== null && typeof zod.def === 'object' && zod.def !== null;
}

// Wrappers announced as their inner schema (optionality goes to the parent's `required` or `minItems`).
export const WRAPPERS = new Set(['optional', 'nullable', 'nonoptional', 'default', 'prefault', 'readonly']);
// Integer and float formats checked as `Number.isInteger` (for the int ones) and a range, both announced.
const NUMBER_FORMATS = new Set(['safeint', 'int32', 'uint32', 'float32', 'float64']);
export const ANYTHING = new Set(['any', 'unknown']);

/**
 * The zod 4 minor whose behaviour the trust below was checked against (test/property/zod4-faithful.test.ts
 * runs on the installed zod). zod's semantics move between minors (string lengths counted in UTF-16 units, then
 * in code points): a schema from another minor (a user's own copy of zod, zod 3.25's `zod/v4`) keeps the check
 * against its announcement until this is checked again and raised.
 */
const CHECKED_ZOD_MINOR = 6;

export function isCheckedVersion(node: ZodNode): boolean {
  const version = node._zod.version;
  return version?.major === 4 && version.minor === CHECKED_ZOD_MINOR;
}

/**
 * `true` when zod parses the schema with a parser installed on it (`z.withParser()`, `z.compile()`, zod's global
 * compile mode) instead of its definition: zod cannot check that such a parser agrees with the definition, and
 * `z.withParser(z.string(), String)` accepts `0`, so the proof does not hold for it.
 */
export function hasInstalledParser(node: ZodNode): boolean {
  const run = node._zod.run as ({ __originalRun?: unknown } & object) | undefined;
  const bag = node._zod.bag;
  return (
    (typeof run === 'function' && (run as { __originalRun?: unknown }).__originalRun !== undefined) ||
    bag?.fallbackRun !== undefined ||
    bag?.validator !== undefined
  );
}

/** `true` for a string, a finite number, a boolean or null: values zod and the validator compare alike. */
function isPlainValue(value: unknown): boolean {
  const type = typeof value;
  return (
    value === null || type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(value))
  );
}

// zod's own `when` for its length checks (run on anything with a `length`), one per check class.
const defaultWhens = new WeakMap<object, unknown>();

/**
 * `true` when the values zod compares with (a set made when the schema was) are plain and all among those the
 * announcement is made from (the definition's, read now): an array given to `z.literal()` or `z.enum()` and
 * changed afterwards must not let zod accept a value that is no longer announced.
 */
export function valuesAreAnnounced(node: ZodNode, announced: readonly unknown[]): boolean {
  const values = node._zod.values;
  return (
    values !== undefined && [...values].every((value) => isPlainValue(value) && announced.includes(value))
  );
}

/** `true` when a check runs whenever its schema's type check passed: no `when`, or zod's default one. */
function runsAlways(check: ZodNode): boolean {
  const when = check._zod.def.when;
  if (when === undefined) return true;
  const Check = check._zod.constr;
  if (typeof Check !== 'function') return false;
  if (!defaultWhens.has(Check)) {
    let reference: unknown;
    try {
      reference = new Check({ check: String(check._zod.def.check) })._zod.def.when;
    } catch {
      reference = undefined;
    }
    defaultWhens.set(Check, reference);
  }
  return when === defaultWhens.get(Check);
}

/** `true` when a non-custom check, on a schema of type `type`, refuses at least what it announces. */
function checkIsFaithful(type: string | undefined, def: ZodDef): boolean {
  switch (def.check) {
    case 'max_length':
      return type === 'string' || type === 'array';
    case 'min_length':
      return type === 'array' || (type === 'string' && typeof def.minimum === 'number' && def.minimum <= 1);
    case 'length_equals':
      return type === 'array';
    case 'greater_than':
    case 'less_than':
      return type === 'number' && typeof def.value === 'number' && Number.isFinite(def.value);
    case 'number_format':
      return type === 'number' && NUMBER_FORMATS.has(String(def.format));
    default:
      return false;
  }
}

/**
 * `true` for `.refine(fn)` (and `z.refine`): a check that calls `fn` with the value alone and adds an issue when
 * it returns false. `.superRefine()` and `.check(fn)` are not: their function gets the parse itself, and can
 * remove the issues found before it (an extra key of a strict object, a failed `.max()`), `when` or not.
 */
function isRefinement(check: ZodNode): boolean {
  const def = check._zod.def as ZodDef & { fn?: unknown };
  return def.type === 'custom' && typeof def.fn === 'function';
}

/** `true` when every check of the schema is trusted; a format schema (`z.int()`) is its own first check. */
export function checksAreFaithful(node: ZodNode): boolean {
  const def = node._zod.def;
  const checks = def.check === undefined ? (def.checks ?? []) : [node, ...(def.checks ?? [])];
  let customSeen = false;
  for (const check of checks) {
    if (!isZodNode(check)) return false;
    if (check._zod.def.check === 'custom') {
      if (!isRefinement(check)) return false;
      customSeen = true;
      continue;
    }
    if (customSeen || !runsAlways(check) || !checkIsFaithful(def.type, check._zod.def)) return false;
  }
  return true;
}

/** `true` unless the schema surely refuses `undefined` (conservative: `true` when unsure). */
export function mayAcceptUndefined(node: ZodNode): boolean {
  const def = node._zod.def;
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'object':
    case 'array':
    case 'tuple':
    case 'record':
      return false;
    case 'literal':
    case 'enum':
      return node._zod.values?.has(undefined) !== false;
    // `.nonoptional()` refuses only a result that is still undefined: a default inside takes undefined.
    case 'nonoptional':
    case 'nullable':
    case 'readonly':
      return def.innerType === undefined || mayAcceptUndefined(def.innerType);
    case 'pipe':
      return def.in === undefined || mayAcceptUndefined(def.in);
    case 'union':
      return (def.options ?? []).some(mayAcceptUndefined);
    default:
      return true;
  }
}

/**
 * `true` when the schema may report an extra key (a strict object, a `never` catchall, anywhere inside). A pipe
 * stops at any other issue, but goes on past that one, and a union after it returns its option's own result,
 * without the issue: `z.strictObject(…).pipe(z.union(…))` accepts an extra key its announcement refuses.
 */
export function mayReportUnknownKeys(node: ZodNode, seen = new Set<object>()): boolean {
  if (seen.has(node)) return false;
  seen.add(node);
  const def = node._zod.def;
  if (def.type === 'object' && isZodNode(def.catchall) && def.catchall._zod.def.type === 'never') return true;
  const children = [
    ...Object.values(def.type === 'object' && def.shape ? def.shape : {}),
    def.catchall,
    def.element,
    ...(def.items ?? []),
    def.rest,
    ...(def.options ?? []),
    def.keyType,
    def.valueType,
    def.innerType,
    def.in,
    def.out,
  ];
  return children.some((child) => isZodNode(child) && mayReportUnknownKeys(child, seen));
}

/** The values a discriminated union's option claims, or `undefined` when they are not plain and required. */
function discriminatorValues(option: ZodNode, discriminator: string): ReadonlySet<unknown> | undefined {
  const def = option._zod.def;
  if (def.type !== 'object' || def.shape === undefined || !Object.hasOwn(def.shape, discriminator)) return;
  const field = def.shape[discriminator];
  if (!isZodNode(field)) return;
  const type = field._zod.def.type;
  if (type !== 'literal' && type !== 'enum') return;
  const values = field._zod.values;
  return values !== undefined && [...values].every(isPlainValue) ? values : undefined;
}

/** `true` when at most one option's announcement can match: the options claim disjoint discriminator values. */
export function discriminatesApart(options: readonly ZodNode[], discriminator: unknown): boolean {
  if (typeof discriminator !== 'string') return false;
  const claimed = new Set<unknown>();
  for (const option of options) {
    const values = discriminatorValues(option, discriminator);
    if (values === undefined) return false;
    for (const value of values) {
      if (claimed.has(value)) return false;
      claimed.add(value);
    }
  }
  return true;
}

/*
 * Whether a zod 4 schema's metadata only annotates its announcement. zod merges the metadata of `.describe()`
 * and `.meta()` into the JSON Schema as it is, so `z.string().meta({ minLength: 3 })` announces a constraint
 * zod never checks. The announcement is compared with zod's translation of the same schema without any
 * metadata: they must be the same but for annotations.
 */
/** `true` for a keyword whose value is a schema or a list of schemas. */
const holdsSchemas = (keyword: string) =>
  keyword === 'items' || SUBSCHEMA_KEYWORDS.has(keyword) || SUBSCHEMA_LIST_KEYWORDS.has(keyword);

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
    if (ANNOTATION_KEYWORDS.has(key)) continue;
    if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value)) {
      const map: JsonObject = Object.create(null);
      for (const [name, child] of Object.entries(value)) map[name] = withoutAnnotations(child);
      out[key] = map;
    } else out[key] = holdsSchemas(key) ? withoutAnnotations(value) : value;
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
