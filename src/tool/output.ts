/**
 * The text the model reads, made to fit: the byte caps that keep it inside a frame, and well-formed UTF-16.
 * How a value becomes that text is src/tool/serialize.ts (re-exported here).
 *
 * @module
 */
import { jsonPrefix, jsonStringBytes, utf8Length } from '../wire/utf8';

export { jsonStringBytes } from '../wire/utf8';
export { MAX_OUTPUT_DEPTH, serializeOutput, thrownMessage, wellFormedJson } from './serialize';

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
