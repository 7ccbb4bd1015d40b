/**
 * `Execution`: one tool call received from the service and not yet finished, shared by every part of the client
 * that keeps a side of it. This file holds the events the call runner reports, the call's state as one union with
 * the legal transitions between its values, the fields of its `tool_call` it keeps (`CallExtras`), and the
 * `Execution` itself (what it keeps of its arguments while it is not running: ./held-arguments.ts).
 *
 * @module
 */
import { CallRun } from '../call/pipeline';
import type { ApprovalDecision, ApprovalRequest, ToolCallResult, WidgetInvalidInfo } from '../call/types';
import type { FrameOf, ServiceFrame } from '../wire/protocol';
import { receivedArguments, waitingArguments } from './held-arguments';

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
  /** A call needs a decision: `service` when the service was asked for it (the client has no `onApproval`). */
  approvalRequested(request: ApprovalRequest, service?: boolean): void;
  widgetInvalid(info: WidgetInvalidInfo): void;
  /**
   * Whether anyone listens to `tool_call` / `tool_result` now: when not, a call makes no object for the event
   * (when this is absent, every event is made).
   */
  listens?(event: 'tool_call' | 'tool_result'): boolean;
}

/** A `tool_call` frame. */
export type ToolCallFrame = FrameOf<ServiceFrame, 'tool_call'>;

/**
 * Where a call is. Only `running` holds a concurrency slot.
 *
 * - `queued`: received, waiting for its first slot; nothing of it has run (no `tool_call` event, no context).
 * - `running`: holds a slot.
 * - `parked`: started, now waiting for a human (a decision, an answer) or a nested run; it holds no slot meanwhile.
 *   Or started without a slot: a call of a tool with `concurrency` that came while none was free runs up to its
 *   key's permit first (its key needs its validated input), then waits for a slot in its key's lane.
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
 * | `queued`   | `parked`   | a call of a tool with `concurrency` came while no slot was free            |
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
      return to === 'running' || to === 'parked' || to === 'finished';
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
  /** `wellFormed`: the result's output holds no lone surrogate (its call's pipeline made it so). */
  finished(execution: Execution, result: ToolCallResult, wellFormed?: boolean): void;
  /** A trace records the call's arguments at its end: a waiting call keeps them as text, not only small ones. */
  readonly tracesArguments?: boolean;
  /** The tool of a call that had its result while it ran (cancelled, timed out) returned: see `Slots.release`. */
  returned?(execution: Execution): void;
  /**
   * The {@link CallExtras} of the latest call of this owner that carried any: a call whose frame carries the
   * same values shares it (one object for the calls of one run, not one each). Kept by {@link Execution}.
   */
  lastExtras?: CallExtras | undefined;
}

/** The fields of a `tool_call` a call reads after its arrival ({@link READ_LATER}). */
export type LaterField = {
  [Field in keyof ToolCallFrame]-?: (typeof READ_LATER)[Field] extends true ? Field : never;
}[keyof ToolCallFrame];

/**
 * The fields of a `tool_call` its call reads later ({@link READ_LATER}), those it carried only (a depth of 0 is
 * left out: it is the default). Never the frame itself: a held call keeps these few values, not the parsed frame
 * and whatever else it brought. Shared, unchanged, by the calls of one client whose frames carried the same
 * values (the calls of one agent's run: the same `agentName`, `sessionId` and depth), so read-only.
 */
export type CallExtras = Readonly<Partial<Pick<ToolCallFrame, LaterField>>>;

/**
 * What few calls keep (see {@link Execution.resume}, {@link Execution.decide}, {@link Execution.approvalReason},
 * {@link Execution.argumentBytes}, {@link Execution.updated}, {@link Execution.extras}): one object made when first
 * needed.
 */
class RareState {
  resume: ((inSlot: boolean) => void) | undefined = undefined;
  decide: ((decision: ApprovalDecision) => void) | undefined = undefined;
  approvalReason: string | undefined = undefined;
  argumentBytes: number | undefined = undefined;
  updated = false;
  extras: CallExtras | undefined;

  constructor(extras: CallExtras | undefined) {
    this.extras = extras;
  }
}

/**
 * Each field of a `tool_call`: `true` when the call reads it after its arrival (a decision, a depth, the run's
 * scope, kept steps: kept in its {@link CallExtras}), `false` when it is used on arrival or kept in a field of the
 * call's own. The trace context is used on arrival only (the tracer starts the call's trace then, from the frame:
 * `CallTraces.received`): kept, each call's own `traceparent` would give every traced call extras of its own.
 * Typed over every field: one added to the frame must be listed here (and read by {@link extrasOf}, which loops
 * over it, and compared by {@link sameExtras} and {@link noExtras}, which name each field).
 */
export const READ_LATER = {
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
  traceparent: false,
  tracestate: false,
  sessionId: true,
  agentName: true,
  agentRevision: true,
  tenantId: true,
  userId: true,
  steps: true,
} as const satisfies Readonly<Record<keyof ToolCallFrame, boolean>>;

/** The fields of {@link READ_LATER} marked `true`, in its order. */
const LATER_FIELDS = (Object.keys(READ_LATER) as Array<keyof typeof READ_LATER>).filter(
  (field): field is LaterField => READ_LATER[field],
);

/** `frame`'s value of a field read later, a depth of 0 read as none (it is the default). */
function laterValue(frame: ToolCallFrame, field: LaterField): unknown {
  const value = frame[field];
  return field === 'depth' && value === 0 ? undefined : value;
}

/**
 * Whether `extras` holds exactly the fields of `frame` read later ({@link READ_LATER}). Run for every call, so
 * written out field by field: a loop over {@link LATER_FIELDS} reads by computed key, about a microsecond per
 * call. test/client/execution.test.ts checks each field of {@link READ_LATER} is compared here.
 */
function sameExtras(extras: CallExtras, frame: ToolCallFrame): boolean {
  return (
    extras.depth === (frame.depth === 0 ? undefined : frame.depth) &&
    extras.agentName === frame.agentName &&
    extras.agentRevision === frame.agentRevision &&
    extras.tenantId === frame.tenantId &&
    extras.userId === frame.userId &&
    extras.sessionId === frame.sessionId &&
    extras.approved === frame.approved &&
    extras.reason === frame.reason &&
    extras.argumentsEdited === frame.argumentsEdited &&
    extras.steps === frame.steps
  );
}

/** Whether `frame` carries none of the fields read later: the usual call, told without {@link extrasOf}'s loop. */
function noExtras(frame: ToolCallFrame): boolean {
  return (
    (frame.depth === undefined || frame.depth === 0) &&
    frame.agentName === undefined &&
    frame.agentRevision === undefined &&
    frame.tenantId === undefined &&
    frame.userId === undefined &&
    frame.sessionId === undefined &&
    frame.approved === undefined &&
    frame.reason === undefined &&
    frame.argumentsEdited === undefined &&
    frame.steps === undefined
  );
}

/** The fields of `frame` read later ({@link READ_LATER}), copied: `undefined` when it carries none. */
export function extrasOf(frame: ToolCallFrame): CallExtras | undefined {
  let extras: Record<string, unknown> | undefined;
  for (const field of LATER_FIELDS) {
    const value = laterValue(frame, field);
    if (value === undefined) continue;
    extras ??= {};
    extras[field] = value;
  }
  return extras as CallExtras | undefined;
}

/**
 * One call received and not yet finished. It is the call itself as src/call runs it (a `CallRun`, whose state,
 * cancellation and result it shares: aborting it aborts `ctx.signal`: a `cancel` from the service, the deadline,
 * `close()`), and its own options and result sink: a held call is one object, and every part of the client keeps
 * what it needs of a call here rather than in a map of its own.
 */
export class Execution extends CallRun {
  // Fields are declared only and set in the constructor, `private` rather than `#`: a `super()` into a class that
  // declares fields is not inlined by V8 (Node 20 to 24), ~230 instructions a call (src/call/pipeline.ts `CallRun`).
  declare readonly callId: string;
  declare readonly runId: string;
  declare readonly toolName: string;
  /**
   * The arguments as received (a re-delivery with other arguments is told apart by them), parsed while the call
   * runs (`{}` as one object shared by the calls that wait: {@link Execution.opened}). While it waits for its first
   * slot, their JSON text (an `ArgumentsText`); once its tool has them and it waits (for a human, its key's turn, a
   * nested run), only small ones, else `NOT_KEPT` (./held-arguments.ts). Its own before its `execute` gets the very
   * object (a JSON Schema tool's call: {@link Execution.handsInput}). Set by the call runner.
   */
  declare arguments: unknown;
  /** Where the call hands its result (the call runner). */
  declare readonly owner: ExecutionOwner;
  declare private callState: CallState;
  /**
   * When the call aborts itself (`performance.now()` time, whole ms): the service's `deadlineMs` passed, and
   * its `cancel` may have been lost with a socket. `undefined` while no deadline runs (none given, or waiting
   * for a human). Kept by `Deadlines`.
   */
  declare deadlineAt: number | undefined;
  /**
   * The service's `deadlineMs` for the call, as last received (its `tool_call`, or the one that brought a
   * decision): the deadline a call starts again in full after its last question closes. Kept by `Deadlines`;
   * the call's `CallOptions.deadlineMs` (a call stopped by it before its tool began ends `timeout`).
   */
  declare deadlineMs: number | undefined;
  /**
   * When it started running (`performance.now()`, whole ms: a small integer, not a heap number); the call counts
   * its result's `durationMs` from it too (`ResultSink.started`).
   */
  declare started: number;
  /**
   * When the service last heard of the call (`performance.now()` time; `-Infinity` when not since it began),
   * `undefined` until its tool began. Kept by `Leases` (./leases.ts) and `LeaseRenewal` (./lease-renewal.ts): a
   * field, not a map entry per call.
   */
  declare heardAt: number | undefined;
  /**
   * The hash of its call id in the ids of finished calls (./finished-ids.ts), as taken when it arrived: the call is
   * added under it when it ends, its id not hashed again. `undefined` when it was not taken (hashed then).
   */
  declare idHash: number | undefined;
  /** Where the calls held keep it (what `CallMap.add` returned, for `CallMap.take`: ./call-map.ts); -1 until then. */
  declare heldAt: number;
  /**
   * What a call waiting for a slot or a decision keeps, and more (most calls never do): made when first set.
   * Until then, the call's {@link CallExtras} alone when its frame carried any (often shared: no object of its own).
   */
  declare private rareOrExtras: RareState | CallExtras | undefined;

  constructor(frame: ToolCallFrame, owner: ExecutionOwner) {
    super();
    this.callId = frame.callId;
    this.runId = frame.runId;
    this.toolName = frame.toolName;
    this.arguments = frame.arguments;
    this.owner = owner;
    this.callState = 'queued';
    this.deadlineAt = undefined;
    this.deadlineMs = undefined;
    this.started = 0;
    this.heardAt = undefined;
    this.idHash = undefined;
    this.heldAt = -1;
    const last = owner.lastExtras;
    if (last !== undefined ? sameExtras(last, frame) : noExtras(frame)) this.rareOrExtras = last;
    else {
      const extras = extrasOf(frame);
      // Kept steps are the frame's own object (no other call's compares equal): not shared, so the owner does not
      // keep the steps of a call that has ended.
      this.rareOrExtras = extras;
      if (extras !== undefined && extras.steps === undefined) owner.lastExtras = extras;
    }
  }

  /**
   * The fields of its `tool_call` read later ({@link READ_LATER}), those the frame carried; `undefined` when it
   * carried none (most calls keep four fields of their frame, and nothing of it else).
   */
  get extras(): CallExtras | undefined {
    const rare = this.rareOrExtras;
    return rare instanceof RareState ? rare.extras : rare;
  }

  /**
   * The `tool_call` made again of its fields: as received but for `deadlineMs`, `acks`, the trace context and a
   * depth of 0 (a new object at each read); its arguments in the form the call keeps them now.
   */
  get frame(): ToolCallFrame {
    const { callId, runId, toolName } = this;
    const frame: ToolCallFrame =
      this.arguments === undefined
        ? { type: 'tool_call', callId, runId, toolName }
        : { type: 'tool_call', callId, runId, toolName, arguments: this.arguments };
    const extras = this.extras;
    return extras === undefined ? frame : Object.assign(frame, extras);
  }

  /**
   * Its tool has begun (its context in hand): the lease may keep it alive from now on. Not before: a call
   * waiting for its context (a `context` function that never settles) or for a slot keeps its deadline, and
   * cannot hold its slot forever under a lease renewed for it.
   */
  get begun(): boolean {
    return this.heardAt !== undefined;
  }

  /** Its tool begins (its context in hand): see {@link Execution.begun}. Not heard of by the service since. */
  begin(): void {
    this.heardAt = Number.NEGATIVE_INFINITY;
  }

  /** Its tool waits again before it goes on (at its concurrency key's gate): not begun, as before {@link Execution.begin}. */
  unbegin(): void {
    this.heardAt = undefined;
  }

  /**
   * The call updates keep something of this call until its result is acknowledged (an update, an event, a step, a
   * question): they are told when it ends and when it is acked. Set by them.
   */
  get updated(): boolean {
    return Execution.#stateOf(this)?.updated === true;
  }

  set updated(updated: boolean) {
    if (updated || Execution.#stateOf(this) !== undefined) Execution.#rareOf(this).updated = updated;
  }

  get state(): CallState {
    return this.callState;
  }

  /**
   * In state `resuming`: what goes on once it holds a slot again (`true`), or learns that the call left the line
   * without one (`false`: cancelled or timed out there). Kept by `Slots`.
   */
  get resume(): ((inSlot: boolean) => void) | undefined {
    return Execution.#stateOf(this)?.resume;
  }

  set resume(resume: ((inSlot: boolean) => void) | undefined) {
    if (resume !== undefined || Execution.#stateOf(this) !== undefined)
      Execution.#rareOf(this).resume = resume;
  }

  /**
   * The service is asked for a decision over the socket (an `approval_request` was sent) and this takes it.
   * Kept by `Approvals`.
   */
  get decide(): ((decision: ApprovalDecision) => void) | undefined {
    return Execution.#stateOf(this)?.decide;
  }

  set decide(decide: ((decision: ApprovalDecision) => void) | undefined) {
    if (decide !== undefined || Execution.#stateOf(this) !== undefined)
      Execution.#rareOf(this).decide = decide;
  }

  /** The reason sent with its `approval_request` (sent again after a reconnect). */
  get approvalReason(): string | undefined {
    return Execution.#stateOf(this)?.approvalReason;
  }

  set approvalReason(reason: string | undefined) {
    if (reason !== undefined || Execution.#stateOf(this) !== undefined)
      Execution.#rareOf(this).approvalReason = reason;
  }

  /**
   * UTF-8 bytes of its arguments as they came (src/client/held-arguments.ts `argumentBytes`), measured when a call
   * of a tool with `concurrency` forgot them: what it counts against `maxQueueBytes` while it waits at its gate.
   */
  get argumentBytes(): number | undefined {
    return Execution.#stateOf(this)?.argumentBytes;
  }

  set argumentBytes(bytes: number | undefined) {
    if (bytes !== undefined || Execution.#stateOf(this) !== undefined)
      Execution.#rareOf(this).argumentBytes = bytes;
  }

  // Static: a private instance method or accessor would give every call a field of its own (V8's brand).
  static #stateOf(execution: Execution): RareState | undefined {
    const rare = execution.rareOrExtras;
    return rare instanceof RareState ? rare : undefined;
  }

  static #rareOf(execution: Execution): RareState {
    const rare = execution.rareOrExtras;
    if (rare instanceof RareState) return rare;
    const state = new RareState(rare);
    execution.rareOrExtras = state;
    return state;
  }

  /**
   * Moves the call to `to` if {@link canMove} allows it, and returns the state it left; `undefined` (and no
   * change) when it does not. Only `Slots` calls this: it counts the slots held as the calls move.
   */
  moveTo(to: CallState): CallState | undefined {
    const from = this.callState;
    if (!canMove(from, to)) return undefined;
    this.callState = to;
    return from;
  }

  /**
   * A phase's promise is pending: the call waits (its `execute` awaits something, say). Its arguments are with its
   * phases by now: arguments without a field are kept as one object for every such call, not its own
   * (./held-arguments.ts `waitingArguments`). Only a call that waits pays for the look; a call that ends at once
   * keeps its arguments until it ends.
   */
  override opened(): void {
    super.opened();
    this.arguments = waitingArguments(this.arguments);
  }

  /**
   * Its `execute` is about to get `input`, which it may change: when that is the object the call keeps as its
   * arguments, it keeps its own of them from now (./held-arguments.ts `receivedArguments`).
   */
  override handsInput(input: unknown): void {
    if (input === this.arguments)
      this.arguments = receivedArguments(input, this.owner.tracesArguments === true);
  }

  result(result: ToolCallResult): void {
    // From its pipeline (src/call/pipeline.ts `done`, or an unknown tool's result): its output is well-formed.
    this.owner.finished(this, result, true);
  }

  override lateReturn(): void {
    this.owner.returned?.(this);
  }
}
