/**
 * Keeps what the stub sends within the frame limit it announced (`welcome.maxPayloadBytes`, docs/protocol/limits.md):
 * a client closes 1009 on a larger frame, resumes, and would get the same frame again, forever. A `run_result` and
 * a `run_event` are cut to fit (the full transcript stays available at `GET /v1/runs/:runId`); a frame built from
 * what a person or a client sent (an answer, a decision) is checked with {@link fitsFrame} before anything is
 * recorded, and refused when it cannot fit.
 *
 * @module
 */
import { truncateUtf8 } from '../src/tool/output';
import { encodeFrame } from '../src/wire/codec';
import { type FrameOf, type ServiceFrame, utf8Length } from '../src/wire/protocol';

type RunResultFrame = FrameOf<ServiceFrame, 'run_result'>;

/** The size of `frame` on the wire, in bytes. */
export function frameBytes(frame: ServiceFrame): number {
  return utf8Length(encodeFrame(frame));
}

/** `true` when `frame` is at most `maxPayloadBytes` on the wire. */
export function fitsFrame(frame: ServiceFrame, maxPayloadBytes: number): boolean {
  return textFits(encodeFrame(frame), maxPayloadBytes);
}

/** `true` when the encoded frame `text` is at most `maxPayloadBytes` of UTF-8. */
export function textFits(text: string, maxPayloadBytes: number): boolean {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most frames are decided without counting.
  return text.length * 3 <= maxPayloadBytes || utf8Length(text) <= maxPayloadBytes;
}
type RunEventFrame = FrameOf<ServiceFrame, 'run_event'>;

/** The fields of an event's data kept when the rest does not fit: its ids and small scalars. */
const MAX_KEPT_FIELD_CHARS = 256;

/** The smallest cap a cut goes down to, in bytes: below it a part is not worth cutting. */
const MIN_CAP_BYTES = 64;

/**
 * What a value too large for a frame is sent as: `bytes`, the size of the JSON it replaced (as the SDK records event
 * data over its limit, docs/protocol/updates.md).
 */
function sizeInPlace(bytes: number): { truncated: true; bytes: number } {
  return { truncated: true, bytes };
}

/**
 * The caps of a cut, largest parts first: `largest` halved, again and again, down to {@link MIN_CAP_BYTES}. A cut
 * tries each in turn until its frame fits, so that only parts larger than needed are cut.
 */
function* halvings(largest: number): Generator<number> {
  for (let cap = Math.floor(largest / 2); cap >= MIN_CAP_BYTES / 2; cap = Math.floor(cap / 2)) yield cap;
}

/**
 * A `run_event` that fits is returned as it is. A `message` over the frame limit keeps its text and its calls, their
 * largest parts cut (see `fitMessage`). Any other event over it goes without its widget, content parts and result
 * part (a `tool_result`; the transcript keeps them); if it is still over (edited arguments, a long output or
 * reason), its data keeps only its numbers, booleans and strings of at most 256 characters (the ids and the kind's
 * small fields), with `truncated: true` and the size of the data it replaced, `bytes`.
 */
export function fitRunEvent(frame: RunEventFrame, maxPayloadBytes: number): RunEventFrame {
  if (fitsFrame(frame, maxPayloadBytes)) return frame;
  const data = frame.event.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ...frame, event: { ...frame.event, data: sizeInPlace(dataBytes(data)) } };
  }
  if (frame.event.kind === 'message') {
    const message = fitMessage(frame, data as Record<string, unknown>, maxPayloadBytes);
    if (message !== undefined) return message;
  }
  const { content: _content, widget: _widget, result: _result, ...rest } = data as Record<string, unknown>;
  const lighter: RunEventFrame = { ...frame, event: { ...frame.event, data: rest } };
  if (fitsFrame(lighter, maxPayloadBytes)) return lighter;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      (typeof value === 'string' && value.length <= MAX_KEPT_FIELD_CHARS)
    )
      kept[key] = value;
  }
  return { ...frame, event: { ...frame.event, data: { ...kept, ...sizeInPlace(dataBytes(data)) } } };
}

/**
 * A `message` event cut to fit, or `undefined` when cutting cannot make it fit: its `content` is the assistant's text
 * (a string, not content parts), which a reader needs. The largest parts are cut first, one cap for all, halved
 * until the frame fits: each call's `arguments` larger than the cap become `{ truncated: true, bytes }`, and the text
 * longer than it is cut with the truncation marker (a `message` without `content` is malformed: the SDK would drop
 * it).
 */
function fitMessage(
  frame: RunEventFrame,
  data: Record<string, unknown>,
  maxPayloadBytes: number,
): RunEventFrame | undefined {
  const { content, toolCalls } = data;
  if (typeof content !== 'string') return undefined;
  const calls = Array.isArray(toolCalls) ? (toolCalls as Array<{ arguments?: unknown }>) : undefined;
  const argumentBytes = calls?.map((call) => dataBytes(call?.arguments)) ?? [];
  for (const cap of halvings(Math.max(utf8Length(content), ...argumentBytes))) {
    const cut: Record<string, unknown> = { ...data, content: truncateUtf8(content, cap) };
    if (calls !== undefined)
      cut.toolCalls = calls.map((call, index) =>
        argumentBytes[index]! > cap ? { ...call, arguments: sizeInPlace(argumentBytes[index]!) } : call,
      );
    const fitted: RunEventFrame = { ...frame, event: { ...frame.event, data: cut } };
    if (fitsFrame(fitted, maxPayloadBytes)) return fitted;
  }
  return undefined;
}

function dataBytes(data: unknown): number {
  try {
    return utf8Length(JSON.stringify(data) ?? 'null');
  } catch {
    return 0;
  }
}

const size = (frame: RunResultFrame) => utf8Length(encodeFrame(frame));

/**
 * Returns `frame` unchanged when it fits; otherwise a copy with widgets and content parts dropped, then the calls'
 * largest parts cut, one cap for all, halved until the frame fits: an `output` longer than the cap is cut (at
 * character boundaries, with the truncation marker) and `arguments` larger than it become
 * `{ truncated: true, bytes }`; then a string `finalOutput` is cut, and a structured one replaced by its size.
 * Calls are left out only when all that is not enough (thousands of calls).
 */
export function fitRunResult(frame: RunResultFrame, maxPayloadBytes: number): RunResultFrame {
  if (size(frame) <= maxPayloadBytes) return frame;
  const argumentBytes = frame.toolCalls.map((call) => dataBytes(call.arguments));
  let fitted: RunResultFrame = {
    ...frame,
    toolCalls: frame.toolCalls.map(
      ({ widget: _widget, content: _content, result: _result, ...call }) => call,
    ),
  };
  const largest = Math.max(0, ...frame.toolCalls.map((call) => utf8Length(call.output)), ...argumentBytes);
  for (const cap of halvings(largest)) {
    if (size(fitted) <= maxPayloadBytes) break;
    fitted = {
      ...fitted,
      // Cut from the original each time, so the marker states the real size.
      toolCalls: fitted.toolCalls.map((call, index) => {
        const original = frame.toolCalls[index]!;
        return {
          ...call,
          output: truncateUtf8(original.output, cap),
          arguments: argumentBytes[index]! > cap ? sizeInPlace(argumentBytes[index]!) : original.arguments,
        };
      }),
    };
  }
  if (typeof frame.finalOutput === 'string') {
    for (const cap of halvings(utf8Length(frame.finalOutput))) {
      if (size(fitted) <= maxPayloadBytes) break;
      fitted = { ...fitted, finalOutput: truncateUtf8(frame.finalOutput, cap) };
    }
  }
  // A structured final output (an agent's outputType) cannot be cut and stay valid: its size in its place, for the
  // SDK to say so (a frame over the limit would not be sent at all, and the run would never end for its client).
  if (
    size(fitted) > maxPayloadBytes &&
    frame.finalOutput !== undefined &&
    typeof frame.finalOutput !== 'string'
  ) {
    fitted = { ...fitted, finalOutput: sizeInPlace(dataBytes(frame.finalOutput)) };
  }
  // Calls beyond what fits are left out: the transcript over HTTP has them all.
  while (size(fitted) > maxPayloadBytes && fitted.toolCalls.length > 0) {
    fitted = { ...fitted, toolCalls: fitted.toolCalls.slice(0, Math.floor(fitted.toolCalls.length / 2)) };
  }
  return fitted;
}
