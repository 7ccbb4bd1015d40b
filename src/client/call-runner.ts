/**
 * `CallRunner`: the tool calls the service sends to one client, from the frame that brings a call to the result
 * acked. It wires the parts, each with one job, and runs the call itself (its context, then `startByName`):
 *
 * - `Incoming` (incoming.ts): `tool_call` and `cancel` frames, de-duplication by call id;
 * - `Slots` (slots.ts): concurrency slots, the queue, parking, and every change of a call's state;
 * - `Deadlines` (deadlines.ts): the service's `deadlineMs`, one timer for all;
 * - `Approvals` (approvals.ts): who decides an approval;
 * - `Outbox` (outbox.ts): result frames, kept until acked, backpressure;
 * - the call updates (call-updates.ts, given by the client): progress, preliminary results, the lease, questions,
 *   steps. A call is one {@link Execution} object that all of them share.
 *
 * @module
 */
import { abortReason } from '../call/call-signal';
import { startByName, type ToolRegistry } from '../call/registry';
import type {
  ApprovalDecision,
  ApprovalRequest,
  QuestionReply,
  QuestionRequest,
  ToolCallResult,
  WidgetInvalidInfo,
} from '../call/types';
import type { ConnectionError } from '../errors';
import type { Logger, Redactor } from '../logger';
import { isThenable } from '../maybe';
import { contextFailedText } from '../tool/model-text';
import { thrownMessage } from '../tool/output';
import type { ClientFrame, ServiceFrame } from '../wire/protocol';
import { Approvals, type Approver } from './approvals';
import { type CallUpdateHooks, CallUpdates, type WelcomeTerms } from './call-updates';
import { Deadlines } from './deadlines';
import { callScope, type Execution, type ExecutionOwner, type ToolCallFrame } from './execution';
import { Incoming } from './incoming';
import { Leases } from './leases';
import { type CallSocket, Outbox } from './outbox';
import { askInPlace, type Questioner } from './questions';
import { Slots } from './slots';

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

/** Dependencies of a {@link CallRunner}. */
export interface CallRunnerOptions {
  registry: ToolRegistry;
  maxConcurrency: number;
  maxQueue: number;
  /** Results are held (not written) while the socket buffers more than this many bytes. */
  highWaterMarkBytes: number;
  /** The client's connection. */
  socket: CallSocket;
  /** `ctx.context` for a call; may return a promise, and may throw (the call then fails without running). */
  contextFor(call: ToolCallFrame): unknown;
  /** Local approver (`onApproval`); when absent, approval is asked of the service. */
  onApproval: Approver | undefined;
  /** Extra fields for every call's `ctx` (e.g. the nested-run capability). */
  extend: Readonly<Record<PropertyKey, unknown>>;
  /** Local answerer of questions (`onQuestion`); when absent, questions go to the service. */
  onQuestion?: Questioner | undefined;
  /** Updates of running calls (progress, the lease, questions, …). @default a `CallUpdates` on `socket` */
  updates?: CallUpdateHooks;
  redactor: Redactor;
  logger: Logger;
  events: CallEvents;
}

/** Runs tool calls for one client. Owned by `Client`; not exported from the package. */
export class CallRunner implements ExecutionOwner {
  readonly #options: CallRunnerOptions & { updates: CallUpdateHooks };
  readonly #slots: Slots;
  readonly #deadlines: Deadlines;
  readonly #outbox: Outbox;
  readonly #approvals: Approvals;
  readonly #incoming: Incoming;
  readonly #leases: Leases;
  #idleWaiters: Array<() => void> = [];

  constructor(runnerOptions: CallRunnerOptions) {
    const { socket, events, logger } = runnerOptions;
    const updates = runnerOptions.updates ?? CallUpdates.on(socket, runnerOptions.redactor, events);
    const options = { ...runnerOptions, updates };
    this.#options = options;
    this.#leases = new Leases(updates, () => this.#deadlines);
    this.#slots = new Slots({
      maxConcurrency: options.maxConcurrency,
      start: (execution) => this.#start(execution),
    });
    this.#deadlines = new Deadlines({
      held: () => this.#incoming.values(),
      expire: (execution) =>
        this.#incoming.cancel(
          execution.frame.callId,
          abortReason('the call passed its deadline', 'TimeoutError', 'deadline'),
        ),
      leased: (execution) => this.#leases.holds(execution),
      logger,
    });
    this.#outbox = new Outbox({
      socket,
      highWaterMarkBytes: options.highWaterMarkBytes,
      redactor: options.redactor,
      widgetInvalid: (info) => events.widgetInvalid(info),
      takesContent: () => options.updates.takesContent,
    });
    this.#approvals = new Approvals({
      onApproval: options.onApproval,
      socket,
      slots: this.#slots,
      deadlines: this.#deadlines,
      requested: (request) => events.approvalRequested(request),
    });
    this.#incoming = new Incoming({
      capacity: options.maxConcurrency + options.maxQueue,
      owner: this,
      socket,
      outbox: this.#outbox,
      approvals: this.#approvals,
      deadlines: this.#deadlines,
      slots: this.#slots,
      logger,
    });
  }

  /** Calls executing now. */
  get running(): number {
    return this.#slots.running;
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.#slots.queued;
  }

  /** Results not yet acknowledged by the service. */
  get unacked(): number {
    return this.#outbox.size;
  }

  /** Handles the frames about calls (`tool_call`, `cancel`, `ack`, `answer`); `false` for any other frame. */
  handle(frame: ServiceFrame): boolean {
    switch (frame.type) {
      case 'tool_call':
        // Acks the service sent along with this call (PROTOCOL.md §5.1) come first: they free outbox room.
        if (frame.acks !== undefined) for (const callId of frame.acks) this.ack(callId);
        this.#incoming.receive(frame);
        return true;
      case 'cancel':
        this.cancel(frame.callId, frame.reason ?? 'service');
        return true;
      case 'ack':
        if (frame.callId !== undefined) this.ack(frame.callId);
        if (frame.callIds !== undefined) for (const callId of frame.callIds) this.ack(callId);
        return true;
      case 'answer':
        this.#options.updates.answer(frame);
        return true;
      default:
        return false;
    }
  }

  /** Handles a `tool_call` frame (new, re-delivered, or carrying an approval decision). */
  receive(frame: ToolCallFrame): void {
    this.#incoming.receive(frame);
  }

  /** Handles a `cancel`: aborts `ctx.signal` of the call, or drops it from the queue. */
  cancel(callId: string, reason: string): void {
    this.#incoming.cancel(callId, abortReason(`cancelled by the service (${reason})`, 'AbortError', reason));
  }

  /** The service has the result (an `ack`), or will never record it: forget it. */
  ack(callId: string): void {
    this.#outbox.ack(callId);
    this.#options.updates.forget(callId);
    // A call that ends puts its result in the outbox: only an ack can leave the runner idle.
    if (this.#idleWaiters.length > 0 && this.#isIdle()) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /**
   * A frame the socket will never take as it is (`onUnsendable`). A `tool_result` is replaced once by that call's
   * `error` result; a replacement that cannot be sent either is dropped. Other frames are not the runner's.
   */
  unsendable(frame: ClientFrame, error: ConnectionError): void {
    if (frame.type !== 'tool_result') return;
    const done = this.#outbox.unsendable(frame, error.code);
    const fields = { callId: frame.callId, code: error.code };
    if (done === 'replaced') {
      this.#options.logger.warn(
        fields,
        'a call result could not be delivered; an error result is sent instead',
      );
    } else if (done === 'dropped') {
      this.#options.logger.error(
        fields,
        'a call result and its error result could not be delivered; dropped',
      );
      this.ack(frame.callId);
    }
  }

  /**
   * A running call gives up its concurrency slot while it only waits for a nested run: the nested run's own
   * calls come to this client too, and would otherwise queue behind the calls waiting for them.
   */
  park(callId: string): void {
    const execution = this.#incoming.get(callId);
    if (execution !== undefined) this.#slots.park(execution);
  }

  /**
   * A call parked by {@link CallRunner.park} goes on: resolves with `value` once it holds a slot again, at once if
   * one is free, else first in line for the next, so that calls never run over `maxConcurrency`. A call that has
   * ended meanwhile gets `value` at once, without a slot.
   */
  resumeParked<T>(callId: string, value: T): Promise<T> {
    const execution = this.#incoming.get(callId);
    if (execution === undefined) return Promise.resolve(value);
    return this.#slots.backInSlot(execution, value);
  }

  /** The socket dropped: a leased call stops once the service would re-dispatch it (see leases.ts). */
  disconnected(): void {
    this.#leases.disconnected(this.#incoming.values());
  }

  /** `welcome` arrived: what the service takes on this socket (PROTOCOL.md §2), then {@link reconnected}. */
  welcomed(welcome: WelcomeTerms): void {
    this.#options.updates.setWelcome?.(welcome);
    this.reconnected();
  }

  /**
   * A new socket is open: every pending approval request, the latest updates of the calls (before their results:
   * the service ignores those of a call it has the result of) and everything in the outbox are sent again, once.
   */
  reconnected(): void {
    this.#approvals.reconnected(this.#incoming.values());
    this.#leases.reconnected(this.#incoming.values());
    this.#options.updates.reconnected();
    this.#outbox.reconnected();
  }

  /** Stops taking new calls; they are answered with a retryable shutting-down result. */
  stopAccepting(): void {
    this.#incoming.stopAccepting();
  }

  /** Resolves when no call is queued, running or parked (waiting for a human or a nested run) and the outbox is empty. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Aborts every call still queued, running or parked (their results say `cancelled`). */
  abortAll(reason: string): void {
    this.#incoming.cancelAll(abortReason(`cancelled (${reason})`, 'AbortError', reason));
  }

  /** Stops timers. */
  dispose(): void {
    this.#outbox.dispose();
    this.#deadlines.dispose();
    this.#options.updates.dispose?.();
  }

  /** A call has its result (from its {@link Execution}). */
  finished(execution: Execution, result: ToolCallResult): void {
    const from = this.#slots.finish(execution);
    if (from === undefined) return;
    const { frame } = execution;
    this.#deadlines.arm(execution, undefined);
    this.#incoming.ended(execution);
    this.#options.updates.ended(frame.callId);
    const durationMs = from === 'queued' ? 0 : Math.max(0, Math.round(performance.now()) - execution.started);
    // The last progress or preliminary result goes before the result.
    this.#options.updates.beforeResult(frame.callId);
    const { output } = this.#outbox.add(frame, result, durationMs);
    this.#options.events.toolResult({
      callId: frame.callId,
      runId: frame.runId,
      toolName: frame.toolName,
      status: result.status,
      durationMs,
      output,
    });
    if (result.status !== 'ok') {
      // The model reads this text; the operator should see it too (already redacted), with what was thrown:
      // its stack and cause chain, which the model never reads (the logger redacts them).
      const { callId, runId, toolName } = frame;
      const fields: Record<string, unknown> = { callId, runId, toolName, status: result.status };
      if (result.error !== undefined) fields.error = result.error;
      this.#options.logger.warn(fields, output);
    }
  }

  /** Runs a call that took its first slot: its context, then the tool. */
  #start(execution: Execution): void {
    const { frame } = execution;
    execution.started = Math.round(performance.now());
    this.#leases.started(execution);
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
      output: contextFailedText(execution.frame.toolName, thrownMessage(error)),
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
        approve: this.#approve,
        onWidgetInvalid: this.#onWidgetInvalid,
        onProgress: this.#options.updates.progress,
        onPreliminary: this.#options.updates.preliminary,
        onEmit: this.#options.updates.emit,
        onStep: this.#options.updates.step,
        ...callScope(frame),
        logger: this.#options.logger,
        onQuestion: this.#question,
        extend: this.#options.extend,
        redactor: this.#options.redactor,
      },
      execution,
    );
  }

  /** `approve` for every call (one function, not a closure per call): the request names its call. */
  readonly #approve = (request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision> => {
    const execution = this.#incoming.get(request.callId);
    if (execution === undefined) return false; // cannot happen: a call asks while it runs
    return this.#approvals.ask(execution, request);
  };

  readonly #onWidgetInvalid = (info: WidgetInvalidInfo): void =>
    this.#options.events.widgetInvalid(this.#options.redactor.value(info));

  /**
   * `onQuestion` for every call (one function): the client's own answerer, else the service. A question that
   * takes time parks the call (it holds no slot, as for an approval), and it is back in a slot before it goes on.
   */
  readonly #question = (request: QuestionRequest): QuestionReply | Promise<QuestionReply> =>
    askInPlace(this.#options.onQuestion ?? this.#options.updates.ask, request, this.#slots, this.#incoming);

  /** No call queued, running or parked (waiting for a human or a nested run), and every result acked. */
  #isIdle(): boolean {
    return this.#incoming.size === 0 && this.#outbox.size === 0;
  }
}
