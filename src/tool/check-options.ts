/**
 * The one checker of the options objects toolwire takes. Each owner (`tool()`, `invokeTool()`, `new Client()`,
 * `new Agent()`, `agent.asTool()`) declares a small {@link OptionsSpec}: one {@link Rule} per option, and the names
 * neighbouring SDKs use for them. {@link checkOptions} refuses, with a message naming the owner, the option and the
 * value:
 * - options that are not an object (`invalid_options`);
 * - a key the owner does not have (`unknown_option`), with "did you mean" for a neighbouring SDK's name or a
 *   difference of case;
 * - a value its rule refuses (`invalid_option`, or the rule's own code): `<owner>: <option> must be <expected>,
 *   got <value>`.
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../limits';

/** The class of error an owner throws: `new error(code, message)`. */
export type OptionsErrorClass = new (code: string, message: string) => Error;

/** Message formats an owner may replace. */
export interface OptionsFormats {
  notObject(owner: string, shown: string): string;
  unknown(
    owner: string,
    keys: ReadonlyArray<{ key: string; hint: string | undefined }>,
    known: string[],
  ): string;
  invalid(owner: string, path: string, says: string, shown: string): string;
}

/** Who the options belong to, and how its errors are made. */
export interface OptionsOwner {
  /** How messages name the owner: `tool "lookup"`, `invokeTool()`, `new Client(options)`. */
  readonly name: string;
  /** The error class thrown. */
  readonly error: OptionsErrorClass;
  /** Code of a refused value when its rule names none; `invalid_option` when absent. */
  readonly invalidCode?: string;
  /** Code when the options are not an object; `invalid_options` when absent. */
  readonly notObjectCode?: string;
  /** Code of an unknown key; `unknown_option` when absent. */
  readonly unknownCode?: string;
  /** How a refused value is shown; {@link describeValue} when absent. */
  readonly show?: (value: unknown) => string;
  /** Replacements for the default message formats. */
  readonly formats?: Partial<OptionsFormats>;
}

/** What one option accepts. */
export interface Rule {
  /** What a valid value is, completing "<option> must be …", e.g. `a positive integer of milliseconds`. */
  readonly expected: string;
  /** `true` for a valid value. Never called with `undefined`: an absent option is valid unless `required`. */
  readonly test: (value: unknown) => boolean;
  /** The whole predicate of the message for this value, when "must be <expected>" does not say it best. */
  readonly says?: (value: unknown) => string;
  /** Code of the error; the owner's `invalidCode` when absent. */
  readonly code?: string;
  /** `undefined` is refused too. */
  readonly required?: boolean;
  /** How a refused value is shown; the owner's way when absent. */
  readonly show?: (value: unknown) => string;
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

const DEFAULT_FORMATS: OptionsFormats = {
  notObject: (owner, shown) => `${owner}: options must be an object, got ${shown}`,
  unknown: (owner, keys) => {
    const { key, hint } = keys[0] as { key: string; hint: string | undefined };
    return `${owner}: unknown option ${JSON.stringify(key)}${hint === undefined ? '' : ` (did you mean "${hint}"?)`}`;
  },
  invalid: (owner, path, says, shown) => `${owner}: ${path} ${says}, got ${shown}`,
};

/** A short description of a value for a message: strings quoted, objects by kind, never their contents. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

/** `true` for a non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Throws the owner's error for a fault no single rule sees (two options in conflict, a duplicate). */
export function optionsFault(owner: OptionsOwner, code: string, message: string): never {
  throw new owner.error(code, `${owner.name}: ${message}`);
}

/**
 * Checks `options` against `spec`; throws the owner's error for the first fault (see the module's doc). The
 * options object itself may be anything: what is not an object is refused first.
 */
export function checkOptions<T extends object>(
  options: unknown,
  spec: OptionsSpec<T>,
  owner: OptionsOwner,
): asserts options is T {
  const formats = { ...DEFAULT_FORMATS, ...owner.formats };
  if (typeof options !== 'object' || options === null) {
    throw new owner.error(
      owner.notObjectCode ?? 'invalid_options',
      formats.notObject(owner.name, (owner.show ?? describeValue)(options)),
    );
  }
  checkObject(options as Record<string, unknown>, spec as unknown as LooseSpec, owner, formats, '');
}

/** A spec with its option names erased. */
interface LooseSpec {
  readonly rules: Readonly<Record<string, Rule>>;
  readonly aliases?: Readonly<Record<string, string>>;
}

function checkObject(
  options: Record<string, unknown>,
  spec: LooseSpec,
  owner: OptionsOwner,
  formats: OptionsFormats,
  prefix: string,
): void {
  const { rules } = spec;
  const known = Object.keys(rules);
  const unknown = Object.keys(options).filter((key) => !Object.hasOwn(rules, key));
  if (unknown.length > 0) {
    const keys = unknown.map((key) => {
      const hint = suggest(key, known, spec.aliases ?? {});
      return { key: prefix + key, hint: hint === undefined ? undefined : prefix + hint };
    });
    throw new owner.error(
      owner.unknownCode ?? 'unknown_option',
      formats.unknown(
        owner.name,
        keys,
        known.map((key) => prefix + key),
      ),
    );
  }
  for (const key of known) checkValue(options[key], rules[key] as Rule, owner, formats, prefix + key);
}

function checkValue(
  value: unknown,
  rule: Rule,
  owner: OptionsOwner,
  formats: OptionsFormats,
  path: string,
): void {
  if (value === undefined && !rule.required) return;
  if (value === undefined || !rule.test(value)) {
    const says = rule.says?.(value) ?? `must be ${rule.expected}`;
    const shown = (rule.show ?? owner.show ?? describeValue)(value);
    throw new owner.error(
      rule.code ?? owner.invalidCode ?? 'invalid_option',
      formats.invalid(owner.name, path, says, shown),
    );
  }
  if (rule.items !== undefined && Array.isArray(value)) {
    for (const [index, item] of value.entries())
      checkValue(item, rule.items, owner, formats, `${path}[${index}]`);
  }
  if (rule.fields !== undefined && isRecord(value))
    checkObject(value, rule.fields as LooseSpec, owner, formats, `${path}.`);
}

/** The option `key` was probably meant as: an alias, or a known option differing only in case. */
export function suggest(
  key: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string | undefined {
  if (Object.hasOwn(aliases, key)) return aliases[key];
  const lower = key.toLowerCase();
  return known.find((option) => option.toLowerCase() === lower);
}

// Rules. Each is a plain object: spread one to give it a code, a hint or `required`.

/** Any value (checked elsewhere, or not at all). */
export const anything: Rule = { expected: 'anything', test: () => true };
/** A function. */
export const aFunction: Rule = { expected: 'a function', test: (value) => typeof value === 'function' };
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
  };
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

/** An array whose items each pass `item`. */
export function anArrayOf(item: Rule, expected = `an array of ${item.expected}`): Rule {
  return { expected, test: Array.isArray, items: item };
}

/** An object whose keys follow `spec`. */
export function anObject<T extends object>(spec: OptionsSpec<T>, expected: string): Rule {
  return { expected, test: isRecord, fields: spec };
}
