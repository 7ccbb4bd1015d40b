/**
 * A call's arguments before its schema sees them: decoded from what the model sent (`decodeArguments`), checked
 * in one walk for what no schema should meet (`scanArguments`: too deep, or an unusual number), and the unusual
 * numbers that are refused, with the issue reported beside the schema's (`refuseNumbers`).
 *
 * @module
 */
import { jsonTypeName } from '../json';
import { jsonSyntaxError } from '../json-syntax';
import { MAX_ARGUMENT_DEPTH } from '../limits';
import { integerAt, type ValidationIssue } from '../tool/schema';
import { formatPath } from '../tool/schema/adapter';

/** Result of {@link decodeArguments}. */
export type DecodedArguments =
  | { ok: true; value: object }
  | { ok: false; reason: 'not_json'; detail: string }
  | { ok: false; reason: 'not_object'; type: string };

/**
 * Whether `raw` is arguments as they are: an object that is not an array (`null` is not: it decodes to `{}`).
 * {@link decodeArguments} gives such a value back unchanged, so a caller holding one may skip it.
 */
export function isArgumentsObject(raw: unknown): raw is object {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

function fromParsed(parsed: unknown): DecodedArguments {
  if (parsed === null) return { ok: true, value: {} };
  if (isArgumentsObject(parsed)) return { ok: true, value: parsed };
  return { ok: false, reason: 'not_object', type: jsonTypeName(parsed) };
}

/**
 * Decodes raw arguments as models send them.
 *
 * - absent (`undefined`), `null`, `''` or whitespace, and the JSON text `null`: `{}`;
 * - an object (not an array): used as it is;
 * - a string: parsed as JSON, around which any Unicode blank is left out (a byte order mark, a no-break space:
 *   JSON itself allows only space, tab, CR and LF); a JSON string that itself holds JSON (double-encoded) is
 *   unwrapped once;
 * - text that is not JSON: `not_json` with why, in fixed words and a position (never the parser's message, which
 *   quotes the text: `jsonSyntaxError`);
 * - any other JSON value (`[]`, `42`, `"text"`, `true`): `not_object` with its JSON type.
 *
 * @example
 * ```ts
 * decodeArguments('"{\\"a\\":1}"'); // { ok: true, value: { a: 1 } }
 * decodeArguments('[1]'); // { ok: false, reason: 'not_object', type: 'array' }
 * ```
 */
export function decodeArguments(raw: unknown): DecodedArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return fromParsed(raw);
  if (raw.trim() === '') return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Around the JSON, what `trim()` takes for blank and JSON does not (a byte order mark, a no-break space).
    const inner = raw.trim();
    if (inner.length === raw.length) return { ok: false, reason: 'not_json', detail: jsonSyntaxError(raw) };
    try {
      parsed = JSON.parse(inner);
    } catch {
      const offset = raw.length - raw.trimStart().length;
      return { ok: false, reason: 'not_json', detail: jsonSyntaxError(inner, offset) };
    }
  }
  if (typeof parsed !== 'string') return fromParsed(parsed);
  // Double-encoded: a JSON string whose content is the JSON object. Unwrapped once, never more.
  if (parsed.trim() === '') return { ok: true, value: {} };
  try {
    return fromParsed(JSON.parse(parsed));
  } catch {
    return { ok: false, reason: 'not_object', type: 'string' };
  }
}

/*
 * What decoded arguments must be before a schema sees them: at most {@link MAX_ARGUMENT_DEPTH} levels deep (a
 * recursive schema would overflow the stack on deeper ones, and zod keeps memory when it does), with numbers JSON
 * can carry (`1e400` became `Infinity` when parsed), and no integer past 2^53 where the schema says integer (the
 * model's number was rounded when parsed: `12345678901234567890` reads `12345678901234567000`). Every call
 * passes here, so ordinary arguments cost one walk without recursion and without allocating per value. Where the
 * walk finds an unusual number, {@link refuseNumbers} says which are refused.
 */
/** A number that is not a safe integer or a finite fraction: Infinity, NaN, or an integer past 2^53. */
const unusual = (value: number): boolean => !(Math.abs(value) <= Number.MAX_SAFE_INTEGER);

/**
 * One walk of the arguments: whether they nest deeper than `maxDepth`, and whether they hold an unusual number.
 * Iterative (a stack of objects and one of depths, made only when an object holds another), so any depth costs
 * no call stack; a cycle is too deep. Enumerable keys are walked with `for…in`, inherited ones included (none in
 * parsed JSON), without an array of keys per object, arrays and objects alike.
 */
function scan(root: object, maxDepth: number): 'ok' | 'too_deep' | 'numbers' {
  let numbers = false;
  let objects: object[] | undefined;
  let depths: number[] | undefined;
  let value: object = root;
  let depth = 1;
  for (;;) {
    if (depth > maxDepth) return 'too_deep';
    // `for…in` over an array gives its indices: one loop for both (it skips a hole, which holds nothing to check).
    for (const key in value) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) {
        if (objects === undefined) {
          objects = [];
          depths = [];
        }
        objects.push(item);
        (depths as number[]).push(depth + 1);
      } else if (typeof item === 'number' && unusual(item)) numbers = true;
    }
    if (objects === undefined || objects.length === 0) return numbers ? 'numbers' : 'ok';
    value = objects.pop() as object;
    depth = (depths as number[]).pop() as number;
  }
}

/**
 * Checks decoded arguments before validation, in one walk: `too_deep` ends the call before validation; `numbers`
 * means they hold an unusual number (not finite, or an integer past ±(2^53 − 1)), which {@link refuseNumbers}
 * turns into issues to report with the schema's (see `runCall`); `ok` otherwise.
 *
 * - nested deeper than {@link MAX_ARGUMENT_DEPTH} (objects and arrays alike; a cycle counts as too deep):
 *   `too_deep`;
 * - a getter or a proxy that throws, in an object given to `invokeTool`: `ok` (validation decides).
 */
export function scanArguments(args: object): 'ok' | 'too_deep' | 'numbers' {
  try {
    return scan(args, MAX_ARGUMENT_DEPTH);
  } catch {
    return 'ok';
  }
}

/*
 * Which unusual numbers of a call's arguments are refused (`scanArguments` found at least one), with the issue
 * to report beside the schema's: a second walk, with paths, run only for such arguments.
 */
/** Own enumerable keys, or none when reading them throws (a hostile object given to `invokeTool`). */
function keysOf(value: object): string[] {
  try {
    return Object.keys(value);
  } catch {
    return [];
  }
}

function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** At most this many numbers are named in one refusal. */
const MAX_NAMED = 10;

/** Where the unusual numbers are (a second walk, with paths, run only when the first found one). */
function unusualNumbers(root: object): Array<{ path: PropertyKey[]; value: number }> {
  const found: Array<{ path: PropertyKey[]; value: number }> = [];
  const pending: Array<{ value: object; path: PropertyKey[] }> = [{ value: root, path: [] }];
  while (pending.length > 0 && found.length < MAX_NAMED * 10) {
    const { value, path } = pending.pop() as { value: object; path: PropertyKey[] };
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : keysOf(value).map((key) => [key, read(value, key)]);
    for (const [key, item] of entries.reverse()) {
      if (typeof item === 'object' && item !== null) pending.push({ value: item, path: [...path, key] });
      else if (typeof item === 'number' && unusual(item)) found.push({ path: [...path, key], value: item });
    }
  }
  return found;
}

function numberIssue(value: number): string | undefined {
  if (Number.isNaN(value)) return 'NaN is not a number JSON can carry';
  if (!Number.isFinite(value)) {
    return `the number is too large for JavaScript (past ±1.8e308); it became ${String(value)}`;
  }
  return undefined;
}

/**
 * The refusals of the unusual numbers of `args` (`scanArguments` said `numbers`), or `undefined` when none is
 * refused:
 *
 * - a number that is not finite (`1e400` parses as `Infinity`; `NaN` only from an object given to
 *   `invokeTool`): refused, whatever the schema;
 * - an integer past ±(2^53 − 1) where `schema` (the tool's announced JSON Schema) says `integer` and nowhere
 *   `number`: refused, since the value sent was rounded. Elsewhere such a number goes on as parsed, as
 *   `JSON.parse` gives it (`6.02214076e23` is a fine number).
 *
 * `-0` and numbers that underflow to `0` go on as parsed.
 */
export function refuseNumbers(args: object, schema: unknown): ValidationIssue[] | undefined {
  const issues: ValidationIssue[] = [];
  for (const { path, value } of unusualNumbers(args)) {
    const message =
      numberIssue(value) ??
      (integerAt(schema, path)
        ? `${String(value)} is past the integers JavaScript holds exactly (±${Number.MAX_SAFE_INTEGER}), so the number sent may have been rounded; send it as a string`
        : undefined);
    if (message !== undefined) issues.push({ path: formatPath(path), message });
  }
  return issues.length > 0 ? issues : undefined;
}
