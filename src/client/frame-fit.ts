/**
 * Fitting a client frame's free text within the service's frame limit (PROTOCOL.md §15): a text field is cut, on a
 * character boundary, to the bytes the rest of the frame leaves, so that the frame is always sent.
 *
 * @module
 */
import { MAX_PROGRESS_MESSAGE_CHARS } from '../wire/call-frames';
import { encodeFrame } from '../wire/codec';
import { type ClientFrame, type FrameOf, utf8Length } from '../wire/protocol';
import { cutChars, jsonPrefix, jsonStringBytes } from '../wire/utf8';

/** What ends a text cut to fit a frame. */
export const CUT_MARK = '…';

/** UTF-8 size of `frame` once encoded, in bytes. */
export function frameBytes(frame: ClientFrame): number {
  return utf8Length(encodeFrame(frame));
}

/**
 * Cuts the string field `field` of `frame` (in place) so that the encoded frame takes at most `limitBytes`: the
 * longest prefix that fits, then {@link CUT_MARK}. A text that fits is left as it is; when not even the mark fits,
 * the field is left empty. Returns `true` when the frame fits afterwards (`false`: the rest of the frame alone is
 * over the limit).
 */
export function fitTextField<F extends ClientFrame>(
  frame: F,
  field: keyof F & string,
  limitBytes: number,
): boolean {
  const record = frame as unknown as Record<string, unknown>;
  const text = record[field];
  if (typeof text !== 'string') return frameBytes(frame) <= limitBytes;
  const size = frameBytes(frame);
  if (size <= limitBytes) return true;
  // The frame without the text's content: what is left for it is the limit less that.
  const room = limitBytes - (size - jsonStringBytes(text)) - 2;
  const mark = jsonStringBytes(CUT_MARK) - 2;
  if (room >= mark) {
    record[field] = jsonPrefix(text, room - mark) + CUT_MARK;
    return true;
  }
  record[field] = '';
  return frameBytes(frame) <= limitBytes;
}

/**
 * Sets a `tool_progress` frame's `message` (already redacted: a replacement may have made it longer): cut to
 * {@link MAX_PROGRESS_MESSAGE_CHARS} characters, then to what the frame limit leaves it, each time ending in
 * {@link CUT_MARK}.
 */
export function setProgressMessage(
  frame: FrameOf<ClientFrame, 'tool_progress'>,
  message: string,
  limitBytes: number,
): void {
  frame.message = cutChars(message, MAX_PROGRESS_MESSAGE_CHARS);
  // The rest of the frame takes at most ~1.7 KB (a callId of 256 characters, escaped): measured only past that.
  if (frame.message.length * 6 + 2048 > limitBytes) fitTextField(frame, 'message', limitBytes);
}
