/**
 * The text the model reads for what a tool returns or throws, by fixed rules, and made to fit. In order:
 * - what the objects JSON has no form for read as (binary data, `Blob`s, dates, boxed primitives,
 *   `URLSearchParams`, `RegExp`s), and the name an object is shown by;
 * - serialisation: a returned value as compact JSON ({@link serializeOutput}), a thrown value as its message
 *   ({@link thrownMessage}), secrets redacted before the value is written;
 * - truncation: the byte caps that keep the text inside a frame, cut at a character boundary with a marker, and
 *   well-formed UTF-16.
 *
 * @module
 */
import { setKey } from '../json';
import type { Redactor } from '../redact';
import { jsonPrefix, jsonStringBytes, utf8Length } from '../utf8';

/*
 * What the objects JSON has no form for read as, in a tool's result. The walk over containers is below
 * ({@link serializeOutput}).
 */
/** How binary data reads: a `data:` URL, which says what it is and holds every byte. */
export const BINARY_PREFIX = 'data:application/octet-stream;base64,';

/**
 * The name an object is shown by: its constructor's, else its `Symbol.toStringTag` (`Generator`), else `Object`.
 * Never throws (a revoked proxy throws on any read).
 */
export function className(value: object): string {
  try {
    const ctor = (value as { constructor?: { name?: unknown } }).constructor;
    if (typeof ctor?.name === 'string' && ctor.name !== '' && ctor.name !== 'Object') return ctor.name;
    const tag = (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
    return typeof tag === 'string' && tag !== '' ? tag : 'Object';
  } catch {
    return 'Object';
  }
}

/** Bytes as base64: with `Buffer` where the runtime has it (Node, Bun), else `btoa` (browsers have no `Buffer`). */
export function toBase64(bytes: Uint8Array): string {
  const buffer = (globalThis as { Buffer?: { from(b: Uint8Array): { toString(e: string): string } } }).Buffer;
  if (buffer !== undefined) return buffer.from(bytes).toString('base64');
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

/** The bytes of a base64 string: with `Buffer` where the runtime has it, else `atob`. */
export function fromBase64(data: string): Uint8Array {
  const buffer = (globalThis as { Buffer?: { from(s: string, e: string): Uint8Array } }).Buffer;
  if (buffer !== undefined) return buffer.from(data, 'base64');
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let at = 0; at < binary.length; at++) bytes[at] = binary.charCodeAt(at);
  return bytes;
}

/** Bytes held by base64 text (its padding and any whitespace not counted). */
export function base64Bytes(data: string): number {
  const digits = data.replace(/[\s=]/g, '').length;
  return Math.floor((digits * 3) / 4);
}

/** The bytes of byte-oriented binary data (`ArrayBuffer`, `DataView`, `Uint8Array` and `Buffer`), else none. */
function bytesOf(value: object): Uint8Array | undefined {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)
    return new Uint8Array(value);
  if (value instanceof DataView || value instanceof Uint8Array || value instanceof Uint8ClampedArray) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  return undefined;
}

/** A kind with its own reading: the text or number it reads as, or `undefined` to leave it out as JSON does. */
export type Reading = { reads: string | number | boolean | null | undefined };

/**
 * How an object of a kind JSON has no form for reads, or `undefined` for any other object (the caller walks
 * it). Checked before `toJSON`, so that a `Buffer` reads as the bytes it is, not as Node's `{ type, data }`.
 *
 * - binary data (`ArrayBuffer`, `SharedArrayBuffer`, `DataView`, `Uint8Array`, `Uint8ClampedArray`, `Buffer`):
 *   `data:application/octet-stream;base64,…` of exactly its bytes (a view reads as its window); with a
 *   redactor, data whose bytes hold a secret reads as the replacement. Other typed arrays are numbers, and are
 *   walked as arrays;
 * - a `Blob` (or `File`), which cannot be read at once: `[Blob: <size> bytes, <type>]`;
 * - a `Date`: its ISO text; an invalid one `[Invalid Date]`;
 * - a boxed primitive (`new String('x')`, `Object(1n)`): the primitive (a symbol is left out);
 * - `URLSearchParams`: its query text; a `RegExp`: its source text (`/a+b/gi`).
 */
export function specialReading(value: object, redactor: Redactor | undefined): Reading | undefined {
  const bytes = bytesOf(value);
  if (bytes !== undefined) {
    if (redactor?.bytes(bytes) === true) return { reads: redactor.replacement };
    return { reads: BINARY_PREFIX + toBase64(bytes) };
  }
  if (typeof Blob === 'function' && value instanceof Blob) {
    return {
      reads: `[${className(value)}: ${value.size} bytes${value.type === '' ? '' : `, ${value.type}`}]`,
    };
  }
  if (value instanceof Date) {
    return { reads: Number.isNaN(value.getTime()) ? '[Invalid Date]' : value.toISOString() };
  }
  if (value instanceof String || value instanceof Number || value instanceof Boolean) {
    return { reads: value.valueOf() };
  }
  if (value instanceof BigInt) return { reads: value.valueOf().toString() };
  if (value instanceof Symbol) return { reads: undefined };
  if (typeof URLSearchParams === 'function' && value instanceof URLSearchParams)
    return { reads: value.toString() };
  if (value instanceof RegExp) return { reads: String(value) };
  return undefined;
}

/*
 * Serialisation: what the model reads for a tool's return value and for a thrown value, by fixed rules, with
 * every secret redacted before the value is written as JSON (strings and keys), so that no escape hides one.
 * README.md ("What the model reads") states the rules; test/tool/output.test.ts pins each one.
 */
/** Nesting deeper than this is written as `"[Too deep]"` instead of overflowing the stack. */
export const MAX_OUTPUT_DEPTH = 200;

/**
 * At most this many values are written for one result; past it an array ends with `"[<n> more items: the output
 * is too large]"` and an object with a `"…"` key saying the same. A sparse array of length 2^32 − 1, or an object
 * shared at every level (exponential when written out), ends there instead of running out of time or memory.
 */
export const MAX_OUTPUT_NODES = 1_000_000;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * One serialisation: the objects being written (to tell a cycle), how many values were written, the redactor
 * when there are secrets, and whether each string and key goes through it before it is written (see
 * {@link Redactor.perString}).
 */
interface Walk {
  ancestors: object[];
  nodes: number;
  redactor: Redactor | undefined;
  perString: boolean;
}

const text = (walk: Walk, value: string): string =>
  walk.perString ? (walk.redactor as Redactor).inString(value) : value;

const tooLarge = (more: number, what: string): string => `[${more} more ${what}: the output is too large]`;

function mapKey(key: unknown, walk: Walk): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'object' && key !== null) return serializeOutput(key, walk.redactor);
  return String(key);
}

/** A number as the model reads it: itself, or `"NaN"`, `"Infinity"`, `"-Infinity"` (JSON has no form for them). */
function numberToJson(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/**
 * Converts a value to a JSON tree. `undefined` (and functions, symbols) is returned as `undefined` so the
 * caller can apply JSON's rules: left out of objects, `null` in arrays.
 */
function toJson(value: unknown, key: string, walk: Walk): Json | undefined {
  walk.nodes += 1;
  if (typeof value === 'string') return text(walk, value);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return numberToJson(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined; // undefined, function, symbol: as JSON.stringify does
  const { ancestors } = walk;
  if (ancestors.includes(value)) return '[Circular]';
  if (ancestors.length >= MAX_OUTPUT_DEPTH) return '[Too deep]';
  ancestors.push(value);
  try {
    return objectToJson(value, key, walk);
  } catch (error) {
    return `[Unserializable ${className(value)}: ${thrownMessage(error, 'reading it')}]`;
  } finally {
    ancestors.pop();
  }
}

/** The items of a list, ending with a marker once {@link MAX_OUTPUT_NODES} values are written. */
function listToJson(list: ArrayLike<unknown>, walk: Walk): Json[] {
  const out: Json[] = [];
  const { length } = list;
  for (let i = 0; i < length; i++) {
    if (walk.nodes >= MAX_OUTPUT_NODES) {
      out.push(tooLarge(length - i, 'items'));
      break;
    }
    out.push(toJson(list[i], String(i), walk) ?? null);
  }
  return out;
}

/** `{ name, message }`, with `code`, `cause` and an `AggregateError`'s `errors` when it has them. */
function errorToJson(error: Error, walk: Walk): Json {
  const out: { [key: string]: Json } = {
    name: text(walk, errorName(error)),
    message: text(walk, String(error.message)),
  };
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' || typeof code === 'number') out.code = toJson(code, 'code', walk) as Json;
  if (error.cause !== undefined) {
    const cause = toJson(error.cause, 'cause', walk);
    if (cause !== undefined) out.cause = cause;
  }
  const { errors } = error as { errors?: unknown };
  if (error instanceof AggregateError && Array.isArray(errors)) {
    out.errors = listToJson(errors, walk);
  }
  return out;
}

function objectToJson(value: object, key: string, walk: Walk): Json | undefined {
  const proto = Object.getPrototypeOf(value);
  // Plain objects and arrays (nearly every value) first: none of the kinds below can be one.
  if (proto !== Object.prototype && proto !== null && !Array.isArray(value)) {
    const special = specialReading(value, walk.redactor);
    if (special !== undefined) return toJson(special.reads, key, walk);
  }
  let toJSON: unknown;
  try {
    toJSON = (value as { toJSON?: unknown }).toJSON;
  } catch {
    // A `toJSON` that cannot be read (a getter, a Proxy's `get` trap that throws) is none: the properties are
    // read one by one, each that throws giving "[Unreadable: …]" as a getter does.
  }
  if (typeof toJSON === 'function') return toJson(toJSON.call(value, key), key, walk);
  if (Array.isArray(value)) return listToJson(value, walk);
  if (proto !== Object.prototype && proto !== null) {
    if (value instanceof Error) return errorToJson(value, walk);
    if (ArrayBuffer.isView(value)) return listToJson(value as unknown as ArrayLike<unknown>, walk);
    if (value instanceof Set) return listToJson([...value], walk);
    if (value instanceof Map) return mapToJson(value, walk);
  }
  const out: { [key: string]: Json } = {};
  const keys = Object.keys(value);
  // JSON.stringify would write `{}` for these and lose what they are.
  if (keys.length === 0 && proto !== Object.prototype && proto !== null) return `[${className(value)}]`;
  for (let i = 0; i < keys.length; i++) {
    const name = keys[i] as string;
    if (walk.nodes >= MAX_OUTPUT_NODES) {
      setKey(out, '…', tooLarge(keys.length - i, 'keys'));
      break;
    }
    let json: Json | undefined;
    try {
      json = toJson((value as Record<string, unknown>)[name], name, walk);
    } catch (error) {
      // A getter that throws costs its property, not the whole object.
      json = text(walk, `[Unreadable: ${thrownMessage(error, 'reading it')}]`);
    }
    if (json !== undefined) setKey(out, text(walk, name), json);
  }
  return out;
}

function mapToJson(map: Map<unknown, unknown>, walk: Walk): Json {
  const out: { [key: string]: Json } = {};
  let left = map.size;
  for (const [k, v] of map) {
    if (walk.nodes >= MAX_OUTPUT_NODES) {
      setKey(out, '…', tooLarge(left, 'entries'));
      break;
    }
    left -= 1;
    const name = mapKey(k, walk);
    const json = toJson(v, name, walk);
    if (json !== undefined) setKey(out, text(walk, name), json);
  }
  return out;
}

/**
 * Text the model reads for a tool's return value.
 *
 * - a string: unchanged (`''` stays `''`);
 * - anything else: compact JSON, where `undefined` (and a function or symbol, as in JSON) is `null` at the top
 *   and left out of objects (symbol keys too); a finite number is itself (`-0` is `0`), `NaN` and `±Infinity`
 *   are `"NaN"`, `"Infinity"`, `"-Infinity"`; a BigInt is its decimal string; a `Map` an object (keys as
 *   strings); a `Set` an array; a hole in an array `null`; binary data a base64 `data:` URL and other typed
 *   arrays arrays of numbers (see {@link specialReading} for these, `Blob`s, dates, boxed primitives,
 *   `URLSearchParams` and `RegExp`s); an `Error` `{ name, message }` with its `code`, `cause` and inner `errors`
 *   when it has them; a `toJSON()` method is honoured; an object that refers to one of its ancestors is
 *   `"[Circular]"` while the same object reached twice without a cycle is written twice; a class instance with
 *   no own enumerable keys is `"[ClassName]"` (e.g. `"[Promise]"`, `"[Generator]"`) rather than a silent `{}`;
 *   a getter that throws gives `"[Unreadable: message]"` in place of its property (so does a Proxy's `get` trap
 *   that throws, for each property), and a `toJSON` call that throws, or an object that cannot be read at all
 *   (a Proxy whose `ownKeys` or `getPrototypeOf` trap throws, a revoked Proxy),
 *   `"[Unserializable ClassName: message]"` (see {@link thrownMessage};
 *   `reading it threw undefined` for a bare `throw undefined`); past {@link MAX_OUTPUT_DEPTH} levels
 *   `"[Too deep]"`, past {@link MAX_OUTPUT_NODES} values a marker saying how many more there were. Never throws.
 *
 * With `redactor`, what its text pass over the JSON could not see is redacted before it is written: every string
 * and key when it has RegExp rules (a pattern meets the string, not its escaped JSON), and binary data (whose
 * base64 hides its bytes). The caller then redacts the text with {@link Redactor.text}, which finds string
 * rules in their escaped forms too.
 *
 * @example
 * ```ts
 * serializeOutput({ id: 9007199254740993n, tags: new Set(['a']) }); // '{"id":"9007199254740993","tags":["a"]}'
 * ```
 */
export function serializeOutput(value: unknown, redactor?: Redactor): string {
  if (typeof value === 'string') return value;
  // What JSON.stringify writes for a number or a boolean, without the walk.
  if (typeof value === 'number')
    return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const active = redactor?.empty === false ? redactor : undefined;
  const walk: Walk = { ancestors: [], nodes: 0, redactor: active, perString: active?.perString === true };
  try {
    return wellFormedJson(JSON.stringify(toJson(value, '', walk) ?? null));
  } catch (error) {
    return wellFormedJson(JSON.stringify(`[Unserializable: ${thrownMessage(error, 'reading it')}]`));
  }
}

// In JSON.stringify's output, an escaped backslash, or the escape of a lone surrogate (JSON.stringify escapes a
// surrogate only when it is lone, and writes every other character but controls, `"` and `\` as itself).
const ESCAPE_OR_LONE_SURROGATE = /\\(?:\\|u(d[89a-f][0-9a-f]{2}))/g;

/**
 * JSON text written by `JSON.stringify` with each lone surrogate it escaped (`"x\ud83d"`, from a string holding
 * half an emoji) written as U+FFFD instead, as in the text of a string result: whoever parses the JSON gets
 * well-formed text. Text with no `\ud` in it (nearly all) is returned as is after one scan.
 */
export function wellFormedJson(json: string): string {
  if (!json.includes('\\ud')) return json;
  return json.replace(ESCAPE_OR_LONE_SURROGATE, (written, lone: string | undefined) =>
    lone === undefined ? written : '\uFFFD',
  );
}

function errorName(error: { name?: unknown; constructor?: unknown }): string {
  if (typeof error.name === 'string' && error.name !== '') return error.name;
  return className(error as object) === 'Object' ? 'Error' : className(error as object);
}

/**
 * The message of a thrown value, as the model reads it after `Error running <name>: `.
 *
 * - an `Error` (or any object with a string `message`): its message; an empty message gives its name. Its
 *   `cause` is not read: the model reads what the tool chose to say (a client's logger gets the cause and the
 *   stack). An `AggregateError` adds its errors' messages: `All promises were rejected (2 errors: a; b)`, at most
 *   5 listed (`; and 3 more`);
 * - a string: itself; an empty string gives `<thrower> threw an empty string`;
 * - `undefined`, `null`, a symbol or a function, which carry no message and whose JSON says nothing:
 *   `<thrower> threw undefined`, `… threw null`, `… threw a symbol` (`… threw a symbol: <description>` when it
 *   has one), `… threw a function`;
 * - an object whose `message` cannot be read (its getter or a Proxy's `get` trap throws): `<thrower> threw an
 *   Error whose message could not be read: <what reading it threw>` (`an instance of QuotaError` for another
 *   class, `an object` when it has no class name);
 * - anything else: its JSON by {@link serializeOutput} (`throw 42` → `42`, `throw { code: 'E1' }` →
 *   `{"code":"E1"}`).
 *
 * Never `undefined`, `null`, `[object Object]` or a stack trace.
 *
 * @param thrower - who threw, for the texts above. @default 'the tool'
 * @param redactor - secrets to redact from a thrown value written as JSON, before it is written (see
 *   {@link serializeOutput}); a message is returned as it is, for the caller's redaction of the whole text.
 * @example
 * ```ts
 * thrownMessage(new Error('Card declined')); // 'Card declined'
 * thrownMessage(undefined); // 'the tool threw undefined'
 * thrownMessage('', 'the approver'); // 'the approver threw an empty string'
 * ```
 */
export function thrownMessage(thrown: unknown, thrower = 'the tool', redactor?: Redactor): string {
  return messageOf(thrown, thrower, redactor, 0);
}

/** An `AggregateError` lists at most this many of its errors' messages. */
const LISTED_ERRORS = 5;

/** ` (<n> errors: <message>; …)` for an `AggregateError` (nested ones listed two levels deep). */
function innerErrors(
  errors: unknown,
  thrower: string,
  redactor: Redactor | undefined,
  depth: number,
): string {
  if (!Array.isArray(errors)) return '';
  const count = `${errors.length} error${errors.length === 1 ? '' : 's'}`;
  if (errors.length === 0 || depth >= 2) return ` (${count})`;
  const listed = errors
    .slice(0, LISTED_ERRORS)
    .map((inner) => messageOf(inner, thrower, redactor, depth + 1));
  const more = errors.length > LISTED_ERRORS ? `; and ${errors.length - LISTED_ERRORS} more` : '';
  return ` (${count}: ${listed.join('; ')}${more})`;
}

function messageOf(thrown: unknown, thrower: string, redactor: Redactor | undefined, depth: number): string {
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
    } catch (error) {
      // An Error whose message getter throws, a Proxy whose get trap does: its JSON would say nothing true.
      const kind = className(thrown);
      // No article guessed from a class name's first letter ("an UserError"): "an instance of" fits every name.
      const named =
        kind === 'Object' ? 'an object' : kind === 'Error' ? 'an Error' : `an instance of ${kind}`;
      return `${thrower} threw ${named} whose message could not be read: ${messageOf(error, 'reading it', redactor, depth + 1)}`;
    }
    if (typeof message === 'string') {
      // A hostile Proxy may give a message and throw on the rest: what cannot be read is left out.
      let head = message;
      let inner = '';
      try {
        if (message === '') head = errorName(thrown);
        if (thrown instanceof AggregateError)
          inner = innerErrors((thrown as { errors?: unknown }).errors, thrower, redactor, depth);
      } catch {
        // its name, its prototype or its errors could not be read
      }
      return head === '' ? 'Error' : head + inner;
    }
  }
  return serializeOutput(thrown, redactor);
}

/*
 * Truncation: an output over its byte cap is cut at a character boundary and marked.
 */
/** Marker appended to a truncated output; `{size}` is the original size in UTF-8 bytes. */
export function truncationMarker(originalBytes: number): string {
  return `\n[truncated: the full output was ${originalBytes} bytes]`;
}

const MARKER_AT_END = /\n\[truncated: the full output was (\d{1,15}) bytes\]$/;

/**
 * What to cut of `text` (`size` UTF-8 bytes) and the size its marker states. Text an earlier cut ended with its
 * {@link truncationMarker} (one stating more bytes than the text has) is cut again without that marker, and the
 * new marker keeps the size of the first original: a result cut by the client and cut again to fit a smaller
 * frame (the stub's `run_result`, a resumed session's smaller limit) never reports the size of a cut as the full
 * size.
 */
function earlierCut(text: string, size: number): { body: string; original: number } {
  const found = MARKER_AT_END.exec(text);
  const original = found === null ? Number.NaN : Number(found[1]);
  if (found === null || !(original > size)) return { body: text, original: size };
  return { body: text.slice(0, found.index), original };
}

/**
 * Caps `text` at `maxBytes` UTF-8 bytes, marker included: the longest prefix that ends on a character
 * boundary (a surrogate pair is never split), then {@link truncationMarker}. Text within the cap is returned
 * unchanged. When even the marker does not fit, the marker alone is cut to the cap. Text that already ends with the
 * marker of an earlier cut is cut again keeping that marker's size (the full output's, not the cut's).
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
  const { body, original } = earlierCut(text, size);
  const marker = truncationMarker(original);
  const room = maxBytes - utf8Length(marker);
  if (room < 0) return prefixWithin(marker, maxBytes);
  return prefixWithin(body, room) + marker;
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
 * UTF-8 size (an earlier cut's, when `text` ends with its marker). Text that fits is returned unchanged. This is what keeps a `tool_result` frame within the
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
  const { body, original } = earlierCut(text, utf8Length(text));
  const marker = truncationMarker(original);
  const room = maxJsonBytes - jsonStringBytes(marker);
  if (room < 0) return jsonPrefix(marker, maxJsonBytes - 2);
  return jsonPrefix(body, room) + marker;
}
