/**
 * Small helpers for JSON values, used by every layer.
 *
 * @module
 */

/** A JSON object (a plain object with string keys). */
export type JsonObject = { [key: string]: unknown };

/**
 * `true` for a plain object (`{}` literal or `Object.create(null)`), the only shape a JSON Schema can have here.
 * Never throws: a value whose prototype cannot be read (a Proxy whose `getPrototypeOf` trap throws, a revoked
 * Proxy) is not one.
 */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  } catch {
    return false;
  }
}

/** JSON type name of a value as a model would say it: `array`, `null`, `number`, … */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A deep copy of JSON data (a JSON Schema, a parsed value): `structuredClone` where the runtime has it, else a trip
 * through JSON text, which copies JSON data alike (React Native and Jest's jsdom environment have no
 * `structuredClone`). Chosen once, when the module loads.
 */
export const cloneJson: <T>(value: T) => T =
  typeof structuredClone === 'function'
    ? (value) => structuredClone(value)
    : (value) => (value === undefined ? value : JSON.parse(JSON.stringify(value)));

/**
 * `target[key] = value`, except that a `__proto__` key becomes an own property, as `JSON.parse` makes it,
 * instead of replacing the target's prototype (and vanishing from the output).
 */
export function setKey<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}

/**
 * `true` when `value` nests objects and arrays more than `max` levels deep (`value` itself, when it is one, is
 * level 1). Iterative, so any depth costs no call stack; for parsed JSON (a cycle would not end). Used where a
 * peer's value meets code that recurses (`JSON.stringify`, `structuredClone`, a JSON Schema check).
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const objects: object[] = [value];
  const depths: number[] = [1];
  for (let current = objects.pop(); current !== undefined; current = objects.pop()) {
    const depth = depths.pop() as number;
    if (depth > max) return true;
    // An array by its indices: `for…in` over one takes V8's slow path (~0.5 µs for a frame's list of acks). An
    // object by `for…in`: no array of its keys is made.
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        const item: unknown = current[i];
        if (typeof item === 'object' && item !== null) {
          objects.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in current) {
        const item: unknown = (current as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) {
          objects.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * Deepest level copied. Validated arguments nest at most 64 levels (`MAX_ARGUMENT_DEPTH`) unless a schema
 * transform made them deeper or cyclic: past this level the value is shared as it is, rather than the copy
 * overflowing the stack.
 */
const MAX_COPY_DEPTH = 256;

/**
 * A deep-frozen copy of `value`'s plain objects and arrays (everything else shared): what a call's observers
 * (policies, the `needsApproval` predicate, approvers, `approval_requested` listeners) see of its arguments;
 * see `lazyFrozenCopy` (src/call/approval.ts).
 */
export function frozenCopy<T>(value: T, depth = 1): T {
  if (typeof value !== 'object' || value === null || depth > MAX_COPY_DEPTH) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) copy[index] = frozenCopy(value[index], depth + 1);
    return Object.freeze(copy) as T;
  }
  if (!isPlainObject(value)) return value;
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  for (const key of Object.keys(source)) {
    const item = frozenCopy(source[key], depth + 1);
    // A key `__proto__` (JSON.parse makes it an own key) stays data: assigning it would set the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true });
    else copy[key] = item;
  }
  return Object.freeze(copy) as T;
}

/**
 * Where a JSON text stops being JSON: the index (in UTF-16 units) of the first character no JSON text can have
 * there, `text.length` when the text ends before its value does, or `-1` when it is JSON. Read by the grammar
 * (RFC 8259) itself, without recursion (a text nested a million levels deep is read like any other), so the
 * answer is the same on every runtime: the engines' messages differ (V8 gives a position for some faults and
 * none for others, JavaScriptCore never gives one).
 */
function jsonFaultAt(text: string): number {
  const length = text.length;
  let at = 0;
  const blanks = () => {
    while (at < length) {
      const code = text.charCodeAt(at);
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return;
      at += 1;
    }
  };
  const digits = (): boolean => {
    const start = at;
    while (at < length && text.charCodeAt(at) >= 0x30 && text.charCodeAt(at) <= 0x39) at += 1;
    return at > start;
  };
  // Reads a string from its opening quote; false when it is not one (`at` on the fault).
  const string = (): boolean => {
    at += 1;
    while (at < length) {
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        at += 1;
        return true;
      }
      if (code < 0x20) return false;
      if (code === 0x5c) {
        at += 1;
        if (at >= length) return false;
        const escaped = text[at] as string;
        if (escaped === 'u') {
          for (let hex = 0; hex < 4; hex += 1) {
            at += 1;
            if (at >= length || !/[0-9a-fA-F]/.test(text[at] as string)) return false;
          }
        } else if (!'"\\/bfnrt'.includes(escaped)) return false;
      }
      at += 1;
    }
    return false;
  };
  // Reads a number, a literal or a string; false when it is not one (`at` on the fault).
  const scalar = (): boolean => {
    const char = text[at];
    if (char === '"') return string();
    for (const literal of ['true', 'false', 'null']) {
      if (char !== literal[0]) continue;
      for (const expected of literal) {
        if (text[at] !== expected) return false;
        at += 1;
      }
      return true;
    }
    if (char === '-') at += 1;
    if (text[at] === '0') at += 1;
    else if (!digits()) return false;
    if (text[at] === '.') {
      at += 1;
      if (!digits()) return false;
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at += 1;
      if (text[at] === '+' || text[at] === '-') at += 1;
      if (!digits()) return false;
    }
    return true;
  };
  // The containers open around `at`: `{` or `[`.
  const open: string[] = [];
  for (;;) {
    // A value is due.
    blanks();
    const char = text[at];
    if (char === '{' || char === '[') {
      open.push(char);
      at += 1;
      blanks();
      if (char === '{' && text[at] !== '}') {
        if (text[at] !== '"' || !string()) return at;
        blanks();
        if (text[at] !== ':') return at;
        at += 1;
        continue;
      }
      if (char === '[' && text[at] !== ']') continue;
      at += 1;
      open.pop();
    } else if (at >= length || !scalar()) return at;
    // A value ended: close what it ends, then a separator or the end of the text.
    for (;;) {
      blanks();
      const container = open.at(-1);
      if (container === undefined) return at < length ? at : -1;
      const next = text[at];
      if (next === (container === '{' ? '}' : ']')) {
        at += 1;
        open.pop();
        continue;
      }
      if (next !== ',') return at;
      at += 1;
      if (container === '{') {
        blanks();
        if (text[at] !== '"' || !string()) return at;
        blanks();
        if (text[at] !== ':') return at;
        at += 1;
      }
      break;
    }
  }
}

/**
 * Why `JSON.parse` refused `text`, in fixed words: `unexpected end of input` when the text ends before its JSON
 * does (a model's output cut short), else `invalid syntax at position <n>`, the index of the first character
 * that cannot be there. Read from the text, never from the parser's message: that one quotes the text around the
 * fault (V8: `Unexpected token 's', "sk-live-01"... is not valid JSON`; JavaScriptCore names the token), so a cut
 * of a secret that no redaction rule recognises would reach logs, `error` frames and what the model reads; and
 * it differs by runtime, while the same text must read the same on Node, Bun, Deno and in browsers.
 * @param offset - added to the position: where `text` starts in the text the model sent.
 * @example
 * ```ts
 * jsonSyntaxError('{"a":1'); // 'unexpected end of input'
 * jsonSyntaxError('{"a":1}x'); // 'invalid syntax at position 7'
 * ```
 */
export function jsonSyntaxError(text: string, offset = 0): string {
  const at = jsonFaultAt(text);
  if (at >= text.length) return 'unexpected end of input';
  // -1: JSON by the grammar, refused for another reason (an engine's own limit).
  return at < 0 ? 'invalid syntax' : `invalid syntax at position ${at + offset}`;
}
