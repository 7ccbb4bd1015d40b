/**
 * One tool call of a run, from the model's request to the result the model reads.
 *
 * The call owns its state: the dispatcher and approvals change it only through the transition methods below,
 * and every transition is checked against {@link TRANSITIONS}, so a transition from the wrong state (a result
 * after a cancel, a decision for a call that is not held) changes nothing and returns `false`. Leaving a state
 * stops the timers it owned.
 *
 * @module
 */
import {
  type ContentPart,
  FEATURES,
  type Feature,
  type FrameOf,
  type RunToolCallFrame,
  type ServiceFrame,
  type ToolCallStatus,
  type ToolDefinition,
} from '../src/wire/protocol';
import { CallActivity } from './call-activity';
import type { Run, RunCall } from './run';
import { newSpanId, traceparent } from './trace-context';
import type { CallApproval, CallState, TranscriptResult, TranscriptToolCall } from './transcript';

/** What a call ends with: exactly what the model reads, plus the widget for the transcript. */
export interface CallOutcome {
  status: ToolCallStatus;
  output: string;
  widget?: unknown;
  /** Content parts beside the output (docs/protocol/call-context.md): the model gets them where it can. */
  content?: ContentPart[];
  /** The result's kind as the client reported it (`tool_result.result`, feature `result_parts`). */
  result?: ResultPart;
}

/** `tool_result.result`: a result's kind, and its value when `output` does not carry it. */
export type ResultPart = NonNullable<RunToolCallFrame['result']>;

/** The outcome as recorded, with the execution time the client reported when a client answered. */
export interface CallResult extends CallOutcome {
  clientDurationMs?: number;
}

/** A human decision on a held call. */
export interface CallDecision {
  approved: boolean;
  reason?: string;
  /** Where the decision came from (`always`: an earlier decision for the tool in the run). */
  by: 'socket' | 'http' | 'always';
  /** The arguments the approver edited (only when approved; docs/protocol/decisions.md). */
  arguments?: Record<string, unknown>;
  /** The decision holds for the tool's later calls in the run. */
  always?: boolean;
}

/** How a call is created. */
export interface CallInit {
  callId: string;
  modelCallId: string;
  run: Run;
  toolName: string;
  arguments: unknown;
  turn: number;
  /**
   * The tool's definition the model was shown in the turn that asked for the call (server-stub/definitions.ts);
   * absent when none was (no worker offered the tool then).
   */
  shown?: ToolDefinition | undefined;
  /**
   * The definition that holds the call for a person, if any (server-stub/definitions.ts `gateOf`): the shown one,
   * else a live worker's whose own says `needsApproval`.
   */
  gate?: ToolDefinition | undefined;
}

/**
 * Every transition a call can make, with the states it may start from:
 * - `dispatch`: sent to a client.
 * - `hold`: held for a human decision (the tool's definition asks for one, or the client sent `approval_request`).
 * - `decide`: the decision is in; the call waits to be sent with it.
 * - `requeue`: the client it was sent to gave it back (answered busy, or its session expired).
 * - `finish`: it has its outcome (a result, a deadline, a cancel, an unknown tool). `done` is final.
 */
export const TRANSITIONS = {
  dispatch: { from: ['waiting'], to: 'dispatched' },
  hold: { from: ['waiting', 'dispatched'], to: 'awaiting_approval' },
  decide: { from: ['awaiting_approval'], to: 'waiting' },
  requeue: { from: ['dispatched'], to: 'waiting' },
  finish: { from: ['waiting', 'dispatched', 'awaiting_approval'], to: 'done' },
} as const satisfies Record<string, { from: readonly CallState[]; to: CallState }>;

type Transition = keyof typeof TRANSITIONS;

const ALL_FEATURES: ReadonlySet<Feature> = new Set(FEATURES);

/** The live record of one call. Driven by the dispatcher; read by its run for the transcript. */
export class Call implements RunCall {
  readonly callId: string;
  readonly modelCallId: string;
  readonly run: Run;
  readonly toolName: string;
  readonly arguments: unknown;
  readonly depth: number;
  readonly turn: number;
  /**
   * The definition the model was shown when it asked for the call: sessions whose own differs take it last, and
   * it is held for approval if this one says so (docs/protocol/routing.md).
   */
  readonly shown: ToolDefinition | undefined;
  /** The definition that holds the call for a person when no worker's own asks first ({@link CallInit.gate}). */
  readonly gate: ToolDefinition | undefined;
  readonly createdAt = Date.now();
  /** The W3C Trace Context parent the call's `tool_call` names (docs/protocol/trace-context.md): the run's trace, a span of its own. */
  readonly traceparent: string;
  /** Resolves once, with the outcome the model reads. */
  readonly done: Promise<CallOutcome>;
  /** What the client said while running it: progress and the other updates (docs/protocol/updates.md). */
  readonly activity = new CallActivity();
  #state: CallState = 'waiting';
  #sessionId: string | undefined;
  readonly #sentTo: string[] = [];
  readonly #busyFrom = new Set<string>();
  /** Sessions told `cancel { reason: 'not_dispatched' }` for the call (see {@link Call.disown}). */
  #disowned: Set<string> | undefined;
  #approval: CallApproval | undefined;
  #deadlineAt: number | undefined;
  #deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #result: CallResult | undefined;
  #answeredBy: string | undefined;
  #finishedAt: number | undefined;
  #settle!: (outcome: CallOutcome) => void;

  constructor(init: CallInit) {
    this.callId = init.callId;
    this.modelCallId = init.modelCallId;
    this.run = init.run;
    this.toolName = init.toolName;
    this.arguments = init.arguments;
    this.depth = init.run.depth;
    this.turn = init.turn;
    this.shown = init.shown;
    this.gate = init.gate;
    this.traceparent = traceparent(init.run.traceId, newSpanId());
    this.done = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  get state(): CallState {
    return this.#state;
  }

  /**
   * Session the call is assigned to: dispatched there, or held after that session's `approval_request` (and
   * then sent back there with the decision). Kept once the call is done.
   */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Every session the call was ever sent to, in order. */
  get sentTo(): readonly string[] {
    return this.#sentTo;
  }

  /** Sessions that answered "busy" since the last retry; skipped until then. */
  get busyFrom(): ReadonlySet<string> {
    return this.#busyFrom;
  }

  /** Approval state, once the call was held. */
  get approval(): Readonly<CallApproval> | undefined {
    return this.#approval;
  }

  /** The decision, when a human gave one. */
  get decision(): CallApproval['decision'] {
    return this.#approval?.decision;
  }

  /** Epoch milliseconds after which the call times out; `undefined` while held for approval. */
  get deadlineAt(): number | undefined {
    return this.#deadlineAt;
  }

  /** The recorded outcome, once done. */
  get result(): CallResult | undefined {
    return this.#result;
  }

  /** Session whose `tool_result` was recorded (none for timeouts, cancels and unknown tools). */
  get answeredBy(): string | undefined {
    return this.#answeredBy;
  }

  /** Epoch milliseconds the call finished at. */
  get finishedAt(): number | undefined {
    return this.#finishedAt;
  }

  /** `waiting` → `dispatched`: sent to `sessionId`, which it is now assigned to. */
  dispatch(sessionId: string): boolean {
    if (!this.#apply('dispatch')) return false;
    this.#sessionId = sessionId;
    if (this.#sentTo.at(-1) !== sessionId) this.#sentTo.push(sessionId);
    // Sent again to a session told it was not its own (the only worker left, say): its own again.
    this.#disowned?.delete(sessionId);
    return true;
  }

  /**
   * `waiting` or `dispatched` → `awaiting_approval`, never once decided. The deadline stops until the decision
   * (a human may take long) and so does a pending busy retry.
   */
  hold(requestedBy: CallApproval['requestedBy'], reason: string | undefined): boolean {
    if (this.decision !== undefined || !this.#apply('hold')) return false;
    this.stopTimers();
    this.#deadlineAt = undefined;
    this.#approval = { requestedBy, requestedAt: new Date().toISOString() };
    if (reason !== undefined) this.#approval.reason = reason;
    return true;
  }

  /** `awaiting_approval` → `waiting`, with the decision recorded. A call is decided once. */
  decide(decision: CallDecision): boolean {
    const approval = this.#approval;
    if (approval === undefined || approval.decision !== undefined || !this.#apply('decide')) return false;
    approval.decision = { approved: decision.approved, by: decision.by, at: new Date().toISOString() };
    if (decision.reason !== undefined) approval.decision.reason = decision.reason;
    if (decision.arguments !== undefined) approval.decision.arguments = decision.arguments;
    if (decision.always === true) approval.decision.always = true;
    return true;
  }

  /**
   * `dispatched` → `waiting`: `sessionId`, which the call was sent to, answered busy. The call is no longer
   * assigned, and that session is skipped for it until the next retry (see {@link retryWhenBusy}).
   */
  requeueBusy(sessionId: string): boolean {
    if (this.#sessionId !== sessionId || !this.#apply('requeue')) return false;
    this.#sessionId = undefined;
    this.#busyFrom.add(sessionId);
    return true;
  }

  /**
   * `sessionId`, which asked for the call's approval, answered busy while the call waits for the decision (it is
   * draining, docs/protocol/approvals.md): the call stays held, no longer assigned, and that session is skipped for
   * it until the next busy retry, so that the decision goes to another client.
   */
  handBackHeld(sessionId: string): boolean {
    if (this.#state !== 'awaiting_approval' || this.#sessionId !== sessionId) return false;
    this.#sessionId = undefined;
    this.#busyFrom.add(sessionId);
    return true;
  }

  /**
   * The session the call is assigned to expired. The call is no longer assigned; a dispatched one goes back to
   * `waiting` (returns `true`: offer it again), a held one stays held.
   */
  sessionLost(): boolean {
    if (this.#state === 'done') return false;
    this.#sessionId = undefined;
    return this.#apply('requeue');
  }

  /**
   * `sessionId` was told the call is not its own (`cancel { reason: 'not_dispatched' }`, docs/protocol/calls-no-longer-held.md):
   * the `cancelled` it answers with is the echo of that cancel, never the call's result.
   */
  disown(sessionId: string): void {
    this.#disowned ??= new Set();
    this.#disowned.add(sessionId);
  }

  /** `true` when `sessionId` was told the call is not its own (see {@link Call.disown}). */
  disowned(sessionId: string): boolean {
    return this.#disowned?.has(sessionId) === true;
  }

  /** `sessionId` is gone: it is no longer skipped as busy. */
  forgetBusy(sessionId: string): void {
    this.#busyFrom.delete(sessionId);
  }

  /**
   * → `done`: records the outcome, stops the timers and resolves {@link done}. Returns `false` (and records
   * nothing) when the call was done already: the first outcome wins.
   */
  finish(result: CallResult, answeredBy: string | undefined): boolean {
    if (!this.#apply('finish')) return false;
    this.stopTimers();
    this.#result = result;
    this.#answeredBy = answeredBy;
    this.#finishedAt = Date.now();
    this.#settle({
      status: result.status,
      output: result.output,
      ...(result.widget === undefined ? {} : { widget: result.widget }),
      ...(result.content === undefined ? {} : { content: result.content }),
    });
    return true;
  }

  /**
   * (Re)starts the deadline: in `deadlineMs`, `onExpire` runs unless the call is done or held by then. A done
   * call has no deadline (a listener of the decision's event may have cancelled it already).
   */
  armDeadline(deadlineMs: number, onExpire: () => void): void {
    if (this.#state === 'done') return;
    if (this.#deadlineTimer !== undefined) clearTimeout(this.#deadlineTimer);
    this.#deadlineAt = Date.now() + deadlineMs;
    this.#deadlineTimer = setTimeout(() => {
      this.#deadlineTimer = undefined;
      if (this.#state !== 'done') onExpire();
    }, deadlineMs);
  }

  /**
   * When some session answered busy and no retry is pending: in `delayMs`, forgets who was busy and runs
   * `retry`.
   */
  retryWhenBusy(delayMs: number, retry: () => void): void {
    if (this.#busyFrom.size === 0 || this.#retryTimer !== undefined) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#busyFrom.clear();
      retry();
    }, delayMs);
  }

  /** Stops the deadline and the busy retry (also used at server shutdown). */
  stopTimers(): void {
    if (this.#deadlineTimer !== undefined) clearTimeout(this.#deadlineTimer);
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#deadlineTimer = undefined;
    this.#retryTimer = undefined;
  }

  /**
   * The `tool_call` frame for the call's current state, with the time left before its deadline, and the fields of
   * the `features` of the session it goes to (docs/protocol/approvals.md, docs/protocol/call-context.md).
   * @param decision - the decision it carries: the call's own, or one not yet recorded (to check that it would fit).
   */
  frame(
    features: ReadonlySet<Feature> = new Set(),
    now: number = Date.now(),
    decision: Pick<CallDecision, 'approved' | 'reason' | 'arguments'> | undefined = this.decision,
  ): FrameOf<ServiceFrame, 'tool_call'> {
    const frame: FrameOf<ServiceFrame, 'tool_call'> = {
      type: 'tool_call',
      callId: this.callId,
      runId: this.run.id,
      toolName: this.toolName,
      arguments: this.arguments,
      depth: this.depth,
      traceparent: this.traceparent,
    };
    if (this.#deadlineAt !== undefined) frame.deadlineMs = Math.max(0, Math.round(this.#deadlineAt - now));
    if (decision) {
      frame.approved = decision.approved;
      if (decision.reason !== undefined) frame.reason = decision.reason;
      if (decision.arguments !== undefined) {
        frame.arguments = decision.arguments;
        if (features.has('decisions')) frame.argumentsEdited = true;
      }
    }
    if (features.has('call_context')) frame.agentName = this.run.agent.name;
    if (features.has('call_context') && this.run.ownerSessionId !== undefined)
      frame.sessionId = this.run.ownerSessionId;
    if (features.has('call_context')) {
      frame.tenantId = this.run.tenantId;
      frame.agentRevision = this.run.agentRevision;
      if (this.run.userId !== undefined) frame.userId = this.run.userId;
    }
    if (features.has('steps') && this.activity.steps.size > 0)
      frame.steps = Object.fromEntries(this.activity.steps);
    return frame;
  }

  /**
   * The largest the call's `tool_call` can be on the wire: with every feature's fields and the widest deadline. What
   * the service keeps for it from a client or a person (a decision, a step) is checked against the frame limit with this.
   */
  widestFrame(
    decision: Pick<CallDecision, 'approved' | 'reason' | 'arguments'> | undefined = this.decision,
  ): FrameOf<ServiceFrame, 'tool_call'> {
    return { ...this.frame(ALL_FEATURES, 0, decision), deadlineMs: Number.MAX_SAFE_INTEGER };
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
      state: this.#state,
      dispatchedTo: [...this.#sentTo],
      startedAt: new Date(this.createdAt).toISOString(),
    };
    if (this.#approval) entry.approval = this.#approval;
    const result = this.#result;
    if (result) {
      entry.status = result.status;
      entry.output = result.output;
      if (result.widget !== undefined) entry.widget = result.widget;
      if (result.content !== undefined) entry.content = result.content;
      entry.result = resultPart(result);
      if (result.clientDurationMs !== undefined) entry.clientDurationMs = result.clientDurationMs;
    }
    if (this.#answeredBy !== undefined) entry.answeredBy = this.#answeredBy;
    if (this.activity.progress !== undefined) entry.progress = { ...this.activity.progress };
    if (this.activity.preliminary !== undefined) entry.preliminary = { ...this.activity.preliminary };
    if (this.activity.questionCount > 0) entry.questions = this.activity.allQuestions;
    if (this.activity.steps.size > 0) entry.steps = Object.fromEntries(this.activity.steps);
    if (this.activity.sideEffect !== undefined) entry.sideEffect = this.activity.sideEffect;
    if (this.activity.strict) entry.strict = true;
    if (this.#finishedAt !== undefined) {
      entry.finishedAt = new Date(this.#finishedAt).toISOString();
      entry.durationMs = this.#finishedAt - this.createdAt;
    }
    return entry;
  }

  /** Moves to the transition's target state when the call is in one of its starting states. */
  #apply(transition: Transition): boolean {
    const { from, to } = TRANSITIONS[transition];
    if (!(from as readonly CallState[]).includes(this.#state)) return false;
    this.#state = to;
    return true;
  }
}

/**
 * The result as a tool-result part (docs/protocol/call-context.md): `content` for an `ok` result with content parts;
 * `json` /
 * `error-json` when the output is a JSON object or array; `text` / `error-text` otherwise.
 */
function resultPart(result: CallOutcome): TranscriptResult {
  const ok = result.status === 'ok';
  const reported = result.result;
  if (reported !== undefined) {
    const given = Object.hasOwn(reported, 'value');
    switch (reported.type) {
      case 'content':
        if (result.content !== undefined) return { type: 'content', value: result.content };
        break;
      case 'text':
      case 'error-text':
        return { type: reported.type, value: given ? String(reported.value) : result.output };
      case 'json':
      case 'error-json':
        if (given) return { type: reported.type, value: reported.value };
        try {
          return { type: reported.type, value: JSON.parse(result.output) as unknown };
        } catch {
          return { type: ok ? 'text' : 'error-text', value: result.output };
        }
    }
  }
  if (ok && result.content !== undefined) return { type: 'content', value: result.content };
  const text = result.output.trimStart();
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return { type: ok ? 'json' : 'error-json', value: JSON.parse(result.output) as unknown };
    } catch {
      // Not JSON after all: text.
    }
  }
  return { type: ok ? 'text' : 'error-text', value: result.output };
}
