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
import { eachSubschema, type JsonObject, looksComputed, type SchemaAdapter } from './adapter';
import { standardAdapter } from './standard';

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

/** The part of arktype's internal nodes read here: every node a type refers to, deeply. */
interface ArkNode {
  kind?: string;
  rule?: unknown;
  flags?: unknown;
  undeclared?: unknown;
}

/**
 * What arktype's `toJsonSchema` announces that arktype does not check on the input: the rule of a pattern
 * with a flag (announced without it, so `/^a+$/i` refused `"AA"`) and whether some object deletes its
 * undeclared keys (announced as `"additionalProperties": false`, which refuses them; arktype accepts them).
 */
function overAnnounced(schema: StandardSchemaV1): { flaggedPatterns: Set<string>; deletesKeys: boolean } {
  const references =
    (schema as unknown as { internal?: { references?: ArkNode[] } }).internal?.references ?? [];
  const flaggedPatterns = new Set<string>();
  let deletesKeys = false;
  for (const node of references) {
    if (node.kind === 'pattern' && typeof node.flags === 'string' && /[^duv]/.test(node.flags)) {
      flaggedPatterns.add(String(node.rule));
    }
    if (node.kind === 'structure' && node.undeclared === 'delete') deletesKeys = true;
  }
  return { flaggedPatterns, deletesKeys };
}

/**
 * Removes (in place) what {@link overAnnounced} found: those patterns, and every `"additionalProperties": false`
 * when an object deletes undeclared keys (which object announced it is not told apart: the closest superset).
 */
function withoutOverAnnounced(announced: JsonObject, found: ReturnType<typeof overAnnounced>): void {
  eachSubschema(announced, (schema) => {
    if (typeof schema.pattern === 'string' && found.flaggedPatterns.has(schema.pattern))
      delete schema.pattern;
    if (found.deletesKeys && schema.additionalProperties === false) delete schema.additionalProperties;
  });
}

/**
 * JSON Schema (input side) of an arktype `Type`. Morphs announce their input (`base`); narrowing predicates
 * (`.narrow()`) are left out, so the announced schema is the closest superset and validation reports the
 * failure; a default that is not JSON is not announced; `undefined` is `{ "not": {} }`; a pattern with a flag
 * and the refusal of undeclared keys an object deletes are left out (see {@link overAnnounced}).
 *
 * @throws Error naming the construct, e.g. `a Date cannot be represented in JSON Schema`.
 */
export function arkTypeInputJsonSchema(schema: StandardSchemaV1): JsonObject {
  const announced = convert(schema);
  // A default given as a function is computed by the conversion: a second one tells it apart (./adapter.ts).
  if (JSON.stringify(announced).includes('"default":')) withoutComputedDefaults(announced, convert(schema));
  const found = overAnnounced(schema);
  if (found.flaggedPatterns.size > 0 || found.deletesKeys) withoutOverAnnounced(announced, found);
  return announced;
}

function convert(schema: StandardSchemaV1): JsonObject {
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

/**
 * Leaves out (in place) each `default` of `announced` that looks computed at each parse, `again` being a second
 * conversion of the same schema, read at the same keys (see `looksComputed` in ./adapter.ts): a function default
 * (`['string', '=', () => crypto.randomUUID()]`) was called by each.
 */
function withoutComputedDefaults(announced: JsonObject, again: JsonObject): void {
  const at = (keys: readonly string[]) =>
    keys.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], again) as
      | JsonObject
      | undefined;
  eachSubschema(announced, (schema, keys) => {
    if (Object.hasOwn(schema, 'default') && looksComputed(schema.default, () => at(keys)?.default))
      delete schema.default;
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
