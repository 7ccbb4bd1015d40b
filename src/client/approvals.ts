/**
 * Approval as the client handles it, in the order this file holds it:
 *
 * - the approvals this client reports to its listeners, and keeps for `client.decide()` (`ReportedApprovals`);
 * - who decides whether a call that needs approval runs (`Approvals`): the local approver (`onApproval`) when the
 *   client has one; else the service, asked with an `approval_request` frame and answering with the call
 *   re-delivered with `approved` set. A call waiting for a human gives up its concurrency slot meanwhile. A call
 *   is put to the local approver once: one the service took back while the answer was to come, and sends again,
 *   waits for that answer.
 *
 * A human's decision sent over the socket with `client.decide()` is ./decisions.ts.
 *
 * @module
 */
import { signalState, withSignal } from '../call/approval-request';
import { decodeArguments } from '../call/arguments';
import { fieldRedaction, restoreShown, shownArguments } from '../call/redaction';
import { abortReason, type CallAbortState, CallSignal } from '../call/signal';
import type { ApprovalDecision, ApprovalRequest } from '../call/types';
import { frozenCopy } from '../json';
import { isThenable } from '../maybe';
import type { Redactor } from '../redact';
import { fitTextField } from '../wire/codec';
import type { ClientFrame, FrameOf } from '../wire/protocol';
import { CallMap } from './call-map';
import type { Deadlines } from './deadlines';
import type { Execution, ToolCallFrame } from './execution';
import { forgetLargeArguments } from './held-arguments';
import type { CallSocket } from './outbox';
import type { RunEvent } from './runs';
import type { SlotlessWaits } from './slotless-waits';
import type { Slots } from './slots';

/**
 * Most approval requests a client keeps for its `decide()`, and most runs whose `always` decisions it keeps (the
 * oldest forgotten first, each).
 */
export const MAX_REPORTED_APPROVALS = 1_000;

/**
 * What a client keeps of an approval it reported: the call's run and tool, and for a call the service holds, its
 * arguments, what the approver was shown of them, and the abort state of the request's `signal`.
 */
interface Reported {
  runId: string;
  toolName: string;
  held?: { original: unknown; shown: unknown; signal: CallAbortState };
}

/**
 * The approvals this client reports to its `approval_requested` listeners, and what it keeps of them for
 * `client.decide()`:
 *
 * - a call the service holds for a human because its tool says `needsApproval: true` never reaches this client
 *   before the decision: the client reports it from its run's event ({@link ReportedApprovals.runEvent}), shown
 *   as a local approver is shown it (docs/guide/secrets.md#sensitive-fields: the tool's `sensitiveFieldNames` as
 *   `"[redacted]"`, the client's rules applied, deep-frozen). The arguments the service sent (decoded) are kept
 *   until the decision, so that `client.decide()` puts back what an edit left as it was shown
 *   ({@link ReportedApprovals.restore}): the decided call may run on any client of the fleet, which never saw what
 *   this one showed.
 * - a call this client asked the service about (a predicate, a policy) is reported when it asked
 *   ({@link ReportedApprovals.asked}), unless an `always` decision this client knows of covers it: the service
 *   then decides the call itself at once (docs/protocol/decisions.md, "Always"), and there is nothing to decide.
 *   The client knows the `always` decisions of its own `decide()` and those its runs' `approval_decided` events
 *   carry; one made over HTTP, in the agent UI or by another client, for a run another client started, it cannot
 *   know: such a call is reported, and `decide()` on it is refused `not_pending`.
 *
 * The `signal` of a request for a call the service holds aborts when its run ends here undecided (its
 * `run_result`, or the client closed: {@link ReportedApprovals.runEnded}); its decision, or the call forgotten past
 * the limit, leaves it as it is. A request this client asked about has the call's own (src/call/approval.ts).
 * At most {@link MAX_REPORTED_APPROVALS} calls and as many runs are kept.
 */
export class ReportedApprovals {
  readonly #calls = new CallMap<Reported>();
  /** Run id → the tools an `always` decision covers in it. */
  readonly #always = new Map<string, Set<string>>();
  readonly #redactor: () => Redactor;
  readonly #sensitiveFieldNames: (toolName: string) => readonly string[];

  /**
   * @param redactor - the client's redactor (API key, `redact`).
   * @param sensitiveFieldNames - a tool's `sensitiveFieldNames` by its name (none for a tool this client does not have).
   */
  constructor(redactor: () => Redactor, sensitiveFieldNames: (toolName: string) => readonly string[]) {
    this.#redactor = redactor;
    this.#sensitiveFieldNames = sensitiveFieldNames;
  }

  /**
   * A run's event, as handed out (`event`, redacted) and as the service sent it (`raw`): the approval request to
   * report for a call the service holds, else `undefined`. A decision forgets the call, and keeps its `always`.
   */
  runEvent(event: RunEvent, raw: RunEvent): ApprovalRequest | undefined {
    if (event.kind === 'approval_decided') {
      this.#calls.delete(event.callId);
      // The decision holds in the call's own run: a nested run's, on the copy an outer run gets.
      if (event.always === true) this.#keepAlways(event.nestedRunId ?? event.runId, event.toolName);
      return undefined;
    }
    if (
      event.kind !== 'approval_requested' ||
      raw.kind !== 'approval_requested' ||
      event.requestedBy !== 'definition' ||
      event.nestedRunId !== undefined
    ) {
      return undefined;
    }
    const names = this.#sensitiveFieldNames(event.toolName);
    const redactor = this.#redactor();
    // Decoded as the call will be (a model may send JSON text), then shown as a call this client asks about is
    // (src/call/approval.ts): one view on every path, and an edit is put back against the same value.
    const decoded = decodeArguments(raw.arguments);
    const original = decoded.ok ? decoded.value : raw.arguments;
    const fields = fieldRedaction(redactor, names, original);
    const input = frozenCopy(shownArguments(original, redactor, fields));
    const signal = new CallSignal(undefined, event.toolName);
    const request = withSignal(
      { callId: event.callId, runId: event.runId, toolName: event.toolName, input },
      signal,
    );
    // `event` has the client's rules applied already; a reason may quote a sensitive field's value too.
    if (event.reason !== undefined)
      request.reason = fields === undefined ? event.reason : fields.text(event.reason);
    if (event.sideEffect !== undefined) request.sideEffect = event.sideEffect;
    this.#keep(request, { original, shown: input, signal });
    return request;
  }

  /**
   * Run `runId`, started by this client, ended (or the client closed): the requests reported for its calls the
   * service held, still undecided, abort their `signal`; nobody will decide them now.
   */
  runEnded(runId: string): void {
    if (this.#calls.size === 0) return;
    let reason: unknown;
    for (const callId of [...this.#calls.keys()]) {
      const reported = this.#calls.get(callId);
      if (reported?.runId !== runId || reported.held === undefined) continue;
      this.#calls.delete(callId);
      reason ??= abortReason(`run ${runId} ended before a decision`, 'AbortError', 'run_ended');
      reported.held.signal.abort(reason);
    }
  }

  /**
   * A call this client asked the service to decide: `true` when it is to be reported, `false` when an `always`
   * decision this client knows of covers its tool in its run (the service decides it at once).
   */
  asked(request: ApprovalRequest): boolean {
    if (this.#always.get(request.runId)?.has(request.toolName) === true) return false;
    this.#keep(request, undefined);
    return true;
  }

  /** `client.decide()` sent `decision` about `callId` and the service applied it: its `always` is kept. */
  decided(callId: string, decision: { always?: boolean }): void {
    const reported = this.#calls.get(callId);
    this.#calls.delete(callId);
    if (reported !== undefined && decision.always === true)
      this.#keepAlways(reported.runId, reported.toolName);
  }

  /**
   * Edited arguments for call `callId`, about to be sent by `client.decide()`: for a call the service holds,
   * what the edit left as the approver was shown it (a field's `"[redacted]"`, a text with a secret replaced) is
   * given back its value in the call's arguments (`restoreShown`, src/call/redaction.ts). Any other call's come
   * back as they are: a call this client asked about is restored where it runs.
   */
  restore(callId: string, edited: Record<string, unknown>): Record<string, unknown> {
    const held = this.#calls.get(callId)?.held;
    return held === undefined ? edited : restoreShown(edited, held.original, held.shown);
  }

  #keep(request: ApprovalRequest, held: Reported['held']): void {
    const reported: Reported = { runId: request.runId, toolName: request.toolName };
    if (held !== undefined) reported.held = held;
    this.#calls.delete(request.callId);
    this.#calls.set(request.callId, reported);
    if (this.#calls.size > MAX_REPORTED_APPROVALS) this.#calls.delete(this.#calls.oldestKey() as string);
  }

  #keepAlways(runId: string, toolName: string): void {
    let tools = this.#always.get(runId);
    if (tools === undefined) {
      tools = new Set();
      this.#always.set(runId, tools);
      if (this.#always.size > MAX_REPORTED_APPROVALS)
        this.#always.delete(this.#always.keys().next().value as string);
    }
    tools.add(toolName);
  }
}

/**
 * Most answers a client keeps of its local approver for calls the service took back while they were to come (the
 * oldest forgotten first): see {@link Approvals.left}.
 */
const MAX_LEFT_ANSWERS = 1_000;

/** A local approver: gets the request, answers a decision (or a promise of one). */
export type Approver = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** Dependencies of {@link Approvals}. */
export interface ApprovalsOptions {
  /** Local approver (`onApproval`); when absent, approval is asked of the service. */
  onApproval: Approver | undefined;
  socket: Pick<CallSocket, 'send' | 'maxPayloadBytes'>;
  /** The client's redactor: a reason is sent redacted. */
  redactor: Redactor;
  slots: Pick<Slots, 'park' | 'whenApprovedInSlot'>;
  deadlines: Pick<Deadlines, 'arm'>;
  /** Told of every request, whoever decides it: `service` when the service was asked (an `approval_request`). */
  requested(request: ApprovalRequest, service: boolean): void;
  /** The calls held now, by id. */
  held: { get(callId: string): Execution | undefined };
  /**
   * Told of the calls that wait for the local approver's later answer, and of those that go on approved (feature
   * `approval_waits`, docs/protocol/approvals.md); absent without `onApproval`.
   */
  waits?: Pick<SlotlessWaits, 'waiting' | 'running'>;
  /**
   * Told when a call begins to wait for a decision (`waits`: `true`), its arguments measured as they are forgotten
   * (./held-arguments.ts), and when it goes on approved (`false`): meanwhile its tool holds the input its schema
   * made, counted against `maxQueueBytes` by their bytes. A call that ends while it waits (rejected, cancelled, its
   * deadline, handed back, the client closing) is not told here: its end releases its bytes (./calls.ts).
   */
  waitsForDecision(execution: Execution, waits: boolean): void;
}

/** The approvals of one client's calls: asks (locally or the service), and hands decisions back to the calls. */
export class Approvals {
  readonly #options: ApprovalsOptions;
  /**
   * Calls waiting for the local approver's later decision (`onApproval` returned a promise), or approved by it and
   * waiting for a slot to go on with it: each with its wait ({@link inSlotIfApproved}).
   */
  readonly #local = new WeakMap<Execution, LocalWait>();
  /**
   * Calls approved by the local approver's later answer that took their slot ({@link inSlotIfApproved}): their
   * tool is about to begin, unless it has `concurrency` and waits at its gate ({@link Approvals.atGate}). One whose
   * tool begins at once leaves its entry here, dropped with the call (nothing reads it again).
   */
  readonly #decided = new WeakMap<Execution, LocalWait>();
  /**
   * Calls so approved that wait at their tool's gate (for their key's turn, or a slot in it): their answer is not
   * used until their tool begins ({@link Approvals.begins}), and is kept for them if they are taken back meanwhile.
   */
  readonly #atGate = new WeakMap<Execution, LocalWait>();
  /**
   * By call id, the waits for the local approver's answers (to come, or come) about calls that ended here before
   * they went on with them: the service took them back ({@link Approvals.left}). Made at the first.
   */
  #left: Map<string, LocalWait> | undefined;
  /**
   * The `signal` of the request of each call waiting for the service's decision: it stops following the call when
   * the decision arrives ({@link Approvals.redelivered}), before an approved call waits for its slot.
   */
  readonly #serviceAsked = new WeakMap<Execution, CallAbortState>();
  /**
   * Calls the local approver answered with a promise (a person, say): another worker would ask them again. An
   * answer given at once (a policy) costs nothing to give again, so those calls may move.
   */
  readonly #waitedHere = new WeakSet<Execution>();

  constructor(options: ApprovalsOptions) {
    this.#options = options;
  }

  /**
   * Asks for a decision on `execution`'s call. An answer the local approver gives at once keeps the slot; a wait
   * (a promise from the local approver, or the service's human) gives it up, and only an approved call takes
   * one back: a rejection, a throw or an answer that is no decision (told apart by `decideApproval` in
   * src/call/approval.ts) ends the call where it is.
   */
  ask(execution: Execution, request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision> {
    const { onApproval, slots } = this.#options;
    if (onApproval) {
      // A call sent again after the service took it back waits for the answer it was to get (`left`), unasked.
      const rejoined = this.#left === undefined ? undefined : this.#rejoined(request.callId);
      let decided: ApprovalDecision | PromiseLike<ApprovalDecision>;
      if (rejoined !== undefined) {
        decided = rejoined.decided;
        // The first request's `signal`, never read, was aborted when the call was taken back: the answer to it is
        // wanted again, so it follows this call until it comes (read late, it must not say the prompt is moot).
        rejoined.asked?.renew(execution.options.signal);
      } else {
        this.#options.requested(request, false);
        // The service's deadline applies as to a running call: its lease keeps the call while it waits
        // (docs/protocol/lease.md).
        decided = onApproval(request);
        if (!isThenable(decided)) return decided;
      }
      // Its tool has its arguments: while it waits, only small ones are kept (./held-arguments.ts), and their bytes
      // count against maxQueueBytes for the input its tool holds.
      forgetLargeArguments(execution, true);
      this.#options.waitsForDecision(execution, true);
      slots.park(execution);
      // The service counts it in no slot while it waits (feature `approval_waits`), and never asks it back.
      this.#options.waits?.waiting(request.callId);
      this.#waitedHere.add(execution);
      // The request the approver has: the first one when the call waits for that answer again.
      const wait: LocalWait = {
        decided,
        asked: rejoined === undefined ? signalState(request) : rejoined.asked,
      };
      this.#local.set(execution, wait);
      return inSlotIfApproved(wait, request.callId, this.#options, this.#local, this.#decided);
    }
    return new Promise<ApprovalDecision>((resolve) => {
      // The service's deadline clock pauses while a call waits for a human (docs/protocol/deadlines.md), and the call
      // gives
      // up its slot meanwhile: a human may take minutes, and the calls queued behind it must not wait for them.
      this.#options.deadlines.arm(execution, undefined);
      forgetLargeArguments(execution, true);
      this.#options.waitsForDecision(execution, true);
      slots.park(execution);
      execution.decide = resolve;
      execution.approvalReason = request.reason;
      const asked = signalState(request);
      if (asked !== undefined) this.#serviceAsked.set(execution, asked);
      this.#send(request.callId, request.reason);
      // Told only once the service has the request, so that a listener may answer at once with client.decide().
      this.#options.requested(request, true);
    });
  }

  /**
   * Whether the local approver (`onApproval`) answered about the call with a promise (a person, say): the call is
   * not handed to another worker (feature `hand_back`), where they would be asked again.
   */
  waitedHere(execution: Execution): boolean {
    return this.#waitedHere.has(execution);
  }

  /**
   * A call ended here without a result: the service took it back (src/client/calls.ts `#endWithoutResult`), and may
   * send it here again. When it waited for the local approver's later answer (a person may be deciding), or had it
   * and waited for a slot or at its tool's gate to go on, that answer is kept for it: the call, sent again, waits
   * for it rather than ask the approver a second time (one prompt per call, whose answer decides it). An answer is
   * used when the call's tool begins: a call sent again after that is a new run, asked again. At most
   * {@link MAX_LEFT_ANSWERS} are kept (a promise each and the request's signal state, nothing of the call); one
   * about a call that never comes back is forgotten past the limit.
   */
  left(execution: Execution): void {
    const wait = this.#local.get(execution) ?? this.#atGate.get(execution);
    if (wait === undefined) return;
    this.#local.delete(execution);
    this.#atGate.delete(execution);
    const { callId } = execution;
    this.#left ??= new Map();
    this.#left.delete(callId);
    this.#left.set(callId, wait);
    if (this.#left.size > MAX_LEFT_ANSWERS) this.#left.delete(this.#left.keys().next().value as string);
  }

  /**
   * The wait kept for a call sent again ({@link Approvals.left}), taken: its answer decides that call alone. None
   * when the approver read the request's `signal` and it aborted: it was told the prompt was moot when the call was
   * taken back (and may never answer it), so the call sent again is asked again. One whose answer came before the
   * take-back (an approved call in line for a slot or at its gate) never aborted: that answer still decides.
   */
  #rejoined(callId: string): LocalWait | undefined {
    const left = this.#left as Map<string, LocalWait>;
    const waited = left.get(callId);
    if (waited === undefined) return undefined;
    left.delete(callId);
    return waited.asked?.read === true && waited.asked.signal.aborted ? undefined : waited;
  }

  /**
   * A call of a tool with `concurrency` waits at its gate, its tool not begun: an answer of the local approver it
   * has (it is past its decision, {@link Approvals.waiting} `false`) is not used yet ({@link Approvals.left}).
   */
  atGate(execution: Execution): void {
    const wait = this.#decided.get(execution);
    if (wait === undefined) return;
    this.#decided.delete(execution);
    this.#atGate.set(execution, wait);
  }

  /** A call that waited at its tool's gate goes on to its tool: the answer it had, if any, is used. */
  begins(execution: Execution): void {
    this.#atGate.delete(execution);
  }

  /** Whether the call waits for a decision (the service's, or the local approver's later one). */
  waiting(execution: Execution): boolean {
    return execution.decide !== undefined || this.#local.has(execution);
  }

  /**
   * A `tool_call` for a call still held: the service's decision (`approved` set), or a re-delivery after a
   * reconnect, which asks again if the call still waits for a decision.
   */
  redelivered(execution: Execution, frame: ToolCallFrame): void {
    const decide = execution.decide;
    if (frame.approved === undefined) {
      if (decide !== undefined) this.#send(frame.callId, execution.approvalReason);
      return;
    }
    // A decision is applied once. A re-delivery of a decided call (after a reconnect) changes nothing, and must
    // not ask again: the service would answer with the decided call, and so on without end.
    if (decide === undefined) return;
    execution.decide = undefined;
    // The decision has arrived: the request's `signal` no longer follows the call (it may wait for a slot now).
    this.#serviceAsked.get(execution)?.end();
    // The service restarts the deadline in full after a decision (docs/protocol/deadlines.md).
    this.#options.deadlines.arm(execution, frame.deadlineMs);
    // An approved call goes back to work in a slot of its own: now if one is free, else first in line for the
    // next. A rejection ends the call where it is, without a slot.
    // Arguments the approver edited (docs/protocol/decisions.md) are validated again by the call, and the model told.
    const decision: ApprovalDecision =
      frame.argumentsEdited === true && typeof frame.arguments === 'object' && frame.arguments !== null
        ? { approved: true, arguments: frame.arguments as Record<string, unknown> }
        : true;
    // Cancelled while in line, it ends where it waits: the decision goes nowhere.
    if (frame.approved)
      this.#options.slots.whenApprovedInSlot(execution, (inSlot) => {
        if (!inSlot) return;
        this.#options.waitsForDecision(execution, false);
        decide(decision);
      });
    else decide({ approved: false, reason: frame.reason ?? '' });
  }

  /**
   * Sends the `approval_request` of a call: its reason redacted, then cut to fit the service's frame limit
   * ({@link approvalRequest}), so that the request always goes and the call gets its decision.
   */
  #send(callId: string, reason: string | undefined): void {
    const { socket, redactor } = this.#options;
    socket.send(approvalRequest(callId, reason, redactor, socket.maxPayloadBytes));
  }

  /** A new socket is open: every call still waiting for the service's decision asks again, once. */
  reconnected(held: Iterable<Execution>): void {
    for (const execution of held) {
      if (execution.decide !== undefined) {
        this.#send(execution.callId, execution.approvalReason);
      }
    }
  }
}

/** A call's wait for its local approver's later decision: one per ask, told apart by identity. */
interface LocalWait {
  readonly decided: PromiseLike<ApprovalDecision>;
  /** The abort state of the `signal` of the request the approver was given: it ends when the answer arrives. */
  readonly asked: CallAbortState | undefined;
}

/**
 * A local approver's later decision; an approved call takes a slot back first, and its wait ends once it goes
 * on: moved to `decided`, where a call that then waits at its tool's gate finds it ({@link Approvals.atGate}).
 * Made outside any function that holds the call: the reaction keeps the call's id only, so an approver whose
 * promise never settles (and that keeps it) keeps nothing of a call that ended meanwhile. The call held under that
 * id is the one of this wait only when `local` says so: not a call of the same id sent again after the first
 * ended, which has a wait of its own ({@link Approvals.left}). A call no longer held goes on at once, without a
 * slot.
 */
function inSlotIfApproved(
  wait: LocalWait,
  callId: string,
  options: Pick<ApprovalsOptions, 'held' | 'slots' | 'waits' | 'waitsForDecision'>,
  local: WeakMap<Execution, LocalWait>,
  decided: WeakMap<Execution, LocalWait>,
): Promise<ApprovalDecision> {
  return Promise.resolve(wait.decided).then((decision) => {
    // The answer has arrived: the request's `signal` no longer follows the call (an approved one may wait in line).
    wait.asked?.end();
    const held = options.held.get(callId);
    if (held === undefined || local.get(held) !== wait) return decision;
    const approved =
      decision === true || (typeof decision === 'object' && decision !== null && decision.approved === true);
    if (!approved) {
      local.delete(held);
      return decision;
    }
    // Its tool has not begun: while the socket is down it waits for the resume to say the call is still this
    // worker's (the service may have given it to another, which would run it too).
    return new Promise<ApprovalDecision>((resolve) =>
      options.slots.whenApprovedInSlot(held, (inSlot) => {
        // Cancelled while in line, it ends where it waits (its approval's wait ends at the abort), and the answer
        // not gone on with stays for the call if it is sent again (`left`).
        if (!inSlot) return;
        local.delete(held);
        decided.set(held, wait);
        options.waits?.running(callId);
        options.waitsForDecision(held, false);
        resolve(decision);
      }),
    );
  });
}

/**
 * The frame asking the service for a human's decision on a call. The reason is redacted (the API key, `redact`
 * rules: a predicate's or a policy's reason may quote anything), then cut on a character boundary, marked with `…`,
 * to what the frame limit leaves it (docs/protocol/approvals.md, docs/protocol/limits.md): with the documented minimum
 * of 1,024 bytes
 * there is
 * always room for the rest of the frame.
 */
export function approvalRequest(
  callId: string,
  reason: string | undefined,
  redactor: Redactor,
  maxPayloadBytes: number,
): FrameOf<ClientFrame, 'approval_request'> {
  if (reason === undefined) return { type: 'approval_request', callId };
  const frame: FrameOf<ClientFrame, 'approval_request'> = {
    type: 'approval_request',
    callId,
    reason: redactor.text(reason),
  };
  fitTextField(frame, 'reason', maxPayloadBytes);
  return frame;
}
