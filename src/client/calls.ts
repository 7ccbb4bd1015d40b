/**
 * What a {@link CallRunner} (./call-runner.ts) needs from its client.
 *
 * @module
 */
import { startByName, type ToolRegistry } from '../call/registry';
import { abortReason, settleThen } from '../call/signal';
import type {
  ApprovalDecision,
  ApprovalRequest,
  CallOptions,
  CallPolicy,
  ToolCallResult,
  WidgetInvalidInfo,
} from '../call/types';
import type { ConnectionError } from '../errors';
import type { Logger, Redactor } from '../logger';
import { contextFailedText } from '../tool/model-text';
import { thrownMessage } from '../tool/output';
import type { ClientFrame, ServiceFrame } from '../wire/protocol';
import { Approvals, type Approver } from './approvals';
import { type CallUpdateHooks, CallUpdates, Leases, type WelcomeTerms } from './call-updates';
import type { CallInfo } from './client-options';
import { Deadlines } from './deadlines';
import type { CallEvents, CallExtras, Execution, ExecutionOwner, ToolCallFrame } from './execution';
import { Incoming } from './incoming';
import { type CallSocket, Outbox } from './outbox';
import { type Questioner, questionHooks } from './questions';
import { Slots } from './slots';
import { type CallTraces, callTraces, type ToolTracing } from './tracing';

/** Dependencies of a {@link CallRunner}. */
export interface CallRunnerOptions {
  registry: ToolRegistry;
  maxConcurrency: number;
  maxQueue: number;
  /** Results are held (not written) while the socket buffers more than this many bytes. */
  highWaterMarkBytes: number;
  /** A result is held while writing it would take the socket past this many bytes unread (none when absent). */
  maxBufferedBytes?: number;
  /** Bytes of results waiting for their ack past which no new call is taken. @default Infinity */
  maxOutboxBytes?: number;
  /** The client's connection. */
  socket: CallSocket;
  /** `ctx.context` for a call; may return a promise, and may throw (the call then fails without running). */
  contextFor(call: CallInfo): unknown;
  /** Local approver (`onApproval`); when absent, approval is asked of the service. */
  onApproval: Approver | undefined;
  policies?: readonly CallPolicy[] | undefined; // `Client({ policies })`, run before approval
  /** Extra fields for every call's `ctx` (e.g. the nested-run capability). */
  extend: Readonly<Record<PropertyKey, unknown>>;
  /** Local answerer of questions (`onQuestion`); when absent, questions go to the service. */
  onQuestion?: Questioner | undefined;
  /** Updates of running calls (progress, the lease, questions, …). @default a `CallUpdates` on `socket` */
  updates?: CallUpdateHooks;
  redactor: Redactor;
  logger: Logger;
  events: CallEvents;
  /** The client's tracer (`tracing`), if any. */
  tracing?: ToolTracing | undefined;
}

/*
 * The options of one call the client runs (`CallOptions` for src/call/): what differs per call is read from its
 * {@link Execution} (the `tool_call` frame) and its context; what every call of a client shares (the hooks, the
 * policies, the logger, the redactor, `extend`) sits on the prototype. A held call thus keeps one object of two
 * fields, not one of twenty.
 */
/** What every call of one client shares. */
export type SharedCallOptions = Pick<
  CallOptions,
  | 'policies'
  | 'approve'
  | 'onWidgetInvalid'
  | 'onProgress'
  | 'onPreliminary'
  | 'onEmit'
  | 'onQuestion'
  | 'waits'
  | 'onStep'
  | 'logger'
  | 'extend'
  | 'redactor'
>;

/** Per-call options, read from the call's frame (PROTOCOL.md §5, §18.8, §18.9, §18.11, §18.12). */
class ClientCallOptions {
  /** The call itself: its cancellation is the call's signal. */
  readonly signal: Execution;
  readonly context: unknown;

  constructor(execution: Execution, context: unknown) {
    this.signal = execution;
    this.context = context;
  }

  get callId(): string {
    return this.signal.callId;
  }

  get runId(): string {
    return this.signal.runId;
  }

  get depth(): number {
    return this.signal.extras?.depth ?? 0;
  }

  get approved(): boolean | undefined {
    return this.signal.extras?.approved;
  }

  get rejectionReason(): string | undefined {
    return this.signal.extras?.reason;
  }

  get argumentsEdited(): boolean | undefined {
    return this.signal.extras?.argumentsEdited;
  }

  get agentName(): string | undefined {
    return this.signal.extras?.agentName;
  }

  get sessionId(): string | undefined {
    return this.signal.extras?.sessionId;
  }

  get steps(): Readonly<Record<string, unknown>> | undefined {
    return this.signal.extras?.steps;
  }
}

/** The options class of one client's calls: `new (callOptionsClass(shared))(execution, context)`. */
export function callOptionsClass(
  shared: SharedCallOptions,
): new (
  execution: Execution,
  context: unknown,
) => CallOptions {
  const OfThisClient = class extends ClientCallOptions {};
  for (const [key, value] of Object.entries(shared)) {
    Object.defineProperty(OfThisClient.prototype, key, { value, enumerable: true });
  }
  return OfThisClient as unknown as new (
    execution: Execution,
    context: unknown,
  ) => CallOptions;
}

/*
 * Running a call that took its first slot: its context first (`contextFor`), then its tool (`startByName`). A
 * context that fails fails the call: without it a tool could run unscoped (a query for every tenant).
 */
/** What {@link callStarter} needs from its call runner. */
export interface CallStartOptions {
  registry: ToolRegistry;
  /** `ctx.context` for a call; may return a promise, and may throw (the call then fails without running). */
  contextFor(call: CallInfo): unknown;
  events: CallEvents;
  leases: Leases;
  /** The options of each call (./call-options.ts). */
  CallOptions: ReturnType<typeof callOptionsClass>;
  /** A call has its result. */
  finished(execution: Execution, result: ToolCallResult): void;
}

/** The function that runs a call that took its first slot: its context first, then the tool. */
export function callStarter(options: CallStartOptions): (execution: Execution) => void {
  const { registry, events, leases, CallOptions } = options;

  const contextFailed = (execution: Execution, error: unknown): void => {
    options.finished(execution, {
      status: 'error',
      output: contextFailedText(execution.toolName, thrownMessage(error)),
      durationMs: 0,
      error,
    });
  };

  const invoke = (execution: Execution, context: unknown): void => {
    // Cancelled while its context came: the call layer ends it at once, and there is nothing to lease.
    if (execution.state !== 'finished') leases.started(execution);
    // A call whose steps are all synchronous (zod validation, a plain `execute`) ends here, in this turn.
    startByName(
      registry,
      execution.toolName,
      execution.arguments,
      new CallOptions(execution, context),
      execution,
    );
  };

  return (execution: Execution): void => {
    execution.started = Math.round(performance.now());
    const { callId, runId, toolName } = execution;
    events.toolCall({ callId, runId, toolName });
    // A cancel, the deadline or close() while the context is awaited ends the wait (the call layer then ends the
    // call as any aborted call, running nothing): a context that never comes cannot hold the call or its slot.
    settleThen(
      () => options.contextFor(execution),
      { signal: execution },
      (outcome) => {
        if (outcome.kind === 'error') contextFailed(execution, outcome.error);
        else invoke(execution, outcome.kind === 'value' ? outcome.value : undefined);
      },
    );
  };
}

/*
 * The log line of a call that did not end `ok`.
 */
/**
 * Logs a result that is not `ok` at `warn`: the model reads its text; the operator sees it too (already
 * redacted), with what was thrown: its stack and cause chain, which the model never reads (the logger redacts
 * them).
 */
export function logFailure(
  logger: Logger,
  call: Pick<ToolCallFrame, 'callId' | 'runId' | 'toolName'>,
  result: ToolCallResult,
  output: string,
): void {
  const { callId, runId, toolName } = call;
  const fields: Record<string, unknown> = { callId, runId, toolName, status: result.status };
  if (result.error !== undefined) fields.error = result.error;
  logger.warn(fields, output);
}

/*
 * `CallRunner`: the tool calls the service sends to one client, from the frame that brings a call to the result
 * acked. It wires the parts, each with one job:
 *
 * - `Incoming` (incoming.ts): `tool_call` and `cancel` frames, de-duplication by call id;
 * - `Slots` (slots.ts): concurrency slots, the queue, parking, and every change of a call's state;
 * - `Deadlines` (deadlines.ts): the service's `deadlineMs`, one timer for all;
 * - `Approvals` (approvals.ts): who decides an approval;
 * - `Outbox` (outbox.ts): result frames, kept until acked, backpressure;
 * - `callStarter` (call-start.ts): a call that took its first slot: its context, then `startByName`;
 * - the call updates (call-updates.ts, given by the client): progress, preliminary results, the lease, questions,
 *   steps. A call is one {@link Execution} object that all of them share.
 */
/** Runs tool calls for one client. Owned by `Client`; not exported from the package. */
export class CallRunner implements ExecutionOwner {
  readonly #options: CallRunnerOptions & { updates: CallUpdateHooks };
  readonly #slots: Slots;
  readonly #deadlines: Deadlines;
  readonly #outbox: Outbox;
  readonly #approvals: Approvals;
  readonly #incoming: Incoming;
  readonly #leases: Leases;
  readonly #traces: CallTraces | undefined;
  readonly #questions: ReturnType<typeof questionHooks>;
  #idleWaiters: Array<() => void> = [];
  /** Shared by this client's calls whose frames carry the same values (./execution.ts `CallExtras`). */
  lastExtras: CallExtras | undefined = undefined;
  /** The options of each call: per-call fields read from its frame, the rest shared (./call-options.ts). */
  readonly #CallOptions: ReturnType<typeof callOptionsClass>;
  /** Runs a call that took its first slot: its context first, then the tool (./call-start.ts). */
  readonly #start: (execution: Execution) => void;

  constructor(runnerOptions: CallRunnerOptions) {
    const { socket, events, logger } = runnerOptions;
    const held = {
      get: (callId: string) => this.#incoming.get(callId),
      values: () => this.#incoming.values(),
    };
    const updates = runnerOptions.updates ?? CallUpdates.on(socket, runnerOptions.redactor, events, held);
    const options = { ...runnerOptions, updates };
    this.#options = options;
    this.#traces = options.tracing && callTraces(options.tracing, options.redactor, options);
    this.#leases = new Leases(updates, () => this.#deadlines);
    this.#questions = questionHooks(options.onQuestion ?? updates.ask, this);
    this.#CallOptions = callOptionsClass({
      policies: options.policies,
      approve: this.#approve,
      onWidgetInvalid: this.#onWidgetInvalid,
      onProgress: updates.progress,
      onPreliminary: updates.preliminary,
      onEmit: updates.emit,
      ...this.#questions,
      onStep: updates.step,
      logger: options.logger,
      extend: options.extend,
      redactor: options.redactor,
    });
    this.#start = callStarter({
      registry: options.registry,
      contextFor: options.contextFor,
      events,
      leases: this.#leases,
      CallOptions: this.#CallOptions,
      finished: (execution, result) => this.finished(execution, result),
    });
    this.#slots = new Slots({
      maxConcurrency: options.maxConcurrency,
      // In the call's trace, if any: spans its context function and its tool start are children of its span.
      start: (execution) =>
        this.#traces ? this.#traces.start(execution, this.#start) : this.#start(execution),
      mayStart: () => !this.#outbox.full,
    });
    this.#deadlines = new Deadlines({
      held: () => this.#incoming.values(),
      expire: (execution) =>
        this.#incoming.cancel(
          execution.callId,
          abortReason('the call passed its deadline', 'TimeoutError', 'deadline'),
        ),
      leased: (execution) => this.#leases.holds(execution),
      logger,
    });
    this.#outbox = new Outbox({
      socket,
      highWaterMarkBytes: options.highWaterMarkBytes,
      ...(options.maxBufferedBytes === undefined ? {} : { maxBufferedBytes: options.maxBufferedBytes }),
      maxBytes: options.maxOutboxBytes ?? Number.POSITIVE_INFINITY,
      redactor: options.redactor,
      widgetInvalid: (info) => events.widgetInvalid(info),
      takesContent: () => options.updates.takesContent,
      logger,
    });
    this.#approvals = new Approvals({
      onApproval: options.onApproval,
      socket,
      redactor: options.redactor,
      slots: this.#slots,
      deadlines: this.#deadlines,
      requested: (request) => events.approvalRequested(request),
      held: { get: (callId) => this.#incoming.get(callId) },
    });
    this.#incoming = new Incoming({
      capacity: options.maxConcurrency + options.maxQueue,
      owner: this,
      socket,
      outbox: this.#outbox,
      approvals: this.#approvals,
      deadlines: this.#deadlines,
      slots: this.#slots,
      traces: this.#traces,
      logger,
    });
  }

  /** See `CallTraces.ready`: `undefined` when calls can be traced now (or there is no tracer). */
  tracingReady(): Promise<void> | undefined {
    return this.#traces?.ready();
  }

  /** Calls executing now, and calls waiting for a slot. */
  get running(): number {
    return this.#slots.running;
  }
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

  /** A `tool_call` refused as invalid that names its call (PROTOCOL.md §12): answered, never run. */
  unreadable(callId: string, about: { toolName?: string; runId?: string }, message: string): void {
    this.#incoming.unreadable(callId, about.toolName, about.runId, message);
  }

  /** Handles a `tool_call` frame (new, re-delivered, or carrying an approval decision). */
  receive(frame: ToolCallFrame): void {
    this.#incoming.receive(frame);
  }

  /** Handles a `cancel`: aborts `ctx.signal` of the call, or drops it from the queue. */
  cancel(callId: string, reason: string): void {
    this.#incoming.cancel(callId, abortReason(`cancelled by the service (${reason})`, 'AbortError', reason));
  }

  /** The service has the result (an `ack`), or will never record it (`refused`: the error code): forget it. */
  ack(callId: string, refused?: string): void {
    if (refused !== undefined) this.#incoming.refused(callId, refused);
    this.#outbox.ack(callId);
    if (this.#slots.queued > 0) this.#slots.reopen();
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
    const { logger } = this.#options;
    if (done === 'replaced') {
      logger.warn(fields, 'a call result could not be delivered; an error result is sent instead');
    } else if (done === 'dropped') {
      logger.error(fields, 'a call result and its error result could not be delivered; dropped');
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
  welcomed(welcome: WelcomeTerms & { resumed?: boolean }): void {
    this.#options.updates.setWelcome?.(welcome);
    this.reconnected(welcome.resumed !== false);
  }

  /**
   * A new socket is open: every pending approval request, the latest updates of the calls (before their results:
   * the service ignores those of a call it has the result of) and everything in the outbox are sent again, once.
   */
  reconnected(resumed = true): void {
    this.#approvals.reconnected(this.#incoming.values());
    this.#leases.reconnected(this.#incoming.values(), resumed);
    this.#options.updates.reconnected(resumed);
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

  /** Aborts every call of run `runId` held here (its caller aborted it, `cause`); later ones abort on arrival. */
  cancelRun(runId: string, cause: unknown): void {
    const reason = abortReason(`run ${runId} was aborted by its caller`, 'AbortError', cause);
    this.#incoming.cancelRun(runId, reason);
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
    const { callId } = execution;
    this.#deadlines.arm(execution, undefined);
    this.#incoming.ended(execution);
    this.#options.updates.ended(execution);
    const durationMs = from === 'queued' ? 0 : Math.max(0, Math.round(performance.now()) - execution.started);
    // The last progress or preliminary result goes before the result.
    this.#options.updates.beforeResult(callId);
    const { output } = this.#outbox.add(execution.frame, result, durationMs);
    this.#options.events.toolResult({
      callId,
      runId: execution.runId,
      toolName: execution.toolName,
      status: result.status,
      durationMs,
      output,
    });
    this.#traces?.finished(execution, result, output, durationMs);
    if (result.status !== 'ok') logFailure(this.#options.logger, execution, result, output);
  }

  /** `approve` for every call (one function, not a closure per call): the request names its call. */
  readonly #approve = (request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision> => {
    const execution = this.#incoming.get(request.callId);
    if (execution === undefined) return false; // cannot happen: a call asks while it runs
    const decision = this.#approvals.ask(execution, request);
    return this.#traces ? this.#traces.approval(execution, decision) : decision;
  };

  readonly #onWidgetInvalid = (info: WidgetInvalidInfo): void =>
    this.#options.events.widgetInvalid(this.#options.redactor.value(info));

  /** No call queued, running or parked (waiting for a human or a nested run), and every result acked. */
  #isIdle(): boolean {
    return this.#incoming.size === 0 && this.#outbox.size === 0;
  }
}
