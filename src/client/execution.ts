/**
 * `Execution`: one tool call received from the service and not yet finished, and its state as one union with
 * the legal transitions between its values.
 *
 * @module
 */
import type { CallRedaction } from '../call/call-redaction';
import { Cancellation } from '../call/call-signal';
import type {
  ApprovalDecision,
  ApprovalRequest,
  ResultSink,
  ToolCallResult,
  WidgetInvalidInfo,
} from '../call/types';
import type { FrameOf, ServiceFrame } from '../wire/protocol';

/** Events the call runner reports to the client. */
export interface CallEvents {
  toolCall(info: { callId: string; runId: string; toolName: string }): void;
  toolResult(info: {
    callId: string;
    runId: string;
    toolName: string;
    status: string;
    durationMs: number;
    /** What the model reads (redacted). */
    output: string;
  }): void;
  approvalRequested(request: ApprovalRequest): void;
  widgetInvalid(info: WidgetInvalidInfo): void;
}

/** A `tool_call` frame. */
export type ToolCallFrame = FrameOf<ServiceFrame, 'tool_call'>;

/**
 * Where a call is. Only `running` holds a concurrency slot.
 *
 * - `queued`: received, waiting for its first slot; nothing of it has run (no `tool_call` event, no context).
 * - `running`: holds a slot.
 * - `parked`: started, now waiting for a human (a decision, an answer) or a nested run; it holds no slot meanwhile.
 * - `resuming`: parked and free to go on, but every slot was busy: first in line for the next one.
 * - `finished`: has its result; it is in no table any more.
 */
export type CallState = 'queued' | 'running' | 'parked' | 'resuming' | 'finished';

/**
 * Whether a call may go from `from` to `to`:
 *
 * | from       | to         | when                                                                      |
 * | ---------- | ---------- | ------------------------------------------------------------------------- |
 * | `queued`   | `running`  | a slot is free (on arrival, or when the queue drains)                     |
 * | `queued`   | `finished` | cancelled, or past its deadline, before it started                        |
 * | `running`  | `parked`   | it waits for a human (decision, answer) or a nested run                   |
 * | `running`  | `finished` | it has its result                                                         |
 * | `parked`   | `running`  | it may go on (an answer, or its question timed out) and a slot is free    |
 * | `parked`   | `resuming` | it may go on and every slot is busy                                       |
 * | `parked`   | `finished` | rejected, cancelled or timed out while it waited                          |
 * | `resuming` | `running`  | its turn in line came                                                     |
 * | `resuming` | `parked`   | cancelled in line: it leaves the line and ends where it waited, slotless  |
 * | `resuming` | `finished` | ended in line (its own timeout)                                           |
 */
export function canMove(from: CallState, to: CallState): boolean {
  switch (from) {
    case 'queued':
      return to === 'running' || to === 'finished';
    case 'running':
      return to === 'parked' || to === 'finished';
    case 'parked':
      return to === 'running' || to === 'resuming' || to === 'finished';
    case 'resuming':
      return to === 'running' || to === 'parked' || to === 'finished';
    case 'finished':
      return false;
  }
}

/** Where an {@link Execution} hands its result (the call runner). */
export interface ExecutionOwner {
  finished(execution: Execution, result: ToolCallResult): void;
}

/**
 * What few calls keep (see {@link Execution.resume}, {@link Execution.decide}, {@link Execution.approvalReason},
 * {@link Execution.redaction}, {@link Execution.fullFrame}): one object made when first needed.
 */
interface RareState {
  resume: (() => void) | undefined;
  decide: ((decision: ApprovalDecision) => void) | undefined;
  approvalReason: string | undefined;
  redaction: CallRedaction | undefined;
  frame: ToolCallFrame | undefined;
}

/**
 * Each field of a `tool_call`: `true` when the call reads it after its arrival (a decision, a depth, the run's
 * scope, kept steps, trace context), `false` when it is used on arrival or kept in a field of the call's own.
 * Typed over every field: one added to the frame must be listed here.
 */
export const READ_LATER: Readonly<Record<keyof ToolCallFrame, boolean>> = {
  type: false,
  callId: false,
  runId: false,
  toolName: false,
  arguments: false,
  deadlineMs: false,
  acks: false,
  depth: true,
  approved: true,
  reason: true,
  argumentsEdited: true,
  traceparent: true,
  tracestate: true,
  sessionId: true,
  agentName: true,
  steps: true,
};

/**
 * Whether a `tool_call` carries a field its call reads after arrival ({@link READ_LATER}; a depth of 0 is the
 * default): then its {@link Execution} keeps the frame. Named loads, not a loop over the keys: this runs for every
 * call (test/client/execution.test.ts checks it against {@link READ_LATER}).
 */
function carriesMore(frame: ToolCallFrame): boolean {
  return (
    (frame.depth !== undefined && frame.depth !== 0) ||
    frame.approved !== undefined ||
    frame.reason !== undefined ||
    frame.argumentsEdited !== undefined ||
    frame.traceparent !== undefined ||
    frame.tracestate !== undefined ||
    frame.sessionId !== undefined ||
    frame.agentName !== undefined ||
    frame.steps !== undefined
  );
}

/**
 * One call received and not yet finished. It is its own {@link Cancellation} (aborting it aborts `ctx.signal`:
 * a `cancel` from the service, the deadline, `close()`) and its own result sink: a held call is one object, and
 * every part of the client keeps what it needs of a call here rather than in a map of its own.
 */
export class Execution extends Cancellation implements ResultSink {
  readonly callId: string;
  readonly runId: string;
  readonly toolName: string;
  /** The arguments as received (a re-delivery with other arguments is told apart by them). */
  readonly arguments: unknown;
  readonly #owner: ExecutionOwner;
  #state: CallState = 'queued';
  /**
   * When the call aborts itself (`performance.now()` time, whole ms): the service's `deadlineMs` passed, and
   * its `cancel` may have been lost with a socket. `undefined` while no deadline runs (none given, or waiting
   * for a human). Kept by `Deadlines`.
   */
  deadlineAt: number | undefined;
  /** When it started running (`performance.now()`, whole ms: a small integer, not a heap number). */
  started = 0;
  /**
   * When the service last heard of the call (`performance.now()` time; `-Infinity` when not since it began),
   * `undefined` until its tool began. Kept by `Leases` and the lease's renewal (src/client/lease-renewal.ts): a
   * field, not a map entry per call.
   */
  heardAt: number | undefined;
  /** What a call waiting for a slot or a decision keeps, and more (most calls never do): made when first set. */
  #rare: RareState | undefined;

  constructor(frame: ToolCallFrame, owner: ExecutionOwner) {
    super();
    this.callId = frame.callId;
    this.runId = frame.runId;
    this.toolName = frame.toolName;
    this.arguments = frame.arguments;
    this.#owner = owner;
    if (carriesMore(frame)) Execution.#rareOf(this).frame = frame;
  }

  /**
   * The `tool_call` as received when it carries more than the fields above (see {@link Execution.frame}): most
   * calls keep four fields rather than the frame.
   */
  get fullFrame(): ToolCallFrame | undefined {
    return this.#rare?.frame;
  }

  /** The `tool_call` (as received, or made again of its fields: the same but for `deadlineMs`, `acks` and a depth of 0). */
  get frame(): ToolCallFrame {
    if (this.fullFrame !== undefined) return this.fullFrame;
    const { callId, runId, toolName } = this;
    return this.arguments === undefined
      ? { type: 'tool_call', callId, runId, toolName }
      : { type: 'tool_call', callId, runId, toolName, arguments: this.arguments };
  }

  /** The call's redaction by field name, once it started (set by the call: src/call/call-redaction.ts). */
  get redaction(): CallRedaction | undefined {
    return this.#rare?.redaction;
  }

  set redaction(redaction: CallRedaction | undefined) {
    if (redaction !== undefined || this.#rare !== undefined) Execution.#rareOf(this).redaction = redaction;
  }

  /**
   * Its tool has begun (its context in hand): the lease may keep it alive from now on. Not before: a call
   * waiting for its context (a `context` function that never settles) or for a slot keeps its deadline, and
   * cannot hold its slot forever under a lease renewed for it.
   */
  get begun(): boolean {
    return this.heardAt !== undefined;
  }

  get state(): CallState {
    return this.#state;
  }

  /** In state `resuming`: what goes on once it holds a slot again. Kept by `Slots`. */
  get resume(): (() => void) | undefined {
    return this.#rare?.resume;
  }

  set resume(resume: (() => void) | undefined) {
    if (resume !== undefined || this.#rare !== undefined) Execution.#rareOf(this).resume = resume;
  }

  /**
   * The service is asked for a decision over the socket (an `approval_request` was sent) and this takes it.
   * Kept by `Approvals`.
   */
  get decide(): ((decision: ApprovalDecision) => void) | undefined {
    return this.#rare?.decide;
  }

  set decide(decide: ((decision: ApprovalDecision) => void) | undefined) {
    if (decide !== undefined || this.#rare !== undefined) Execution.#rareOf(this).decide = decide;
  }

  /** The reason sent with its `approval_request` (sent again after a reconnect). */
  get approvalReason(): string | undefined {
    return this.#rare?.approvalReason;
  }

  set approvalReason(reason: string | undefined) {
    if (reason !== undefined || this.#rare !== undefined) Execution.#rareOf(this).approvalReason = reason;
  }

  // Static: a private instance method would give every call a field of its own (V8's brand).
  static #rareOf(execution: Execution): RareState {
    execution.#rare ??= {
      resume: undefined,
      decide: undefined,
      approvalReason: undefined,
      redaction: undefined,
      frame: undefined,
    };
    return execution.#rare;
  }

  /**
   * Moves the call to `to` if {@link canMove} allows it, and returns the state it left; `undefined` (and no
   * change) when it does not. Only `Slots` calls this: it counts the slots held as the calls move.
   */
  moveTo(to: CallState): CallState | undefined {
    const from = this.#state;
    if (!canMove(from, to)) return undefined;
    this.#state = to;
    return from;
  }

  result(result: ToolCallResult): void {
    this.#owner.finished(this, result);
  }
}
