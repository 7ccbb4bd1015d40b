/**
 * The patterns of the `Redactor` (src/redact.ts): a secret as written and in every escaped or encoded form a
 * text may hold it (JSON-escaped up to four times, `\uXXXX`, `\xXX`, `\u{…}`, percent-encoded), in any mix.
 *
 * @module
 */
const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\/-]/g;
export const escapeRegExp = (text: string): string => text.replace(REGEXP_SPECIAL, '\\$&');

/** `[0-9]`-or-either-case pattern for a hex number of `width` digits (escapes may use either case). */
function hexPattern(value: number, width: number): string {
  return [...value.toString(16).padStart(width, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');
}

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

const UTF8 = new TextEncoder();

/** `%XX` for each UTF-8 byte of `char` (hex in either case). */
const percentForm = (char: string): string =>
  [...UTF8.encode(char)].map((byte) => `%${hexPattern(byte, 2)}`).join('');

/**
 * One escape's backslash, itself escaped up to four times over (1, 3, 7 or 15 backslashes before a quote, 2, 4,
 * 8 or 16 for a backslash). Bounded, so that a text of many backslashes costs linear time, never quadratic.
 */
const ESCAPE = '\\\\{1,16}';

/**
 * A match starts at the first backslash of a run, never inside it: without this, every position of a long run
 * of backslashes would be tried (quadratic time on a text of backslashes).
 */
const AT_RUN_START = '(?<!\\\\)';
/** {@link ESCAPE} for the first unit of a secret. */
const FIRST_ESCAPE = AT_RUN_START + ESCAPE;

/**
 * Every way one UTF-16 unit (not a backslash: see {@link backslashRun}) may be written in text that went through
 * JSON (up to four times), JavaScript escapes or percent-encoding: the unit itself, `\uXXXX` (hex in either
 * case), `\xXX`, `\u{…}`, a short escape (`\n`, `\"`, `\/`), and `%XX` per UTF-8 byte (`+` for a space).
 */
function unitForms(unit: number, lead: string): string {
  const forms = [escapeRegExp(String.fromCharCode(unit))];
  const short = SHORT_ESCAPES[unit];
  if (short !== undefined) forms.push(`${lead}${escapeRegExp(short)}`);
  forms.push(`${lead}u${hexPattern(unit, 4)}`);
  if (unit < 0xd800 || unit > 0xdfff) {
    forms.push(`${lead}u\\{0*${hexPattern(unit, 1)}\\}`, percentForm(String.fromCharCode(unit)));
    if (unit < 0x100) forms.push(`${lead}x${hexPattern(unit, 2)}`);
    if (unit === 0x20) forms.push('\\+');
  }
  return `(?:${forms.join('|')})`;
}

/**
 * `count` backslashes: as they are or escaped up to four times over (one quantifier for the whole run, so that
 * no run of backslashes in the text is tried in every split), or each as `\u005c`, `\x5c` or `%5C`.
 */
function backslashRun(count: number, lead: string): string {
  const each = `(?:${ESCAPE}u005[cC]|${ESCAPE}x5[cC]|%5[cC])`;
  const first = `(?:${lead}u005[cC]|${lead}x5[cC]|%5[cC])`;
  const start = lead === ESCAPE ? '' : AT_RUN_START;
  return `(?:${start}\\\\{${count},${count * 16}}|${first}${each}{${count - 1}})`;
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
      out += `(?:${units}|${first}u\\{0*${hexPattern(point, 1)}\\}|${percentForm(char)})`;
    }
  }
  return backslashes > 0 ? out + backslashRun(backslashes, lead()) : out;
}
