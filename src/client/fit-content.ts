/**
 * Content parts of a result made to fit the service's frame limit (PROTOCOL.md §18.7): redacted, then the largest
 * parts replaced by a text that says what was left out, until the `tool_result` fits; never a frame the service
 * would close the socket for.
 *
 * @module
 */
import type { Redactor } from '../logger';
import { base64Bytes, type ContentPart, redactedPart } from '../tool/content';
import { encodeFrame } from '../wire/codec';
import { type ClientFrame, type FrameOf, utf8Length } from '../wire/protocol';

/** What a part left out is called in the text that replaces it. */
function described(part: ContentPart): string {
  switch (part.type) {
    case 'image':
      return `image ${part.mediaType} of ${base64Bytes(part.data).toLocaleString('en-US')} bytes`;
    case 'file':
      return `file${part.filename === undefined ? '' : ` ${part.filename}`} (${part.mediaType}) of ${base64Bytes(part.data).toLocaleString('en-US')} bytes`;
    case 'json':
      return 'JSON part';
    case 'text':
      return 'text part';
  }
}

/**
 * The parts to send with `frame` (its output and widget already set): redacted (text, JSON, a file's name and
 * type; binary data is not scanned), and within `maxPayloadBytes` with the frame, or `undefined` when even the
 * parts' replacements do not fit (the output then carries everything there is to read).
 */
export function fitContent(
  frame: FrameOf<ClientFrame, 'tool_result'>,
  parts: readonly ContentPart[],
  maxPayloadBytes: number,
  redactor: Redactor,
): ContentPart[] | undefined {
  const content = parts.map((part) => redactedPart(part, redactor));
  const size = () => utf8Length(encodeFrame({ ...frame, content }));
  if (size() <= maxPayloadBytes) return content;
  const largestFirst = content
    .map((part, index) => ({ index, bytes: part.type === 'text' ? 0 : utf8Length(JSON.stringify(part)) }))
    .filter((entry) => entry.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  for (const { index } of largestFirst) {
    const part = content[index] as ContentPart;
    content[index] = {
      type: 'text',
      text: `[${described(part)} not sent: the result would be over the service's limit of ${maxPayloadBytes.toLocaleString('en-US')} bytes]`,
    };
    if (size() <= maxPayloadBytes) return content;
  }
  return undefined;
}
