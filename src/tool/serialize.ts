/**
 * What the model reads for a tool's return value and for a thrown value, by fixed rules, with every secret
 * redacted before the value is written as JSON (strings and keys), so that no escape hides one.
 *
 * @see DESIGN.md, "Semantics the tests must pin down", and README.md, "What the model reads", for the rules;
 *   test/tool/output.test.ts pins each one.
 * @module
 */
import { setKey } from '../json';
import type { Redactor } from '../redact';

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

/**
 * One serialisation: the objects being written (to tell a cycle), the redactor when there are secrets, and
 * whether each string and key goes through it before it is written (see {@link Redactor.perString}).
 */
interface Walk {
  ancestors: object[];
  redactor: Redactor | undefined;
  perString: boolean;
}

const text = (walk: Walk, value: string): string =>
  walk.perString ? (walk.redactor as Redactor).text(value) : value;

function mapKey(key: unknown, walk: Walk): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'object' && key !== null) return serializeOutput(key, walk.redactor);
  return String(key);
}

/**
 * Converts a value to a JSON tree. `undefined` (and functions, symbols) is returned as `undefined` so the
 * caller can apply JSON's rules: left out of objects, `null` in arrays.
 */
function toJson(value: unknown, key: string, walk: Walk): Json | undefined {
  if (typeof value === 'string') return text(walk, value);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
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

function objectToJson(value: object, key: string, walk: Walk): Json | undefined {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return toJson(toJSON.call(value, key), key, walk);
  if (value instanceof Error) {
    return { name: text(walk, errorName(value)), message: text(walk, value.message) };
  }
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    return Array.from(value as ArrayLike<unknown>, (item, i) => toJson(item, String(i), walk) ?? null);
  }
  if (value instanceof Set) return Array.from(value, (item, i) => toJson(item, String(i), walk) ?? null);
  const out: { [key: string]: Json } = {};
  if (value instanceof Map) {
    for (const [k, v] of value) {
      const name = mapKey(k, walk);
      const json = toJson(v, name, walk);
      if (json !== undefined) setKey(out, text(walk, name), json);
    }
    return out;
  }
  if (value instanceof RegExp) return text(walk, String(value));
  const keys = Object.keys(value);
  // JSON.stringify would write `{}` for these and lose what they are.
  if (keys.length === 0 && !isPlain(value)) return `[${className(value)}]`;
  for (const name of keys) {
    const json = toJson((value as Record<string, unknown>)[name], name, walk);
    if (json !== undefined) setKey(out, text(walk, name), json);
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
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const active = redactor?.empty === false ? redactor : undefined;
  const walk: Walk = { ancestors: [], redactor: active, perString: active?.perString === true };
  try {
    return JSON.stringify(toJson(value, '', walk) ?? null);
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
  return serializeOutput(thrown, redactor);
}
