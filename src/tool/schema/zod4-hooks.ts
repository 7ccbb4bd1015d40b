/**
 * toolwire's rules for what zod 4's `toJSONSchema` announces on the input side, passed to it as its
 * `unrepresentable` and `override` options:
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
 *
 * @module
 */
import { clone, toJSONSchema, type ZodMiniType } from 'zod/mini';
import type { JsonObject } from './types';

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
const UNREPRESENTABLE_HOOK_MINOR = 6;

/** `true` when this zod 4 schema's `toJSONSchema` calls an `unrepresentable` function. */
export function supportsUnrepresentableHook(schema: unknown): boolean {
  const version = (schema as { _zod?: { version?: { major?: unknown; minor?: unknown } } })._zod?.version;
  return (
    version?.major === 4 && typeof version.minor === 'number' && version.minor >= UNREPRESENTABLE_HOOK_MINOR
  );
}

const CUSTOM_MESSAGE =
  'z.custom() and z.instanceof() check their values with a function, which JSON Schema cannot represent';

/** The `unrepresentable` option: see the module's TSDoc. */
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

const KEPT_ANNOTATIONS = [
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
];

/**
 * For a schema with a check after an overwrite, its announcement made from the checks before the first
 * overwrite alone (in place: the annotations stay); nothing for any other schema.
 */
export function announceBeforeOverwrites(zodSchema: HookSchema, jsonSchema: JsonObject): void {
  const def = zodSchema._zod.def;
  if (def.type === 'custom' && def.fn !== undefined) return;
  const checks = def.checks ?? [];
  const first = checks.findIndex((check) => check._zod.def.check === 'overwrite');
  if (first === -1 || first === checks.length - 1) return;
  const before = clone(
    zodSchema as unknown as ZodMiniType,
    { ...def, checks: checks.slice(0, first) } as never,
  );
  const { $schema: _dialect, ...bare } = toJSONSchema(before, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable,
  }) as JsonObject;
  for (const key of Object.keys(jsonSchema)) if (!KEPT_ANNOTATIONS.includes(key)) delete jsonSchema[key];
  Object.assign(jsonSchema, bare);
}

/** Refuses `z.promise()` and `z.file()` (see the module's TSDoc). */
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

/** Removes (in place) the `pattern`s of the schema's regular expressions that have a flag (see the module's TSDoc). */
export function dropFlaggedPatterns(zodSchema: HookSchema, jsonSchema: JsonObject): void {
  const def = zodSchema._zod.def;
  const flagged = new Set(
    [def.pattern, ...(def.checks ?? []).map((check) => check._zod.def.pattern)]
      .map(flaggedSource)
      .filter((source) => source !== undefined),
  );
  if (flagged.size === 0) return;
  if (flagged.has(jsonSchema.pattern as string)) delete jsonSchema.pattern;
  if (!Array.isArray(jsonSchema.allOf)) return;
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
}
