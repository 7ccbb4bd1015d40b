/**
 * The common shape every kind of `parameters` (and `outputSchema`) is turned into, and what every adapter
 * shares. In order:
 * - {@link SchemaAdapter}: a JSON Schema to announce and a validator whose issues carry readable paths;
 * - paths: an issue's path rendered in one style for every kind (`items[0].sku`), from a library's segments or
 *   from a JSON Pointer;
 * - the JSON Schema vocabulary the adapters read and write: which keywords hold subschemas, data or
 *   annotations, the type names, and local JSON Pointers (`#/$defs/item`);
 * - the rule for schemas whose input side is unknown (zod 3 and zod 4 alike);
 * - the adapter of a tool without parameters.
 *
 * @module
 */
import { isPlainObject, type JsonObject } from '../../json';

/** A JSON object, as announced to the service (JSON-serialisable by construction). */
export type { JsonObject };

/** Which adapter handles a schema. `standard` covers zod 4, valibot, arktype and any other Standard Schema. */
export type SchemaKind = 'zod3' | 'zod4' | 'valibot' | 'arktype' | 'standard' | 'json-schema' | 'none';

/** One validation problem: where (rendered path, `(root)` for the value itself) and what. */
export interface ValidationIssue {
  /** Rendered path, e.g. `items[0].sku`, `tags["a b"]`, or `(root)`. */
  path: string;
  /** Human-readable message from the schema library, without the path. */
  message: string;
  /** Set on the last issue of a list cut short: there are more (./explain.ts stops at its 100th). */
  more?: true;
}

/** Result of {@link SchemaAdapter.validate}: the parsed value or at least one issue. */
export type ValidationResult =
  | { ok: true; value: unknown }
  | {
      ok: false;
      issues: ValidationIssue[];
      /** `true` when the library threw (or rejected) instead of judging: its one issue says so, not why the value is wrong. */
      threw?: true;
    };

/** A schema of any supported kind, reduced to what `tool()` and `invokeTool()` need. */
export interface SchemaAdapter {
  /** Which adapter produced this. */
  readonly kind: SchemaKind;
  /** JSON Schema (2020-12 vocabulary, no `$schema` key) describing the accepted input. */
  readonly jsonSchema: JsonObject;
  /**
   * Validates (and, for schema libraries, parses) a value: at once when the library validates synchronously (zod,
   * valibot, arktype, JSON Schema), else through a promise (an async refinement, or the JSON Schema validator a
   * browser page loads with `import()` first, see ./announced.ts: the call that waits tells its host). Never
   * throws for invalid data.
   */
  validate(value: unknown): ValidationResult | Promise<ValidationResult>;
  /**
   * `true` when it was proved, as the adapter was made, that `validate` accepts nothing `jsonSchema` refuses,
   * so that parameters need no check against their announcement after validation (see the guard of `withAnnounced`
   * in ./announced.ts). Set only for zod 4 schemas made of trusted constructs (`zod4Trusted` in ./zod4.ts).
   * @default false
   */
  readonly acceptsOnlyAnnounced?: boolean;
}

/** The text used for the path of the value itself. */
export const ROOT_PATH = '(root)';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Longest key shown whole in a path or a list of names, in characters; a longer one is cut and counted. */
export const MAX_KEY_SHOWN = 40;

/** `text` in at most `max` characters, cut with `…` (never through a surrogate pair). */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

/**
 * A key the arguments or the schema named, as the model reads it in a list: whole up to {@link MAX_KEY_SHOWN}
 * characters, else its start and its length (`"kkk…" (200000 characters)`).
 */
export function showKey(key: string): string {
  if (key.length <= MAX_KEY_SHOWN) return key;
  return longKey(key);
}

function longKey(key: string): string {
  const start = cut(JSON.stringify(key.slice(0, MAX_KEY_SHOWN * 2)), MAX_KEY_SHOWN);
  return `${start}" (${[...key].length} characters)`;
}

/** One path segment: a key, or a Standard Schema `{ key }` segment (valibot uses those). */
export type PathSegmentLike = PropertyKey | { readonly key: PropertyKey };

/**
 * Renders a path: identifier keys joined with `.`, array indices (numbers) as `[0]`, other keys as `["a b"]`, a
 * key over {@link MAX_KEY_SHOWN} characters by its start and length (`["kkk…" (200000 characters)]`).
 *
 * @example
 * ```ts
 * formatPath(['items', 0, 'sku']); // 'items[0].sku'
 * formatPath([]); // '(root)'
 * ```
 */
export function formatPath(segments: readonly PathSegmentLike[] | undefined): string {
  if (segments === undefined || segments.length === 0) return ROOT_PATH;
  let out = '';
  for (const segment of segments) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'symbol') out += `[${cut(String(key), MAX_KEY_SHOWN)}]`;
    else if (key.length > MAX_KEY_SHOWN) out += `[${longKey(key)}]`;
    else if (IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

/**
 * Converts a JSON Pointer in URI fragment form (`#/items/0/sku`, as `@cfworker/json-schema` reports it) to
 * path segments. A segment is an array index only when the value at that point of `instance` is an array, so
 * an object key `"0"` stays a key.
 */
export function pointerToSegments(pointer: string, instance: unknown): PropertyKey[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '' || body === '/') return [];
  const segments: PropertyKey[] = [];
  let current: unknown = instance;
  for (const raw of body.slice(1).split('/')) {
    const key = unescapeSegment(safeDecode(raw));
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(key)) {
      const index = Number(key);
      segments.push(index);
      current = current[index];
    } else {
      segments.push(key);
      current =
        typeof current === 'object' && current !== null
          ? (current as Record<string, unknown>)[key]
          : undefined;
    }
  }
  return segments;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The JSON Schema keywords whose values are themselves schemas, by shape (JSON Schema 2020-12 Core §10, with
 * `items` as the one schema it is there, and `additionalItems` and `definitions` of the earlier drafts): the one
 * list for every walk over a schema's subschemas. Keywords whose value is one schema:
 */
export const SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
]);

/** Keywords whose value is a non-empty array of schemas. */
export const SUBSCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
]);

/** Keywords whose value maps names to schemas. */
export const SUBSCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);

/** Keywords whose value is data, never a schema: a walk over subschemas does not enter them. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples']);

/**
 * Calls `visit` with `node` and every schema object in it, each before its subschemas, and its keys from `node`
 * (a JSON Pointer's segments): the value of every keyword but a data keyword ({@link DATA_KEYWORDS}) is entered,
 * arrays item by item, and a map of schemas ({@link SUBSCHEMA_MAP_KEYWORDS}, draft-07's `dependencies`) entry by
 * entry, whatever the entry's name (a property named `default` is a schema). A keyword JSON Schema does not define
 * is entered as a schema. Stops at the first `visit` that returns `true`, and returns whether one did.
 */
export function eachSubschema(
  node: unknown,
  visit: (schema: JsonObject, keys: readonly string[]) => unknown,
  keys: readonly string[] = [],
): boolean {
  if (Array.isArray(node))
    return node.some((item, index) => entered(item) && eachSubschema(item, visit, [...keys, String(index)]));
  if (!isPlainObject(node)) return false;
  if (visit(node, keys) === true) return true;
  for (const [key, child] of Object.entries(node)) {
    // The keys of a child are made only for what is entered: most keyword values are strings and numbers.
    if (DATA_KEYWORDS.has(key) || !entered(child)) continue;
    if ((SUBSCHEMA_MAP_KEYWORDS.has(key) || key === 'dependencies') && isPlainObject(child)) {
      for (const [name, schema] of Object.entries(child))
        if (entered(schema) && eachSubschema(schema, visit, [...keys, key, name])) return true;
    } else if (eachSubschema(child, visit, [...keys, key])) return true;
  }
  return false;
}

/** `true` for what {@link eachSubschema} enters (an object or an array); it returns `false` for anything else. */
const entered = (value: unknown): boolean => typeof value === 'object' && value !== null;

/**
 * Keywords that annotate and never make a validator refuse: JSON Schema 2020-12's meta-data vocabulary and
 * `$comment`.
 */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  '$comment',
  'readOnly',
  'writeOnly',
]);

/** The type names JSON Schema defines. */
export const JSON_SCHEMA_TYPES = [
  'array',
  'boolean',
  'integer',
  'null',
  'number',
  'object',
  'string',
] as const;

/** A JSON Pointer segment as written (`a~1b`) read back as the key it names (`a/b`). */
export function unescapeSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** A key as a JSON Pointer segment: `~` and `/` escaped (`a/b` → `a~1b`). */
export function escapeSegment(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Keys as a local JSON Pointer in URI fragment form: `['properties', 'a/b']` → `#/properties/a~1b`. */
export function renderPointer(keys: readonly string[]): string {
  return `#${keys.map((key) => `/${escapeSegment(key)}`).join('')}`;
}

/**
 * The value a local JSON Pointer in URI fragment form (`#` or `""`, `#/$defs/item`, `#/prefixItems/0`) points to in
 * `root`, through objects and arrays, or `undefined` when it points nowhere (or is not local: `#anchor`, a URI).
 */
export function resolvePointer(root: unknown, ref: string): unknown {
  // `""`, a same-document reference, resolves to the document itself as `"#"` does (RFC 3986 §4.4).
  if (ref === '#' || ref === '') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (typeof current !== 'object' || current === null) return undefined;
    let key: string;
    try {
      key = unescapeSegment(decodeURIComponent(raw));
    } catch {
      return undefined;
    }
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A schema no value can pass by its own keywords (a plain JSON Schema's definition-time check): `<JSON Pointer>: <why>`. */
export class UnsatisfiableSchemaError extends Error {
  override readonly name = 'UnsatisfiableSchemaError';
}

/*
 * The rule for schemas whose input side is unknown, the same for zod 3 and zod 4.
 *
 * `z.unknown()` and `z.any()` (and a `.transform()` or `.refine()` of them) accept any JSON value; they are
 * announced as `{}`, which says exactly that, so they are fine wherever a value may be anything (as a whole
 * `parameters` they are still refused: parameters must describe an object). A `z.preprocess(fn, schema)`, or a
 * pipe from `z.unknown()` / `z.any()` into a narrower schema, accepts only what gets through `fn` or the pipe:
 * no JSON Schema says that, and announcing either `{}` or the inner schema would tell the model something
 * validation does not do. Those are refused when the tool is made (`unsupported_schema`), unless what they lead
 * into accepts anything too (`z.preprocess(fn, z.unknown())`).
 */
/** Why a `z.preprocess()` into a narrower schema is refused. */
export const PREPROCESS_MESSAGE =
  'z.preprocess() accepts whatever its function turns into a valid value, which JSON Schema cannot describe; ' +
  'describe what the model sends and use .transform() instead';

/** Why a pipe from `z.unknown()` / `z.any()` into a narrower schema is refused. */
export const UNKNOWN_PIPE_MESSAGE =
  'a pipe from z.unknown() or z.any() into a narrower schema accepts only what that schema accepts, which ' +
  'JSON Schema cannot describe as its input; use the narrower schema itself';

/*
 * Defaults computed at each parse. A default that is a function (`.default(() => crypto.randomUUID())`) gives a new
 * value at each call; the value a converter computed once, when the tool was made, is stale, and is not announced.
 * valibot keeps the function where it can be seen (./valibot.ts); zod keeps it out of reach (zod 4 reads it through
 * a getter that calls it, zod 3 wraps a value in a function too), so a zod default is read once more and judged by
 * what it gives.
 */
/** How far from now a time a default gives is taken for a clock read when the tool was made, in milliseconds. */
const CLOCK_WINDOW_MS = 60_000;

/**
 * `true` when a default read when the tool was made (`announced`, as announced) looks computed at each parse: read
 * again, it gives another value (as JSON: a counter, an id, a random value), or it is the time it was read (an
 * ISO date-time, or today's ISO date, or an epoch number in milliseconds or seconds, within a minute of now),
 * which a clock gives the same twice within a millisecond. A function that gives the same other value twice
 * cannot be told from a value, and is announced with it.
 */
export function looksComputed(announced: unknown, readAgain: () => unknown, now = Date.now()): boolean {
  let again: string | undefined;
  try {
    again = JSON.stringify(readAgain());
  } catch {
    return true;
  }
  if (again !== JSON.stringify(announced)) return true;
  const near = (ms: number) => Math.abs(ms - now) <= CLOCK_WINDOW_MS;
  if (typeof announced === 'number') return near(announced) || near(announced * 1000);
  if (typeof announced !== 'string') return false;
  if (/^\d{4}-\d{2}-\d{2}$/.test(announced)) {
    return announced === new Date(now).toISOString().slice(0, 10);
  }
  return /^\d{4}-\d{2}-\d{2}T/.test(announced) && near(Date.parse(announced));
}

/**
 * The parameters of a bare function in a `tools` record: any object, handed to `execute` as the model sent it.
 * Announced as `{ "type": "object" }`. Read by the core itself (no `toolwire/json-schema` needed, in a browser
 * either): arguments are decoded to an object before validation (src/call/arguments.ts), so every value
 * `validate` sees is one the announcement accepts. Known by identity: a user's own `{ type: 'object' }` is a
 * plain JSON Schema like any other.
 */
export const ANY_OBJECT: { readonly type: 'object' } = Object.freeze({ type: 'object' });

/** Adapter for {@link ANY_OBJECT}. */
export function anyObjectAdapter(): SchemaAdapter {
  return {
    kind: 'json-schema',
    jsonSchema: { type: 'object' },
    validate: (value) => ({ ok: true, value }),
  };
}

/**
 * Adapter for omitted `parameters`: announces an object with no properties and hands `execute` an empty object,
 * whatever keys the model sent (arguments are decoded to an object first).
 */
export function noneAdapter(): SchemaAdapter {
  return {
    kind: 'none',
    jsonSchema: { type: 'object', properties: {} },
    validate: () => ({ ok: true, value: {} }),
  };
}
