/**
 * A result's part (`tool_result.result`, feature `result_parts`): the kind of what `execute` gave, and its value
 * when `output` does not carry it, so that the application that started the run tells text from JSON and gets the
 * full result of a tool whose `toModelOutput` showed the model less.
 *
 * Lean on the wire: a plain result sends its kind only (`{ "type": "json" }`, the value being `output` parsed);
 * only a projected result (`toModelOutput`, or `output` after an approver's edited-arguments note) or a thrown
 * JSON value sends `value`, redacted as the output is.
 *
 * @module
 */
import type { CallRedaction } from '../call/redaction';
import type { ToolCallResult } from '../call/types';
import { isPlainObject } from '../json';
import type { Redactor } from '../logger';
import { redactOutput } from '../redact';
import { serializeOutput } from '../tool/output';
import { encodeFrame } from '../wire/codec';
import { type ClientFrame, type FrameOf, utf8Length } from '../wire/protocol';

/** `tool_result.result`. */
export type ResultPartFrame = NonNullable<FrameOf<ClientFrame, 'tool_result'>['result']>;

/** `value` as JSON, redacted by the client's rules and the call's own fields (`sensitiveFieldNames`). */
function redactedJson(value: unknown, redactor: Redactor, call: CallRedaction | undefined): unknown {
  // The string rules (the API key, `redact` strings) are searched for in the JSON text, as in `output`:
  // `serializeOutput` applies only the rules that must meet each string.
  const json =
    typeof value === 'string'
      ? redactor.text(value)
      : (JSON.parse(redactOutput(redactor, serializeOutput(value, redactor))) as unknown);
  return call?.active === true ? call.value(json) : json;
}

/**
 * The result without its `widget` (sent apart, in `tool_result.widget`). A result that cannot be read (a hostile
 * Proxy) had no widget split off either: it is given as it is, and `serializeOutput` copes with it.
 */
function withoutWidget(value: unknown): unknown {
  try {
    if (!isPlainObject(value) || !Object.hasOwn(value, 'widget')) return value;
    const { widget: _, ...rest } = value;
    return rest;
  } catch {
    return value;
  }
}

/** The parts without a value, one each: a plain result's part is one of these, never made per call. */
const KIND_ONLY = Object.freeze({
  text: Object.freeze({ type: 'text' }),
  json: Object.freeze({ type: 'json' }),
  'error-text': Object.freeze({ type: 'error-text' }),
  'error-json': Object.freeze({ type: 'error-json' }),
  content: Object.freeze({ type: 'content' }),
}) satisfies Record<string, ResultPartFrame>;

/**
 * The part of a call's result:
 * - `ok` with content parts: `content` (the parts travel in `content`);
 * - `ok` with a string: `text`; any other value: `json`; with `value` only when `projected` (`output` is not the
 *   result: the tool has `toModelOutput`, or an approver edited the arguments and `output` starts with the note);
 * - `rejected` with a value (`toModelOutput` declined what `execute` returned: an AI SDK `execution-denied`): that
 *   value's `text` or `json` part, with `value` (`null` for an `execute` that returned nothing);
 * - a failure whose thrown value is plain JSON data (an object or an array, not an `Error`): `error-json` with it;
 * - a failure whose `output` is a JSON object or array (an `errorFunction` that wrote JSON): `error-json`, its
 *   value `output` parsed;
 * - any other failure: `error-text` (the text is `output`).
 */
export function resultPartOf(
  result: ToolCallResult,
  projected: boolean,
  redactor: Redactor,
  call: CallRedaction | undefined,
): ResultPartFrame {
  // Declined after `execute` returned (an AI SDK `execution-denied`): the part of what it returned, with its value
  // (`output` is the declined text), so that a reader tells the call from one declined before `execute`.
  // It ran even when it returned nothing (`value` there, `undefined`): then `null`, as JSON has no `undefined`.
  if (result.status === 'rejected' && Object.hasOwn(result, 'value'))
    return valuePart(result.value ?? null, redactor, call);
  if (result.status !== 'ok') {
    const thrown = result.error;
    if (result.status === 'error' && isJsonData(thrown))
      return { type: 'error-json', value: redactedJson(thrown, redactor, call) };
    // An `errorFunction` that wrote JSON (an object or an array) for the model: the receiver parses `output`.
    return isJsonText(result.output) ? KIND_ONLY['error-json'] : KIND_ONLY['error-text'];
  }
  if (result.content !== undefined) return KIND_ONLY.content;
  if (!projected) return KIND_ONLY[typeof result.value === 'string' ? 'text' : 'json'];
  return valuePart(result.value, redactor, call);
}

/** A `text` or `json` part with `value`, what `execute` returned (redacted, its widget left out). */
function valuePart(value: unknown, redactor: Redactor, call: CallRedaction | undefined): ResultPartFrame {
  const type = typeof value === 'string' ? 'text' : 'json';
  return { type, value: redactedJson(withoutWidget(value), redactor, call) };
}

/**
 * Adds `part` to `frame` when the frame stays within `maxPayloadBytes`; a part whose value does not fit is left
 * out whole (a part without its value would read `output`, which it is not). Returns whether it was added.
 */
export function addResultPart(
  frame: FrameOf<ClientFrame, 'tool_result'>,
  part: ResultPartFrame,
  maxPayloadBytes: number,
): boolean {
  frame.result = part;
  if (part.value === undefined || utf8Length(encodeFrame(frame)) <= maxPayloadBytes) return true;
  delete frame.result;
  return false;
}

/**
 * Whether a thrown value is plain JSON data (a plain object or an array). Never throws: a revoked Proxy, or one
 * whose `getPrototypeOf` trap throws, is not.
 */
function isJsonData(value: unknown): boolean {
  try {
    return isPlainObject(value) || Array.isArray(value);
  } catch {
    return false;
  }
}

/** Whether `text` is a JSON object or array. */
function isJsonText(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}
