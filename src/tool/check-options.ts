/**
 * The one checker of the options objects toolwire takes. Each owner (`tool()`, `new Agent()`, `agent.asTool()`,
 * `invokeTool()`, `ToolRegistry.invoke()`, `new Client()`, `client.connect()`, `client.run()`, `client.close()`,
 * the decision objects of `client.decide()`) declares a small
 * {@link OptionsSpec}: one {@link Rule} per option, and the names neighbouring SDKs use for them.
 * {@link checkOptions} refuses, with a message naming the owner, the option and the value:
 * - options that are not a plain object (`invalid_options`): `<owner>: options must be an object, got a URL`;
 * - a key the owner does not have (`unknown_option`), with "did you mean" for a neighbouring SDK's name, a
 *   difference of case or separators, or a small typo, and the known options when there is no likely one;
 * - a value its rule refuses (`invalid_option`, or the rule's own code): `<owner>: <option> must be <expected>,
 *   got <value>` (the value described briefly by {@link describeValue}, after the owner's secrets are scrubbed
 *   from it: see {@link OptionsOwner.redact}).
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../limits';

/** The class of error an owner throws: `new error(code, message)`. */
export type OptionsErrorClass = new (code: string, message: string) => Error;

/** Who the options belong to, and how its errors are made. */
export interface OptionsOwner {
  /** How messages name the owner: `tool "lookup"`, `invokeTool()`, `new Client(options)`. */
  readonly name: string;
  /** The error class thrown. */
  readonly error: OptionsErrorClass;
  /** Code of a refused value when its rule names none; `invalid_option` when absent. */
  readonly invalidCode?: string;
  /** Code of a key the owner does not have; `unknown_option` when absent. */
  readonly unknownCode?: string;
  /** Scrubs secrets (an API key, redact rules) from every value a message shows, before it is cut. */
  readonly redact?: Redact;
}

/** A scrubber of secrets, applied to the text of a value before a message shows it. */
export type Redact = (text: string) => string;

const keep: Redact = (text) => text;

/** What one option accepts. */
export interface Rule {
  /** What a valid value is, completing "<option> must be …", e.g. `a positive integer of milliseconds`. */
  readonly expected: string;
  /** `true` for a valid value. Never called with `undefined`: an absent option is valid unless `required`. */
  readonly test: (value: unknown) => boolean;
  /** Code of the error; the owner's `invalidCode` when absent. */
  readonly code?: string;
  /**
   * The class of the error; the owner's when absent. A value refused as a tool is a `ToolDefinitionError` wherever
   * it is given (`new Client()`'s options, an agent, a registry).
   */
  readonly error?: OptionsErrorClass;
  /** `undefined` is refused too. */
  readonly required?: boolean;
  /** Added to the message when a required option is absent, e.g. `(or set TOOLWIRE_URL)`. */
  readonly whenMissing?: string;
  /** How a refused value is shown, given the owner's scrubber; {@link describeValue} when absent. */
  readonly show?: (value: unknown, redact: Redact) => string;
  /** For an array: the rule of each item, reported as `option[index]`. */
  readonly items?: Rule;
  /** For an object: the spec of its keys, reported as `option.key`. */
  // biome-ignore lint/suspicious/noExplicitAny: a nested spec of any options type.
  readonly fields?: OptionsSpec<any>;
}

/** The rules of an options type: one per option (a new option cannot be forgotten), and known aliases. */
export interface OptionsSpec<T extends object> {
  readonly rules: { readonly [K in keyof T]-?: Rule };
  /** Names from neighbouring SDKs (`inputSchema`, `timeout`) and the option each means here. */
  readonly aliases?: Readonly<Record<string, keyof T & string>>;
}

/** Longest string a message quotes, in characters; a longer one is cut and ends with `…`. */
const SHOWN_CHARACTERS = 80;

/**
 * `noun` with `a` or `an` as it is read aloud: an acronym by the name of its first letter (`a URL`, `an HTMLElement`,
 * `an MCPServer`), a word by its first sound (`an object`, `a Uint8Array`, `an UnknownThing`, `a Usage`).
 */
function article(noun: string): string {
  const vowelSound = /^[A-Z][A-Z]/.test(noun)
    ? /^[AEFHILMNORSX]/.test(noun)
    : /^[aeiou]/i.test(noun) && !/^u(?:int|ni(?![mn])|s[aeu]|ti)/i.test(noun);
  return vowelSound ? `an ${noun}` : `a ${noun}`;
}

/**
 * A short description of a value for a message: a string quoted (cut past 80 characters), a number, boolean,
 * `null` or `undefined` as written, a RegExp as its literal; a function, array or object by kind only
 * (`a function`, `an array of 2 items`, `an object`, `a Map`), never its contents; never throws (a Proxy whose
 * traps throw is `an unreadable object`). `redact` scrubs the text of the value first (a string before it is cut,
 * so a cut cannot leave the start of a secret).
 */
export function describeValue(value: unknown, redact: Redact = keep): string {
  switch (typeof value) {
    case 'string': {
      const text = redact(value);
      const characters = [...text];
      return JSON.stringify(
        characters.length > SHOWN_CHARACTERS ? `${characters.slice(0, SHOWN_CHARACTERS).join('')}…` : text,
      );
    }
    case 'number':
      return redact(Object.is(value, -0) ? '-0' : String(value));
    case 'bigint':
      return redact(`${value}n`);
    case 'function':
      return 'a function';
    case 'object': {
      if (value === null) return 'null';
      try {
        if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
        if (value instanceof RegExp) return redact(String(value));
        const kind = Object.getPrototypeOf(value)?.constructor?.name;
        return typeof kind === 'string' && kind !== '' && kind !== 'Object' ? article(kind) : 'an object';
      } catch {
        // A Proxy whose traps throw, or a revoked one.
        return 'an unreadable object';
      }
    }
    default:
      return redact(String(value));
  }
}

/**
 * A value that may itself be a secret (an API key, a redact rule), described by its kind and size only:
 * `a string of 3 characters`, `a RegExp`, `an array of 2 items`.
 */
export function describeSecret(value: unknown): string {
  if (typeof value === 'string')
    return `a string of ${value.length} character${value.length === 1 ? '' : 's'}`;
  if (value instanceof RegExp) return 'a RegExp';
  if (typeof value === 'object' || typeof value === 'function' || value === undefined)
    return describeValue(value);
  return `a ${typeof value}`;
}

/** A wrong value as a `ctx` method's error (src/call/context.ts, src/call/questions.ts) quotes it: a string's first 40 units, an array or object by kind. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

/** `true` for a non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `true` for an object written as `{ … }`, the only kind an options object may be: its prototype is
 * `Object.prototype` (of any realm: an object from an iframe or a `vm` context counts) or `null`
 * (`Object.create(null)`). An array, a `URL`, a `Map`, a string or a class's instance is not one. Never throws.
 */
export function isOptionsObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const proto: unknown = Object.getPrototypeOf(value);
    return proto === null || Object.getPrototypeOf(proto) === null;
  } catch {
    // A Proxy whose `getPrototypeOf` trap throws: not an options object (`options must be an object, got …`).
    return false;
  }
}

/** Throws the owner's error for a fault no single rule sees (two options in conflict, a duplicate). */
export function optionsFault(owner: OptionsOwner, code: string, message: string): never {
  throw new owner.error(code, `${owner.name}: ${message}`);
}

/**
 * Checks `options` against `spec`; throws the owner's error for the first fault (see the module's doc). The
 * options object itself may be anything: what is not a plain object ({@link isOptionsObject}: an array, a `URL`, a
 * string, a class's instance) is refused first, `<owner>: options must be an object, got a URL`.
 */
export function checkOptions<T extends object>(
  options: unknown,
  spec: OptionsSpec<T>,
  owner: OptionsOwner,
): asserts options is T {
  if (!isOptionsObject(options)) {
    optionsFault(
      owner,
      'invalid_options',
      `options must be an object, got ${describeValue(options, owner.redact)}`,
    );
  }
  checkObject(options, spec as unknown as LooseSpec, owner, '');
}

/** A spec with its option names erased. */
export interface LooseSpec {
  readonly rules: Readonly<Record<string, Rule>>;
  readonly aliases?: Readonly<Record<string, string>>;
}

function checkObject(
  options: Record<string, unknown>,
  spec: LooseSpec,
  owner: OptionsOwner,
  prefix: string,
): void {
  const { rules } = spec;
  const known = Object.keys(rules);
  const unknown = Object.keys(options).filter((key) => !Object.hasOwn(rules, key));
  if (unknown.length > 0) {
    const text = unknownKeysText(unknown, known, {
      aliases: spec.aliases,
      prefix,
      redact: owner.redact,
      nested: nestedSpecs(rules),
    });
    optionsFault(owner, owner.unknownCode ?? 'unknown_option', text);
  }
  for (const key of known) checkValue(options[key], rules[key] as Rule, owner, prefix + key);
}

/** How {@link unknownKeysText} names unknown keys and what it hints; every field is optional. */
export interface UnknownKeysTextOptions {
  /**
   * Other names for known keys, by the name given (another API's, a common misspelling): `{ args: 'arguments' }`
   * hints `"args" (did you mean "arguments"?)`.
   * @default {}
   */
  readonly aliases?: Readonly<Record<string, string>>;
  /**
   * What a key is, in the text (`unknown flag`, `known features: …`); `s` is added for several.
   * @default 'option'
   */
  readonly noun?: string;
  /**
   * Put before each name, unknown and known (`retry.` → `"retry.maxAttemps"`).
   * @default ''
   */
  readonly prefix?: string;
  /**
   * Scrubs each unknown key as given before it is shown (a key that may be a secret); known keys are shown as
   * they are.
   * @default the key unchanged
   */
  readonly redact?: Redact;
  /**
   * The specs of the known keys whose values are objects, by key: an unknown key that one of them has is hinted
   * there (`"maxAttempts" (did you mean "retry.maxAttempts"?)`). Absent: none.
   */
  readonly nested?: Readonly<Record<string, LooseSpec>>;
  /**
   * What to say of an unknown key instead of a "did you mean", by the key as given, where the nearest name would
   * mean the opposite (`"--no-debug" (leave "--debug" out: it is off unless given)`).
   * @default {}
   */
  readonly notes?: Readonly<Record<string, string>>;
}

/**
 * What an options check says of the keys `unknown` of an object whose keys are `known`: `unknown option "reasn"
 * (did you mean "reason"?)`, several in one list (`unknown options "a" (did you mean "b"?) and "c"`), and the known
 * keys when one has no likely name ({@link suggest}: `; known options: …`). `options` (aliases, the noun, a
 * prefix, redaction, nested specs, notes): see {@link UnknownKeysTextOptions}.
 */
export function unknownKeysText(
  unknown: readonly string[],
  known: readonly string[],
  options: UnknownKeysTextOptions = {},
): string {
  const { aliases = {}, noun = 'option', prefix = '', redact = keep, nested, notes = {} } = options;
  let unhinted = false;
  const listed = unknown.map((key) => {
    const shown = JSON.stringify(prefix + redact(key));
    if (Object.hasOwn(notes, key)) return `${shown} (${notes[key]})`;
    const hint = suggest(key, known, aliases, nested);
    if (hint === undefined) unhinted = true;
    return `${shown}${hint === undefined ? '' : ` (did you mean "${prefix}${hint}"?)`}`;
  });
  const names = listed.length === 1 ? listed[0] : `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}`;
  const list = unhinted ? `; known ${noun}s: ${known.map((key) => prefix + key).join(', ')}` : '';
  return `unknown ${noun}${listed.length === 1 ? '' : 's'} ${names}${list}`;
}

function checkValue(value: unknown, rule: Rule, owner: OptionsOwner, path: string): void {
  if (value === undefined && !rule.required) return;
  if (value === undefined || !rule.test(value)) {
    const missing = value === undefined && rule.whenMissing !== undefined ? ` ${rule.whenMissing}` : '';
    optionsFault(
      rule.error === undefined ? owner : { ...owner, error: rule.error },
      rule.code ?? owner.invalidCode ?? 'invalid_option',
      `${path} must be ${rule.expected}${missing}, got ${(rule.show ?? describeValue)(value, owner.redact ?? keep)}`,
    );
  }
  if (rule.items !== undefined && Array.isArray(value)) {
    for (const [index, item] of value.entries()) checkValue(item, rule.items, owner, `${path}[${index}]`);
  }
  if (rule.fields !== undefined && isRecord(value))
    checkObject(value, rule.fields as LooseSpec, owner, `${path}.`);
}

/** The specs of the options that are objects (`retry: { … }`), by option: a key of theirs given a level up is hinted. */
function nestedSpecs(rules: Readonly<Record<string, Rule>>): Readonly<Record<string, LooseSpec>> {
  const nested: Record<string, LooseSpec> = {};
  for (const [option, rule] of Object.entries(rules)) {
    if (rule.fields !== undefined) nested[option] = rule.fields as LooseSpec;
  }
  return nested;
}

/** An option name folded for comparison: lower case, without `_` and `-` (`max_turns` → `maxturns`). */
function fold(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

/** Edits (insertions, deletions, substitutions, swaps of neighbours) from `a` to `b`, counted up to `limit + 1`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (before[j - 2] as number) + 1);
      current.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/** The option (or neighbouring SDK's name, in `aliases`) `key` is but for case or separators, else `undefined`. */
function named(
  key: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string | undefined {
  if (Object.hasOwn(aliases, key)) return aliases[key];
  const folded = fold(key);
  const same = known.find((option) => fold(option) === folded);
  if (same !== undefined) return same;
  const alias = Object.keys(aliases).find((name) => fold(name) === folded);
  return alias === undefined ? undefined : aliases[alias];
}

/**
 * The option `key` was probably meant as: a neighbouring SDK's name for it (`aliases`), a known option that
 * differs only in case or separators (`maxturns`, `max_turns` → `maxTurns`), an option of an object option given
 * a level up, under its name or a neighbouring SDK's (`nested`: `maxRetries` → `retry.maxAttempts`, `shouldRetry`
 * → `retry.when`), or the nearest within a typo or two (one for names up to 5 characters, two beyond:
 * `maxConcurency` → `maxConcurrency`).
 */
export function suggest(
  key: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>>,
  nested: Readonly<Record<string, LooseSpec>> = {},
): string | undefined {
  const own = named(key, known, aliases);
  if (own !== undefined) return own;
  for (const [option, spec] of Object.entries(nested)) {
    const inner = named(key, Object.keys(spec.rules), spec.aliases ?? {});
    if (inner !== undefined) return `${option}.${inner}`;
  }
  const folded = fold(key);
  const limit = folded.length < 3 ? 0 : folded.length <= 5 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const option of known) {
    const d = distance(folded, fold(option), limit);
    if (d < bestDistance) {
      best = option;
      bestDistance = d;
    }
  }
  return best;
}

// Rules. Each is a plain object: spread one to give it a code, a hint or `required`.

/** Any value (checked elsewhere, or not at all). */
export const anything: Rule = { expected: 'anything', test: () => true };
/** A function. */
export const aFunction: Rule = { expected: 'a function', test: (value) => typeof value === 'function' };
/**
 * An `AbortSignal`, from this realm or another (a polyfill included): an object with a boolean `aborted` and
 * `addEventListener` / `removeEventListener`.
 */
export const anAbortSignal: Rule = {
  expected: 'an AbortSignal',
  test: (value) =>
    isRecord(value) &&
    typeof value.aborted === 'boolean' &&
    typeof value.addEventListener === 'function' &&
    typeof value.removeEventListener === 'function',
};
/** A non-null object that is not an array. */
export const aRecord: Rule = { expected: 'an object', test: isRecord };
/** `true` or `false`. */
export const aBoolean: Rule = { expected: 'a boolean', test: (value) => typeof value === 'boolean' };
/** A string, with an optional pattern and length bounds (in UTF-16 code units). */
export function aString(
  expected = 'a string',
  check: { pattern?: RegExp; minLength?: number; maxLength?: number } = {},
): Rule {
  const { pattern, minLength = 0, maxLength = Number.POSITIVE_INFINITY } = check;
  return {
    expected,
    test: (value) =>
      typeof value === 'string' &&
      value.length >= minLength &&
      value.length <= maxLength &&
      (pattern === undefined || pattern.test(value)),
  };
}

/** What an integer rule accepts; `unit` names what it counts (`milliseconds`, `bytes`). */
export interface IntegerBounds {
  min: number;
  max?: number;
  unit?: string;
  /** Accept `Infinity` too (e.g. "never give up"). */
  infinity?: boolean;
}

/** A safe integer within bounds: `a positive integer of bytes`, `an integer from 0 to 10`. */
export function anInteger(bounds: IntegerBounds): Rule {
  const { min, max = Number.MAX_SAFE_INTEGER, unit, infinity = false } = bounds;
  const kind =
    min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer ≥ ${min}`;
  const upTo = max === Number.MAX_SAFE_INTEGER ? '' : ` up to ${max}`;
  return {
    expected: `${kind}${unit === undefined ? '' : ` of ${unit}`}${upTo}${infinity ? ' or Infinity' : ''}`,
    test: (value) =>
      (infinity && value === Number.POSITIVE_INFINITY) ||
      (Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max),
    show: showUnsafeInteger,
  };
}

/**
 * A refused value as {@link describeValue} shows it; an integer too large to be held exactly (`1e308`) says so, or
 * "must be a positive integer, got 1e+308" would read as a contradiction.
 */
function showUnsafeInteger(value: unknown, redact: Redact): string {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value))
    return `${value}, past the largest integer a number holds exactly (${Number.MAX_SAFE_INTEGER})`;
  return describeValue(value, redact);
}

/** A duration a timer can hold: whole milliseconds from `min` to {@link MAX_TIMEOUT_MS}. */
export function aDuration(min: 0 | 1): Rule {
  return {
    ...anInteger({ min, max: MAX_TIMEOUT_MS, unit: 'milliseconds' }),
    expected: `${min === 1 ? 'a positive' : 'a non-negative'} integer of milliseconds up to ${MAX_TIMEOUT_MS} (the longest timer)`,
  };
}

/** Either rule. */
export function oneOf(first: Rule, second: Rule): Rule {
  return {
    expected: `${first.expected} or ${second.expected}`,
    test: (value) => first.test(value) || second.test(value),
  };
}

/** An array whose items each pass `item` (an `undefined` item, a hole included, is refused). */
export function anArrayOf(item: Rule, expected = `an array of ${item.expected}`): Rule {
  return { expected, test: Array.isArray, items: { ...item, required: true } };
}

/** An object whose keys follow `spec`. */
export function anObject<T extends object>(spec: OptionsSpec<T>, expected: string): Rule {
  return { expected, test: isOptionsObject, fields: spec };
}
