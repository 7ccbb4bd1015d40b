/**
 * What the model reads: a tool's return value and a thrown value, turned into text by fixed rules, and the
 * byte cap that keeps that text inside a frame.
 *
 * @see DESIGN.md, "Semantics the tests must pin down", for the rules; test/output.test.ts pins each one.
 * @module
 */
import { setKey } from '../json';
import { jsonStringBytes, jsonUnit, utf8Length } from '../wire/utf8';

export { jsonStringBytes } from '../wire/utf8';

/** Nesting deeper than this is written as `"[Too deep]"` instead of overflowing the stack. */
export const MAX_OUTPUT_DEPTH = 200;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function className(value: object): string {
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name !== '' ? ctor.name : 'Object';
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function mapKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'object' && key !== null) return serializeOutput(key);
  return String(key);
}

/**
 * Converts a value to a JSON tree. `undefined` (and functions, symbols) is returned as `undefined` so the
 * caller can apply JSON's rules: left out of objects, `null` in arrays.
 */
function toJson(value: unknown, key: string, ancestors: object[]): Json | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined; // undefined, function, symbol: as JSON.stringify does
  if (ancestors.includes(value)) return '[Circular]';
  if (ancestors.length >= MAX_OUTPUT_DEPTH) return '[Too deep]';
  ancestors.push(value);
  try {
    return objectToJson(value, key, ancestors);
  } catch (error) {
    return `[Unserializable ${className(value)}: ${thrownMessage(error, 'reading it')}]`;
  } finally {
    ancestors.pop();
  }
}

function objectToJson(value: object, key: string, ancestors: object[]): Json | undefined {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return toJson(toJSON.call(value, key), key, ancestors);
  if (value instanceof Error) return { name: errorName(value), message: value.message };
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    return Array.from(value as ArrayLike<unknown>, (item, i) => toJson(item, String(i), ancestors) ?? null);
  }
  if (value instanceof Set) return Array.from(value, (item, i) => toJson(item, String(i), ancestors) ?? null);
  const out: { [key: string]: Json } = {};
  if (value instanceof Map) {
    for (const [k, v] of value) {
      const name = mapKey(k);
      const json = toJson(v, name, ancestors);
      if (json !== undefined) setKey(out, name, json);
    }
    return out;
  }
  if (value instanceof RegExp) return String(value);
  const keys = Object.keys(value);
  // JSON.stringify would write `{}` for these and lose what they are.
  if (keys.length === 0 && !isPlain(value)) return `[${className(value)}]`;
  for (const name of keys) {
    const json = toJson((value as Record<string, unknown>)[name], name, ancestors);
    if (json !== undefined) setKey(out, name, json);
  }
  return out;
}

/**
 * Text the model reads for a tool's return value.
 *
 * - a string: unchanged (`''` stays `''`);
 * - anything else: compact JSON, where `undefined` (and a function or symbol, as in JSON) is `null` at the top
 *   and left out of objects; a BigInt is its decimal string; a `Map` an object (keys as strings); a `Set` and a
 *   typed array an array; an `Error` `{ name, message }`; a `RegExp` its source text; `NaN` and `±Infinity`
 *   `null`; a `toJSON()` method is honoured; an object that refers to one of its ancestors is `"[Circular]"`
 *   while the same object reached twice without a cycle is written twice; a class instance with no own
 *   enumerable keys is `"[ClassName]"` (e.g. `"[Promise]"`) rather than a silent `{}`; a getter or `toJSON`
 *   that throws gives `"[Unserializable ClassName: message]"` (see {@link thrownMessage}; `reading it threw
 *   undefined` for a bare `throw undefined`). Never throws.
 *
 * @example
 * ```ts
 * serializeOutput({ id: 9007199254740993n, tags: new Set(['a']) }); // '{"id":"9007199254740993","tags":["a"]}'
 * ```
 */
export function serializeOutput(value: unknown): string {
  if (typeof value === 'string') return value;
  // What JSON.stringify writes for a number or a boolean, without the walk.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  try {
    return JSON.stringify(toJson(value, '', []) ?? null);
  } catch (error) {
    return JSON.stringify(`[Unserializable: ${thrownMessage(error, 'reading it')}]`);
  }
}

function errorName(error: { name?: unknown; constructor?: unknown }): string {
  if (typeof error.name === 'string' && error.name !== '') return error.name;
  return className(error as object) === 'Object' ? 'Error' : className(error as object);
}

/**
 * The message of a thrown value, as the model reads it after `Error running <name>: `.
 *
 * - an `Error` (or any object with a string `message`): its message; an empty message gives its name;
 * - a string: itself; an empty string gives `<thrower> threw an empty string`;
 * - `undefined`, `null`, a symbol or a function, which carry no message and whose JSON says nothing:
 *   `<thrower> threw undefined`, `… threw null`, `… threw a symbol` (`… threw a symbol: <description>` when it
 *   has one), `… threw a function`;
 * - anything else: its JSON by {@link serializeOutput} (`throw 42` → `42`, `throw { code: 'E1' }` →
 *   `{"code":"E1"}`).
 *
 * Never `undefined`, `null`, `[object Object]` or a stack trace.
 *
 * @param thrower - who threw, for the texts above. @default 'the tool'
 * @example
 * ```ts
 * thrownMessage(new Error('Card declined')); // 'Card declined'
 * thrownMessage(undefined); // 'the tool threw undefined'
 * thrownMessage('', 'the approver'); // 'the approver threw an empty string'
 * ```
 */
export function thrownMessage(thrown: unknown, thrower = 'the tool'): string {
  if (typeof thrown === 'string') return thrown === '' ? `${thrower} threw an empty string` : thrown;
  if (thrown === undefined || thrown === null) return `${thrower} threw ${String(thrown)}`;
  if (typeof thrown === 'symbol') {
    const { description } = thrown;
    return description ? `${thrower} threw a symbol: ${description}` : `${thrower} threw a symbol`;
  }
  if (typeof thrown === 'function') return `${thrower} threw a function`;
  if (typeof thrown === 'object') {
    let message: unknown;
    try {
      message = (thrown as { message?: unknown }).message;
    } catch {
      message = undefined;
    }
    if (typeof message === 'string') return message !== '' ? message : errorName(thrown);
  }
  return serializeOutput(thrown);
}

/** Marker appended to a truncated output; `{size}` is the original size in UTF-8 bytes. */
export function truncationMarker(originalBytes: number): string {
  return `\n[truncated: the full output was ${originalBytes} bytes]`;
}

/**
 * Caps `text` at `maxBytes` UTF-8 bytes, marker included: the longest prefix that ends on a character
 * boundary (a surrogate pair is never split), then {@link truncationMarker}. Text within the cap is returned
 * unchanged. When even the marker does not fit, the marker alone is cut to the cap.
 *
 * @param maxBytes - cap in UTF-8 bytes, a positive integer.
 * @example
 * ```ts
 * truncateUtf8('a'.repeat(100), 60); // 'aaaaaaaaaaaaaaaaa\n[truncated: the full output was 100 bytes]' (60 bytes)
 * ```
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes; count only when the text might be over.
  if (text.length * 3 <= maxBytes) return text;
  const size = utf8Length(text);
  if (size <= maxBytes) return text;
  const marker = truncationMarker(size);
  const room = maxBytes - utf8Length(marker);
  if (room < 0) return prefixWithin(marker, maxBytes);
  return prefixWithin(text, room) + marker;
}

/** Longest prefix of `text` of at most `maxBytes` UTF-8 bytes that does not split a character. */
function prefixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    const pair = unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    const size = pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` with every lone surrogate (half of an emoji cut by `slice`, for example) replaced by U+FFFD, as a
 * UTF-8 encoder would. Well-formed text is returned as is. Model APIs refuse ill-formed text, so every output
 * leaves the SDK well-formed.
 *
 * @example
 * ```ts
 * toWellFormed('x😀'.slice(0, 2)); // 'x\uFFFD'
 * ```
 */
export function toWellFormed(text: string): string {
  const native = (text as { toWellFormed?: () => string }).toWellFormed;
  if (typeof native === 'function') return native.call(text);
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * Caps the size `text` takes once written as a JSON string (quotes and escapes included, in UTF-8 bytes): the
 * longest prefix that fits, cut on a character boundary, then {@link truncationMarker} with the text's full
 * UTF-8 size. Text that fits is returned unchanged. This is what keeps a `tool_result` frame within the
 * service's limit: a quote or a newline takes two bytes there, a control character six.
 *
 * @param maxJsonBytes - cap on `JSON.stringify(result)` in UTF-8 bytes, at least 2.
 * @example
 * ```ts
 * truncateJsonString('"'.repeat(100), 80); // 15 quotes, then '\n[truncated: the full output was 100 bytes]'
 * ```
 */
export function truncateJsonString(text: string, maxJsonBytes: number): string {
  // A UTF-16 unit takes at most 6 bytes in a JSON string; count only when the text might be over.
  if (text.length * 6 + 2 <= maxJsonBytes) return text;
  if (jsonStringBytes(text) <= maxJsonBytes) return text;
  const marker = truncationMarker(utf8Length(text));
  const room = maxJsonBytes - jsonStringBytes(marker);
  if (room < 0) return jsonPrefix(marker, maxJsonBytes - 2);
  return jsonPrefix(text, room) + marker;
}

/** Longest prefix of `text` whose JSON-escaped content (without quotes) takes at most `maxBytes`. */
function jsonPrefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const [size, units] = jsonUnit(text, end);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += units;
  }
  return text.slice(0, end);
}
