/**
 * The recording of a run's tool calls: `recordRun(result)` keeps what each call of a finished run returned, as
 * plain JSON you can save ({@link RunRecording}), and {@link checkRecording} refuses one a replay could not answer
 * with (./replay.ts replays it).
 *
 * @module
 */
import { brandErrorClass, ToolwireError } from '../errors';
import { describeValue } from '../tool/check-options';
import { content } from '../tool/content';
import { RESULT_PART_TYPES } from '../wire/protocol';
import type { RunResult, RunToolCall } from './runs';

/** One recorded call: the tool, the arguments the model gave, and what the call ended with. */
export interface RecordedCall {
  toolName: string;
  /** As the model produced them (an object, or JSON text). */
  arguments: unknown;
  /** `ok`, `error`, … as the run reported. */
  status: string;
  /** What the model read. */
  output: string;
  /** The result's kind and value, when the service reported it (feature `result_parts`). */
  result?: RunToolCall['result'];
  /**
   * The widget the result carried for the chat UI (a JSON value), when it had one. The model never reads it; a
   * replay gives it back beside a `json` result whose value is a plain object, where the page shows it and the
   * tool's `toModelOutput` reads it as in the live run.
   */
  widget?: unknown;
}

/** The tool calls of one run, in the order they finished: plain JSON, to save and load as you like. */
export interface RunRecording {
  version: 1;
  runId: string;
  calls: RecordedCall[];
}

/**
 * A replay that cannot be made or answered. `invalid_recording`: `recordRun()` given no run result, or
 * `replayTools()` no recording, no tools, or a recording with a call that lacks a string `toolName`, `status` or
 * `output` or holds a `result` of no known type or whose `value` is not its type's (the message names the call and
 * the field). `not_recorded`: a replayed tool called in a way the recording has no answer for (it names the tool).
 */
export class ReplayError extends ToolwireError {
  override name = 'ReplayError';
}
brandErrorClass(ReplayError, 'ReplayError');

/**
 * The recording of a finished run: each tool call's name, arguments, result and widget, from `run()`'s result, which
 * holds them redacted (the API key, `redact` rules, the values of `sensitiveFieldNames`): a recording holds no
 * secret. `replayTools()` matches the sensitive fields as hidden.
 *
 * @example
 * ```ts
 * import type { RunResult } from 'toolwire';
 * import { recordRun } from 'toolwire/testing';
 *
 * declare const result: RunResult;
 * const saved = JSON.stringify(recordRun(result));
 * ```
 * @throws ReplayError `invalid_recording` when `result` is not a run's result (an object with `toolCalls`).
 */
export function recordRun(result: Pick<RunResult, 'runId' | 'toolCalls'>): RunRecording {
  if (!Array.isArray((result as Partial<RunResult> | null | undefined)?.toolCalls)) {
    throw new ReplayError(
      'invalid_recording',
      `recordRun(): result must be what client.run() resolved with (an object with toolCalls), got ${describeValue(result)}`,
    );
  }
  return {
    version: 1,
    runId: result.runId,
    calls: result.toolCalls.map((call) => {
      const recorded: RecordedCall = {
        toolName: call.toolName,
        arguments: call.arguments,
        status: call.status,
        output: call.output,
      };
      // A part of a type this version does not know (a newer service's) is left out: the call replays as the text
      // the model read, as a call without a part does.
      if (call.result !== undefined && (RESULT_PART_TYPES as readonly string[]).includes(call.result.type))
        recorded.result = call.result;
      if (call.widget !== undefined) recorded.widget = call.widget;
      return recorded;
    }),
  };
}

/**
 * Refuses what is not a recording a replay can answer with, for `replayTools()`: not version 1 with `calls`, or a
 * call that {@link recordedCallFault} finds wrong (the message names the call and the field).
 *
 * @throws ReplayError `invalid_recording`.
 */
export function checkRecording(recording: RunRecording): void {
  if (recording?.version !== 1 || !Array.isArray(recording.calls)) {
    throw new ReplayError(
      'invalid_recording',
      'replayTools(): the recording is not one recordRun() made (version 1)',
    );
  }
  const badCall = recording.calls.map(recordedCallFault).findIndex((fault) => fault !== undefined);
  if (badCall !== -1) {
    throw new ReplayError(
      'invalid_recording',
      `replayTools(): calls[${badCall}]${recordedCallFault(recording.calls[badCall])}`,
    );
  }
}

/**
 * What is wrong with one entry of a recording's `calls`, as the rest of a sentence naming it (` must be …, got …`),
 * or `undefined` when a replay can answer with it: a hand-written or damaged recording is refused when it is given,
 * never a `TypeError` when a replayed call reaches the entry.
 */
function recordedCallFault(call: unknown): string | undefined {
  if (call === null || typeof call !== 'object') return ` must be an object, got ${describeValue(call)}`;
  const entry = call as Record<string, unknown>;
  for (const field of ['toolName', 'status', 'output'] as const) {
    if (typeof entry[field] !== 'string')
      return `.${field} must be a string, got ${describeValue(entry[field])}`;
  }
  const part = entry.result as { type?: unknown } | null | undefined;
  if (
    part !== undefined &&
    (part === null ||
      typeof part !== 'object' ||
      !(RESULT_PART_TYPES as readonly unknown[]).includes(part.type))
  ) {
    return `.result must be { type, value? } with type ${RESULT_PART_TYPES.slice(0, -1).join(', ')} or ${RESULT_PART_TYPES.at(-1)}, got ${describeValue(part)}`;
  }
  return part === undefined ? undefined : resultValueFault(part as NonNullable<RecordedCall['result']>);
}

/**
 * What is wrong with the value of a recorded result part, as in {@link recordedCallFault}: `recordRun()` gives each
 * part the value its type says (the text of a `text` part, the JSON of a `json` one, the parts of a `content` one),
 * which a replay answers with.
 */
function resultValueFault(part: NonNullable<RecordedCall['result']>): string | undefined {
  const { type, value } = part as { type: string; value?: unknown };
  if ((type === 'text' || type === 'error-text') && typeof value !== 'string')
    return `.result.value must be the string of a ${type} part, got ${describeValue(value)}`;
  if ((type === 'json' || type === 'error-json') && !Object.hasOwn(part, 'value'))
    return `.result.value must be the JSON value of a ${type} part, got undefined`;
  if (type === 'content') {
    try {
      content(value as never);
    } catch (error) {
      return `.result.value must be the parts of a content part (${(error as Error).message})`;
    }
  }
  return undefined;
}
