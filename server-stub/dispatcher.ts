/**
 * Sends tool calls to clients and collects their results: client choice (the run's own client first, else the
 * client with the fewest calls in flight), deadlines, busy retries, re-delivery on resume, re-dispatch when a
 * session expires, and the answers to `tool_result` (`ack` or `error`).
 *
 * @module
 */

// The model reads the same words whether the SDK or the service wrote them.
import { argumentsTooLargeText, cancelledText, timeoutText, unknownToolText } from '../src/tool/model-text';
import type { ClientFrame, FrameOf, ServiceFrame } from '../src/wire/protocol';
import type { Call, CallOutcome, CallResult } from './call';
import { agreesWithShown } from './definitions';
import { EarliestTimer } from './earliest-timer';
import { frameBytes } from './fit-frame';
import {
  buildOffers,
  describeLimits,
  type FleetLimiter,
  fleetHeldText,
  noBuildText,
  sameBuild,
} from './fleet';
import type { ResolvedStubOptions } from './options';
import {
  atCapacity,
  hasFreeSlots,
  mayServe,
  mayTake,
  offeredStrict,
  offeredTools,
  pickSession,
  slotsOf,
} from './routing';
import { type Run, reportedPart } from './run';
import type { Session } from './session';
import type { RunEventKind } from './transcript';

/** What the dispatcher needs from the service. */
export interface DispatcherDeps {
  options: Pick<
    ResolvedStubOptions,
    | 'callDeadlineMs'
    | 'busyRetryMs'
    | 'handBackAgainMs'
    | 'logger'
    | 'leaseMs'
    | 'maxCallDurationMs'
    | 'maxPayloadBytes'
  >;
  sessions: ReadonlyMap<string, Session>;
  emit(run: Run, kind: RunEventKind, data: unknown): void;
  /**
   * The call ended, or left the session it was dispatched to (expired, or gave it back): the questions of that
   * dispatch end, the open ones unanswered (docs/protocol/questions.md).
   */
  closeQuestions?(call: Call): void;
  /** A call was just held: an earlier `always` decision for its tool in its run decides it at once (`true`). */
  decidedAlways?(call: Call): boolean;
  /** Counts the calls of tools with `fleet` limits across sessions (server-stub/fleet.ts). */
  fleet?: FleetLimiter;
}

/** Why the service cancels a call. */
export type CancelReason = FrameOf<ServiceFrame, 'cancel'>['reason'] & string;

/** The dispatcher of one stub server. */
export class Dispatcher {
  readonly #deps: DispatcherDeps;
  readonly #calls = new Map<string, Call>();
  /** Calls in state `waiting`, in arrival order. */
  readonly #waiting = new Set<Call>();
  /**
   * Offers the waiting calls again when a tool's fleet rate window lets one more start: one timer for every tool's
   * window, set for the earliest (a tool whose window is long must not hold up another's).
   */
  readonly #fleetRetry = new EarliestTimer(() => this.retryWaiting());
  /** Runs {@link Dispatcher.#evenOut} when a call asked back before may be asked again, and a worker has room. */
  readonly #evenOutTimer = new EarliestTimer(() => this.#evenOut());
  /** Calls whose deadline has passed and that are kept only while their lease holds. */
  readonly #overdue = new WeakSet<Call>();
  /** What each call's deadline does when it passes (its check when the lease that kept it goes: `keyWaits`). */
  readonly #expireOf = new WeakMap<Call, () => void>();
  /** {@link Dispatcher.#evenOut} runs after the current task. */
  #evenOutDue = false;
  /** Counts dispatches, to spread calls between equally loaded sessions (server-stub/routing.ts). */
  #dispatches = 0;
  /** The dispatch count when each call was last sent (its order among the calls sent, for {@link cancelCalls}). */
  readonly #sentAt = new WeakMap<Call, number>();

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
  }

  /** The call with this id, finished or not. */
  get(callId: string): Call | undefined {
    return this.#calls.get(callId);
  }

  /**
   * Starts a call the model asked for and returns its outcome when it has one. Never rejects: every way a call
   * can end (result, deadline, cancel, unknown tool) is an outcome.
   */
  submit(call: Call): Promise<CallOutcome> {
    this.#calls.set(call.callId, call);
    call.run.calls.push(call);
    this.#deps.emit(call.run, 'tool_call', {
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      depth: call.depth,
      ...(offeredStrict(call.run, call.toolName, this.#deps.sessions) ? { strict: true } : {}),
    });
    if (!call.run.agent.tools.includes(call.toolName)) {
      this.#finish(call, {
        status: 'unknown_tool',
        output: unknownToolText(call.toolName, offeredTools(call.run, this.#deps.sessions)),
      });
    } else {
      this.#armDeadline(call);
      this.#evaluate(call, true);
    }
    return call.done;
  }

  /** Calls in flight on a session: dispatched there, result pending. */
  inFlight(session: Session): number {
    let count = 0;
    for (const callId of session.calls) if (this.#calls.get(callId)?.state === 'dispatched') count += 1;
    return count;
  }

  /**
   * Slots in flight on a session: each call dispatched there, result pending, counts its tool's `slots`, but for
   * a parked call (waiting for an answer or a nested run), which holds no slot in its client, and calls its client
   * said wait for their key or for its approver (within the client's own bound, below).
   */
  slotsInFlight(session: Session): number {
    let count = 0;
    let waiting = 0;
    for (const callId of session.calls) {
      const call = this.#calls.get(callId);
      if (call?.state !== 'dispatched' || call.activity.parked) continue;
      // Waiting for its concurrency key's turn (feature `key_waits`, docs/protocol/fleets.md) or for its client's
      // approver (feature `approval_waits`, docs/protocol/approvals.md): no slot held.
      if (call.activity.waitsForKey || call.activity.waitsForApprover) waiting += 1;
      else count += slotsOf(session, call.toolName);
    }
    if (waiting === 0) return count;
    // The client holds the waiting calls too: never more calls than it takes, `maxConcurrency + maxQueue`
    // (docs/protocol/fleets.md). A session holding that many has no room, whatever its calls hold.
    const { maxConcurrency } = session;
    if (maxConcurrency === undefined || maxConcurrency === 0) return count;
    const held = count + waiting;
    return held >= maxConcurrency + (session.maxQueue ?? maxConcurrency) ? Number.MAX_SAFE_INTEGER : count;
  }

  /**
   * `key_waits` (feature `key_waits`, docs/protocol/fleets.md): calls of `session` that wait for their concurrency
   * key's turn hold no slot and are not leased (one already past its deadline ends now); calls that go on hold
   * their slots again and are leased from now. Ids not in flight on that session are ignored.
   */
  keyWaits(session: Session, frame: FrameOf<ClientFrame, 'key_waits'>): void {
    if (!session.features.has('key_waits')) return;
    let freed = false;
    const overdue: Call[] = [];
    this.#strays(session, frame);
    for (const callId of frame.waiting ?? []) {
      const call = this.#inFlightOn(session, callId);
      if (call === undefined || call.activity.waitsForKey) continue;
      call.activity.waitsForKey = true;
      call.activity.leaseUntil = 0;
      freed = true;
      if (this.#overdue.has(call)) overdue.push(call);
    }
    for (const callId of frame.running ?? []) {
      const call = this.#inFlightOn(session, callId);
      if (call === undefined || !call.activity.waitsForKey) continue;
      call.activity.waitsForKey = false;
      if (session.features.has('lease')) call.activity.leaseUntil = Date.now() + this.#deps.options.leaseMs;
    }
    // Kept past its deadline by a lease it no longer has: it ends now, as it would have at its deadline.
    for (const call of overdue) this.#expireOf.get(call)?.();
    if (freed) {
      this.#offerWaiting(session);
      this.#evenOutSoon();
    }
  }

  /**
   * `approval_waits` (feature `approval_waits`, docs/protocol/approvals.md): calls of `session` that wait for its
   * client's own approver (a person, say) hold no slot; calls that go on hold their slots again. Either way its
   * client has taken it up: the frame renews its lease, as an update does (its client renews it while its person
   * decides), and it is never asked back (`hand_back`). Ids not in flight on that session are ignored.
   */
  approvalWaits(session: Session, frame: FrameOf<ClientFrame, 'approval_waits'>): void {
    if (!session.features.has('approval_waits')) return;
    let freed = false;
    this.#strays(session, frame);
    const leaseUntil = session.features.has('lease') ? Date.now() + this.#deps.options.leaseMs : 0;
    for (const callId of frame.waiting ?? []) {
      const call = this.#inFlightOn(session, callId);
      if (call === undefined) continue;
      call.activity.leaseUntil = leaseUntil;
      if (call.activity.waitsForApprover) continue;
      call.activity.waitsForApprover = true;
      freed = true;
    }
    for (const callId of frame.running ?? []) {
      const call = this.#inFlightOn(session, callId);
      if (call === undefined) continue;
      call.activity.leaseUntil = leaseUntil;
      call.activity.waitsForApprover = false;
    }
    if (freed) {
      this.#offerWaiting(session);
      this.#evenOutSoon();
    }
  }

  /** The ids a `key_waits` or `approval_waits` frame names that are not in flight on `session` ({@link notDispatched}). */
  #strays(session: Session, frame: { waiting?: string[] | undefined; running?: string[] | undefined }): void {
    const named = new Set([...(frame.waiting ?? []), ...(frame.running ?? [])]);
    const strays = [...named].filter((callId) => this.#inFlightOn(session, callId) === undefined);
    if (strays.length > 0) this.notDispatched(session, strays);
  }

  /**
   * `session` named these calls as calls it runs (a `lease`, a call update, a `question`, `key_waits`, `approval_waits`), and they are
   * not dispatched to it. Each that ended (but by this session's own result) or is assigned to another session gets
   * `cancel { reason: 'not_dispatched' }`, once per id: its worker may have missed the call's end (a `cancel` written
   * while its socket was down is not repeated) and would otherwise run it on, or wait for ever for an answer
   * (docs/protocol/calls-no-longer-held.md). A call assigned to `session` (held after its `approval_request`, or decided and on
   * its way back there), waiting here for a worker, unknown, or another tenant's is left alone.
   */
  notDispatched(session: Session, callIds: Iterable<string>): void {
    for (const callId of new Set(callIds)) {
      const call = this.#calls.get(callId);
      if (call === undefined || call.run.tenant !== session.tenant) continue;
      const ended = call.state === 'done' && call.answeredBy !== session.id;
      const elsewhere =
        call.state !== 'done' && call.sessionId !== undefined && call.sessionId !== session.id;
      if (!ended && !elsewhere) continue;
      call.disown(session.id);
      session.send({ type: 'cancel', callId, reason: 'not_dispatched' });
    }
  }

  /**
   * The ids of the calls `session` owes a result for (`welcome.owed`, feature `owed_calls`,
   * docs/protocol/calls-no-longer-held.md): each assigned to it and not done: dispatched there, held after its
   * `approval_request`, or decided and on its way back there.
   */
  owedBy(session: Session): string[] {
    return this.#owedCalls(session).map((call) => call.callId);
  }

  /**
   * The calls {@link owedBy} lists: what a resume re-sends is read from the same list, so that the service never
   * sends a session again a call its `welcome.owed` left out (its client drops such a call, then runs it anew).
   */
  #owedCalls(session: Session): Call[] {
    const owed: Call[] = [];
    for (const callId of session.calls) {
      const call = this.#calls.get(callId);
      if (call !== undefined && call.state !== 'done' && call.sessionId === session.id) owed.push(call);
    }
    return owed;
  }

  /** The call of that id when it is in flight on `session`. */
  #inFlightOn(session: Session, callId: string): Call | undefined {
    const call = this.#calls.get(callId);
    return call?.state === 'dispatched' && call.sessionId === session.id ? call : undefined;
  }

  /** Holds a call until a human decides. `requestedBy` says why. The deadline stops until the decision. */
  hold(call: Call, requestedBy: 'definition' | 'client', reason: string | undefined): void {
    // Held after its client's `approval_request`, it was in flight there: it holds no slot now.
    const session =
      call.state === 'dispatched' && call.sessionId !== undefined
        ? this.#deps.sessions.get(call.sessionId)
        : undefined;
    if (!call.hold(requestedBy, reason)) return;
    this.#waiting.delete(call);
    // Its room goes to the calls waiting here, as when a call ends (after the event: the request is heard first).
    if (session !== undefined)
      queueMicrotask(() => {
        this.#offerWaiting(session);
        this.#evenOutSoon();
      });
    // An earlier `always` for this tool in this run decides at once, asking nobody (docs/protocol/decisions.md).
    if (this.#deps.decidedAlways?.(call) === true) return;
    this.#deps.emit(call.run, 'approval_requested', {
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      requestedBy,
      ...(reason === undefined ? {} : { reason }),
      // The class the tool was announced with (its approvalRequired() class, when it gave no other).
      ...(call.activity.sideEffect === undefined ? {} : { sideEffect: call.activity.sideEffect }),
    });
  }

  /** Sends a call that was just decided: its deadline restarts in full and it goes out with the decision. */
  release(call: Call): void {
    this.#armDeadline(call);
    this.#evaluate(call);
  }

  /** Starts the call's deadline again in full (its last open question was answered, docs/protocol/questions.md). */
  restartDeadline(call: Call): void {
    this.#armDeadline(call);
  }

  /**
   * `session` was not written the `tool_call` of `callId`: with its arguments it is over the client's frame limit
   * (server-stub/session.ts), as it would be on every resume and on every other worker. The call ends now, with an
   * error the model reads, rather than at its deadline (docs/protocol/limits.md). In a microtask: the write may come
   * from a dispatch that offers the session more waiting calls, which must not nest once per call.
   */
  tooLarge(session: Session, callId: string, bytes: number): void {
    void Promise.resolve().then(() => {
      const call = this.#calls.get(callId);
      if (call?.state === 'dispatched' && call.sessionId === session.id) this.#finishTooLarge(call, bytes);
      else
        this.#deps.options.logger.error(
          { sessionId: session.id, callId, bytes, maxPayloadBytes: this.#deps.options.maxPayloadBytes },
          `not sending a tool_call frame of ${bytes} bytes: over the frame limit`,
        );
    });
  }

  /** Re-sends the call's current `tool_call` to the session it is assigned to (if connected). */
  resend(call: Call): void {
    const session = call.sessionId === undefined ? undefined : this.#deps.sessions.get(call.sessionId);
    if (session?.state === 'connected') session.send(call.frame(session.features));
  }

  /**
   * Handles a `tool_result`: records it and answers `ack`, or answers `error` (`unknown_call`,
   * `duplicate_result`, or `not_allowed` for a call held for approval or never sent to a client). A
   * `retryable` result is acknowledged but not recorded: the call is offered again, or, held for the approval its
   * client asked for, stays held and is no longer that client's.
   */
  onResult(session: Session, frame: FrameOf<ClientFrame, 'tool_result'>): void {
    const found = this.#calls.get(frame.callId);
    // Another tenant's call reads as unknown (server-stub/tenants.ts).
    const call = found?.run.tenant === session.tenant ? found : undefined;
    const { logger } = this.#deps.options;
    if (!call) {
      this.#error(
        session,
        'unknown_call',
        `no tool call has the id ${JSON.stringify(frame.callId)}`,
        frame.callId,
      );
      return;
    }
    if (call.state === 'done') {
      // A re-send from the session that answered (its outbox after a reconnect), a late result from a session
      // the call was sent to before it ended (its deadline, a cancel, another session's result, which sent this one
      // `cancel { reason: 'redispatched' }`), or the answer of a session told `not_dispatched`: received, nothing
      // recorded again.
      if (call.answeredBy === session.id || call.sentTo.includes(session.id) || call.disowned(session.id)) {
        session.ack(call.callId);
        // The worker has stopped running it: its fleet slot is free (docs/protocol/fleet-limits.md).
        if (this.#deps.fleet?.release(call.callId, session.id) === true)
          void Promise.resolve().then(() => this.retryWaiting());
        return;
      }
      this.#error(
        session,
        'duplicate_result',
        `tool call ${call.callId} already has a result (status ${call.result?.status})`,
        call.callId,
      );
      return;
    }
    if (call.sessionId !== session.id && call.disowned(session.id) && frame.status === 'cancelled') {
      // The echo of `not_dispatched` from a client that answers it (an older one): its worker stopped the call, which
      // is another session's or waits for one (docs/protocol/calls-no-longer-held.md). Received, nothing recorded. A result of
      // any other status is the call's, from wherever it comes (a tool that finished before its worker was told).
      session.ack(call.callId);
      return;
    }
    if (call.state === 'awaiting_approval' && call.sessionId !== session.id) {
      this.#refuse(session, call.callId, `tool call ${call.callId} is awaiting approval`);
      return;
    }
    if (call.sentTo.length === 0) {
      this.#refuse(session, call.callId, `tool call ${call.callId} has not been sent to any client`);
      return;
    }
    session.ack(call.callId);
    if (frame.retryable === true) {
      if (call.handBackHeld(session.id)) {
        // Held for the decision it asked for: it stays held, and the decision goes to another client.
        logger.debug(
          { callId: call.callId, sessionId: session.id },
          'client gave back a call held for approval; the decision goes to another client',
        );
        session.calls.delete(call.callId);
        return;
      }
      // Asked back for a worker with room (#evenOut), and this is the answer: it goes there if that one may take it.
      const { handBackTo } = call.activity;
      if (!call.requeueBusy(session.id)) return;
      logger.debug(
        { callId: call.callId, sessionId: session.id },
        'client busy; the call will be offered again',
      );
      session.calls.delete(call.callId);
      this.#deps.closeQuestions?.(call);
      this.#releaseFleet(call);
      this.#evaluate(call, false, handBackTo);
      // The room the call held there is free: the other calls waiting may go (this one is skipped there until its
      // retry). Else a call the client keeps refusing, first in line, holds back those the client would take: the
      // calls of the nested runs its waiting callers wait for, which alone can end those waits.
      this.#offerWaiting(session);
      // An answered hand_back lets the evening out go on (server-stub/dispatcher.ts #evenOut).
      this.#evenOutSoon();
      return;
    }
    const previous = call.sessionId;
    this.#finish(call, frameOutcome(frame), session.id);
    if (previous !== undefined && previous !== session.id) {
      // The result came from elsewhere (a restarted process re-sending its outbox): the copy is not needed.
      this.#deps.sessions
        .get(previous)
        ?.send({ type: 'cancel', callId: call.callId, reason: 'redispatched' });
    }
  }

  /** Ends a call early: `cancel` to the client running it, and a `cancelled` outcome for the model. */
  cancel(call: Call, reason: CancelReason): void {
    if (call.state === 'done') return;
    // A client holds a call it asked approval for, so it hears of the cancel as well.
    if (call.sessionId !== undefined) this.#sendCancel(call, reason);
    this.#finish(call, { status: 'cancelled', output: cancelledText(call.toolName) });
  }

  /**
   * Cancels every call of the run that is not done yet (the run ended), so that no call of the run waiting in a
   * client's queue can start in a slot freed by the cancel of another (docs/protocol/deadlines.md): first the
   * calls not sent to any client (ending one offers the waiting calls to its session), then those sent, the most
   * recently sent first; the cancels to one session go out in one write.
   */
  cancelCalls(run: Run, reason: CancelReason): void {
    const open: Call[] = [];
    for (const { callId } of run.calls) {
      const call = this.#calls.get(callId);
      if (call !== undefined && call.state !== 'done') open.push(call);
    }
    if (open.length === 0) return;
    const sentAt = (call: Call) =>
      call.sessionId === undefined ? Number.MAX_SAFE_INTEGER : (this.#sentAt.get(call) ?? 0);
    open.sort((a, b) => sentAt(b) - sentAt(a));
    const corked = new Set<Session>();
    for (const call of open) {
      const session = call.sessionId === undefined ? undefined : this.#deps.sessions.get(call.sessionId);
      if (session !== undefined && !corked.has(session)) {
        corked.add(session);
        session.cork();
      }
    }
    try {
      for (const call of open) this.cancel(call, reason);
    } finally {
      for (const session of corked) session.uncork();
    }
  }

  /**
   * A session has said `welcome`: re-send what it owes results for, then offer it the waiting calls. A resume
   * renews (docs/protocol/lease.md): each call of the session that was leased has its lease from now, since the
   * renewals its client sent before the drop may have died with the socket, and the next deadline check would
   * otherwise read the lease the call had before the drop.
   */
  onSessionReady(session: Session, resumed: boolean): void {
    if (resumed) {
      const leaseUntil = Date.now() + this.#deps.options.leaseMs;
      const leasing = session.features.has('lease');
      for (const call of this.#owedCalls(session)) {
        if (call.state !== 'dispatched') continue;
        const { activity } = call;
        // Its client says again which calls wait for their key (docs/protocol/fleets.md): until then, each holds
        // its slots, and is leased again with the feature. A call never leased (queued behind the client's running
        // calls, not named since) stays so.
        const leased = activity.waitsForKey || activity.leaseUntil !== 0;
        activity.waitsForKey = false;
        activity.waitsForApprover = false;
        // A hand_back asked before the drop, or its answers, may have died with the socket: it may be asked again.
        activity.handBackTo = undefined;
        activity.handedBackAt = Number.NEGATIVE_INFINITY;
        activity.leaseUntil = leasing && leased ? leaseUntil : 0;
        session.send(call.frame(session.features));
      }
    }
    this.retryWaiting();
    this.#evenOutSoon();
  }

  /** A session expired: its calls go back to the pool (at-least-once: the old process may have run them). */
  onSessionExpired(session: Session): void {
    const orphans: Call[] = [];
    const { callDeadlineMs } = this.#deps.options;
    for (const callId of session.calls) {
      const call = this.#calls.get(callId);
      if (!call?.sessionLost()) continue;
      this.#deps.closeQuestions?.(call);
      if (this.#overdue.has(call)) {
        // Its deadline passed while the lease of the session that left held it: nothing more to wait for.
        // Kept past its deadline by its lease, then its worker never came back: the model is told both.
        const output = `${timeoutText(call.toolName, callDeadlineMs)}: its worker was lost while it ran`;
        this.#finish(call, { status: 'timeout', output });
        continue;
      }
      orphans.push(call);
      this.#deps.options.logger.info(
        { callId, sessionId: session.id },
        'session expired with a call in flight; offering it to another client',
      );
    }
    session.calls.clear();
    // Its calls, and those it still ran after they ended for the model, no longer hold a fleet slot.
    this.#deps.fleet?.releaseSession(session.id);
    for (const call of this.#calls.values()) call.forgetBusy(session.id);
    for (const call of orphans) this.#waiting.add(call);
    this.retryWaiting();
  }

  /**
   * Offers every waiting call again (a client connected, resumed, or changed its tools; a call parked and so left
   * a slot free).
   */
  retryWaiting(): void {
    for (const call of [...this.#waiting]) this.#evaluate(call);
  }

  /** Clears every timer (server shutdown). */
  dispose(): void {
    this.#fleetRetry.clear();
    this.#evenOutTimer.clear();
    for (const call of this.#calls.values()) call.stopTimers();
  }

  /**
   * Sends the call to a session that may take it now, or keeps it waiting for one. `first`: the model has just
   * asked for it. A call of a tool no live session offers then ends `unknown_tool` at once; a call already waiting
   * keeps waiting, within its deadline, when the last session offering its tool goes (expires, leaves with 1000,
   * drops the tool), as the calls owed by an expired session do: its worker may come back in a new session
   * (docs/protocol/routing.md). `handBackTo`: the call's worker answered busy the ask to hand it back for this
   * session (#evenOut), which takes it while it may. An ask the worker ignored (it had begun the call) moves nothing:
   * such a call that its worker then held for a person comes here with the decision, for that worker
   * (docs/protocol/approvals.md).
   */
  #evaluate(call: Call, first = false, handBackTo?: string): void {
    if (call.state !== 'waiting') return;
    const slotsInFlight = (session: Session) => this.slotsInFlight(session);
    call.activity.handBackTo = undefined;
    const taker = handBackTo === undefined ? undefined : this.#deps.sessions.get(handBackTo);
    const target =
      taker !== undefined && mayTake(taker, call, slotsInFlight)
        ? taker
        : pickSession(call, this.#deps.sessions, slotsInFlight);
    if (!target) {
      this.#waiting.add(call);
      // Waiting for a worker now, whatever held it before.
      call.activity.heldByFleet = undefined;
      if (first && !mayServe(call, this.#deps.sessions)) {
        this.#finish(call, {
          status: 'unknown_tool',
          output: unknownToolText(call.toolName, offeredTools(call.run, this.#deps.sessions)),
        });
        return;
      }
      call.retryWhenBusy(this.#deps.options.busyRetryMs, () => this.#evaluate(call));
      return;
    }
    const definition = target.tools.get(call.toolName);
    const limits = definition?.fleet;
    const fleet = this.#deps.fleet;
    // Held for a person first: the limits count dispatches, and this one is not sent until it is decided. Held when
    // the definition the model was shown or the target's says so (they differ in a deploy without builds), unless
    // the target asks its own approver: only its own definition makes it ask (docs/protocol/routing.md).
    const ownGate = definition?.needsApproval === true;
    const gate = ownGate ? definition : call.gate;
    const heldFirst =
      call.decision === undefined && gate !== undefined && !(ownGate && target.localApprovals);
    // A call its worker held for a decision (requestedBy `client`) still counts from its dispatch.
    if (limits !== undefined && fleet !== undefined && !heldFirst && !fleet.counts(call.callId)) {
      // Over the tool's fleet-wide limit: held here, sent when a call of it ends or its rate window lets one more start.
      // An approved call too: a person's decision is not a dispatch.
      const waitMs = fleet.waitFor(call.run.tenant, call.toolName, limits);
      if (waitMs > 0) {
        this.#waiting.add(call);
        call.activity.heldByFleet = describeLimits(limits);
        if (Number.isFinite(waitMs)) this.#fleetRetry.at(Date.now() + waitMs);
        return;
      }
    }
    this.#waiting.delete(call);
    call.activity.heldByFleet = undefined;
    if (heldFirst) {
      // Nobody is asked about a call that could never be sent: it ends now (see tooLarge).
      const bytes = frameBytes(call.frame(target.features));
      if (bytes > this.#deps.options.maxPayloadBytes) {
        this.#finishTooLarge(call, bytes);
        return;
      }
      call.activity.sideEffect = gate.sideEffect;
      this.hold(call, 'definition', gate.approvalReason);
      return;
    }
    if (limits !== undefined && fleet !== undefined)
      fleet.started(call.callId, call.run.tenant, call.toolName, limits, target.id);
    // A run no client pinned takes the build of the first worker that takes one of its calls (fleets.md).
    if (call.run.buildId === undefined && target.buildId !== undefined) call.run.buildId = target.buildId;
    const startsAtOnce = hasFreeSlots(target, this.slotsInFlight(target), slotsOf(target, call.toolName));
    call.dispatch(target.id);
    call.activity.waitsForKey = false;
    call.activity.waitsForApprover = false;
    target.lastDispatch = ++this.#dispatches;
    this.#sentAt.set(call, this.#dispatches);
    call.activity.sideEffect = definition?.sideEffect;
    call.activity.strict = definition?.strict === true;
    // A call sent into a free slot begins at once: its lease starts now, until the client's first renewal. One
    // sent to queue behind the client's running calls is not leased until a slot frees for it (#leaseBegun) or the
    // client names it (a `lease`, an update): until then its deadline applies (docs/protocol/lease.md).
    if (target.features.has('lease'))
      call.activity.leaseUntil = startsAtOnce ? Date.now() + this.#deps.options.leaseMs : 0;
    target.calls.add(call.callId);
    target.send(call.frame(target.features));
  }

  #armDeadline(call: Call): void {
    const deadlineMs = this.#deps.options.callDeadlineMs;
    this.#overdue.delete(call);
    const expire = () => {
      const keepMs = this.#leaseLeft(call);
      if (keepMs > 0) {
        // Kept by its lease past the deadline (an open question instead restarts the deadline when answered).
        if (call.activity.openQuestions === 0) this.#overdue.add(call);
        call.armDeadline(keepMs, expire);
        return;
      }
      if (call.state === 'dispatched') this.#sendCancel(call, 'deadline');
      const { buildId } = call.run;
      const noBuild =
        call.state === 'waiting' &&
        buildId !== undefined &&
        !buildOffers(call.run, call.toolName, this.#deps.sessions);
      const { heldByFleet } = call.activity;
      const output = noBuild
        ? noBuildText(call.toolName, buildId, deadlineMs)
        : call.state === 'waiting' && heldByFleet !== undefined
          ? fleetHeldText(call.toolName, deadlineMs, heldByFleet)
          : timeoutText(call.toolName, this.#limitThatCut(call, deadlineMs));
      this.#finish(call, { status: 'timeout', output });
    };
    this.#expireOf.set(call, expire);
    call.armDeadline(deadlineMs, expire);
  }

  /**
   * How long a call past its deadline is kept (docs/protocol/lease.md): while it has an open question
   * (docs/protocol/questions.md); until its lease runs out, while its session negotiated `lease`; a detached
   * session's leased call is kept (it cannot renew until it resumes; its expiry ends or re-dispatches the call:
   * the client stops it by the same rule, src/client/calls.ts `Leases`), and so is one whose socket is being closed
   * (found silent: the close handshake may outlast the lease of a call whose last renewal was lost); 0 past
   * `maxCallDurationMs`, or without
   * a lease (never leased: sent to queue behind the client's running calls and not named since).
   */
  #leaseLeft(call: Call): number {
    if (call.state !== 'dispatched' || call.sessionId === undefined) return 0;
    // A call waiting for a person's answer is not cut (its deadline starts again after the answer).
    if (call.activity.openQuestions > 0) return this.#deps.options.callDeadlineMs;
    const session = this.#deps.sessions.get(call.sessionId);
    const { leaseMs, maxCallDurationMs } = this.#deps.options;
    const now = Date.now();
    if (!session?.features.has('lease') || now - call.createdAt >= maxCallDurationMs) return 0;
    // Never leased (queued behind the client's running calls, not named since): its deadline applies.
    if (call.activity.leaseUntil === 0) return 0;
    const left = dropped(session) ? leaseMs : call.activity.leaseUntil - now;
    return Math.max(0, Math.min(left, call.createdAt + maxCallDurationMs - now));
  }

  /**
   * The limit the model is told cut a call at its deadline check: `maxCallDurationMs` for a leased call kept past
   * its deadline until that bound (docs/protocol/lease.md), else the deadline.
   */
  #limitThatCut(call: Call, deadlineMs: number): number {
    const { maxCallDurationMs } = this.#deps.options;
    if (call.state !== 'dispatched' || call.sessionId === undefined || maxCallDurationMs <= deadlineMs)
      return deadlineMs;
    const session = this.#deps.sessions.get(call.sessionId);
    const cut = session?.features.has('lease') === true && Date.now() - call.createdAt >= maxCallDurationMs;
    return cut ? maxCallDurationMs : deadlineMs;
  }

  #finishTooLarge(call: Call, bytes: number): void {
    const { logger, maxPayloadBytes } = this.#deps.options;
    logger.warn(
      { callId: call.callId, sessionId: call.sessionId, bytes, maxPayloadBytes },
      `tool call ${call.callId} ends: its tool_call would be ${bytes} bytes, over the frame limit`,
    );
    this.#finish(call, {
      status: 'error',
      output: argumentsTooLargeText(call.toolName, bytes, maxPayloadBytes),
    });
  }

  #sendCancel(call: Call, reason: CancelReason): void {
    const session = call.sessionId === undefined ? undefined : this.#deps.sessions.get(call.sessionId);
    session?.send({ type: 'cancel', callId: call.callId, reason });
  }

  #finish(call: Call, outcome: CallResult, answeredBy?: string): void {
    const freed = call.state === 'dispatched' && call.sessionId !== undefined;
    const session = call.sessionId === undefined ? undefined : this.#deps.sessions.get(call.sessionId);
    if (!call.finish(outcome, answeredBy)) return;
    // A call ended without its worker's result (deadline, cancel) may still run there: its fleet slot stays
    // taken until that result, or the end of the session (docs/protocol/fleet-limits.md).
    if (answeredBy !== undefined || !freed || session === undefined || session.state === 'expired')
      this.#releaseFleet(call);
    this.#deps.closeQuestions?.(call);
    this.#waiting.delete(call);
    session?.calls.delete(call.callId);
    const data: Record<string, unknown> = {
      callId: call.callId,
      toolName: call.toolName,
      status: outcome.status,
      output: outcome.output,
      durationMs: (call.finishedAt ?? call.createdAt) - call.createdAt,
    };
    if (outcome.widget !== undefined) data.widget = outcome.widget;
    if (outcome.content !== undefined) data.content = outcome.content;
    const part = reportedPart(outcome);
    if (part !== undefined) data.result = part;
    this.#deps.emit(call.run, 'tool_result', data);
    if (freed && session) {
      this.#offerWaiting(session);
      if (session.state === 'connected') this.#evenOutSoon();
    }
  }

  /** Runs {@link Dispatcher.#evenOut} once, after what happens now (many calls may end in one task). */
  #evenOutSoon(): void {
    if (this.#evenOutDue) return;
    this.#evenOutDue = true;
    queueMicrotask(() => {
      this.#evenOutDue = false;
      this.#evenOut();
    });
  }

  /**
   * Feature `hand_back` (docs/protocol/fleets.md): a connected session with free slots (the taker), and no call
   * waiting here that it could take, takes calls another session holds that have not begun there:
   *
   * - Calls queued behind that session's running calls ({@link Dispatcher.#notBegunOn}): the taker starts them at
   *   once, so from the session with the most such calls it could be sent, it takes as many as it has free slots.
   * - Else calls waiting for their key's turn: from the session with the most such calls it could be sent, at most
   *   half the difference between their waiting calls and its own, and no more than its free slots. Evening out, not
   *   emptying: the service does not know the keys.
   *
   * The calls sent last are asked back first. A call asked back is asked again only `handBackAgainMs` after it was
   * last asked (then this runs again), so that it does not hop from worker to worker. Nothing more of a tenant is
   * asked while an earlier ask is unanswered (its calls still wait where they were): the counts would not yet show
   * where those calls go.
   */
  #evenOut(): void {
    const { sessions } = this.#deps;
    const now = Date.now();
    const againMs = this.#deps.options.handBackAgainMs;
    const holders: Array<{ session: Session; held: NotBegun }> = [];
    // A tenant with an ask unanswered waits for it; the others go on.
    const answering = new Set<string | undefined>();
    /** The earliest time a call left out for its last ask may be asked again, or an ask counts as answered. */
    let again = Number.POSITIVE_INFINITY;
    for (const session of sessions.values()) {
      if (session.state !== 'connected' || !session.features.has('hand_back')) continue;
      const held = this.#notBegunOn(session, now);
      if (held.askedUntil !== undefined) {
        answering.add(session.tenant);
        again = Math.min(again, held.askedUntil);
      } else if (held.keyWaits.length > 0 || held.queued.length > 0) holders.push({ session, held });
    }
    for (const taker of holders.length === 0 ? [] : sessions.values()) {
      if (taker.state !== 'connected' || taker.left || answering.has(taker.tenant)) continue;
      const free = this.#freeSlots(taker);
      if (free <= 0 || [...this.#waiting].some((call) => this.#couldTake(taker, call))) continue;
      /** The calls of `holder` that may be asked back for the taker now. */
      const movable = (holder: Session, calls: readonly Call[]): Call[] =>
        calls.filter((call) => {
          if (
            call.run.ownerSessionId !== undefined ||
            !this.#couldTake(taker, call) ||
            // Never from a worker whose definition is the one the model was shown to one whose is not.
            (!agreesWithShown(taker, call) && agreesWithShown(holder, call))
          )
            return false;
          const { handedBackAt } = call.activity;
          if (now - handedBackAt >= againMs) return true;
          again = Math.min(again, handedBackAt + againMs);
          return false;
        });
      const largest = (of: (held: NotBegun) => readonly Call[]): Call[] => {
        let best: Call[] = [];
        for (const { session: holder, held } of holders) {
          if (holder === taker || holder.tenant !== taker.tenant) continue;
          const calls = movable(holder, of(held));
          if (calls.length > best.length) best = calls;
        }
        return best;
      };
      let best = largest((held) => held.queued);
      let count = Math.min(free, best.length);
      const queued = count > 0;
      if (!queued) {
        best = largest((held) => held.keyWaits);
        count = Math.min(free, Math.floor((best.length - this.#notBegunOn(taker, now).keyWaits.length) / 2));
      }
      if (count <= 0) continue;
      best.sort((a, b) => (this.#sentAt.get(b) ?? 0) - (this.#sentAt.get(a) ?? 0));
      const asked = best.slice(0, count);
      for (const call of asked) {
        call.activity.handedBackAt = now;
        call.activity.handBackTo = taker.id;
      }
      const holder = sessions.get(asked[0]?.sessionId ?? '');
      holder?.send({ type: 'hand_back', callIds: asked.map((call) => call.callId) });
      answering.add(taker.tenant);
      if (queued) again = Math.min(again, now + againMs);
      this.#deps.options.logger.debug(
        { from: holder?.id, to: taker.id, calls: count },
        queued
          ? 'asking a worker to hand back calls queued behind its running calls, for a worker with room'
          : 'asking a worker to hand back calls waiting for their key, for a worker with room',
      );
    }
    if (again !== Number.POSITIVE_INFINITY) this.#evenOutTimer.at(again);
  }

  /**
   * The calls in flight on `session` that have not begun there and are not asked back: those waiting for their
   * key's turn (`key_waits`), and those queued behind its running calls by the service's count
   * ({@link Dispatcher.#queuedOn}). `askedUntil`: set while an ask of its calls is unanswered, the time an ask of
   * queued calls counts as answered at the latest (`Infinity` for a call waiting for its key: until it leaves or
   * runs). A queued call asked back that has begun is no longer counted queued once a call before it ends.
   */
  #notBegunOn(session: Session, now: number): NotBegun {
    const keyWaits: Call[] = [];
    const queued: Call[] = [];
    let askedUntil: number | undefined;
    for (const callId of session.calls) {
      const call = this.#calls.get(callId);
      if (call?.state !== 'dispatched' || !call.activity.waitsForKey) continue;
      if (call.activity.handBackTo !== undefined) askedUntil = Number.POSITIVE_INFINITY;
      else keyWaits.push(call);
    }
    const againMs = this.#deps.options.handBackAgainMs;
    for (const call of this.#queuedOn(session)) {
      // Decided for the client that asked, it goes back there (docs/protocol/routing.md): not moved.
      if (call.approval?.requestedBy === 'client') continue;
      const until = call.activity.handedBackAt + againMs;
      if (call.activity.handBackTo === undefined || until <= now) queued.push(call);
      else askedUntil = Math.min(askedUntil ?? Number.POSITIVE_INFINITY, until);
    }
    return { keyWaits, queued, askedUntil };
  }

  /**
   * The calls the service counts as queued in `session`'s client behind its running calls (docs/protocol/fleets.md),
   * the calls sent last first ({@link Dispatcher.#slotted}).
   */
  #queuedOn(session: Session): Call[] {
    return this.#slotted(session).queued.reverse();
  }

  /**
   * The calls in flight on `session` that hold slots in its client by the service's count (not parked, not waiting
   * for their key or their approver), in the order they were sent, which is the order its client starts them in:
   * `begun`, those within its `maxConcurrency` slots (the first always), and `queued`, the rest from the first that
   * does not fit. None queued for a session that announced no `maxConcurrency`.
   */
  #slotted(session: Session): { begun: Call[]; queued: Call[] } {
    const holding: Call[] = [];
    for (const callId of session.calls) {
      const call = this.#calls.get(callId);
      if (call?.state !== 'dispatched') continue;
      const { activity } = call;
      if (activity.parked || activity.waitsForKey || activity.waitsForApprover) continue;
      holding.push(call);
    }
    const max = session.maxConcurrency;
    if (max === undefined || max === 0) return { begun: holding, queued: [] };
    holding.sort((a, b) => (this.#sentAt.get(a) ?? 0) - (this.#sentAt.get(b) ?? 0));
    let used = 0;
    for (const [index, call] of holding.entries()) {
      if (!hasFreeSlots(session, used, slotsOf(session, call.toolName)))
        return { begun: holding.slice(0, index), queued: holding.slice(index) };
      used += slotsOf(session, call.toolName);
    }
    return { begun: holding, queued: [] };
  }

  /**
   * Room freed on `session`: a call it holds queued behind its running calls that now has a slot by the service's
   * count begins there, so it is leased from now, as a call sent into a free slot is when sent
   * (docs/protocol/lease.md); else its deadline would cut it while it runs, before its client's first renewal
   * names it. A client that takes its queue out of order may not have begun it: it ends such a call itself, `timeout`,
   * at its deadline.
   */
  #leaseBegun(session: Session): void {
    const max = session.maxConcurrency;
    if (!session.features.has('lease') || max === undefined || max === 0) return;
    let unleased = false;
    for (const callId of session.calls) {
      const call = this.#calls.get(callId);
      if (call?.state === 'dispatched' && call.activity.leaseUntil === 0) unleased = true;
    }
    if (!unleased) return;
    const leaseUntil = Date.now() + this.#deps.options.leaseMs;
    for (const call of this.#slotted(session).begun)
      if (call.activity.leaseUntil === 0) call.activity.leaseUntil = leaseUntil;
  }

  /** Slots of `session` not held by its calls in flight; a session that announced no `maxConcurrency` has none known. */
  #freeSlots(session: Session): number {
    const max = session.maxConcurrency;
    if (max === undefined || max === 0) return 0;
    return max - this.slotsInFlight(session);
  }

  /** `session` may be sent `call`: its tenant and build, and the tool offered. */
  #couldTake(session: Session, call: Call): boolean {
    return (
      session.tenant === call.run.tenant &&
      sameBuild(call.run, session) &&
      session.tools.has(call.toolName) &&
      !call.busyFrom.has(session.id)
    );
  }

  /** The call no longer counts against its tool's fleet limits: calls waiting for room are offered again. */
  #releaseFleet(call: Call): void {
    if (this.#deps.fleet?.release(call.callId) === true)
      void Promise.resolve().then(() => this.retryWaiting());
  }

  /**
   * A call of `session` ended (or holds no slot now): a call queued there behind it begins, and it is offered waiting
   * calls while it has room (it may have been at capacity).
   */
  #offerWaiting(session: Session): void {
    this.#leaseBegun(session);
    const slotsInFlight = (target: Session) => this.slotsInFlight(target);
    for (const call of [...this.#waiting]) {
      if (session.state !== 'connected' || atCapacity(session, slotsInFlight)) return;
      this.#evaluate(call);
    }
  }

  #refuse(session: Session, callId: string, message: string): void {
    this.#deps.options.logger.warn({ sessionId: session.id, code: 'not_allowed', callId }, message);
    session.send({ type: 'error', code: 'not_allowed', message, callId });
  }

  #error(session: Session, code: 'unknown_call' | 'duplicate_result', message: string, callId: string): void {
    this.#deps.options.logger.warn({ sessionId: session.id, code, callId }, message);
    session.send({ type: 'error', code, message, callId });
  }
}

/** What a session holds that has not begun there ({@link Dispatcher.#notBegunOn}). */
interface NotBegun {
  /** Calls waiting for their key's turn, not asked back. */
  keyWaits: Call[];
  /** Calls queued behind its running calls, not asked back (or asked longer than `handBackAgainMs` ago). */
  queued: Call[];
  /** Set while an ask of its calls is unanswered: when it counts as answered at the latest. */
  askedUntil: number | undefined;
}

/**
 * `true` when the session has dropped: detached, or its socket is closing (the service closed it, e.g. found silent,
 * and waits for the close handshake before it detaches the session).
 */
function dropped(session: Session): boolean {
  const { socket } = session;
  return session.state === 'detached' || (socket !== undefined && socket.readyState === socket.CLOSING);
}

function frameOutcome(frame: FrameOf<ClientFrame, 'tool_result'>): CallResult {
  const outcome: CallResult = { status: frame.status, output: frame.output };
  if (frame.widget !== undefined) outcome.widget = frame.widget;
  if (frame.content !== undefined) outcome.content = frame.content;
  if (frame.result !== undefined) outcome.result = frame.result;
  if (frame.durationMs !== undefined) outcome.clientDurationMs = frame.durationMs;
  return outcome;
}
