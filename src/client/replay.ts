/**
 * Replaying a run's tool calls: `replayTools(recording, tools)` gives copies of your tools whose `execute` answers
 * from a recording (./recording.ts) and never runs the tool, so a run replayed (in a test, or to debug one) has no
 * side effects. Validation, approval and `toModelOutput` still run as they do for the real tool.
 *
 * @module
 */
import { decodeArguments } from '../call/arguments';
import { withoutOwnWidget } from '../call/pipeline';
import { shownArguments } from '../call/redaction';
import { isPlainObject } from '../json';
import { describeValue } from '../tool/check-options';
import { content, type ToolContent } from '../tool/content';
import {
  type RecordedFailure,
  type Tool,
  type ToolInternals,
  toolInternals,
  withExecute,
} from '../tool/tool';
import { cutValueBytes } from '../wire/protocol';
import { checkRecording, type RecordedCall, ReplayError, type RunRecording } from './recording';

/** Arguments as comparable text: JSON text parsed, object keys sorted, `''`/`null`/absent as `{}`. */
function argumentKey(value: unknown): string {
  let parsed = value;
  if (typeof parsed === 'string') {
    try {
      parsed = parsed.trim() === '' ? {} : JSON.parse(parsed);
    } catch {
      return JSON.stringify(value);
    }
  }
  if (parsed === null || parsed === undefined) parsed = {};
  return JSON.stringify(parsed, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/**
 * What the model read for a recorded call whose value the recording does not hold: the text of a call without a
 * result part (a service without `result_parts`, or a run's summary cut to fit its frame), or the content parts of a
 * `content` part, which may be what `toModelOutput` made of the value. The replayed tool's `outputSchema` and
 * `toModelOutput`, written for the value, pass it by as the model read it. As JSON (the call's result part of a
 * replayed run), the text.
 */
class RecordedOutput {
  constructor(readonly shown: string | ToolContent) {}
  toJSON(): unknown {
    return this.shown;
  }
}

/**
 * A recorded failure, thrown again by a replayed `execute` with the status the call ended with (`timeout`,
 * `cancelled` and `rejected` end so again, anything else `error`) and the text the model read: a tool's
 * `errorFunction` is not run again on it, since that text is `errorFunction`'s already (run again, it would read
 * `Sorry: Sorry: …`, or miss the value a thrown object had).
 */
class ThrownAgain implements RecordedFailure {
  readonly status: RecordedFailure['status'];
  readonly output: string;
  constructor(
    call: RecordedCall,
    readonly error: unknown,
  ) {
    this.status = (ENDED_SO as readonly string[]).includes(call.status)
      ? (call.status as RecordedFailure['status'])
      : 'error';
    this.output = call.output;
  }
}

/** The statuses a replayed failure ends with again; any other failure ends `error`. */
const ENDED_SO = ['timeout', 'cancelled', 'rejected'] as const;

/**
 * Whether `execute` ran for a recorded call, so that a replayed `execute` answers with it in the order recorded (2):
 * never for `invalid_arguments` or `unknown_tool` (0). A `rejected` call ran when `toModelOutput` refused what
 * `execute` returned (an AI SDK `execution-denied`): its result part then holds that value (`text` or `json`,
 * ./result-parts.ts), and it answers in its turn (2). A `rejected` call without one was declined before `execute`,
 * or recorded without parts (an older client, a service without `result_parts`), which cannot be told apart: it
 * answers only where no other recorded call of the same arguments is left (1), so that a call declined in the run
 * and approved in the replay takes the answer the run's next approved call had.
 */
function answerRank(call: RecordedCall): number {
  const { status } = call;
  if (status === 'invalid_arguments' || status === 'unknown_tool') return 0;
  if (status !== 'rejected') return 2;
  const part = call.result;
  const ran = part !== undefined && (part.type === 'json' || part.type === 'text');
  return ran && Object.hasOwn(part, 'value') ? 2 : 1;
}

/** The replayed copy's `recordedFailure`: what its `execute` threw, when it threw a recorded failure. */
const recordedFailure = (error: unknown) => (error instanceof ThrownAgain ? error : undefined);

/**
 * What `execute` gave for a recorded call: its value again, or the same failure thrown again (a {@link ThrownAgain}
 * holding what was thrown, or an `Error` of the model's text where that was not recorded). Without a result part, the
 * model's text (`projects`: wrapped for a tool whose `outputSchema` or `toModelOutput` would read it as a value).
 */
function answer(call: RecordedCall, projects: boolean): unknown {
  const part = call.result;
  const prefix = `Error running ${call.toolName}: `;
  const message = call.output.startsWith(prefix) ? call.output.slice(prefix.length) : call.output;
  if (part?.type === 'error-json') throw new ThrownAgain(call, part.value);
  // A call declined after `execute` returned keeps that value in its part (see `answerRank`): it ends as recorded.
  if (
    part?.type === 'error-text' ||
    (part === undefined && call.status !== 'ok') ||
    call.status === 'rejected'
  )
    throw new ThrownAgain(call, new Error(message));
  if (part?.type === 'content')
    return projects ? new RecordedOutput(content(part.value)) : content(part.value);
  // The widget goes back where `execute` returned it, beside the data: the page shows it, `toModelOutput` reads it.
  if (part?.type === 'json' && call.widget !== undefined && isPlainObject(part.value))
    return { ...part.value, widget: call.widget };
  if (part !== undefined) return part.value;
  return projects ? new RecordedOutput(call.output) : call.output;
}

/**
 * The replayed copy's `outputSchema` and `toModelOutput`: the tool's own, which a {@link RecordedOutput} passes by
 * (a tool with neither gets none: its model text is the recorded text as it is, no {@link RecordedOutput} needed;
 * one without a `toModelOutput` of its own gets one that gives the data as the tool's result would be read), and
 * its `recordedFailure`.
 */
function projectionOf(
  internals: ToolInternals,
): Pick<ToolInternals, 'outputSchema' | 'toModelOutput' | 'recordedFailure'> {
  const { outputSchema: schema, toModelOutput } = internals;
  return {
    outputSchema: schema && {
      kind: schema.kind,
      jsonSchema: schema.jsonSchema,
      validate: (value) => (value instanceof RecordedOutput ? { ok: true, value } : schema.validate(value)),
    },
    toModelOutput:
      schema === undefined && toModelOutput === undefined
        ? undefined
        : (value, ctx) => {
            if (value instanceof RecordedOutput) return value.shown;
            return toModelOutput === undefined ? withoutOwnWidget(value) : toModelOutput(value, ctx);
          },
    recordedFailure,
  };
}

/**
 * Copies of `tools` whose `execute` answers from `recording` and never runs: a call is answered by the first
 * recorded call of the same tool with the same arguments not answered yet (a value returned again; a failure
 * thrown again, so the model reads what it read, a tool's `errorFunction` text as recorded, and a call that
 * timed out, was cancelled or was rejected ends so again; a call the run refused before `execute` (invalid
 * arguments, declined, blocked) answers no call that reaches `execute`; without the value,
 * where the run had no result part, the text the model read, and a `content` part's parts, past the tool's
 * `outputSchema` and `toModelOutput`). A call the recording has no answer for fails with a `ReplayError`
 * `not_recorded` that names the tool (the model reads it as the tool's error). A tool not in the
 * recording is given back as a copy that fails every call the same way. Give the copies to both the `Client`
 * and the `Agent`.
 *
 * @example
 * ```ts
 * import { Agent, tool } from 'toolwire';
 * import { replayTools, type RunRecording } from 'toolwire/testing';
 *
 * declare const recording: RunRecording;
 * const refund = tool({ name: 'refund', description: 'Refunds.', execute: () => ({ refunded: true }) });
 * const replayed = replayTools(recording, [refund]); // refund never runs: its recorded results answer
 * const agent = new Agent({ name: 'Support', instructions: 'Help.', tools: replayed });
 * ```
 * @throws ReplayError `invalid_recording` when `recording` is not a recording (version 1, with `calls`), a call
 *   of it lacks a string `toolName`, `status` or `output` or has a `result` of no known type or whose `value` is
 *   not what its type says (naming the call and the field), or `tools` is not an array of tools made with `tool()`.
 */
// biome-ignore lint/suspicious/noExplicitAny: tools of any input, output and context.
export function replayTools<T extends Tool<any, any, any>>(
  recording: RunRecording,
  tools: readonly T[],
): T[] {
  checkRecording(recording);
  const notTool = Array.isArray(tools) ? tools.findIndex((item) => toolInternals(item) === undefined) : -1;
  if (!Array.isArray(tools) || notTool !== -1) {
    throw new ReplayError(
      'invalid_recording',
      Array.isArray(tools)
        ? `replayTools(): tools[${notTool}] is not a tool made with tool(), got ${describeValue(tools[notTool])}`
        : `replayTools(): tools must be an array of tools made with tool(), got ${describeValue(tools)}`,
    );
  }
  const left = recording.calls.map((call) => ({
    call,
    key: argumentKey(call.arguments),
    validated: undefined as Promise<string> | undefined,
    used: false,
  }));
  return tools.map((source) => {
    const projection = projectionOf(toolInternals(source) as ToolInternals);
    // Its model text is made from what `execute` returns: a text the recording has instead must pass that by.
    const projects = projection.toModelOutput !== undefined;
    return withExecute(
      source as Tool,
      async (input) => {
        // `execute` gets the arguments as validated (defaults filled in, unknown keys dropped); the recording has
        // them as the model sent them: each is compared as recorded and as the tool's parameters read it.
        const key = argumentKey(input);
        // A run's result has its calls' sensitive fields hidden (docs/guide/secrets.md): so is the call's key.
        const names = toolInternals(source)?.sensitiveFieldNames ?? [];
        const hidden = names.length === 0 ? key : argumentKey(shownArguments(input, undefined, names));
        const same = (recorded: string) => recorded === key || recorded === hidden;
        for (const rank of [2, 1]) {
          for (const entry of left) {
            if (entry.used || entry.call.toolName !== source.name || answerRank(entry.call) !== rank)
              continue;
            entry.validated ??= validatedKey(source as Tool, entry.call.arguments);
            if (!same(entry.key) && !same(await entry.validated)) continue;
            // Taken by another call of the same arguments while this one waited for the validation.
            if (entry.used) continue;
            entry.used = true;
            return answer(entry.call, projects);
          }
        }
        // A run summary cut to fit its frame keeps no arguments of its largest calls (docs/protocol/runs.md).
        const cut = left.some(
          (entry) =>
            !entry.used &&
            entry.call.toolName === source.name &&
            cutValueBytes(entry.call.arguments) !== undefined,
        );
        throw new ReplayError(
          'not_recorded',
          `no recorded call of ${source.name} with these arguments is left to replay (run ${recording.runId})${
            cut
              ? `; the recording has calls of ${source.name} whose arguments the run's summary cut to fit its frame (the run's transcript, GET /v1/runs/${recording.runId}, has them whole)`
              : ''
          }`,
        );
      },
      projection,
    ) as T;
  });
}

/** The key of recorded arguments as `source`'s `execute` got them: validated by its parameters, when they pass. */
async function validatedKey(source: Tool, recorded: unknown): Promise<string> {
  // Decoded as a call decodes what the model sent (`''`, `null`, a JSON string, one double encoding).
  const decoded = decodeArguments(recorded);
  if (!decoded.ok) return argumentKey(recorded);
  try {
    const result = await toolInternals(source)?.parameters.validate(decoded.value);
    return argumentKey(result?.ok === true ? result.value : recorded);
  } catch {
    return argumentKey(recorded);
  }
}
