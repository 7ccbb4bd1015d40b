/**
 * Keeps a `run_result` within the protocol's frame limit: a run's tool outputs and final answer may add up to
 * more than `maxPayloadBytes`, and a frame over the limit would be refused by the client, leaving its `run()`
 * waiting forever. The full transcript stays available at `GET /v1/runs/:runId`.
 *
 * @module
 */
import { truncateUtf8 } from '../src/tool/output';
import { encodeFrame } from '../src/wire/codec';
import { type FrameOf, type ServiceFrame, utf8Length } from '../src/wire/protocol';

type RunResultFrame = FrameOf<ServiceFrame, 'run_result'>;
type RunEventFrame = FrameOf<ServiceFrame, 'run_event'>;

/**
 * A `run_event` whose data carries a widget or content parts (a `tool_result`) and would be over the frame limit
 * goes without them (the transcript keeps them); any other event is returned as it is.
 */
export function fitRunEvent(frame: RunEventFrame, maxPayloadBytes: number): RunEventFrame {
  const data = frame.event.data;
  if (
    typeof data !== 'object' ||
    data === null ||
    !('content' in data || 'widget' in data || 'result' in data)
  )
    return frame;
  if (utf8Length(encodeFrame(frame)) <= maxPayloadBytes) return frame;
  const { content: _content, widget: _widget, result: _result, ...rest } = data as Record<string, unknown>;
  return { ...frame, event: { ...frame.event, data: rest } };
}

const size = (frame: RunResultFrame) => utf8Length(encodeFrame(frame));

/**
 * Returns `frame` unchanged when it fits; otherwise a copy with widgets and content parts dropped, then tool outputs and finally a
 * string `finalOutput` cut (at character boundaries, with the truncation marker) until it fits.
 */
export function fitRunResult(frame: RunResultFrame, maxPayloadBytes: number): RunResultFrame {
  if (size(frame) <= maxPayloadBytes) return frame;
  let fitted: RunResultFrame = {
    ...frame,
    toolCalls: frame.toolCalls.map(
      ({ widget: _widget, content: _content, result: _result, ...call }) => call,
    ),
  };
  let cap = Math.max(0, ...frame.toolCalls.map((call) => utf8Length(call.output)));
  while (size(fitted) > maxPayloadBytes && cap > 64) {
    cap = Math.floor(cap / 2);
    const outputCap = cap;
    fitted = {
      ...fitted,
      // Cut from the original each time, so the marker states the real size.
      toolCalls: fitted.toolCalls.map((call, index) => ({
        ...call,
        output: truncateUtf8(frame.toolCalls[index]?.output ?? call.output, outputCap),
      })),
    };
  }
  if (typeof frame.finalOutput === 'string') {
    let finalCap = utf8Length(frame.finalOutput);
    while (size(fitted) > maxPayloadBytes && finalCap > 64) {
      finalCap = Math.floor(finalCap / 2);
      fitted = { ...fitted, finalOutput: truncateUtf8(frame.finalOutput, finalCap) };
    }
  }
  // Calls beyond what fits are left out: the transcript over HTTP has them all.
  while (size(fitted) > maxPayloadBytes && fitted.toolCalls.length > 0) {
    fitted = { ...fitted, toolCalls: fitted.toolCalls.slice(0, Math.floor(fitted.toolCalls.length / 2)) };
  }
  return fitted;
}
