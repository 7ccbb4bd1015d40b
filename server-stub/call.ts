/**
 * One tool call of a run, from the model's request to the result the model reads.
 *
 * @module
 */
import type { FrameOf, ServiceFrame, ToolCallStatus } from '../src/wire/protocol';
import type { CallApproval, Run, TranscriptToolCall } from './run';

/**
 * `waiting`: no client has it (none can take it yet, or all were busy); `awaiting_approval`: held until a human
 * decides; `dispatched`: sent to a client, result pending; `done`: has its result.
 */
export type CallState = 'waiting' | 'awaiting_approval' | 'dispatched' | 'done';

/** What a call ends with: exactly what the model reads, plus the widget for the transcript. */
export interface CallOutcome {
  status: ToolCallStatus;
  output: string;
  widget?: unknown;
}

/** How a call is created. */
export interface CallInit {
  callId: string;
  modelCallId: string;
  run: Run;
  toolName: string;
  arguments: unknown;
  turn: number;
}

/** The live record of one call. Owned by the dispatcher. */
export class Call {
  readonly callId: string;
  readonly modelCallId: string;
  readonly run: Run;
  readonly toolName: string;
  readonly arguments: unknown;
  readonly depth: number;
  readonly turn: number;
  readonly createdAt = Date.now();
  /** Resolves once, with the outcome the model reads. */
  readonly done: Promise<CallOutcome>;
  state: CallState = 'waiting';
  /** Session the call is assigned to: dispatched there, or held after that session's `approval_request`. */
  sessionId: string | undefined;
  /** Every session the call was ever sent to, in order. */
  readonly sentTo: string[] = [];
  /** Sessions that answered "busy" since the last retry; skipped until then. */
  readonly busyFrom = new Set<string>();
  approval: CallApproval | undefined;
  /** Epoch milliseconds after which the call times out; `undefined` while held for approval. */
  deadlineAt: number | undefined;
  deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  result: (CallOutcome & { clientDurationMs?: number }) | undefined;
  answeredBy: string | undefined;
  finishedAt: number | undefined;
  #settle!: (outcome: CallOutcome) => void;

  constructor(init: CallInit) {
    this.callId = init.callId;
    this.modelCallId = init.modelCallId;
    this.run = init.run;
    this.toolName = init.toolName;
    this.arguments = init.arguments;
    this.depth = init.run.depth;
    this.turn = init.turn;
    this.done = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  /** The decision, when a human gave one. */
  get decision(): CallApproval['decision'] {
    return this.approval?.decision;
  }

  /** Records the outcome and resolves {@link done}. The caller checks `state` first: this runs once. */
  settle(outcome: CallOutcome & { clientDurationMs?: number }, answeredBy: string | undefined): void {
    this.state = 'done';
    this.result = outcome;
    this.answeredBy = answeredBy;
    this.finishedAt = Date.now();
    this.#settle({
      status: outcome.status,
      output: outcome.output,
      ...(outcome.widget === undefined ? {} : { widget: outcome.widget }),
    });
  }

  /** The `tool_call` frame for the call's current state, with the time left before its deadline. */
  frame(now: number = Date.now()): FrameOf<ServiceFrame, 'tool_call'> {
    const frame: FrameOf<ServiceFrame, 'tool_call'> = {
      type: 'tool_call',
      callId: this.callId,
      runId: this.run.id,
      toolName: this.toolName,
      arguments: this.arguments,
      depth: this.depth,
    };
    if (this.deadlineAt !== undefined) frame.deadlineMs = Math.max(0, Math.round(this.deadlineAt - now));
    const decision = this.decision;
    if (decision) {
      frame.approved = decision.approved;
      if (decision.reason !== undefined) frame.reason = decision.reason;
    }
    return frame;
  }

  /** The transcript entry. */
  toTranscript(): TranscriptToolCall {
    const entry: TranscriptToolCall = {
      callId: this.callId,
      modelCallId: this.modelCallId,
      turn: this.turn,
      toolName: this.toolName,
      arguments: this.arguments,
      depth: this.depth,
      state: this.state,
      dispatchedTo: [...this.sentTo],
      startedAt: new Date(this.createdAt).toISOString(),
    };
    if (this.approval) entry.approval = this.approval;
    const result = this.result;
    if (result) {
      entry.status = result.status;
      entry.output = result.output;
      if (result.widget !== undefined) entry.widget = result.widget;
      if (result.clientDurationMs !== undefined) entry.clientDurationMs = result.clientDurationMs;
    }
    if (this.answeredBy !== undefined) entry.answeredBy = this.answeredBy;
    if (this.finishedAt !== undefined) {
      entry.finishedAt = new Date(this.finishedAt).toISOString();
      entry.durationMs = this.finishedAt - this.createdAt;
    }
    return entry;
  }
}
