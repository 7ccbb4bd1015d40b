/**
 * A run's record: what the turn loop builds as it goes, and the transcript read through the HTTP API and
 * `server.runs`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type {
  AgentDefinition,
  ContentPart,
  RunToolCallFrame,
  ToolCallStatus,
  ToolChoice,
} from '../src/wire/protocol';
import type { ChatMessage } from './model';
import { tenantIdOf } from './tenants';
import { newTraceId } from './trace-context';
import type {
  CallState,
  RunEventKind,
  RunEventRecord,
  RunOrigin,
  RunStatus,
  RunSummary,
  RunTranscript,
  TranscriptToolCall,
} from './transcript';

/**
 * What a run reads of its calls: enough for its transcript and its `run_result`. The calls themselves
 * (`Call`) are driven by the dispatcher.
 */
export interface RunCall {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: unknown;
  readonly state: CallState;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds; set once the call is done. */
  readonly finishedAt: number | undefined;
  /** Set once the call is done. */
  readonly result:
    | { status: ToolCallStatus; output: string; widget?: unknown; content?: ContentPart[] }
    | undefined;
  toTranscript(): TranscriptToolCall;
}

/**
 * Why a run is cancelled: `requested` by a client, `POST /v1/runs/:runId/cancel` or `server.runs.cancel()`;
 * `parent_ended` (the run it is nested in ended); `owner_expired` (the session that started it is gone for good);
 * `tenant_closed` (no key of its tenant is accepted any more, server-stub/fleet.ts `KeyRing`);
 * `shutdown` (the server is closing). It decides the run's `error` text, the `cancel` reason its calls in
 * flight get, and how its nested runs end.
 */
export type RunCancelCause = 'requested' | 'parent_ended' | 'owner_expired' | 'tenant_closed' | 'shutdown';

/**
 * Why a run failed, when it is one the protocol names (`run_result.code`, feature `run_codes`, docs/protocol/runs.md):
 * `invalid_output`, the final output is not JSON or does not match the agent's `outputSchema`.
 */
export type RunFailureCode = 'invalid_output';

/** How a run ends: with the model's final output, with an error, or cancelled for a cause. */
export type RunEnd =
  | { status: 'completed'; finalOutput: unknown }
  | { status: 'failed'; error: string; code?: RunFailureCode | undefined }
  | { status: 'cancelled'; cause: 'requested'; reason?: string | undefined }
  | { status: 'cancelled'; cause: Exclude<RunCancelCause, 'requested'> };

/** Characters of the input shown in {@link RunSummary.inputPreview}. */
export const INPUT_PREVIEW_CHARS = 120;

/** Most events kept per run; the oldest are dropped first. */
export const MAX_EVENTS_PER_RUN = 10_000;

/** How a run starts. */
export interface RunInit {
  id: string;
  agent: AgentDefinition;
  input: string;
  maxTurns: number;
  depth: number;
  /** The W3C trace id of the run (docs/protocol/trace-context.md). @default a new random one */
  traceId?: string | undefined;
  startedBy: RunOrigin;
  ownerSessionId?: string;
  /** The tenant (API key) the run belongs to; see server-stub/tenants.ts. */
  tenant?: string | undefined;
  /** The key an HTTP request or the library started it with, if any (a secret: never shown). */
  apiKey?: string | undefined;
  requestId?: string;
  parentRunId?: string;
  parentCallId?: string;
  /** The end user the run acts for, as whoever started it said (a nested run: its parent's). */
  userId?: string | undefined;
  /** Which tools the model may call (`run_start.toolChoice`). Absent: 'auto'. */
  toolChoice?: ToolChoice | undefined;
  /** The starter's data (`run_start.metadata`), kept and shown with the run. */
  metadata?: Record<string, unknown> | undefined;
}

/** The live record of one run. */
export class Run {
  readonly id: string;
  readonly agent: AgentDefinition;
  readonly input: string;
  readonly maxTurns: number;
  readonly depth: number;
  readonly traceId: string;
  readonly startedBy: RunOrigin;
  readonly ownerSessionId: string | undefined;
  /**
   * The tenant the run belongs to: only its sessions and HTTP requests see and serve it. It changes only when the
   * tenant merges into another (server-stub/fleet.ts `KeyRing`).
   */
  tenant: string | undefined;
  /**
   * The key an HTTP request or the library started it with, if any: a stub that accepted any key and is given keys
   * keeps the one tenant for a key listed now (server-stub/fleet.ts `KeyRing.set`). A secret: in no transcript,
   * event or log.
   */
  readonly apiKey: string | undefined;
  /** The build the run's calls go to (docs/protocol/builds.md); `undefined`: not pinned yet, any worker. */
  buildId: string | undefined = undefined;
  readonly requestId: string | undefined;
  readonly parentRunId: string | undefined;
  readonly parentCallId: string | undefined;
  /** The end user the run acts for (`tool_call.userId`, feature `call_context`). */
  readonly userId: string | undefined;
  /**
   * The identity of the agent's definition the run started with (`tool_call.agentRevision`): its name and the
   * first 12 hex digits of the SHA-256 of its definition's JSON, so a change of instructions, model, tools or
   * output schema gives a new one.
   */
  readonly agentRevision: string;
  /** Which tools the model may call; see {@link toolChoiceFor}. */
  readonly toolChoice: ToolChoice;
  readonly metadata: Record<string, unknown> | undefined;
  readonly startedAt = Date.now();
  readonly messages: ChatMessage[] = [];
  readonly calls: RunCall[] = [];
  readonly events: RunEventRecord[] = [];
  /** Aborted when the run ends early (cancel, shutdown): stops a model request in flight. */
  readonly abort = new AbortController();
  /** Resolves with the transcript when the run ends. */
  readonly ended: Promise<RunTranscript>;
  status: RunStatus = 'running';
  turns = 0;
  /** The text the model has streamed so far in the turn in progress (`''` between turns). */
  partialText = '';
  finalOutput: unknown;
  error: string | undefined;
  /** Why it failed, when the protocol names it ({@link RunFailureCode}). */
  errorCode: RunFailureCode | undefined;
  finishedAt: number | undefined;
  #resolveEnded!: (transcript: RunTranscript) => void;

  constructor(init: RunInit) {
    this.id = init.id;
    this.agent = init.agent;
    this.input = init.input;
    this.maxTurns = init.maxTurns;
    this.depth = init.depth;
    this.traceId = init.traceId ?? newTraceId();
    this.startedBy = init.startedBy;
    this.ownerSessionId = init.ownerSessionId;
    this.tenant = init.tenant;
    this.apiKey = init.apiKey;
    this.requestId = init.requestId;
    this.toolChoice = init.toolChoice ?? 'auto';
    this.metadata = init.metadata;
    this.parentRunId = init.parentRunId;
    this.parentCallId = init.parentCallId;
    this.userId = init.userId;
    this.agentRevision = `${init.agent.name}@${createHash('sha256').update(JSON.stringify(init.agent)).digest('hex').slice(0, 12)}`;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  /** The tenant's id as tool calls are told it (`tool_call.tenantId`): never the API key. */
  get tenantId(): string {
    return tenantIdOf(this.tenant);
  }

  /** Events recorded so far: the `seq` of the latest (`run_event.seq`, docs/protocol/run-events.md). */
  eventCount = 0;

  /**
   * The recorded events, then (mid-turn) one `text_delta` holding the text streamed so far: what a new follower
   * of the run needs (`text_delta`s themselves are not recorded).
   */
  replay(): RunEventRecord[] {
    if (this.partialText === '') return this.events;
    const at = new Date().toISOString();
    return [
      ...this.events,
      { at, kind: 'text_delta', data: { turn: this.turns + 1, delta: this.partialText } },
    ];
  }

  /** Records an event (bounded by {@link MAX_EVENTS_PER_RUN}). */
  record(kind: RunEventKind, data: unknown): RunEventRecord {
    this.eventCount += 1;
    const event = { at: new Date().toISOString(), kind, data };
    this.events.push(event);
    if (this.events.length > MAX_EVENTS_PER_RUN) this.events.shift();
    return event;
  }

  /** Ends the run once; later calls return `false` and change nothing. */
  end(
    status: Exclude<RunStatus, 'running'>,
    outcome: { finalOutput?: unknown; error?: string; code?: RunFailureCode | undefined },
  ): boolean {
    if (this.status !== 'running') return false;
    this.status = status;
    this.finishedAt = Date.now();
    if (outcome.finalOutput !== undefined) this.finalOutput = outcome.finalOutput;
    if (outcome.error !== undefined) this.error = outcome.error;
    this.errorCode = outcome.code;
    this.abort.abort();
    this.#resolveEnded(this.transcript());
    return true;
  }

  /** Finished calls in `run_result` shape. */
  /** @param withParts - with each call's result part (`result`: the session negotiated `result_parts`). */
  resultToolCalls(withParts = false): RunToolCallFrame[] {
    const out: RunToolCallFrame[] = [];
    for (const call of this.calls) {
      const result = call.result;
      if (!result) continue;
      const entry: RunToolCallFrame = {
        callId: call.callId,
        toolName: call.toolName,
        arguments: call.arguments,
        status: result.status,
        output: result.output,
        durationMs: (call.finishedAt ?? call.createdAt) - call.createdAt,
      };
      if (result.widget !== undefined) entry.widget = result.widget;
      if (result.content !== undefined) entry.content = result.content;
      const part = withParts ? reportedPart(result) : undefined;
      if (part !== undefined) entry.result = part;
      out.push(entry);
    }
    return out;
  }

  /** A deep copy of everything known about the run. */
  transcript(): RunTranscript {
    const transcript: RunTranscript = {
      runId: this.id,
      agent: this.agent,
      input: this.input,
      status: this.status,
      depth: this.depth,
      startedBy: this.startedBy,
      maxTurns: this.maxTurns,
      turns: this.turns,
      messages: this.messages,
      toolCalls: this.calls.map((call) => call.toTranscript()),
      events: this.events,
      startedAt: new Date(this.startedAt).toISOString(),
    };
    if (this.parentRunId !== undefined) transcript.parentRunId = this.parentRunId;
    if (this.parentCallId !== undefined) transcript.parentCallId = this.parentCallId;
    if (this.toolChoice !== 'auto') transcript.toolChoice = this.toolChoice;
    if (this.metadata !== undefined) transcript.metadata = this.metadata;
    if (this.ownerSessionId !== undefined) transcript.ownerSessionId = this.ownerSessionId;
    if (this.buildId !== undefined) transcript.buildId = this.buildId;
    if (this.userId !== undefined) transcript.userId = this.userId;
    if (this.finalOutput !== undefined) transcript.finalOutput = this.finalOutput;
    if (this.error !== undefined) transcript.error = this.error;
    if (this.finishedAt !== undefined) {
      transcript.finishedAt = new Date(this.finishedAt).toISOString();
      transcript.durationMs = this.finishedAt - this.startedAt;
    }
    return structuredClone(transcript);
  }

  /** One line for `GET /v1/runs`. */
  summary(): RunSummary {
    const summary: RunSummary = {
      runId: this.id,
      agent: this.agent.name,
      inputPreview: preview(this.input),
      status: this.status,
      depth: this.depth,
      turns: this.turns,
      toolCalls: this.calls.length,
      startedAt: new Date(this.startedAt).toISOString(),
    };
    if (this.parentRunId !== undefined) summary.parentRunId = this.parentRunId;
    if (this.buildId !== undefined) summary.buildId = this.buildId;
    if (this.finishedAt !== undefined) summary.finishedAt = new Date(this.finishedAt).toISOString();
    return summary;
  }
}

/** The start of `input`, cut at a code point boundary. */
function preview(input: string): string {
  // A code point is at most two UTF-16 units, so a longer input surely has more code points than the limit.
  const chars = Array.from(input.slice(0, INPUT_PREVIEW_CHARS * 2));
  const cut = chars.length > INPUT_PREVIEW_CHARS || input.length > INPUT_PREVIEW_CHARS * 2;
  return cut ? `${chars.slice(0, INPUT_PREVIEW_CHARS).join('')}…` : input;
}

/**
 * The tool choice of the run's next turn: `none` holds for every turn; `required` and a named tool hold until the
 * model has called a tool in the run, then turns are `auto`, so that a run can end with an answer.
 */
export function toolChoiceFor(run: Run): ToolChoice {
  const choice = run.toolChoice;
  return choice === 'none' || run.calls.length === 0 ? choice : 'auto';
}

/**
 * The result part the service reports for an outcome (`RunToolCallFrame.result`): the client's, or `error-text` for a
 * call that ended without a client's result (a timeout, an unknown tool, a rejection); none for a client's result
 * without one (a client without the feature `result_parts`).
 */
export function reportedPart(outcome: {
  status: string;
  result?: RunToolCallFrame['result'];
}): RunToolCallFrame['result'] {
  if (outcome.result !== undefined) return outcome.result;
  return outcome.status === 'ok' ? undefined : { type: 'error-text' };
}
