/**
 * The shapes of what the stub tells about runs: the transcript (`GET /v1/runs/:runId`, `server.runs.get()`),
 * the summary line (`GET /v1/runs`), run events, and the states a call passes through. Plain data, shared by
 * the live records (`Run`, `Call`) that produce it.
 *
 * @module
 */
import type {
  AgentDefinition,
  ContentPart,
  FrameOf,
  ServiceFrame,
  ToolCallStatus,
  ToolChoice,
} from '../src/wire/protocol';
import type { CallPreliminary, CallProgress, CallQuestion } from './call-activity';
import type { ChatMessage } from './model';

/** `running` until the run ends one of the three other ways. */
export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled';
/** Kinds of `run_event`. */
export type RunEventKind = FrameOf<ServiceFrame, 'run_event'>['event']['kind'];
/** Who started a run: a client over its socket, `POST /v1/runs`, or `server.runs.start()`. */
export type RunOrigin = 'socket' | 'http' | 'api';

/**
 * `waiting`: no client has it (none can take it yet, or all were busy); `awaiting_approval`: held until a human
 * decides; `dispatched`: sent to a client, result pending; `done`: has its result.
 */
export type CallState = 'waiting' | 'awaiting_approval' | 'dispatched' | 'done';

/** One event of a run, as kept in its transcript (and sent as `run_event` to the client that started it). */
export interface RunEventRecord {
  /** ISO 8601 time the event happened. */
  at: string;
  kind: RunEventKind;
  data: unknown;
}

/** Approval state of a call, when it needed one. */
export interface CallApproval {
  /** `definition`: the tool's definition says `needsApproval`; `client`: a client sent `approval_request`. */
  requestedBy: 'definition' | 'client';
  reason?: string;
  /** ISO 8601. */
  requestedAt: string;
  /**
   * `by: 'always'`: an earlier decision with `always` for this tool in this run (docs/protocol/decisions.md).
   * `arguments`:
   * the arguments the approver edited; `always`: the decision holds for the tool's later calls in the run.
   */
  decision?: {
    approved: boolean;
    reason?: string;
    by: 'socket' | 'http' | 'always';
    at: string;
    arguments?: Record<string, unknown>;
    always?: boolean;
  };
}

/** One tool call in a transcript. Times are ISO 8601; durations in milliseconds. */
export interface TranscriptToolCall {
  callId: string;
  /** The id the model gave the call (what the tool message refers to). */
  modelCallId: string;
  /** Model turn (1-based) that asked for the call. */
  turn: number;
  toolName: string;
  arguments: unknown;
  depth: number;
  state: CallState;
  /** Set once the call is done. */
  status?: ToolCallStatus;
  /** What the model read. */
  output?: string;
  /** Widget for the UI; never shown to the model. */
  widget?: unknown;
  /** Content parts beside the output (docs/protocol/call-context.md). */
  content?: ContentPart[];
  /** The result as a tool-result part: `text`, `json`, `error-text`, `error-json` or `content`. Set once done. */
  result?: TranscriptResult;
  approval?: CallApproval;
  /** Sessions the call was sent to, in order (more than one after a re-dispatch). */
  dispatchedTo: string[];
  /** Session whose `tool_result` was recorded; absent for timeouts, cancellations and unknown tools. */
  answeredBy?: string;
  startedAt: string;
  finishedAt?: string;
  /** From the call's creation to its result, measured by the service. */
  durationMs?: number;
  /** `tool_result.durationMs`: execution time reported by the client. */
  clientDurationMs?: number;
  /** The latest `tool_progress` of the call (docs/protocol/updates.md). */
  progress?: CallProgress;
  /** The latest `tool_preliminary` of the call, and how many came (docs/protocol/updates.md). */
  preliminary?: CallPreliminary;
  /** The questions the call asked, in order, with their answers (docs/protocol/questions.md). */
  questions?: CallQuestion[];
  /** The call's completed steps the service keeps, by key (docs/protocol/steps.md). */
  steps?: Record<string, unknown>;
  /** The side-effect class the tool announced (`none`, `idempotent`, `external`), when it did (docs/protocol/frames.md). */
  sideEffect?: string;
  /** `true` when the tool was announced strict and the service honoured it (docs/protocol/call-context.md). */
  strict?: true;
}

/** A tool result as a typed part (the kinds of the portable message models): what the model was given. */
export type TranscriptResult =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: unknown }
  | { type: 'content'; value: ContentPart[] };

/** Everything the service knows about a run. */
export interface RunTranscript {
  runId: string;
  agent: AgentDefinition;
  input: string;
  status: RunStatus;
  depth: number;
  parentRunId?: string;
  parentCallId?: string;
  startedBy: RunOrigin;
  /** Session that started the run over its socket. */
  ownerSessionId?: string;
  /** The build the run is pinned to (docs/protocol/builds.md); absent while it is pinned to none. */
  buildId?: string;
  /** The end user the run acts for, when whoever started it said (`run_start.userId`, `POST /v1/runs`). */
  userId?: string;
  maxTurns: number;
  /** `run_start.toolChoice` (feature `run_options`), when the run was started with one other than `auto`. */
  toolChoice?: ToolChoice;
  /** `run_start.metadata` (feature `run_options`): the starter's data, kept as it came. */
  metadata?: Record<string, unknown>;
  /** Model turns taken. */
  turns: number;
  messages: ChatMessage[];
  toolCalls: TranscriptToolCall[];
  events: RunEventRecord[];
  finalOutput?: unknown;
  error?: string;
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
}

/** A line of `GET /v1/runs`. */
export interface RunSummary {
  runId: string;
  agent: string;
  /** The first `INPUT_PREVIEW_CHARS` (120) characters of the run's input (followed by `…` when cut). */
  inputPreview: string;
  status: RunStatus;
  depth: number;
  parentRunId?: string;
  /** The build the run is pinned to, when it is pinned. */
  buildId?: string;
  turns: number;
  toolCalls: number;
  startedAt: string;
  finishedAt?: string;
}
