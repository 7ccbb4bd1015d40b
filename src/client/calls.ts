/**
 * Tool calls received from the service: concurrency limit, bounded queue, de-duplication by call id,
 * cancellation, approvals and the outbox of results waiting for an `ack`.
 *
 * Guarantee: within one process a call id is executed at most once. A re-delivered `tool_call` joins the
 * execution in flight, or is answered from the outbox.
 *
 * @module
 */
import { Cancellation } from '../call/call-signal';
import { startByName, type ToolRegistry } from '../call/registry';
import type { ApprovalDecision, ApprovalRequest, ResultSink, ToolCallResult } from '../call/types';
import { MAX_TIMEOUT_MS } from '../limits';
import type { Logger, Redactor } from '../logger';
import { isThenable } from '../maybe';
import { cancelledText } from '../tool/model-text';
import { thrownMessage, toWellFormed, truncateJsonString } from '../tool/output';
import { type ClientFrame, encodeFrame, type FrameOf, type ServiceFrame, utf8Length } from '../wire/protocol';

type ToolCallFrame = FrameOf<ServiceFrame, 'tool_call'>;
type ToolResultFrame = FrameOf<ClientFrame, 'tool_result'>;

/** What an approver gets: the request plus the raw frame it came from. */
export type Approver = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

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
  widgetInvalid(info: { toolName: string; callId: string; path: string; message: string }): void;
}

/** Dependencies of a {@link CallRunner}. */
export interface CallRunnerOptions {
  registry: ToolRegistry;
  maxConcurrency: number;
  maxQueue: number;
  /** Results are held (not written) while the socket buffers more than this many bytes. */
  highWaterMarkBytes: number;
  send(frame: ClientFrame): boolean;
  writable(): boolean;
  bufferedAmount(): number;
  maxPayloadBytes(): number;
  /** `ctx.context` for a call; may return a promise, and may throw (the call then fails without running). */
  contextFor(call: ToolCallFrame): unknown;
  /** Local approver (`onApproval`); when absent, approval is asked of the service. */
  onApproval: Approver | undefined;
  /** Extra fields for every call's `ctx` (e.g. the nested-run capability). */
  extend: Readonly<Record<PropertyKey, unknown>>;
  redactor: Redactor;
  logger: Logger;
  events: CallEvents;
}

/**
 * One call received and not yet finished. It is its own {@link Cancellation} (aborting it aborts `ctx.signal`:
 * a `cancel` from the service, the deadline, `close()`) and its own result sink: a held call is one object.
 */
class Execution extends Cancellation implements ResultSink {
  readonly frame: ToolCallFrame;
  readonly #runner: CallRunner;
  state: 'queued' | 'running' = 'queued';
  approval: ((decision: ApprovalDecision) => void) | undefined;
  approvalFrame: FrameOf<ClientFrame, 'approval_request'> | undefined;
  /**
   * When the call aborts itself (`performance.now()` time, whole ms): the service's `deadlineMs` passed, and
   * its `cancel` may have been lost with a socket. `undefined` while no deadline runs (none given, or waiting
   * for a human).
   */
  deadlineAt: number | undefined;
  /** Waiting on a nested run or a human's approval: it holds no concurrency slot. */
  parked = false;
  /** When it started running (`performance.now()`, whole ms: a small integer, not a heap number). */
  started = 0;
  /** Approved or rejected while parked, and queued for a slot: goes on when it gets one. */
  resume: (() => void) | undefined;

  constructor(frame: ToolCallFrame, runner: CallRunner) {
    super();
    this.frame = frame;
    this.#runner = runner;
  }

  result(result: ToolCallResult): void {
    this.#runner.finished(this, result);
  }
}

/** Extra time after `deadlineMs` before a call aborts itself, in milliseconds. */
export const DEADLINE_GRACE_MS = 1_000;

/**
 * Finished call ids are remembered, to refuse a re-delivery after the `ack`, in two generations of this many: at
 * least the last 10,000 and at most the last 20,000.
 */
const REMEMBERED_CALL_IDS = 10_000;
/**
 * Room kept for the rest of a `tool_result` frame when capping `output`, in bytes: the output's JSON takes at
 * most `maxPayloadBytes` minus this (or minus the actual envelope, when a long call id makes it larger).
 */
export const ENVELOPE_BYTES = 512;

/** Runs tool calls for one client. Owned by `Client`; not exported from the package. */
export class CallRunner {
  readonly #options: CallRunnerOptions;
  readonly #executions = new Map<string, Execution>();
  readonly #queue: Execution[] = [];
  readonly #outbox = new Map<string, { frame: ToolResultFrame; sentOn: number }>();
  /**
   * Ids of finished calls, newest generation first. When it is full it becomes the older one and the older is
   * dropped whole: no deletion per call (each one, in a large set, costs a few cache misses).
   */
  #finished = new Set<string>();
  #finishedBefore = new Set<string>();
  #running = 0;
  #generation = 0;
  #accepting = true;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** The one timer for every call's deadline, and when it fires (`performance.now()` time). */
  #sweepTimer: ReturnType<typeof setTimeout> | undefined;
  #sweepAt = Number.POSITIVE_INFINITY;
  /** Some outbox entry may not be written on the current socket yet (a flush stopped early). */
  #backlog = false;
  /** {@link CallRunner.#drainQueue} is running (a synchronous call finishing inside it must not start another). */
  #draining = false;
  /** A drain is scheduled (see {@link CallRunner.#scheduleDrain}). */
  #drainDue = false;
  #idleWaiters: Array<() => void> = [];

  constructor(options: CallRunnerOptions) {
    this.#options = options;
  }

  /** Calls executing now. */
  get running(): number {
    return this.#running;
  }

  /** Calls waiting for a free slot. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Results not yet acknowledged by the service. */
  get unacked(): number {
    return this.#outbox.size;
  }

  /** Handles a `tool_call` frame (new, re-delivered, or carrying an approval decision). */
  receive(frame: ToolCallFrame): void {
    const { callId } = frame;
    const held = this.#outbox.get(callId);
    if (held) {
      held.sentOn = -1;
      this.flush();
      return;
    }
    const execution = this.#executions.get(callId);
    if (execution) {
      if (frame.approved !== undefined) {
        // A decision: apply it once. A re-delivery of a decided call (after a reconnect) changes nothing, and
        // must not ask again: the service would answer with the decided call, and so on without end.
        if (execution.approval) {
          // The service restarts the deadline in full after a decision (PROTOCOL.md §6).
          this.#armDeadline(execution, frame.deadlineMs);
          const decide = execution.approval;
          const decision: ApprovalDecision = frame.approved
            ? true
            : { approved: false, reason: frame.reason ?? '' };
          // Back to work, in a slot of its own: now if one is free, else first in line for the next. A rejection
          // ends the call where it is, without a slot.
          if (!frame.approved) decide(decision);
          else this.#whenInSlot(execution, () => decide(decision));
        }
        execution.approval = undefined;
        execution.approvalFrame = undefined;
      } else if (execution.approvalFrame) {
        this.#options.send(execution.approvalFrame);
      }
      return;
    }
    if (this.#finished.has(callId) || this.#finishedBefore.has(callId)) {
      this.#options.logger.debug({ callId }, 'tool_call for a finished call ignored');
      return;
    }
    // Calls running, queued, and results waiting for their ack all hold memory: together they stay within
    // maxConcurrency + maxQueue, so a service that floods calls, or never acks, cannot grow this process.
    const holding = this.#executions.size + this.#outbox.size;
    if (!this.#accepting || holding >= this.#options.maxConcurrency + this.#options.maxQueue) {
      this.#options.send({
        type: 'tool_result',
        callId,
        status: 'error',
        output: this.#accepting
          ? `Error running ${frame.toolName}: the client is busy; try again later`
          : `Error running ${frame.toolName}: the client is shutting down; try again later`,
        retryable: true,
      });
      return;
    }
    const created = new Execution(frame, this);
    this.#armDeadline(created, frame.deadlineMs);
    this.#executions.set(callId, created);
    // Calls start in the order they came: while older ones wait (a drain is due), a new one waits behind them.
    if (this.#running < this.#options.maxConcurrency && this.#queue.length === 0) this.#start(created);
    else this.#queue.push(created);
  }

  /** Handles a `cancel` frame: aborts `ctx.signal` of the call, or drops it from the queue. */
  cancel(callId: string, reason: string): void {
    const execution = this.#executions.get(callId);
    if (!execution) return;
    if (execution.resume !== undefined) {
      // Decided, waiting for a slot: it ends cancelled where it waits (for the approval), without one.
      execution.resume = undefined;
      this.#queue.splice(this.#queue.indexOf(execution), 1);
    }
    execution.abort(reason);
    if (execution.state === 'queued') {
      // Never started: it ends here, without a slot, a `tool_call` event or its context.
      this.#queue.splice(this.#queue.indexOf(execution), 1);
      this.finished(execution, {
        status: 'cancelled',
        output: cancelledText(execution.frame.toolName),
        durationMs: 0,
      });
    }
  }

  /**
   * Gives up the concurrency slot of a running call that now only waits for a nested run: the nested run's own
   * calls come to this client too, and would otherwise queue behind the calls waiting for them (a deadlock once
   * `maxConcurrency` calls are agents-as-tools).
   */
  park(callId: string): void {
    const execution = this.#executions.get(callId);
    if (execution?.state !== 'running' || execution.parked) return;
    execution.parked = true;
    this.#running -= 1;
    this.#scheduleDrain();
  }

  /**
   * A call parked by {@link CallRunner.park} goes on: resolves with `value` once it holds a slot again, at once if
   * one is free, else first in line for the next, so that calls never run over `maxConcurrency`. A call that has
   * ended meanwhile gets `value` at once, without a slot.
   */
  resumeParked<T>(callId: string, value: T): Promise<T> {
    const execution = this.#executions.get(callId);
    if (execution === undefined) return Promise.resolve(value);
    return this.#backInSlot(execution, value);
  }

  /** A parked call takes a slot again. */
  #unpark(execution: Execution): void {
    if (!execution.parked) return;
    execution.parked = false;
    this.#running += 1;
  }

  /** Handles an `ack`: the service has the result, forget it. */
  ack(callId: string): void {
    this.#outbox.delete(callId);
    this.#checkIdle();
  }

  /** A new socket is open: everything in the outbox and every pending approval request is sent again, once. */
  reconnected(): void {
    this.#generation += 1;
    for (const execution of this.#executions.values()) {
      if (execution.approvalFrame) this.#options.send(execution.approvalFrame);
    }
    this.flush();
  }

  /** Writes outbox entries not yet written on the current socket, while the socket's buffer has room. */
  flush(): void {
    if (this.#flushTimer !== undefined) return;
    this.#backlog = true;
    for (const entry of this.#outbox.values()) {
      if (entry.sentOn === this.#generation) continue;
      if (!this.#write(entry)) return;
    }
    this.#backlog = false;
  }

  /** Writes one outbox entry if the socket can take it now; `false` when it cannot (a flush retries later). */
  #write(entry: { frame: ToolResultFrame; sentOn: number }): boolean {
    if (!this.#options.writable()) return false;
    if (this.#options.bufferedAmount() > this.#options.highWaterMarkBytes) {
      this.#flushTimer ??= setTimeout(() => {
        this.#flushTimer = undefined;
        this.flush();
      }, 5);
      return false;
    }
    if (this.#options.send(entry.frame)) entry.sentOn = this.#generation;
    return true;
  }

  /** Stops taking new calls; they are answered with a retryable busy result. */
  stopAccepting(): void {
    this.#accepting = false;
  }

  /** Resolves when no call is queued, running or parked (waiting for a human or a nested run) and the outbox is empty. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Aborts every call still queued or running (their results say `cancelled`). */
  abortAll(reason: string): void {
    for (const execution of [...this.#executions.values()]) this.cancel(execution.frame.callId, reason);
  }

  /** Stops timers. */
  dispose(): void {
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#sweepTimer !== undefined) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
    this.#sweepAt = Number.POSITIVE_INFINITY;
  }

  #start(execution: Execution): void {
    execution.state = 'running';
    this.#running += 1;
    const { frame } = execution;
    execution.started = Math.round(performance.now());
    this.#options.events.toolCall({ callId: frame.callId, runId: frame.runId, toolName: frame.toolName });
    let context: unknown;
    try {
      context = this.#options.contextFor(frame);
    } catch (error) {
      this.#contextFailed(execution, error);
      return;
    }
    if (isThenable(context)) {
      context.then(
        (value) => this.#invoke(execution, value),
        (error: unknown) => this.#contextFailed(execution, error),
      );
    } else this.#invoke(execution, context);
  }

  /** Without its context a tool could run unscoped (a query for every tenant): a failing context fails the call. */
  #contextFailed(execution: Execution, error: unknown): void {
    this.finished(execution, {
      status: 'error',
      output: `Error running ${execution.frame.toolName}: the client could not provide its context (${thrownMessage(error)})`,
      durationMs: 0,
      error,
    });
  }

  #invoke(execution: Execution, context: unknown): void {
    const { frame } = execution;
    // A call whose steps are all synchronous (zod validation, a plain `execute`) ends here, in this turn.
    startByName(
      this.#options.registry,
      frame.toolName,
      frame.arguments,
      {
        callId: frame.callId,
        runId: frame.runId,
        depth: frame.depth ?? 0,
        context,
        signal: execution,
        approved: frame.approved,
        rejectionReason: frame.reason,
        approve: this.#approveRequest,
        onWidgetInvalid: this.#onWidgetInvalid,
        extend: this.#options.extend,
        redactor: this.#options.redactor,
      },
      execution,
    );
  }

  /** `approve` for every call (one function, not a closure per call): the request names its call. */
  readonly #approveRequest = (request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision> => {
    const execution = this.#executions.get(request.callId);
    if (execution === undefined) return false; // cannot happen: a call asks while it runs
    return this.#approve(execution, request);
  };

  readonly #onWidgetInvalid = (info: {
    toolName: string;
    callId: string;
    path: string;
    message: string;
  }): void => this.#options.events.widgetInvalid(this.#options.redactor.value(info));

  #approve(execution: Execution, request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision> {
    this.#options.events.approvalRequested(request);
    if (this.#options.onApproval) {
      // A decision made at once keeps the slot; one that takes a human's time gives it up meanwhile, as over the
      // socket (the deadline keeps running: the service does not know a local human is deciding).
      const decided = this.#options.onApproval(request);
      if (!isThenable(decided)) return decided;
      this.park(request.callId);
      // Only an approved call runs on, and needs its slot back; a rejection, a throw or an answer that is no
      // decision (told apart by src/call/approval.ts) ends it where it is.
      return Promise.resolve(decided).then((decision) =>
        decision === true || (typeof decision === 'object' && decision !== null && decision.approved === true)
          ? this.#backInSlot(execution, decision)
          : decision,
      );
    }
    return new Promise<ApprovalDecision>((resolve) => {
      // The service's deadline clock pauses while a call waits for a human (PROTOCOL.md §6), and the call gives
      // up its slot meanwhile: a human may take minutes, and the calls queued behind it must not wait for them.
      this.#armDeadline(execution, undefined);
      this.park(request.callId);
      execution.approval = resolve;
      execution.approvalFrame = { type: 'approval_request', callId: request.callId };
      this.#options.send(execution.approvalFrame);
    });
  }

  /**
   * Runs `go` once the parked call holds a slot again: at once if one is free, else first in line for the next
   * (a cancel there ends the call without one, see {@link CallRunner.cancel}, and `go` never runs).
   */
  #whenInSlot(execution: Execution, go: () => void): void {
    // Ended meanwhile (cancelled, past its deadline): nobody waits for it, and it takes no slot.
    if (this.#executions.get(execution.frame.callId) !== execution) go();
    else if (!execution.parked || this.#running < this.#options.maxConcurrency) {
      this.#unpark(execution);
      go();
    } else if (execution.resume !== undefined) {
      // Already in line (two nested runs of one call ended): one place, both go on with it.
      const first = execution.resume;
      execution.resume = () => {
        first();
        go();
      };
    } else {
      execution.resume = go;
      this.#queue.unshift(execution);
    }
  }

  /** {@link CallRunner.#whenInSlot} as a promise of `value`. */
  #backInSlot<T>(execution: Execution, value: T): Promise<T> {
    return new Promise<T>((resolve) => this.#whenInSlot(execution, () => resolve(value)));
  }

  /**
   * Sets (or, with `undefined`, clears) when a call aborts itself: `deadlineMs` plus {@link DEADLINE_GRACE_MS}
   * from now. One timer serves every call, set for the earliest deadline (a timer per call would cost a
   * `Timeout` object and two timer-list operations per call); calls that end first just leave it nothing to do.
   */
  #armDeadline(execution: Execution, deadlineMs: number | undefined): void {
    if (deadlineMs === undefined) {
      execution.deadlineAt = undefined;
      return;
    }
    // The grace lets the service's own cancel (and timeout result) come first whenever it can. The service's
    // number may be huge: past the longest timer, it is as good as none.
    // Whole milliseconds: a small integer is stored in the call itself, a fraction in a heap number of its own.
    const at = Math.ceil(performance.now() + Math.min(deadlineMs + DEADLINE_GRACE_MS, MAX_TIMEOUT_MS));
    execution.deadlineAt = at;
    if (at < this.#sweepAt) this.#scheduleSweep(at);
  }

  #scheduleSweep(at: number): void {
    if (this.#sweepTimer !== undefined) clearTimeout(this.#sweepTimer);
    this.#sweepAt = at;
    this.#sweepTimer = setTimeout(() => this.#sweepDeadlines(), Math.max(0, at - performance.now()));
    (this.#sweepTimer as { unref?: () => void }).unref?.();
  }

  /** Cancels every call past its deadline, and sets the timer for the next deadline. */
  #sweepDeadlines(): void {
    this.#sweepTimer = undefined;
    this.#sweepAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const execution of [...this.#executions.values()]) {
      const at = execution.deadlineAt;
      if (at === undefined) continue;
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      execution.deadlineAt = undefined;
      const { callId } = execution.frame;
      this.#options.logger.warn({ callId }, 'call passed its deadline');
      this.cancel(callId, 'deadline');
    }
    if (next < this.#sweepAt) this.#scheduleSweep(next);
  }

  /** A call has its result (from its {@link Execution}). Not for use outside the client. */
  finished(execution: Execution, result: ToolCallResult): void {
    const { frame } = execution;
    this.#armDeadline(execution, undefined);
    if (execution.state === 'running' && !execution.parked) this.#running -= 1;
    if (execution.resume !== undefined) {
      // Ended while waiting in line for a slot (a tool's own timeout): it must not take one later.
      execution.resume = undefined;
      this.#queue.splice(this.#queue.indexOf(execution), 1);
    }
    this.#executions.delete(frame.callId);
    this.#remember(frame.callId);
    const durationMs =
      execution.state === 'running' ? Math.max(0, Math.round(performance.now()) - execution.started) : 0;
    const resultFrame = this.#resultFrame(frame, result, durationMs);
    const entry = { frame: resultFrame, sentOn: -1 };
    this.#outbox.set(frame.callId, entry);
    this.#options.events.toolResult({
      callId: frame.callId,
      runId: frame.runId,
      toolName: frame.toolName,
      status: result.status,
      durationMs,
      output: resultFrame.output,
    });
    if (result.status !== 'ok') {
      // The model reads this text; the operator should see it too (already redacted), with what was thrown:
      // its stack and cause chain, which the model never reads (the logger redacts them).
      const fields: Record<string, unknown> = {
        callId: frame.callId,
        runId: frame.runId,
        toolName: frame.toolName,
        status: result.status,
      };
      if (result.error !== undefined) fields.error = result.error;
      this.#options.logger.warn(fields, resultFrame.output);
    }
    // Nothing older waits to be written: write this one alone rather than walk the outbox.
    if (this.#backlog || this.#flushTimer !== undefined || !this.#write(entry)) this.flush();
    this.#scheduleDrain();
    this.#checkIdle();
  }

  /**
   * Starts queued calls once the current task is done (a microtask), not at once: the frames that came with
   * the one that freed the slot (a burst of `cancel`s, `close()` aborting every call) are handled first, so a
   * call cancelled while queued never starts.
   */
  #scheduleDrain(): void {
    if (this.#drainDue || this.#queue.length === 0) return;
    this.#drainDue = true;
    void Promise.resolve().then(() => {
      this.#drainDue = false;
      this.#drainQueue();
    });
  }

  /**
   * Starts queued calls while a slot is free. A call that finishes synchronously inside this loop frees its slot
   * before the loop looks again; the loop does not recurse (a queue of thousands of synchronous calls would
   * otherwise overflow the stack).
   */
  #drainQueue(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      // One call per free slot: a call that ended while queued (cancelled) has left the queue without one.
      while (this.#running < this.#options.maxConcurrency) {
        const next = this.#queue.shift();
        if (!next) break;
        const resume = next.resume;
        if (resume === undefined) this.#start(next);
        else {
          next.resume = undefined;
          this.#unpark(next);
          resume();
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  #resultFrame(frame: ToolCallFrame, result: ToolCallResult, durationMs: number): ToolResultFrame {
    const { redactor } = this.#options;
    const out: ToolResultFrame = {
      type: 'tool_result',
      callId: frame.callId,
      status: result.status,
      output: '',
      durationMs,
    };
    // Redact first, then cut: a cut through a secret would leave a piece of it that no rule matches. The cut
    // counts JSON escapes, so the frame fits the service's limit whatever the text holds.
    // The frame without its output is at most 105 bytes plus 6 per unit of the call id: with an id of up to 64
    // units it is within ENVELOPE_BYTES, and need not be measured.
    const envelope = frame.callId.length <= 64 ? 0 : utf8Length(encodeFrame(out)) - 2;
    const budget = Math.max(2, this.#options.maxPayloadBytes() - Math.max(ENVELOPE_BYTES, envelope));
    out.output = truncateJsonString(toWellFormed(redactor.text(result.output)), budget);
    if (result.widget !== undefined) {
      out.widget = redactor.value(result.widget);
      const size = utf8Length(JSON.stringify(out));
      if (size > this.#options.maxPayloadBytes()) {
        delete out.widget;
        this.#options.events.widgetInvalid({
          toolName: frame.toolName,
          callId: frame.callId,
          path: 'widget',
          message: `the result with its widget is ${size} bytes, over the service's limit of ${this.#options.maxPayloadBytes()}; the widget was dropped`,
        });
      }
    }
    return out;
  }

  #remember(callId: string): void {
    if (this.#finished.size >= REMEMBERED_CALL_IDS) {
      this.#finishedBefore = this.#finished;
      this.#finished = new Set();
    }
    this.#finished.add(callId);
  }

  /** No call running, queued or parked (waiting for a human or a nested run), and every result acked. */
  #isIdle(): boolean {
    return this.#executions.size === 0 && this.#outbox.size === 0;
  }

  #checkIdle(): void {
    if (!this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
