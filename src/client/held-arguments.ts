/**
 * What a call held by the client keeps of its `tool_call` arguments while it is not running, so that what it holds
 * is about their bytes rather than the heap of their parsed objects (a 1 MiB frame of `{"a":[{},{},…]}` parses to
 * about 21 MiB):
 *
 * - waiting for its first slot (queued): its arguments as JSON text ({@link ArgumentsText}), parsed again when it
 *   starts; the bytes of every queued call's text are counted against `maxQueueBytes` (./calls.ts);
 * - once its tool has them (it waits for a human, its key's turn or a nested run; its result waits for its ack):
 *   only small arguments ({@link keptArguments}), to tell a re-delivery with other arguments; larger ones are
 *   forgotten ({@link NOT_KEPT}), and a re-delivery of such a call is not compared. A call that waits for a
 *   decision on its approval, or at its tool's gate (`concurrency`), has them measured first ({@link argumentBytes}):
 *   meanwhile its tool holds the input its schema gave, and their bytes stand for it against `maxQueueBytes`
 *   (./calls.ts).
 *
 * A running call keeps them parsed: its tool has them anyway. Once it waits on a promise (its `execute` awaits
 * something), arguments without a field are one object shared by every such call ({@link waitingArguments}). A
 * call whose `execute` gets the very object it holds (its schema hands back its input: a JSON Schema tool) keeps its
 * own of them before `execute` runs, which may change that object ({@link receivedArguments}): small ones copied,
 * larger ones as JSON text in a client that traces, else forgotten. That text stands in for the parsed arguments
 * the call would otherwise hold, and is counted as they would be: not while the call runs (its tool holds the
 * larger parsed input), and as any held arguments once it waits or its result waits for its ack.
 *
 * @module
 */
import { MAX_ARGUMENT_DEPTH } from '../limits';
import { jsonStringBytes, utf8Length } from '../utf8';

/**
 * The arguments kept once a call's tool has them: a plain object of at most 16 fields, each a number, boolean, null
 * or string, with at most 256 characters of keys and strings in all (at most about 1.5 KB of heap), or a string of
 * at most 256 characters. Anything else is not kept.
 */
const KEPT_ARGUMENTS = { fields: 16, chars: 256 } as const;

/**
 * The longest JSON text of arguments {@link keptArguments} may keep: 256 characters of keys and strings escaped
 * (6 each at most), 16 numbers (24 characters at most) and the punctuation of 16 fields. Longer text is not parsed
 * to be looked at.
 */
const KEPT_TEXT_CHARS = 6 * KEPT_ARGUMENTS.chars + KEPT_ARGUMENTS.fields * (24 + 6) + 2;

/** Stands for arguments not kept: a re-delivery of the call is not compared (it joins the call all the same). */
const NOT_KEPT: unique symbol = Symbol('arguments not kept');

/** Whether `args` is small enough to keep once its call's tool has them (see {@link KEPT_ARGUMENTS}). */
function keptArguments(args: unknown): boolean {
  if (typeof args === 'string') return args.length <= KEPT_ARGUMENTS.chars;
  if (typeof args !== 'object' || args === null) return true;
  let fields = 0;
  let chars = 0;
  for (const key in args) {
    const value: unknown = (args as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null) return false;
    if (typeof value === 'string') chars += value.length;
    chars += key.length;
    fields += 1;
    if (fields > KEPT_ARGUMENTS.fields || chars > KEPT_ARGUMENTS.chars) return false;
  }
  return true;
}

/**
 * How {@link ArgumentsText} holds its arguments: `plain` JSON; JSON that stands for numbers JSON cannot write
 * (`-0`, `±Infinity`: `1e400` parses to `Infinity`) by marked strings (`revived`); arguments nested deeper than
 * {@link MAX_ARGUMENT_DEPTH}, which the call refuses before anything reads them: an object (`deepObject`) or an
 * array (`deepArray`), their text kept only to compare a re-delivery.
 */
type TextKind = 'plain' | 'revived' | 'deepObject' | 'deepArray';

/**
 * A call's arguments (an object, an array or a string) as JSON text, while it waits for a slot. Parsed again
 * ({@link parsedArguments}) they are what `JSON.parse` gave: every number (`-0` and `±Infinity` too), every
 * string (lone surrogates too), and `__proto__` keys as own data properties. A class, so that V8 makes these young
 * (see src/client/outbox.ts `HeldResult`).
 */
export class ArgumentsText {
  declare readonly text: string | undefined;
  declare readonly kind: TextKind;
  /** UTF-8 bytes of {@link ArgumentsText.text}: what the queue counts against `maxQueueBytes`. */
  declare readonly bytes: number;

  constructor(text: string | undefined, kind: TextKind) {
    this.text = text;
    this.kind = kind;
    this.bytes = text === undefined ? 0 : utf8Length(text);
  }
}

/** Starts a marked string: `\u0000-0`, `\u0000Infinity`, `\u0000-Infinity`; a string that starts so gets one more. */
const MARK = '\u0000';

function replaced(_key: string, value: unknown): unknown {
  if (typeof value === 'number') {
    if (value === 0) return Object.is(value, -0) ? `${MARK}-0` : value;
    return Number.isFinite(value) ? value : `${MARK}${value}`;
  }
  return typeof value === 'string' && value.startsWith(MARK) ? MARK + value : value;
}

function revived(_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith(MARK)) return value;
  const rest = value.slice(1);
  if (rest.startsWith(MARK)) return rest;
  return rest === '-0' ? -0 : Number(rest);
}

/**
 * Whether `value` nests deeper than {@link MAX_ARGUMENT_DEPTH}, or holds a number JSON cannot write (`-0`,
 * `±Infinity`). A recursion, which stops one level past the cap (however deep the arguments go): several times
 * faster than a walk with a stack of its own (a 1 MiB `{"a":[{},{},…]}`: ~5 ms against ~100 ms).
 */
function walk(value: object, depth = 1): 'plain' | 'revived' | 'deep' {
  if (depth > MAX_ARGUMENT_DEPTH) return 'deep';
  let kind: 'plain' | 'revived' = 'plain';
  // An array by its indices (`for…in` over one takes V8's slow path), an object by `for…in`.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = look(value[i], depth);
      if (found === 'deep') return found;
      if (found === 'revived') kind = found;
    }
  } else
    for (const key in value) {
      const found = look((value as Record<string, unknown>)[key], depth);
      if (found === 'deep') return found;
      if (found === 'revived') kind = found;
    }
  return kind;
}

/** What {@link walk} finds in `item`, an item at `depth`. */
function look(item: unknown, depth: number): 'plain' | 'revived' | 'deep' {
  if (typeof item === 'object' && item !== null) return walk(item, depth + 1);
  return typeof item === 'number' && (item === 0 ? Object.is(item, -0) : !Number.isFinite(item))
    ? 'revived'
    : 'plain';
}

/**
 * `args` (an object or an array, as a `tool_call` carried it, or a string: arguments the model wrote as JSON text)
 * as JSON text.
 */
export function argumentsText(args: object | string): ArgumentsText {
  if (typeof args === 'string') return new ArgumentsText(JSON.stringify(args), 'plain');
  const kind = walk(args);
  if (kind === 'plain') return new ArgumentsText(JSON.stringify(args), 'plain');
  if (kind === 'revived') return new ArgumentsText(JSON.stringify(args, replaced), 'revived');
  let text: string | undefined;
  try {
    text = JSON.stringify(args);
  } catch {
    // Too deep to write: nothing to compare a re-delivery with, nor to parse again (see TOO_DEEP).
  }
  return new ArgumentsText(text, Array.isArray(args) ? 'deepArray' : 'deepObject');
}

/**
 * The arguments `held` stands for, parsed again. Arguments too deep, which the call refuses, come back parsed from
 * their text as JSON wrote it (a trace records them as they came but for a number JSON cannot write: `-0` reads
 * `0`, `±Infinity` `null`); without a text (too deep to write), as a stand-in of the same kind the call refuses
 * alike ({@link TOO_DEEP}), read by nothing else.
 */
export function parsedArguments(held: ArgumentsText): unknown {
  switch (held.kind) {
    case 'plain':
      return JSON.parse(held.text as string);
    case 'revived':
      return JSON.parse(held.text as string, revived);
    case 'deepArray':
    case 'deepObject':
      if (held.text !== undefined) {
        try {
          // No reviver: reviving recurses, where parsing does not in the common engines.
          return JSON.parse(held.text);
        } catch {
          // Written, but too deep for this engine to read back: the stand-in below.
        }
      }
      return tooDeep(held.kind);
  }
}

/**
 * Stand-ins for arguments too deep to write as JSON, one of each kind made at the first: an empty array (refused
 * `not_object`), and an object one level deeper than {@link MAX_ARGUMENT_DEPTH} (refused `too_deep`). Known by
 * identity ({@link recordedArguments}); frozen, as every call that has one shares it.
 */
const TOO_DEEP: { deepArray?: readonly unknown[]; deepObject?: object } = {};

function tooDeep(kind: 'deepArray' | 'deepObject'): unknown {
  if (kind === 'deepArray') {
    TOO_DEEP.deepArray ??= Object.freeze([]);
    return TOO_DEEP.deepArray;
  }
  if (TOO_DEEP.deepObject === undefined) {
    let deep: object = Object.freeze({});
    for (let depth = 1; depth <= MAX_ARGUMENT_DEPTH; depth++) deep = Object.freeze({ deep });
    TOO_DEEP.deepObject = deep;
  }
  return TOO_DEEP.deepObject;
}

/** What a trace records of arguments too deep to write as JSON, which no call keeps: a note, not a stand-in. */
export const TOO_DEEP_TO_RECORD = '[arguments nested too deep to write as JSON: not recorded]';

/**
 * The arguments a trace records of what a call holds (`execution.arguments`): as they are, parsed again when held
 * as text ({@link parsedArguments}), {@link TOO_DEEP_TO_RECORD} for the stand-in of arguments too deep to write, or
 * an object of their own for the one waiting calls share ({@link NO_FIELDS}): a tracer is handed them, and may
 * change what it is handed, as it may a call's own.
 */
export function recordedArguments(held: unknown): unknown {
  const args = held instanceof ArgumentsText ? parsedArguments(held) : held;
  if (args === NO_FIELDS) return {};
  return args === TOO_DEEP.deepArray || args === TOO_DEEP.deepObject ? TOO_DEEP_TO_RECORD : args;
}

/**
 * The arguments a call keeps while it waits when they have no field (`{}`: a tool without parameters, say): one
 * object for all such calls, frozen, rather than each call's own (`JSON.parse` makes every `{}` an object of 56 B
 * with room for four fields). The same JSON: a re-delivery is compared with it, a trace records it as they came.
 */
const NO_FIELDS: object = Object.freeze({});

/**
 * What a call keeps of `args` (as it holds them) once its phases have them and it waits on a promise (its `execute`
 * awaits something, say): `args` as they are (its tool may keep them anyway), but {@link NO_FIELDS} for a plain
 * object without a field (an empty array stays: it is other JSON).
 */
export function waitingArguments(args: unknown): unknown {
  if (typeof args !== 'object' || args === null || args === NO_FIELDS || Array.isArray(args)) return args;
  for (const _ in args) return args;
  return NO_FIELDS;
}

/**
 * What a call keeps of `args`, the object it holds as its arguments, when its `execute` is about to get that very
 * object (its schema handed it back: a JSON Schema tool, say), which it may add to or change: a trace must record
 * them as they came, and a re-delivery be compared with them. Its own copy, as small as it may be: one object for
 * every call without a field ({@link NO_FIELDS}); a shallow copy of small ones (see {@link KEPT_ARGUMENTS}: their
 * values are scalars); larger ones as JSON text ({@link ArgumentsText}) in a client that traces (`traced`), else not
 * kept ({@link NOT_KEPT}): a re-delivery of the call is not compared, as with a call that waits, rather than every
 * call of such a tool paying for a copy to compare with. Made before `execute` runs, after any wait before it (a
 * decision, its key's turn), which measured them already ({@link forgetLargeArguments}).
 */
export function receivedArguments(args: unknown, traced: boolean): unknown {
  // An array never reaches `execute` (refused `not_object`): left as it is.
  if (typeof args !== 'object' || args === null || args instanceof ArgumentsText || Array.isArray(args))
    return args;
  if (keptArguments(args)) {
    for (const _ in args) return { ...args };
    return NO_FIELDS;
  }
  return traced ? argumentsText(args) : NOT_KEPT;
}

/**
 * What is kept of arguments once a call's tool has them: `args` when small ({@link keptArguments}), else
 * {@link NOT_KEPT}. Arguments held as text are looked at parsed when their text is short enough to be kept.
 * Looked at when asked (a call's end, a wait), not taken from the walk before validation (src/call/arguments.ts):
 * a tool whose schema hands it the object the frame carried (a JSON Schema) may have grown it in place since.
 */
export function keptOf(args: unknown): unknown {
  if (args instanceof ArgumentsText) {
    if (args.kind === 'deepArray' || args.kind === 'deepObject') return NOT_KEPT;
    if ((args.text as string).length > KEPT_TEXT_CHARS) return NOT_KEPT;
    args = parsedArguments(args);
  }
  return args === undefined || keptArguments(args) ? args : NOT_KEPT;
}

/**
 * Whether the arguments a call keeps (`kept`: parsed, {@link ArgumentsText} or {@link NOT_KEPT}) are the same JSON
 * as `again` (a re-delivery's); arguments too deep to write count as different, arguments not kept as the same.
 */
export function sameArguments(kept: unknown, again: unknown): boolean {
  if (kept === NOT_KEPT || kept === again) return true;
  try {
    if (!(kept instanceof ArgumentsText)) return JSON.stringify(kept) === JSON.stringify(again);
    if (kept.kind === 'revived') return JSON.stringify(parsedArguments(kept)) === JSON.stringify(again);
    return kept.text !== undefined && kept.text === JSON.stringify(again);
  } catch {
    return false;
  }
}

/**
 * A call whose tool has its arguments waits (a human, its key's turn, a nested run): it keeps only small ones; in a
 * client that traces (`tracesArguments`), larger ones as JSON text, for the trace to record at the call's end.
 * With `measure` (a call of a tool with `concurrency`, which may wait at its gate now or later) their bytes are
 * kept first, once, as `argumentBytes` ({@link argumentBytes}): what it counts against `maxQueueBytes` there.
 */
export function forgetLargeArguments(
  execution: {
    arguments: unknown;
    argumentBytes: number | undefined;
    readonly owner: { readonly tracesArguments?: boolean };
  },
  measure = false,
): void {
  const args = execution.arguments;
  if (execution.owner.tracesArguments !== true) execution.arguments = keptOf(args);
  else if (
    typeof args === 'object' &&
    args !== null &&
    !(args instanceof ArgumentsText) &&
    !keptArguments(args)
  )
    execution.arguments = argumentsText(args);
  if (measure && execution.argumentBytes === undefined) {
    // Made into text just now, their bytes are known.
    const held = execution.arguments;
    execution.argumentBytes = argumentBytes(held instanceof ArgumentsText ? held : args);
  }
}

/**
 * UTF-8 bytes of the JSON text of a call's arguments in any form it holds them: parsed as the frame carried them
 * (an object, or a string: arguments the model wrote as JSON text, counted as the frame carried it, quoted), as
 * {@link ArgumentsText} (its `bytes`), or none (0). Not their heap, which is larger (up to 21 times for
 * `{"a":[{},{},…]}`), and not the input a schema made of them, which may be smaller (keys it strips) or larger
 * (defaults it adds, values it transforms): the bytes the service sent, as `maxQueueBytes` counts them for a
 * queued call. Arguments not kept count 0: measure them before they are forgotten ({@link forgetLargeArguments}).
 */
export function argumentBytes(args: unknown): number {
  if (args instanceof ArgumentsText) return args.bytes;
  return args === NOT_KEPT || args === undefined ? 0 : jsonBytes(args);
}

/**
 * UTF-8 bytes of `JSON.stringify(value)` for a value `JSON.parse` made (a tree of objects, arrays, strings,
 * numbers, booleans and `null`), without building the text: an integer's digits counted, a string's bytes as
 * {@link jsonStringBytes} counts them. Past {@link MAX_ARGUMENT_DEPTH} levels (a call refuses such arguments
 * before its tool has them) a container counts as its brackets only, so the walk recurses at most that deep: a
 * recursion, several times faster than a walk with a stack of its own (a 1 MiB `{"a":[{},{},…]}`: ~5 ms against
 * ~100 ms, and ~15 ms to stringify). A value JSON cannot write counts as `null` in an array and not at all in an
 * object (`undefined`, a function, a symbol); a number JSON cannot write (`NaN`, `±Infinity`) as `null`.
 */
export function jsonBytes(value: unknown, depth = 1): number {
  if (typeof value !== 'object' || value === null) return scalarBytes(value, true);
  // The brackets, then the items and the commas between them.
  let bytes = 2;
  if (Array.isArray(value)) {
    if (value.length > 0) bytes += value.length - 1;
    if (depth > MAX_ARGUMENT_DEPTH) return bytes;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      bytes +=
        typeof item === 'object' && item !== null ? jsonBytes(item, depth + 1) : scalarBytes(item, true);
    }
    return bytes;
  }
  if (depth > MAX_ARGUMENT_DEPTH) return bytes;
  let fields = 0;
  for (const key in value) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    // The key, its colon and the value.
    bytes +=
      jsonStringBytes(key) +
      1 +
      (typeof item === 'object' && item !== null ? jsonBytes(item, depth + 1) : scalarBytes(item, false));
    fields += 1;
  }
  return fields > 0 ? bytes + fields - 1 : bytes;
}

/** UTF-8 bytes of a value that holds no other in JSON text; `null` where it is written so ({@link jsonBytes}). */
function scalarBytes(value: unknown, inArray: boolean): number {
  switch (typeof value) {
    case 'string':
      return jsonStringBytes(value);
    case 'number':
      return numberBytes(value);
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      return 4;
    default:
      return inArray ? 4 : 0;
  }
}

/** Characters (ASCII: bytes) of `JSON.stringify(n)`: an integer's digits counted, other numbers written. */
function numberBytes(n: number): number {
  if (Number.isSafeInteger(n)) {
    let digits = n < 0 ? 2 : 1;
    for (let rest = Math.abs(n); rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
    return digits;
  }
  return Number.isFinite(n) ? String(n).length : 4;
}
