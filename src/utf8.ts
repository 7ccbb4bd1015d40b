/**
 * Sizes of text in UTF-8, plain and inside a JSON string, and cuts of text at a character boundary. No imports:
 * a leaf that every floor may use (the frame limit, output truncation, widget bounds).
 *
 * @module
 */

/**
 * From this many UTF-16 units on, {@link utf8Length} asks the runtime instead of counting in a loop: below it the
 * loop is as fast as the call into the runtime, above it slower (a 100-unit frame, written on every call: ~340 ns
 * against ~60 ns in Node 20).
 */
const LONG_TEXT = 16;

/**
 * `Buffer.byteLength` where the runtime has one (Node, Bun): native, far faster than the loop on long text (a
 * 1 MB frame: ~0.1 ms against ~2.5 ms, which the size check of every large frame paid). Same count, lone
 * surrogates included.
 */
const nativeBuffer = (globalThis as { Buffer?: { byteLength?: (text: string, encoding: 'utf8') => number } })
  .Buffer;
const nativeLength = typeof nativeBuffer?.byteLength === 'function' ? nativeBuffer.byteLength : undefined;

/** Only ASCII: one byte per unit (a native scan, where there is no `Buffer`: browsers). */
const ASCII = /^[\0-\x7f]*$/;

/** UTF-8 size of `text` in bytes; a lone surrogate counts 3 bytes (U+FFFD, as an encoder writes it). */
export function utf8Length(text: string): number {
  if (text.length >= LONG_TEXT) {
    if (nativeLength !== undefined) return nativeLength.call(nativeBuffer, text, 'utf8');
    if (ASCII.test(text)) return text.length;
  }
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Characters JSON.stringify escapes, or writes differently from their UTF-8 (a lone surrogate, as `\udXXX`): text
 * without any is, inside a JSON string, its UTF-8 size.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are among what it finds.
const JSON_SPECIAL = /["\\\0-\x1f\ud800-\udfff]/;

/**
 * UTF-8 bytes the UTF-16 unit at `index` (with the next, for a pair: see {@link jsonUnits}) takes inside a JSON
 * string. A number, not a pair: it runs once per character of every output checked against a limit.
 */
function jsonUnitBytes(text: string, index: number): number {
  const unit = text.charCodeAt(index);
  if (unit < 0x20) return unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13 ? 2 : 6;
  if (unit === 0x22 || unit === 0x5c) return 2; // \" and \\
  if (unit < 0x80) return 1;
  if (unit < 0x800) return 2;
  if (unit >= 0xd800 && unit <= 0xdfff) return jsonUnits(text, index) === 2 ? 4 : 6; // a lone one: \udXXX
  return 3;
}

/** UTF-16 units the character at `index` spans: 2 for a surrogate pair, else 1. */
function jsonUnits(text: string, index: number): 1 | 2 {
  const unit = text.charCodeAt(index);
  if (unit < 0xd800 || unit > 0xdbff) return 1;
  const next = text.charCodeAt(index + 1);
  return next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
}

/**
 * Whether `text` is written inside a JSON string as it is: it holds no character `JSON.stringify` escapes (a quote,
 * a backslash, a control character) or writes differently (a lone surrogate). Then `JSON.stringify(text)` is
 * `text` between quotes, which a frame's writer can put there itself, without the runtime's fixed cost of a
 * `JSON.stringify` call (~800 instructions: most of what writing a call's result takes).
 */
export function isJsonVerbatim(text: string): boolean {
  // Short text (an id, an output such as `42`) is looked at here: a loop of a few units costs less than the call
  // into the regular expression, as in jsonStringBytes. A surrogate (paired or not) is left to JSON.stringify.
  if (text.length < LONG_TEXT) {
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit < 0x20 || unit === 0x22 || unit === 0x5c || (unit >= 0xd800 && unit <= 0xdfff)) return false;
    }
    return true;
  }
  return !JSON_SPECIAL.test(text);
}

/** UTF-8 size of `JSON.stringify(text)`, quotes included, without building it. */
export function jsonStringBytes(text: string): number {
  // Short text (an output such as `ok` or `42`) is counted here: a loop of a few units costs less than the call
  // into the regular expression and the runtime's count, as in utf8Length.
  if (text.length < LONG_TEXT) {
    let bytes = 2;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      // Printable ASCII but for a quote and a backslash (nearly every unit): one byte, read once.
      if (unit >= 0x20 && unit < 0x80 && unit !== 0x22 && unit !== 0x5c) bytes += 1;
      else {
        bytes += jsonUnitBytes(text, i);
        i += jsonUnits(text, i) - 1;
      }
    }
    return bytes;
  }
  // Text that needs no escape: its UTF-8 size (native for long text) and the quotes. Other text (any JSON output
  // has quotes) is written by the runtime: ~3x faster than counting each character here, and exact by definition.
  return JSON_SPECIAL.test(text) ? utf8Length(JSON.stringify(text)) : utf8Length(text) + 2;
}

/**
 * Longest prefix of `text` whose JSON-escaped content (without quotes) takes at most `maxBytes` UTF-8 bytes, cut
 * on a character boundary (a surrogate pair is never split).
 */
export function jsonPrefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const size = jsonUnitBytes(text, end);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += jsonUnits(text, end);
  }
  return text.slice(0, end);
}

/**
 * `text` cut to at most `max` UTF-16 units, ending with `mark` when cut (within the `max`), never between the two
 * halves of a surrogate pair. `max` is longer than `mark`.
 */
export function cutChars(text: string, max: number, mark = '…'): string {
  if (text.length <= max) return text;
  let end = max - mark.length;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${mark}`;
}

/**
 * The runtime's UTF-8 encoder and decoder, where it has them. Jest's jsdom environment and some embedded engines
 * have neither: there the functions below encode and decode here, so that importing toolwire never fails.
 */
const encoder = typeof TextEncoder === 'function' ? new TextEncoder() : undefined;
const decoder = typeof TextDecoder === 'function' ? new TextDecoder('utf-8') : undefined;

/** The UTF-8 bytes of `text`; a lone surrogate becomes U+FFFD, as `TextEncoder` writes it. */
export function utf8Bytes(text: string): Uint8Array {
  if (encoder !== undefined) return encoder.encode(text);
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.codePointAt(i) as number;
    if (code > 0xffff) i++;
    else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000)
      bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else {
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f),
      );
    }
  }
  return Uint8Array.from(bytes);
}

/** Smallest code point each sequence length may encode (a longer sequence for a smaller one is invalid). */
const LEAST = [0, 0, 0x80, 0x800, 0x10000];

/**
 * The text of UTF-8 `bytes`. Valid sequences read as `TextDecoder` reads them; where the runtime has no
 * `TextDecoder`, each byte of an invalid sequence becomes U+FFFD (`TextDecoder` may write fewer).
 */
export function utf8Text(bytes: Uint8Array): string {
  if (decoder !== undefined) return decoder.decode(bytes);
  let text = '';
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i] as number;
    const size = lead < 0x80 ? 1 : lead < 0xc2 ? 0 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf5 ? 4 : 0;
    let code = size === 1 ? lead : lead & (0xff >> (size + 1));
    let read = 1;
    for (; read < size && ((bytes[i + read] ?? 0) & 0xc0) === 0x80; read++) {
      code = (code << 6) | ((bytes[i + read] as number) & 0x3f);
    }
    if (
      size > 0 &&
      read === size &&
      code >= (LEAST[size] as number) &&
      code <= 0x10ffff &&
      (code < 0xd800 || code > 0xdfff)
    ) {
      text += String.fromCodePoint(code);
      i += size;
    } else {
      text += '\ufffd';
      i++;
    }
  }
  return text;
}
