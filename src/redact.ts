/**
 * Redaction: the API key and user-named secrets replaced in every text and value before it leaves the process
 * (a frame, a log line, an event, an error message), in the forms the text may hold them: as written, and, for
 * string rules, JSON-escaped (once or more), `\uXXXX`/`\xXX`/`\u{…}`-escaped or percent-encoded (up to 8 times), in
 * any mix, lowercased or uppercased too; a long secret's bytes (UTF-8, UTF-16) also in hex and base64. Encrypted or
 * hashed, or under any other transform, a secret is not looked for.
 * In order:
 * - the patterns that find a secret in each of those forms;
 * - the search that finds where they may match in a long text, at a cost that grows little with their number;
 * - the {@link Redactor}, which replaces secrets in text, values, errors and bytes, and a client's own
 *   ({@link clientRedactor});
 * - a tool's output redacted without breaking it ({@link redactOutput}).
 *
 * The values a call's input holds under sensitive field names are src/call/redaction.ts's.
 *
 * @module
 */
import { setKey } from './json';
import { utf8Bytes, utf8Text } from './utf8';

/*
 * The patterns: a secret as written and in every escaped or encoded form a text may hold it (JSON-escaped up to
 * four times, `\uXXXX`, `\xXX`, `\u{…}`, percent-encoded up to {@link MAX_PERCENT_ENCODINGS} times), in any mix.
 */
const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\/-]/g;
export const escapeRegExp = (text: string): string => text.replace(REGEXP_SPECIAL, '\\$&');

/** `[0-9]`-or-either-case pattern for each digit of a hex number of `width` digits (escapes may use either case). */
export function hexDigits(value: number, width: number): string[] {
  return [...value.toString(16).padStart(width, '0')].map((digit) =>
    /[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit,
  );
}

const hexPattern = (value: number, width: number): string => hexDigits(value, width).join('');

/** JSON's short escapes (`\n`, `\"`, …; `\/` is JSON too), by UTF-16 unit. */
const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  8: 'b',
  9: 't',
  10: 'n',
  12: 'f',
  13: 'r',
  34: '"',
  47: '/',
};

/**
 * Most times a text may have been percent-encoded for a secret in it to be found: a URL inside a URL's query,
 * inside another's, … (`%2D`, `%252D`, `%25252D`, …). Bounded, so that a run of `%25` costs linear time.
 */
export const MAX_PERCENT_ENCODINGS = 8;

/** The `%` of a byte percent-encoded once or more ({@link MAX_PERCENT_ENCODINGS}): `%`, `%25`, `%2525`, …. */
export const PERCENT = `%(?:25){0,${MAX_PERCENT_ENCODINGS - 1}}`;

/**
 * {@link PERCENT} and the hex (either case) of each UTF-8 byte of `char`: it percent-encoded once or more, as a
 * URL carried inside other URLs writes it; one pattern piece per character, {@link PERCENT} one piece.
 */
export const percentAtoms = (char: string): string[] =>
  [...utf8Bytes(char)].flatMap((byte) => [PERCENT, ...hexDigits(byte, 2)]);

/** A backslash percent-encoded once or more (`%5C`, `%255C`, …). */
export const PERCENT_BACKSLASH = `${PERCENT}5[cC]`;

/**
 * One escape's backslash, itself escaped up to four times over (1, 3, 7 or 15 backslashes before a quote, 2, 4,
 * 8 or 16 for a backslash), as written or percent-encoded (a text escaped, then percent-encoded: `\/` as `%5C%2F`).
 * Bounded, so that a text of many backslashes costs linear time, never quadratic.
 */
export const ESCAPE = `(?:\\\\{1,16}|(?:${PERCENT_BACKSLASH}){1,16})`;

/**
 * A match starts at the first backslash of a run, never inside it: without this, every position of a long run
 * of backslashes would be tried (quadratic time on a text of backslashes).
 */
const AT_RUN_START = `(?<!\\\\|${PERCENT_BACKSLASH})`;
/** {@link ESCAPE} for the first unit of a secret. */
const FIRST_ESCAPE = AT_RUN_START + ESCAPE;

/**
 * Every way one UTF-16 unit (not a backslash: see {@link backslashRun}) may be written in text that went through
 * JSON (up to four times), JavaScript escapes or percent-encoding: the unit itself, `\uXXXX` (hex in either
 * case), `\xXX`, `\u{…}`, a short escape (`\n`, `\"`, `\/`), and `%XX`, `%25XX`, … per UTF-8 byte (`+`, `%2B`, … for
 * a space).
 */
function unitForms(unit: number, lead: string): string {
  // The escapes share one `lead` (a long pattern): a small expression is compiled to fast code, a large one is not.
  const plain: string[] = [];
  const escaped: string[] = [];
  for (const [first, ...rest] of unitAtoms(unit, lead)) {
    if (first === lead) escaped.push(rest.join(''));
    else plain.push([first, ...rest].join(''));
  }
  return `(?:${plain.join('|')}|${lead}(?:${escaped.join('|')}))`;
}

/**
 * The forms of {@link unitForms}, each as its pattern pieces, one piece per character it matches (or per run:
 * `lead`, `0*`): what a stream's redaction needs to tell a form's beginning (src/client/text-deltas.ts).
 */
export function unitAtoms(unit: number, lead: string): string[][] {
  const forms = [[escapeRegExp(String.fromCharCode(unit))]];
  const short = SHORT_ESCAPES[unit];
  if (short !== undefined) {
    forms.push([lead, escapeRegExp(short)]);
    // `\"` and `\/` percent-encoded: the character after the backslash is encoded too.
    if (!/[a-z]/.test(short)) forms.push([lead, ...percentAtoms(short)]);
  }
  forms.push([lead, 'u', ...hexDigits(unit, 4)]);
  if (unit < 0xd800 || unit > 0xdfff) {
    forms.push(
      [lead, 'u', '\\{', '0*', ...hexDigits(unit, 1), '\\}'],
      percentAtoms(String.fromCharCode(unit)),
    );
    if (unit < 0x100) forms.push([lead, 'x', ...hexDigits(unit, 2)]);
    // A space form-encoded (`+`), then percent-encoded (`%2B`).
    if (unit === 0x20) forms.push(['\\+'], [PERCENT, '2', '[bB]']);
  }
  return forms;
}

/**
 * `count` backslashes: as they are or escaped up to four times over (one quantifier for the whole run, so that
 * no run of backslashes in the text is tried in every split), or each as `\u005c`, `\x5c`, `%5C` or `%255C`.
 */
export function backslashRun(count: number, lead: string): string {
  const each = `(?:${ESCAPE}u005[cC]|${ESCAPE}x5[cC]|${PERCENT_BACKSLASH})`;
  const first = `(?:${lead}u005[cC]|${lead}x5[cC]|${PERCENT_BACKSLASH})`;
  const start = lead === ESCAPE ? '' : AT_RUN_START;
  // At a secret's start, its backslashes as written may also end a run (after `%5C`, or after 16 backslashes).
  const written = lead === ESCAPE ? '' : `|\\\\{${count}}`;
  return `(?:${start}\\\\{${count},${count * 16}}|${start}(?:${PERCENT_BACKSLASH}){${count},${count * 16}}|${first}${each}{${count - 1}}${written})`;
}

/**
 * A pattern matching `secret` written in any mix of the forms of {@link unitForms}; a character outside the BMP
 * also as `\u{…}` or its four `%XX` bytes.
 */
export function encodedPattern(secret: string): string {
  let out = '';
  let backslashes = 0;
  const lead = () => (out === '' ? FIRST_ESCAPE : ESCAPE);
  for (const char of secret) {
    if (char === '\\') {
      backslashes += 1;
      continue;
    }
    if (backslashes > 0) out += backslashRun(backslashes, lead());
    backslashes = 0;
    const point = char.codePointAt(0) as number;
    if (char.length === 1) out += unitForms(point, lead());
    else {
      const first = lead();
      const units = unitForms(char.charCodeAt(0), first) + unitForms(char.charCodeAt(1), ESCAPE);
      out += `(?:${units}|${first}u\\{0*${hexPattern(point, 1)}\\}|${percentAtoms(char).join('')})`;
    }
  }
  return backslashes > 0 ? out + backslashRun(backslashes, lead()) : out;
}

/**
 * A secret's UTF-8 bytes must be at least this long for its byte encodings to be looked for ({@link byteForms}):
 * each is then at least 13 characters of the base64 or hex alphabet, which ordinary text does not hold by chance.
 */
const MIN_BYTE_FORM_SECRET_BYTES = 12;

/** Each character of `binary` (one byte each) as two hex digits. */
const hexOf = (binary: string): string =>
  binary.replace(/./gs, (char) => char.charCodeAt(0).toString(16).padStart(2, '0'));

/**
 * The base64 and base64url characters the bytes of `binary` (one byte per character) certainly become inside any
 * base64 text: one form per alignment of the first byte within the encoded data (3), without the characters at
 * either end that also hold bits of the bytes around it.
 */
function base64Forms(binary: string): string[] {
  const forms: string[] = [];
  for (const lead of [0, 1, 2]) {
    // The characters made of the lead's bits (0, 2 or 3) and those past the last whole 6 bits of the bytes.
    const end = Math.floor(((lead + binary.length) * 8) / 6);
    const form = btoa('\0'.repeat(lead) + binary).slice([0, 2, 3][lead], end);
    forms.push(form, form.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/**
 * What `secret`'s bytes certainly become when a tool encodes them itself, alone or inside other data: its UTF-8,
 * UTF-16LE (`Buffer.from(key, 'utf16le')`, PowerShell's `-EncodedCommand`) and UTF-16BE bytes in hex (either
 * case) and in base64 and base64url at any alignment ({@link base64Forms}: `Basic` credentials `user:secret`), and
 * those UTF-8 base64 forms in base64 again (credentials inside a base64 config). Finding one of them finds the
 * secret but for a few bits at its ends. None for a secret under {@link MIN_BYTE_FORM_SECRET_BYTES} bytes.
 */
function byteForms(secret: string): string[] {
  const utf8 = String.fromCharCode(...utf8Bytes(secret));
  if (utf8.length < MIN_BYTE_FORM_SECRET_BYTES) return [];
  // Each UTF-16 unit as two bytes, low byte first; then high byte first.
  const le = secret.replace(/./gs, (char) =>
    String.fromCharCode(char.charCodeAt(0) & 0xff, char.charCodeAt(0) >> 8),
  );
  const forms = new Set<string>();
  for (const binary of [utf8, le, le.replace(/(.)(.)/gs, '$2$1')]) {
    const hex = hexOf(binary);
    for (const form of [hex, hex.toUpperCase(), ...base64Forms(binary)]) forms.add(form);
  }
  // A base64 form is ASCII: its characters are its bytes.
  for (const inner of base64Forms(utf8)) for (const form of base64Forms(inner)) forms.add(form);
  return [...forms];
}

/** `bytes` read as UTF-16LE from byte `start`; `''` where the runtime has no `TextDecoder`. */
const utf16Text = (bytes: Uint8Array, start: number): string =>
  typeof TextDecoder === 'function' ? new TextDecoder('utf-16le').decode(bytes.subarray(start)) : '';

/*
 * The search: where string rules are in a text, in every form, in time that grows little with their number. A match
 * of {@link encodedPattern} writes each unit of the secret as itself or in a form that begins with `\`, `%` or (a
 * space) `+`: either the secret is there as written (found from samples), or its first unit written otherwise begins at
 * such a lead, right after the units before it as written. Each lead is read for the units it may stand for, and
 * only the secrets holding one of them there, after those units, are tried there, each with its own pattern: the
 * matches are those one pattern of all the secrets would find, tried at every place.
 */

/** Units hashed for a sample of the text ({@link Search}). */
const GRAM = 8;
/** With a needle shorter than this, needles are looked for in the whole text, not from samples. */
const LONG_NEEDLE = 12;

/** A hash of the {@link GRAM} units of `text` from `at`. */
function gram(text: string, at: number): number {
  let hash = 0;
  for (let i = at; i < at + GRAM; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

/** What a `%` byte from 0x80 (the first of a character's UTF-8 bytes) may stand for: any unit from 0x80. */
const NON_ASCII = 0x10000;
const HEX = '[\\da-fA-F]';
/**
 * An escape (its backslashes as {@link ESCAPE} writes them) or a byte percent-encoded: a short escape (group 1), or
 * the hex of `\uXXXX`, `\u{…}`, `\xXX`, a `\"` or `\/` percent-encoded, or of a byte (the last group). Sticky.
 */
const LEAD = new RegExp(
  `${ESCAPE}(?:([btnfr"/])|u(${HEX}{4})|u\\{0*(${HEX}{1,6})\\}|x(${HEX}{2})|${PERCENT}(2[2fF]))|${PERCENT}(${HEX}{2})`,
  'y',
);

/** The unit of each of JSON's short escapes `btnfr"/`. */
const SHORT_UNITS = [8, 9, 10, 12, 13, 34, 47];

/**
 * Every unit a form beginning at the lead at `at` may write ({@link NON_ASCII} for any unit from 0x80): a space for
 * `+`; else a backslash (a secret's backslashes, as written or encoded), a `%` (`%25`), and the unit of the escape
 * or the percent-encoded byte there ({@link LEAD}), a space too for `%2B`.
 */
function leadUnits(text: string, at: number): number[] {
  if (text[at] === '+') return [0x20];
  const next = text.charAt(at + 1);
  // A backslash before a short escape (JSON's `\n`, `\"`) or before no escape at all.
  if (text[at] === '\\' && next !== '' && !'\\%ux'.includes(next)) {
    return [0x5c, 0x25, SHORT_UNITS['btnfr"/'.indexOf(next)] ?? -1];
  }
  LEAD.lastIndex = at;
  const match = LEAD.exec(text);
  if (match === null) return [0x5c, 0x25];
  const [, escaped, ...hex] = match;
  const unit = Number.parseInt(hex.find((digits) => digits !== undefined) ?? '', 16);
  return [
    0x5c,
    0x25,
    escaped === undefined
      ? unit > 0xffff
        ? 0xd7c0 + (unit >> 10)
        : unit > 0x7f && hex[4]
          ? NON_ASCII
          : unit
      : (SHORT_UNITS['btnfr"/'.indexOf(escaped)] as number),
    unit === 0x2b ? 0x20 : -1,
  ];
}

/**
 * Where string rules (and their lowercase and uppercase forms) are in a text, in any form ({@link encodedPattern}),
 * and their byte encodings ({@link byteForms}). Made when a text long enough is first searched.
 *
 * Both are found as written (needles) from samples when all are long: the {@link GRAM} units every `step` units of
 * the text (the shortest needle's length, less {@link GRAM}, plus 1), of which any occurrence holds one; a needle is
 * looked for only around a sample that one of them holds.
 */
class Search {
  readonly #strings: readonly string[];
  /** The string rules, then their byte encodings. */
  readonly #needles: readonly string[];
  /** By the hash of each {@link GRAM} units of a needle, the needles (indexes) that hold them. */
  readonly #grams = new Map<number, number[]>();
  /** Samples every this many units; 0: the needles are looked for in the whole text. */
  readonly #step: number;
  /** Each string rule's pattern (sticky), made when it is first tried. */
  readonly #patterns: RegExp[] = [];
  /** The leads a text may hold: `\` and `%`, and `+` when a string rule holds a space. */
  readonly #leads: string[];
  /** By each unit a lead may stand for, the rules it may begin the first form not as written of: `[rule, units before…]`. */
  readonly #starts = new Map<number, number[]>();

  constructor(strings: readonly string[], bytes: readonly string[]) {
    this.#strings = strings;
    const needles = [...strings, ...bytes];
    this.#needles = needles;
    const lengths = needles.map((needle) => needle.length);
    this.#step = Math.min(...lengths) < LONG_NEEDLE ? 0 : Math.min(...lengths) - GRAM + 1;
    (this.#step > 0 ? needles : []).forEach((needle, index) => {
      for (let at = 0; at + GRAM <= needle.length; at++) {
        const hash = gram(needle, at);
        this.#grams.set(hash, [...(this.#grams.get(hash) ?? []), index]);
      }
    });
    this.#leads = ['\\', '%', ...(strings.some((secret) => secret.includes(' ')) ? ['+'] : [])];
    strings.forEach((secret, index) => {
      for (let unit = 0; unit < secret.length; unit++) {
        const code = secret.charCodeAt(unit);
        for (const key of code < 0x80 ? [code] : [code, NON_ASCII]) {
          this.#starts.set(key, [...(this.#starts.get(key) ?? []), index, unit]);
        }
        // A backslash is never written as itself: no later unit's form is the first not as written.
        if (code === 0x5c) break;
      }
    });
  }

  /**
   * Calls `found` with the index and the place of each needle in `text`, once each: around a sample, only the
   * needles that hold its units are looked for, from where the last search of each ended.
   */
  #find(text: string, found: (index: number, at: number) => void): void {
    const search = (index: number, from: number, to: number) => {
      const needle = this.#needles[index] as string;
      const part = text.slice(from, to);
      for (let at = part.indexOf(needle); at !== -1; at = part.indexOf(needle, at + 1))
        found(index, from + at);
    };
    for (let index = 0; this.#step === 0 && index < this.#needles.length; index++)
      search(index, 0, text.length);
    // By needle, the first place not yet searched.
    const searched: number[] = [];
    for (let at = 0; this.#step > 0 && at + GRAM <= text.length; at += this.#step) {
      for (const index of this.#grams.get(gram(text, at)) ?? []) {
        // An occurrence holding the sample begins from `at + GRAM - length` to `at`.
        const length = (this.#needles[index] as string).length;
        search(index, Math.max(0, at + GRAM - length, searched[index] ?? 0), at + length);
        searched[index] = at + 1;
      }
    }
  }

  /**
   * Pushes on `spans` the place of each byte encoding in `text`, and of string rules in any form: at each place, of
   * the first rule (in their order) that matches there.
   */
  spans(text: string, spans: Array<[number, number]>): void {
    const strings = this.#strings;
    const count = strings.length;
    const leads = this.#leads.some((lead) => text.includes(lead));
    // Where a string rule may begin, and which: `at * count + rule`.
    const starts: number[] = [];
    this.#find(text, (index, at) => {
      // With no lead, a string rule as written is all there is.
      if (index >= count || !leads) spans.push([at, at + (this.#needles[index] as string).length]);
      else starts.push(at * count + index);
    });
    for (const lead of leads ? this.#leads : []) {
      for (let at = text.indexOf(lead); at !== -1; at = text.indexOf(lead, at + 1)) {
        for (const unit of leadUnits(text, at)) {
          const found = this.#starts.get(unit) ?? [];
          for (let i = 0; i < found.length; i += 2) {
            const rule = found[i] as number;
            const length = found[i + 1] as number;
            const secret = strings[rule] as string;
            // The units before the lead as written (the one right before first: most often not).
            if (
              (length === 0 || (at >= length && text.charCodeAt(at - 1) === secret.charCodeAt(length - 1))) &&
              text.startsWith(secret.slice(0, length), at - length)
            ) {
              starts.push((at - length) * count + rule);
            }
          }
        }
      }
    }
    let matched = -1;
    for (const start of starts.sort((a, b) => a - b)) {
      const at = Math.floor(start / count);
      const pattern =
        this.#patterns[start % count] ?? new RegExp(encodedPattern(strings[start % count] ?? ''), 'y');
      this.#patterns[start % count] = pattern;
      pattern.lastIndex = at;
      if (at !== matched && pattern.test(text)) {
        spans.push([at, pattern.lastIndex]);
        matched = at;
      }
    }
  }
}

/** What to scrub: exact strings (e.g. secrets) and patterns. */
export type RedactRule = string | RegExp;

/** Replacement for every redacted span (unless a rule matches inside it: see {@link Redactor}). */
export const REDACTED = '[redacted]';

/** Replacements tried in order: the first in which no rule can match, or form a match at its edges, is used. */
const REPLACEMENTS = [REDACTED, '[REDACTED]', '<redacted>', '***', '###', '~~~'];

/**
 * Secrets shorter than this many characters would also match inside ordinary words (`dev` in `device`), so none
 * is searched for in free text: `redact` strings this short are refused by the `Client`'s options, an API key this
 * short is replaced only where it is a whole value ({@link RedactorOptions.whole}; a `Client` warns once), and a
 * sensitive field's value this short only where it is the field's whole value (src/call/redaction.ts). The
 * {@link Redactor} itself searches for any non-empty string rule it is given.
 */
export const SHORT_SECRET = 4;

/** Passes over a text until no rule matches (a replacement next to a match may form a new one). */
const MAX_PASSES = 4;

/**
 * Most secrets one {@link Redactor} learns after it is made ({@link Redactor.learn}): the keys an `apiKey`
 * function returns over a client's life, the latest ones kept (memory bounded: at most 16 keys of at most 4,096
 * characters each).
 */
export const MAX_LEARNED_SECRETS = 16;

/** Nesting deeper than this in {@link Redactor.value} is written as `"[Too deep]"`, never passed on unredacted. */
export const MAX_REDACT_DEPTH = 64;

function matches(rule: RegExp, text: string): boolean {
  rule.lastIndex = 0;
  const found = rule.test(text);
  rule.lastIndex = 0;
  return found;
}

/** `replacement` cannot hold `secret`, be held by it, or form it with the text on either side. */
function safeFor(replacement: string, secret: string): boolean {
  if (replacement.includes(secret) || secret.includes(replacement)) return false;
  for (let k = 1; k < replacement.length; k++) {
    if (secret.startsWith(replacement.slice(k)) || secret.endsWith(replacement.slice(0, k))) return false;
  }
  return true;
}

/** Options of a {@link Redactor}. */
export interface RedactorOptions {
  /**
   * Secrets replaced only where a string is, in its entirety, one of them (a log field's or a widget's value, a
   * key, a whole output or message), never searched for inside a longer text: for a `Client`'s API key shorter
   * than {@link SHORT_SECRET} characters. Empty strings are ignored; left out, there are none.
   */
  readonly whole?: readonly string[];
}

/**
 * Replaces every secret in text and values. String rules of any length are matched as written and in every
 * escaped or encoded form (see the module), those of {@link SHORT_SECRET} characters or more lowercased and
 * uppercased too; never encrypted, hashed or under any other transform; RegExp rules are applied (globally, never sticky) to the text as it
 * is; {@link RedactorOptions.whole} strings only where a string is one of them. Empty strings are ignored. Which
 * rules a `Client` gives is decided by its options: the API key (searched for when it has at least
 * {@link SHORT_SECRET} characters, else a whole-value secret) and the `redact` rules.
 *
 * The replacement is {@link REDACTED}, unless a rule matches in it (a secret `"act"` would survive as
 * `[red·act·ed]`): then the first of `[REDACTED]`, `<redacted>`, `***`, `###`, `~~~` that no rule touches.
 */
export class Redactor {
  /** The rules given to the constructor (for a redactor made by {@link Redactor.with}: the extra ones only). */
  readonly #own: readonly RedactRule[];
  /** Whole-value secrets given to the constructor. */
  readonly #ownWhole: readonly string[];
  /** Secrets learned since ({@link Redactor.learn}), oldest first, at most {@link MAX_LEARNED_SECRETS}. */
  readonly #learned: Array<{ secret: string; whole: boolean }> = [];
  /** The redactor this one was made from by {@link Redactor.with}: what it learns, this one knows too. */
  readonly #base: Redactor | undefined;
  /** Bumped whenever the rules in force change (a secret learned here or by the base). */
  #generation = 0;
  /** The base's generation the rules in force were compiled from. */
  #seen = 0;
  #rules: readonly RedactRule[] = [];
  #strings: string[] = [];
  #patterns: RegExp[] = [];
  /** Secrets replaced only as whole strings ({@link RedactorOptions.whole}). */
  #whole: ReadonlySet<string> = new Set();
  /** The byte encodings of the string rules long enough to have them ({@link byteForms}). */
  #byteForms: string[] = [];
  /** Where the string rules and their byte encodings are in a text: made when a text is first searched. */
  #search: Search | undefined;
  /**
   * Without RegExp rules, the length of the shortest text any rule matches in any form (a string rule as written or
   * encoded, which is never shorter; a byte form; a whole-value secret): a shorter text holds no secret. 0 with a
   * RegExp rule, which may match any text; `Infinity` with no rule.
   */
  #shortestMatch = Number.POSITIVE_INFINITY;
  #replacement = REDACTED;

  constructor(rules: readonly RedactRule[], options: RedactorOptions = {}, base?: Redactor) {
    this.#own = [...rules];
    this.#ownWhole = (options.whole ?? []).filter((secret) => secret !== '');
    this.#base = base;
    if (base !== undefined) {
      base.#sync();
      this.#seen = base.#generation;
    }
    this.#compile();
  }

  /** Compiles the rules in force: the base's, then this one's own, then the learned ones. */
  #compile(): void {
    const learned = this.#learned.filter((entry) => !entry.whole).map((entry) => entry.secret);
    const base = this.#base;
    const rules = [...(base === undefined ? [] : base.#rules), ...this.#own, ...learned];
    const whole = new Set([
      ...(base === undefined ? [] : base.#whole),
      ...this.#ownWhole,
      ...this.#learned.filter((entry) => entry.whole).map((entry) => entry.secret),
    ]);
    this.#rules = rules;
    this.#whole = whole;
    const strings = new Set<string>();
    this.#patterns = [];
    for (const rule of rules) {
      if (typeof rule === 'string') {
        if (rule !== '') strings.add(rule);
      } else {
        this.#patterns.push(new RegExp(rule.source, `${rule.flags.replace(/[gy]/g, '')}g`));
      }
    }
    // A secret lowercased (a hostname) or uppercased (a normalised header) still gives most of it away.
    const cases = new Set(strings);
    for (const secret of strings) {
      if (secret.length >= SHORT_SECRET) cases.add(secret.toLowerCase()).add(secret.toUpperCase());
    }
    this.#strings = [...cases].sort((a, b) => b.length - a.length);
    this.#search = undefined;
    this.#byteForms = [...new Set([...strings].flatMap(byteForms))];
    this.#shortestMatch =
      this.#patterns.length > 0
        ? 0
        : Math.min(
            ...this.#byteForms.map((form) => form.length),
            ...this.#strings.map((secret) => secret.length),
            ...[...whole].map((secret) => secret.length),
          );
    this.#replacement =
      REPLACEMENTS.find(
        (candidate) =>
          this.#strings.every((secret) => safeFor(candidate, secret)) &&
          !this.#whole.has(candidate) &&
          this.#patterns.every((rule) => !matches(rule, candidate) && !matches(rule, candidate + candidate)),
      ) ?? '';
  }

  /** Brings the rules in force up to date with what the base learned since (one comparison when nothing did). */
  #sync(): void {
    const base = this.#base;
    if (base === undefined) return;
    base.#sync();
    if (base.#generation === this.#seen) return;
    this.#seen = base.#generation;
    this.#compile();
    this.#generation += 1;
  }

  /**
   * A redactor with these rules and `extra` (e.g. one call's sensitive values); this one is unchanged. What this
   * one learns later ({@link Redactor.learn}) the new one knows too.
   */
  with(extra: readonly RedactRule[]): Redactor {
    return extra.length === 0 ? this : new Redactor(extra, {}, this);
  }

  /**
   * Adds a secret known only once the redactor is in use (a key an `apiKey` function returned): from now on it is
   * replaced as a string rule is, or, with `whole`, only where a string is, in its entirety, that secret
   * ({@link RedactorOptions.whole}). Every redactor made from this one by {@link Redactor.with} knows it too. At
   * most {@link MAX_LEARNED_SECRETS} are kept: past that the oldest learned one is forgotten (the rules given to
   * the constructor never are). A secret known already, or empty, changes nothing.
   *
   * @returns `true` when the secret was new.
   */
  learn(secret: string, options: { whole?: boolean } = {}): boolean {
    if (secret === '') return false;
    const whole = options.whole === true;
    const index = this.#learned.findIndex((entry) => entry.secret === secret && entry.whole === whole);
    if (index !== -1) {
      // Known: it becomes the newest, the last one to be forgotten.
      this.#learned.push(...this.#learned.splice(index, 1));
      return false;
    }
    this.#learned.push({ secret, whole });
    if (this.#learned.length > MAX_LEARNED_SECRETS) this.#learned.shift();
    if (this.#base !== undefined) this.#sync();
    this.#compile();
    this.#generation += 1;
    return true;
  }

  /** What a match is replaced with. */
  get replacement(): string {
    if (this.#base !== undefined) this.#sync();
    return this.#replacement;
  }

  /**
   * The secrets searched for: the string rules in force (the API key, `redact` strings, learned keys) and, for
   * those of {@link SHORT_SECRET} characters or more, their lowercase and uppercase forms; longest first. A new
   * array whenever they change, so a caller may keep what it built from them until then.
   */
  get secrets(): readonly string[] {
    if (this.#base !== undefined) this.#sync();
    return this.#strings;
  }

  /** `true` when there is nothing to redact. */
  get empty(): boolean {
    if (this.#base !== undefined) this.#sync();
    return this.#strings.length === 0 && this.#patterns.length === 0 && this.#whole.size === 0;
  }

  /**
   * The text with every match replaced. Passes are repeated until none matches (a replacement next to a piece
   * of a secret could complete it); a text that still matches after that comes out as the replacement alone. A
   * text that is a whole-value secret ({@link RedactorOptions.whole}) is the replacement.
   */
  text(value: string): string {
    if (this.#base !== undefined) this.#sync();
    // Most texts a call writes (a short output such as `42`) are shorter than every secret: nothing to look for.
    if (value.length < this.#shortestMatch) return value;
    if (this.#whole.has(value)) return this.replacement;
    let out = value;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const next = this.#pass(out);
      if (next === out) return out;
      out = next;
    }
    return this.#pass(out) === out ? out : this.replacement;
  }

  /**
   * `value` with each of its own string fields redacted, one level deep (an event's ids and words, which the
   * service chose): the same object when none holds a secret, else a copy (prototype kept) with those replaced.
   */
  fields<T extends object>(value: T): T {
    if (this.empty) return value;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const text = (value as Record<string, unknown>)[key];
      if (typeof text !== 'string') continue;
      const redacted = this.text(text);
      if (redacted === text) continue;
      copy ??= Object.assign(Object.create(Object.getPrototypeOf(value)), value) as Record<string, unknown>;
      copy[key] = redacted;
    }
    return (copy ?? value) as T;
  }

  /**
   * `true` when strings must be redacted one by one before they are written as JSON: the redactor has RegExp
   * rules, which meet a string, not its JSON. String rules need no such pass: JSON escapes each character on its
   * own, so a secret inside a string is found in the JSON text in its escaped form by {@link Redactor.text}. A
   * whole-value secret needs the pass too: in the JSON text it is no longer a whole string.
   */
  get perString(): boolean {
    if (this.#base !== undefined) this.#sync();
    return this.#patterns.length > 0 || this.#whole.size > 0;
  }

  /**
   * A string about to be written as JSON, with the RegExp rules applied (see {@link Redactor.perString}); the
   * string rules are left to the pass over the JSON text, which finds them escaped.
   */
  inString(value: string): string {
    if (this.#base !== undefined) this.#sync();
    if (this.#whole.has(value)) return this.replacement;
    let out = value;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const next = this.#replace(out, this.#patterns);
      if (next === out) return out;
      out = next;
    }
    return this.text(out);
  }

  /**
   * One pass: every rule's matches found on the same text, overlapping ones joined into one span, each span
   * replaced once (so that a rule replaced first cannot break another's match and leave part of it behind).
   */
  #pass(text: string): string {
    const spans: Array<[number, number]> = [];
    if (this.#strings.length > 0) this.#searched().spans(text, spans);
    return this.#replace(text, this.#patterns, spans);
  }

  #searched(): Search {
    this.#search ??= new Search(this.#strings, this.#byteForms);
    return this.#search;
  }

  #replace(text: string, rules: readonly RegExp[], spans: Array<[number, number]> = []): string {
    for (const rule of rules) {
      for (const match of text.matchAll(rule)) {
        if (match[0] !== '') spans.push([match.index, match.index + match[0].length]);
      }
    }
    if (spans.length === 0) return text;
    if (spans.length > 1) spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    let out = '';
    let copied = 0;
    let end = -1;
    for (const [start, stop] of spans) {
      if (start >= end) {
        if (end !== -1) out += this.#replacement;
        out += text.slice(copied, start);
        end = stop;
      } else end = Math.max(end, stop);
      copied = end;
    }
    return out + this.#replacement + text.slice(copied);
  }

  /**
   * `true` when bytes hold a secret: their UTF-8 reading matches a rule, or their UTF-16LE reading from an even or
   * an odd byte holds a string rule (lowercased, uppercased) in one of its forms: binary data written as base64 is
   * checked this way before it is encoded. The UTF-16LE readings find UTF-16 text (a Windows file, a PowerShell script) in
   * either byte order for ASCII secrets: an ASCII character's UTF-16BE bytes, read from the byte after, are its
   * UTF-16LE ones (but for the last character of the data). Without a `TextDecoder`, bytes are read as UTF-8 only.
   */
  bytes(view: ArrayBufferView | ArrayBuffer): boolean {
    if (this.empty) return false;
    const bytes = ArrayBuffer.isView(view)
      ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength)
      : new Uint8Array(view);
    const text = utf8Text(bytes);
    return (
      this.#pass(text) !== text ||
      (this.#strings.length > 0 &&
        [0, 1].some((start) => {
          const spans: Array<[number, number]> = [];
          this.#searched().spans(utf16Text(bytes, start), spans);
          return spans.length > 0;
        }))
    );
  }

  /**
   * What was thrown, redacted, whatever its kind: the same value when nothing in it holds a secret, else a redacted
   * copy; what was given is never changed (it may be a tool's error or the reason a user gave
   * `AbortController.abort()`, which its owner still holds). For the errors toolwire hands to its caller, emits or
   * logs, whose messages may quote a URL, a service's words or a tool's arguments.
   *
   * - An `Error`: its `name`, `message`, `stack`, `code` and other fields (`hostname`, `path`, …: its own, symbol-keyed
   *   and non-enumerable ones and getters too, and the enumerable ones it inherits; a non-enumerable getter of its
   *   class is not read, and runs on the copy; a field whose key holds a secret is left off the copy), and those of
   *   the errors of its `cause` chain and an `AggregateError`'s `errors` (at most {@link MAX_REDACTED_ERRORS} errors
   *   in all), are read.
   *   An error in which, or in whose causes, a rule matches is copied: same prototype (`instanceof` and the class's
   *   `name` hold), its own properties, the matched fields redacted, its `cause` and `errors` the redacted ones. A
   *   field (or a `cause` that is no `Error`) that holds a secret is copied as {@link Redactor.value} copies a value,
   *   but for the errors in it, at any depth: each stays an error (its class, `name` and `stack`), redacted as this
   *   one is, and one that leads back to an error it is held in is `"[Circular]"`. An error past those read that
   *   holds a secret goes as {@link Redactor.value} writes it. Any other error of the chain is kept as it is, by
   *   identity.
   * - A string is given back redacted; any other value (a plain object, a number) as it is when no rule matches in
   *   it, else as a redacted copy ({@link Redactor.value}).
   * - A value that cannot be read (a Proxy whose traps throw, a revoked Proxy: it might hide a secret) is
   *   `'[Unreadable]'`, as {@link Redactor.value} writes it. Never throws.
   */
  error<T>(error: T): T {
    if (this.empty) return error;
    try {
      if (!(error instanceof Error)) return this.#holds(error, []) ? this.value(error) : error;
      return this.#errorCopy(error, [], new Map()) as T;
    } catch {
      return '[Unreadable]' as T;
    }
  }

  /**
   * `error` with every error of its chain (causes, inner errors) that holds a secret, or leads to one that does,
   * copied and redacted; the rest kept. The chain is read once, each field of each error at most once. `made`: the
   * copies made so far in this redaction, by original, shared with the walks of the fields of every error in it (an
   * error held in a field is copied once however many fields hold it).
   */
  #errorCopy(root: Error, ancestors: object[], made: Map<object, unknown>): Error {
    const plans = new Map<Error, ErrorPlan>();
    const queue: Error[] = [root];
    while (queue.length > 0 && plans.size < MAX_REDACTED_ERRORS) {
      const item = queue.shift() as Error;
      if (plans.has(item)) continue;
      const plan = this.#errorPlan(item, ancestors, made);
      plans.set(item, plan);
      for (const inner of plan.inner) if (!plans.has(inner)) queue.push(inner);
    }
    // An error past the bound is read as a value: one that holds a secret (or is nested too deep to read) goes as
    // Redactor.value writes it, never unread.
    const past = new Map<Error, unknown>();
    for (const plan of plans.values()) {
      for (const inner of plan.inner) {
        if (plans.has(inner)) continue;
        if (!past.has(inner)) past.set(inner, this.#holds(inner, []) ? this.value(inner) : inner);
        if (past.get(inner) !== inner) plan.copy = true;
      }
    }
    // An error is copied when it holds a secret or leads to an error that is copied (causes may form a cycle).
    for (let changed = true; changed; ) {
      changed = false;
      for (const plan of plans.values()) {
        if (plan.copy || !plan.inner.some((inner) => plans.get(inner)?.copy === true)) continue;
        plan.copy = true;
        changed = true;
      }
    }
    if (plans.get(root)?.copy !== true) return root;
    const copies = new Map<Error, Error>();
    for (const [item, plan] of plans) if (plan.copy) copies.set(item, copyOwn(item));
    const swap = (value: unknown): unknown =>
      value instanceof Error ? (copies.get(value) ?? past.get(value) ?? value) : value;
    for (const [item, copy] of copies) {
      const plan = plans.get(item) as ErrorPlan;
      for (const key of plan.dropped) delete (copy as unknown as Record<PropertyKey, unknown>)[key];
      for (const [key, value] of plan.fields) setOwn(copy, key, value);
      if (plan.cause !== NONE) setOwn(copy, 'cause', swap(plan.cause));
      const { errors } = plan;
      if (errors !== NONE) setOwn(copy, 'errors', Array.isArray(errors) ? errors.map(swap) : swap(errors));
    }
    return copies.get(root) as Error;
  }

  /**
   * What one error holds: its fields as a copy shows them (redacted where a rule matches), its cause and inner
   * errors (redacted copies of those that are no `Error` and hold a secret), and whether it must be copied for its
   * own sake. A field whose getter throws is left out: nothing could read it, on the error or on a copy. An error
   * held in a field (at any depth) stays an error, redacted as this one; one that leads back to an error of
   * `ancestors` or to this one is `"[Circular]"`.
   */
  #errorPlan(item: Error, ancestors: object[], copies: Map<object, unknown>): ErrorPlan {
    const plan: ErrorPlan = {
      fields: new Map(),
      dropped: [],
      cause: NONE,
      errors: NONE,
      inner: [],
      copy: false,
    };
    const fields = item as unknown as Record<PropertyKey, unknown>;
    // A field's value as the copy holds it: redacted where a rule matches in it, its errors kept errors.
    const field = (value: unknown): unknown =>
      this.#holds(value, []) ? this.#walk(value, [...ancestors, item], true, copies) : value;
    let keys: PropertyKey[] = [...STANDARD_FIELDS];
    try {
      keys = keys.concat(ownFields(item));
    } catch {
      // Its keys cannot be read (a Proxy whose `ownKeys` trap throws): nor can a copy be made, and it is unreadable.
      plan.copy = true;
    }
    for (const key of keys) {
      try {
        if (!(key in item)) continue;
        const value = fields[key];
        const redacted = typeof value === 'string' ? this.text(value) : field(value);
        // A field whose key holds a secret is left off the copy.
        const dropped = !STANDARD_FIELDS.has(key) && this.#holds(key, []);
        if (dropped) plan.dropped.push(key);
        else plan.fields.set(key, redacted);
        if (dropped || redacted !== value) plan.copy = true;
      } catch {
        // a getter that throws
      }
    }
    const kept = (value: unknown): unknown => {
      if (value instanceof Error) {
        plan.inner.push(value);
        return value;
      }
      const redacted = field(value);
      if (redacted !== value) plan.copy = true;
      return redacted;
    };
    try {
      if (item.cause !== undefined) plan.cause = kept(item.cause);
    } catch {
      // a getter that throws
    }
    try {
      // Not an array (set by hand): read as a cause is.
      if (item instanceof AggregateError) {
        const { errors } = item;
        plan.errors = Array.isArray(errors) ? errors.map(kept) : kept(errors);
      }
    } catch {
      // a getter that throws
    }
    return plan;
  }

  /**
   * `true` when {@link Redactor.value} would replace something in `value`: a rule matches one of its strings, keys,
   * numbers or bytes, or a part of it cannot be read (nested past {@link MAX_REDACT_DEPTH}, a getter that throws).
   * Nothing is copied: for handing on a value as it is when nothing in it needs redacting.
   */
  holds(value: unknown): boolean {
    return !this.empty && this.#holds(value, []);
  }

  /**
   * `clean`: the objects already read in this search and found to hold nothing, so that an object reached again by
   * another path (a value that shares its parts) is read once: the search stays linear in the value's distinct
   * objects, where reading each path would double with each level of sharing. (One found clean while an ancestor
   * was still being read may lead back to that ancestor; if the ancestor holds a secret, the search ends `true`
   * with it.)
   */
  #holds(value: unknown, ancestors: object[], clean?: WeakSet<object>): boolean {
    if (typeof value === 'string') return this.text(value) !== value;
    if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'symbol') {
      const written = typeof value === 'symbol' ? value.toString() : String(value);
      return this.text(written) !== written;
    }
    if (value === null || typeof value !== 'object' || ancestors.includes(value) || clean?.has(value))
      return false;
    if (ancestors.length >= MAX_REDACT_DEPTH) return true;
    ancestors.push(value);
    try {
      const read = clean ?? new WeakSet<object>();
      const holds = this.#objectHolds(value, ancestors, read);
      if (!holds) read.add(value);
      return holds;
    } catch {
      return true;
    } finally {
      ancestors.pop();
    }
  }

  #objectHolds(value: object, ancestors: object[], clean: WeakSet<object>): boolean {
    const any = (items: Iterable<unknown>): boolean => {
      for (const item of items) if (this.#holds(item, ancestors, clean)) return true;
      return false;
    };
    const primitive = unboxed(value);
    if (primitive !== value) return this.#holds(primitive, ancestors, clean);
    if (Array.isArray(value) || value instanceof Set) return any(value);
    if (value instanceof Map) return any([...value].flat());
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return this.bytes(value);
    if (value instanceof Error) {
      const { code } = value as { code?: unknown };
      const parts = [String(value.name), String(value.message), value.stack, code, value.cause];
      // Its other fields, as Redactor.error reads them: a secret there (or in their keys) makes it go whole.
      for (const key of ownFields(value))
        parts.push(key, (value as unknown as Record<PropertyKey, unknown>)[key]);
      return any(value instanceof AggregateError ? [...parts, value.errors] : parts);
    }
    const entries = webEntries(value);
    if (entries !== undefined) return any(entries.flat());
    // What JSON writes, and what `console.log` prints (its own fields, which a `toJSON` may leave out).
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function' && this.#holds(toJSON.call(value), ancestors, clean)) return true;
    for (const [key, item] of Object.entries(value)) {
      if (this.text(key) !== key || this.#holds(item, ancestors, clean)) return true;
    }
    return false;
  }

  /**
   * A deep copy of a JSON-like value (a log line's fields, a widget) with every string and key redacted. A
   * number or BigInt whose digits hold a secret becomes the replacement; an `Error` becomes `{ name, message,
   * stack, code?, cause? }`; a boxed string, number, BigInt or symbol (`new String(…)`) as the primitive it holds;
   * a `Headers` or `URLSearchParams` as its entries; an object with `toJSON` is copied from what it
   * returns (and found to hold a secret in that or in its own fields); binary data that holds a
   * secret becomes the replacement. Cycles are written `"[Circular]"`, nesting past {@link MAX_REDACT_DEPTH}
   * `"[Too deep]"`: nothing is passed on unread.
   */
  value<T>(value: T): T {
    if (this.empty) return value;
    return this.#walk(value, []) as T;
  }

  /**
   * `errors`: an `Error` is given as {@link Redactor.error} gives it (a field of an error), not as a plain object.
   * `copies`: the copies made in this walk, by original: an object reached again by another path is copied once and
   * the copy shared, so that a value that shares its parts costs its distinct objects, not its paths.
   */
  #walk(value: unknown, ancestors: object[], errors = false, copies?: Map<object, unknown>): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number' || typeof value === 'bigint') {
      const digits = String(value);
      return this.text(digits) === digits ? value : this.replacement;
    }
    // A symbol is written with its description (`Symbol(…)`): it goes whole when that holds a secret.
    if (typeof value === 'symbol') {
      const written = value.toString();
      return this.text(written) === written ? value : this.replacement;
    }
    if (value === null || typeof value !== 'object') return value;
    if (ancestors.includes(value)) return '[Circular]';
    if (copies?.has(value)) return copies.get(value);
    if (ancestors.length >= MAX_REDACT_DEPTH) return '[Too deep]';
    ancestors.push(value);
    try {
      const made = copies ?? new Map<object, unknown>();
      const copy = this.#object(value, ancestors, errors, made);
      made.set(value, copy);
      return copy;
    } catch {
      return '[Unreadable]';
    } finally {
      ancestors.pop();
    }
  }

  #object(value: object, ancestors: object[], errors: boolean, copies: Map<object, unknown>): unknown {
    const walk = (item: unknown) => this.#walk(item, ancestors, errors, copies);
    const primitive = unboxed(value);
    if (primitive !== value) return walk(primitive);
    if (Array.isArray(value)) return value.map(walk);
    // What JSON would write as `{}`: a Map as its entries, a Set as its values.
    if (value instanceof Map) return [...value].map(walk);
    if (value instanceof Set) return [...value].map(walk);
    const entries = webEntries(value);
    if (entries !== undefined) return entries.map(walk);
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      return this.bytes(value) ? this.replacement : value;
    }
    if (value instanceof Error) {
      if (errors) return this.#errorCopy(value, ancestors, copies);
      const out: Record<string, unknown> = {
        name: this.text(String(value.name)),
        message: this.text(String(value.message)),
      };
      if (typeof value.stack === 'string') out.stack = this.text(value.stack);
      const { code } = value as { code?: unknown };
      if (code !== undefined) out.code = walk(code);
      if (value.cause !== undefined) out.cause = walk(value.cause);
      if (value instanceof AggregateError) out.errors = walk(value.errors);
      return out;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return walk(toJSON.call(value));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setKey(out, this.text(key), walk(item));
    return out;
  }
}

/**
 * The primitive a boxed string, number, BigInt or symbol (`new String(…)`, `Object(1n)`) holds, which JSON writes and
 * `console.log` prints whole (its own keys are its characters, one a key); else `value`. Throws for an object that
 * only claims the prototype (`Object.create(String.prototype)`): it cannot be read.
 */
function unboxed(value: object): unknown {
  if (value instanceof String) return String.prototype.valueOf.call(value);
  if (value instanceof Number) return Number.prototype.valueOf.call(value);
  if (value instanceof BigInt) return BigInt.prototype.valueOf.call(value);
  if (value instanceof Symbol) return Symbol.prototype.valueOf.call(value);
  return value;
}

/**
 * The entries of a `Headers` or `URLSearchParams` (`[name, value]` pairs), which keep them in internal slots: JSON
 * writes `{}`, but `console.log` prints them (an `authorization` header, a `?key=` parameter); else `undefined`.
 */
function webEntries(value: object): unknown[][] | undefined {
  return (typeof Headers === 'function' && value instanceof Headers) ||
    (typeof URLSearchParams === 'function' && value instanceof URLSearchParams)
    ? [...(value as unknown as Iterable<unknown[]>)]
    : undefined;
}

/** Most errors of one chain (the error, its causes, inner errors) that {@link Redactor.error} reads. */
export const MAX_REDACTED_ERRORS = 17;

/**
 * No `cause` at all (a `cause` may be `undefined` only when it is absent: then it is left as it is), or no `errors` (the
 * error is no `AggregateError`).
 */
const NONE: unique symbol = Symbol('none');

/** What {@link Redactor.error} found in one error of a chain. */
interface ErrorPlan {
  /** `name`, `message`, `stack`, `code` and the other own enumerable fields as the copy shows them (those the error
   * has and could be read). */
  fields: Map<PropertyKey, unknown>;
  /** Its own fields whose key (a symbol's description too) holds a secret: left off the copy. */
  dropped: PropertyKey[];
  /** The cause as the copy holds it (an `Error` is swapped for its copy, if it has one), or {@link NONE}. */
  cause: unknown;
  /** An `AggregateError`'s inner errors (or what its `errors` holds, set to no array), as {@link ErrorPlan.cause}. */
  errors: unknown;
  /** The errors this one leads to (its cause, its inner errors). */
  inner: Error[];
  /** `true` when it must be copied: it holds a secret, or leads to an error that is copied. */
  copy: boolean;
}

/**
 * A new object with `error`'s prototype and own properties, each writable and configurable on the copy (a frozen
 * error gives a copy that is not). Internal slots are not copied: where a getter reads them (a `DOMException`'s
 * `name`, `message`, `code`), {@link setOwn} shadows it with an own property.
 */
function copyOwn(error: Error): Error {
  const copy = Object.create(Object.getPrototypeOf(error)) as Error;
  for (const key of Reflect.ownKeys(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (descriptor === undefined) continue;
    if ('value' in descriptor) descriptor.writable = true;
    descriptor.configurable = true;
    Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}

/** The fields every error is read for, own or inherited; the others are its own enumerable ones ({@link ownFields}). */
const STANDARD_FIELDS: ReadonlySet<PropertyKey> = new Set(['name', 'message', 'stack', 'code']);

/**
 * The error's fields beside `name`, `message`, `stack` and `code`, but `cause` and an `AggregateError`'s `errors`
 * (read as the chain): its own (string and symbol keys, enumerable or not, getters too) and the enumerable ones it
 * inherits. A runtime's error carries what it failed on in such fields (`hostname` of `getaddrinfo ENOTFOUND`, `path`,
 * `address`), which `console.error(error)` prints; a library's may hide its request in a non-enumerable one, which
 * `util.inspect(error, { showHidden: true })` prints, and pino's error serializer reads the inherited ones
 * (`for…in`). A copy keeps every own property, so each is read. Throws where the error's keys cannot be read (a
 * Proxy whose `ownKeys` trap throws).
 */
function ownFields(error: Error): PropertyKey[] {
  const chain = error instanceof AggregateError ? 'errors' : 'cause';
  const keys = Reflect.ownKeys(error);
  for (const key in error) if (!Object.hasOwn(error, key)) keys.push(key);
  return keys.filter((key) => !STANDARD_FIELDS.has(key) && key !== 'cause' && key !== chain);
}

/**
 * Sets `key` on a copy made by {@link copyOwn} unless it reads so already (through its prototype, say), as enumerable
 * as the property it replaces or shadows.
 */
function setOwn(copy: Error, key: PropertyKey, value: unknown): void {
  try {
    if ((copy as unknown as Record<PropertyKey, unknown>)[key] === value) return;
  } catch {
    // a getter that needs the original's internal slots
  }
  let enumerable: boolean | undefined;
  for (let on: object | null = copy; enumerable === undefined && on !== null; on = Object.getPrototypeOf(on))
    enumerable = Object.getOwnPropertyDescriptor(on, key)?.enumerable;
  Object.defineProperty(copy, key, { value, writable: true, configurable: true, enumerable });
}

/**
 * The redactor of a `Client`: its `redact` rules and its API key, searched for in free text like a `redact` string
 * when it has at least {@link SHORT_SECRET} characters, else replaced only where it is a whole value
 * ({@link RedactorOptions.whole}): a key `dev` searched for would turn `device in development` into
 * `[redacted]ice in [redacted]elopment`.
 */
export function clientRedactor(apiKey: string, rules: readonly RedactRule[]): Redactor {
  return apiKey.length < SHORT_SECRET
    ? new Redactor(rules, { whole: [apiKey] })
    : new Redactor([apiKey, ...rules]);
}

/**
 * Teaches a client's redactor a key its `apiKey` function returned, as {@link clientRedactor} treats a key given
 * as a string: searched for in free text from {@link SHORT_SECRET} characters, else a whole-value secret.
 *
 * @returns `true` when the key was new to the redactor.
 */
export function learnApiKey(redactor: Redactor, key: string): boolean {
  return redactor.learn(key, { whole: key.length < SHORT_SECRET });
}

/*
 * A text the model reads (a tool's output), redacted without breaking it: when the text is JSON, its secrets are
 * replaced inside its values, never across its syntax, so that what was JSON stays JSON.
 */
/** The text parsed as JSON, or `undefined` when it is not JSON. */
function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** `value` with every `true`, `false` or `null` whose text holds a secret (a secret `"true"`) as the replacement. */
function literals(value: unknown, redactor: Redactor, depth: number): unknown {
  if (value === null || typeof value === 'boolean') {
    const text = String(value);
    return redactor.text(text) === text ? value : redactor.replacement;
  }
  if (typeof value !== 'object' || depth > MAX_REDACT_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => literals(item, redactor, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setKey(out, key, literals(item, redactor, depth + 1));
  return out;
}

/**
 * `text` with `redactor`'s secrets replaced.
 *
 * - A text in which no rule matches is returned as it is (same string, nothing parsed).
 * - A text that is not JSON has every match replaced where it is ({@link Redactor.text}).
 * - A JSON text (an object, an array, a string, a number, `true`…) is redacted as a value
 *   ({@link Redactor.value}: inside strings and keys; a number or a literal whose digits hold a secret becomes
 *   the replacement, as a string) and written again as compact JSON. A match across its syntax (a secret `1234`
 *   in `{"a":12345}`, or `a","b` in `["a","b"]`) can never cut a token in two. If a secret is still found in
 *   the JSON written again (it spans two values), the whole text becomes the replacement as a JSON string
 *   (`"[redacted]"`, else `null`): still JSON, and the secret gone.
 */
export function redactOutput(redactor: Redactor | undefined, text: string): string {
  if (redactor === undefined) return text;
  // An empty redactor gives the text back as it is.
  const plain = redactor.text(text);
  if (plain === text) return text;
  const json = parsed(text);
  if (json === undefined) return plain;
  const written = JSON.stringify(redactor.value(literals(json.value, redactor, 0)));
  if (written !== undefined && redactor.text(written) === written) return written;
  // A secret spans two values: the whole text goes, as JSON in which no rule matches. Only a rule shorter than 4
  // characters made of JSON's own syntax (a quote) can match every such text; then the text as `text` leaves it.
  for (const fallback of [JSON.stringify(redactor.replacement), 'null']) {
    if (redactor.text(fallback) === fallback) return fallback;
  }
  return plain;
}
