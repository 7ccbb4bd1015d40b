/**
 * `CallRunner`: the tool calls the service sends to one client, from the `tool_call` that brings a call to its
 * result acknowledged. It holds the calls by id and wires the parts that each keep one side of them; a call is one
 * {@link Execution} (./held-arguments.ts) that all of them share.
 *
 * - arrival: a `tool_call` is new, a re-delivery (joined to the call of its id: a call id runs at most once per
 *   process), the service's decision on a call it held for a human, or refused (busy, shutting down, unreadable);
 * - `Slots` (./slots.ts): concurrency slots, the queue, parking, every change of a call's state;
 * - `Deadlines` (./deadlines.ts): the service's `deadlineMs`, one timer for all;
 * - starting a call that took its first slot: its context (`contextFor`), then its tool (`startByName`), with the
 *   options of one call of this client (below);
 * - cancelling: the service's `cancel`, a run its caller aborted, `close()`;
 * - `Approvals` (./approvals.ts): who decides an approval;
 * - `Outbox` (./outbox.ts): result frames, kept until acked, backpressure;
 * - the call updates (./call-updates.ts, through the client): progress, preliminary results, events, steps,
 *   questions, and the lease, told of a call only when the service took the lease or the call reported something.
 *
 * The file holds the runner's dependencies, the options of one call, the runner, the log line of a failed call, and
 * the ids of the finished calls the runner remembers.
 *
 * @module
 */
import type { GateStats } from '../call/concurrency';
import { callParts } from '../call/parts';
import { notBegun } from '../call/pipeline';
import { startByName, type ToolRegistry } from '../call/registry';
import { abortReason, type Settled, settleThen } from '../call/signal';
import type {
  ApprovalDecision,
  ApprovalRequest,
  CallOptions,
  CallPolicy,
  ToolCallResult,
  WidgetInvalidInfo,
} from '../call/types';
import { CodeOnDemand } from '../code-on-demand';
import type { ConnectionError } from '../errors';
import type { Logger, Redactor } from '../logger';
import { isThenable } from '../maybe';
import {
  busyText,
  contextFailedText,
  disownedCallText,
  lostCallText,
  shuttingDownText,
  unreadableCallText,
} from '../tool/model-text';
import { thrownMessage } from '../tool/output';
import { type ToolInternals, toolInternals } from '../tool/tool';
import type { ClientFrame, FrameOf, ServiceFrame } from '../wire/protocol';
import type * as ApprovalsCode from './approvals';
import type { Approvals, Approver } from './approvals';
import { CallMap } from './call-map';
import { type CallUpdateHooks, CallUpdates, socketPacing, type WelcomeTerms } from './call-updates';
import type { CallInfo } from './client-options';
import { Deadlines } from './deadlines';
import {
  type CallEvents,
  type CallExtras,
  Execution,
  type ExecutionOwner,
  type ToolCallFrame,
} from './execution';
import { FailureLog } from './failure-log';
import { FinishedIds } from './finished-ids';
import {
  ArgumentsText,
  argumentsText,
  forgetLargeArguments,
  keptOf,
  parsedArguments,
  sameArguments,
} from './held-arguments';
import { Leases } from './leases';
import { type CallSocket, HeldResult, Outbox } from './outbox';
import { type Questioner, questionHooks } from './questions';
import { resultPartOf } from './result-parts';
import { SlotlessWaits } from './slotless-waits';
import { SLOW_CALL_MS, Slots } from './slots';
import type { CallTraces, callTraces, ToolTracing } from './tracing';

/**
 * ./approvals.ts: who decides a call's approval, and what a client keeps of the approvals it reported. Registered
 * by the Node entry ({@link registerApprovals}); in a browser, loaded by `connect()` when the client's tools or
 * `policies` may ask for approval (with the gate, src/call/parts.ts), by the first `run()` and `decide()`, and
 * else by the first approval a call asks for (a tool added while connected), which waits for it. A page whose
 * calls never ask never downloads it.
 */
export const approvalsCode = new CodeOnDemand<typeof ApprovalsCode>('approvals', () => import('./approvals'));

/** Makes ./approvals.ts known up front (src/node.ts): no approval then waits for an import. */
export function registerApprovals(code: typeof ApprovalsCode): void {
  approvalsCode.register(code);
}

/** A `tool_call` or an `ack`, as the decoder gives both: with the fields of both (src/wire/codec.ts `callFrame`). */
type CallFrame = ToolCallFrame & Pick<FrameOf<ServiceFrame, 'ack'>, 'callIds'>;

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
  /**
   * Bytes of the arguments of calls waiting to begin (their JSON text, UTF-8): in line for their first slot, for a
   * decision on their approval, or at their tool's gate (`concurrency`), past which no new call is taken.
   * @default Infinity
   */
  maxQueueBytes?: number;
  /** The client's connection. */
  socket: CallSocket;
  /** `ctx.context` for a call; may return a promise, and may throw (the call then fails without running). */
  contextFor(call: CallInfo): unknown;
  /** Local approver (`onApproval`); when absent, approval is asked of the service. */
  onApproval: Approver | undefined;
  /** `Client({ policies })`, run before approval. */
  policies?: readonly CallPolicy[] | undefined;
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
  /** ./tracing.ts's `callTraces` when the code is here (else the client gives it later: `traceWith`). */
  callTraces?: typeof callTraces | undefined;
  /**
   * This client's runs by id: for the traces of their calls (what `tracing.runStarted` captured), and to tell the
   * calls of a nested run one of its calls waits for (`run_start.parentCallId`), which it must take.
   */
  runCallers?: { get(runId: string): RunOfThisClient | undefined } | undefined;
}

/**
 * The nesting depths of agents used as tools given room of their own past twice `maxConcurrency + maxQueue`
 * (`maxConcurrency` each): the stub's `maxRunDepth`. Calls deeper share the deepest's.
 */
const NESTED_DEPTHS_RESERVED = 8;

/** What the call runner reads of a run this client started (src/client/runs.ts). */
interface RunOfThisClient {
  readonly traceCaller?: unknown;
  /** Its `run_start`: `parentCallId` names the call that waits for it, when it is a nested run. */
  readonly frame?: { readonly parentCallId?: string };
}

/*
 * The options of one call the client runs (`CallOptions` for src/call/) are the call itself, its
 * {@link Execution}: what differs per call is read from it (the `tool_call` frame, docs/protocol/tool-calls.md,
 * docs/protocol/approvals.md, docs/protocol/call-context.md, docs/protocol/steps.md); what every call of a client
 * shares (the hooks, the policies, the logger, the redactor, `extend`) is read from its call runner. A held call
 * thus keeps no object for its options, and the calls of every client in a process are of one class; its context
 * goes to the call on its own, straight into `ctx.context`.
 */
/** What every call of one client shares. */
type SharedCallOptions = Pick<
  CallOptions,
  | 'policies'
  | 'approve'
  | 'onWidgetInvalid'
  | 'onProgress'
  | 'onPreliminary'
  | 'onEmit'
  | 'onRetry'
  | 'onQuestion'
  | 'waits'
  | 'onStep'
  | 'logger'
  | 'extend'
  | 'redactor'
>;

/**
 * A call of a client, and its own options: read from its frame (`callId` and `runId` are fields of it already)
 * and from its call runner.
 */
class ClientExecution extends Execution {
  /**
   * A call that never runs, made with the class and held by it: it keeps the hidden classes V8 gives calls, and so
   * the optimised code that reads them, while a client holds no call. A constructor holds the first hidden class of
   * its objects; each later one (one per field set) lives only while an object has it or one made from it. A full
   * collection while no call is held (an idle client: V8 makes one when allocation slows) frees them and throws
   * away every optimised function that checks them, the whole intake and run of a call: the next calls run
   * unoptimised while V8 compiles it all again (10,000 calls taken in after a full collection: a third fewer
   * instructions each with this call kept). A static field: a module-level constant no function reads is not kept.
   */
  static readonly kept: ClientExecution = new ClientExecution(
    { type: 'tool_call', callId: '', runId: '', toolName: '' },
    { finished() {} },
  );

  /**
   * The call itself: its cancellation is the call's signal. A getter, not a field pointing at the call (8 B a call
   * held): options made over these (`Object.create`, a call with its own redactor: src/call/pipeline.ts) are given
   * the call as their own `signal`. The getters below read the call's fields through them as through the call.
   */
  get signal(): Execution {
    return this;
  }

  get depth(): number {
    return this.extras?.depth ?? 0;
  }

  get approved(): boolean | undefined {
    return this.extras?.approved;
  }

  get rejectionReason(): string | undefined {
    return this.extras?.reason;
  }

  get argumentsEdited(): boolean | undefined {
    return this.extras?.argumentsEdited;
  }

  get agentName(): string | undefined {
    return this.extras?.agentName;
  }

  get sessionId(): string | undefined {
    return this.extras?.sessionId;
  }

  get agentRevision(): string | undefined {
    return this.extras?.agentRevision;
  }

  get tenantId(): string | undefined {
    return this.extras?.tenantId;
  }

  get userId(): string | undefined {
    return this.extras?.userId;
  }

  get steps(): Readonly<Record<string, unknown>> | undefined {
    return this.extras?.steps;
  }

  get policies(): SharedCallOptions['policies'] {
    return (this.owner as CallRunner).callOptions.policies;
  }

  get approve(): SharedCallOptions['approve'] {
    return (this.owner as CallRunner).callOptions.approve;
  }

  get onWidgetInvalid(): SharedCallOptions['onWidgetInvalid'] {
    return (this.owner as CallRunner).callOptions.onWidgetInvalid;
  }

  get onProgress(): SharedCallOptions['onProgress'] {
    return (this.owner as CallRunner).callOptions.onProgress;
  }

  get onPreliminary(): SharedCallOptions['onPreliminary'] {
    return (this.owner as CallRunner).callOptions.onPreliminary;
  }

  get onEmit(): SharedCallOptions['onEmit'] {
    return (this.owner as CallRunner).callOptions.onEmit;
  }

  get onRetry(): SharedCallOptions['onRetry'] {
    return (this.owner as CallRunner).callOptions.onRetry;
  }

  get onQuestion(): SharedCallOptions['onQuestion'] {
    return (this.owner as CallRunner).callOptions.onQuestion;
  }

  get waits(): SharedCallOptions['waits'] {
    return (this.owner as CallRunner).callOptions.waits;
  }

  get onStep(): SharedCallOptions['onStep'] {
    return (this.owner as CallRunner).callOptions.onStep;
  }

  get logger(): SharedCallOptions['logger'] {
    return (this.owner as CallRunner).callOptions.logger;
  }

  get extend(): SharedCallOptions['extend'] {
    return (this.owner as CallRunner).callOptions.extend;
  }

  get redactor(): SharedCallOptions['redactor'] {
    return (this.owner as CallRunner).callOptions.redactor;
  }

  get callDeadlineMs(): number | undefined {
    return (this.owner as CallRunner).callDeadlineMs;
  }
}

/** Runs whose caller aborted them, remembered so that their calls still on the way abort on arrival. */
const REMEMBERED_ABORTED_RUNS = 256;

/** Why a call whose `execute` has not begun is handed back when the client stops taking calls. */
const shuttingDown = () => abortReason('the client is shutting down', 'AbortError', 'shutting_down');
/** Why a call waiting for its key's turn is handed back when the service asks for it (feature `hand_back`). */
const handedBack = () => abortReason('handed back to the service', 'AbortError', 'handed_back');

/**
 * The message of `ctx.signal.reason` for a service's `cancel` with `reason` (docs/reference/errors-calls.md):
 * `cancelled by the service (<reason>)`, and what the service meant by a reason a reader could not guess.
 */
function serviceCancelText(reason: string): string {
  const text = `cancelled by the service (${reason})`;
  return reason === 'not_dispatched'
    ? `${text}: the call had already ended there, or gone to another worker`
    : text;
}

/**
 * The `warn` line of a client that closed with results the service had not acknowledged: their count and calls (the
 * first 10), and what becomes of those calls.
 */
function unackedAtCloseText(callIds: readonly string[]): string {
  const one = callIds.length === 1;
  const shown = callIds.slice(0, 10).join(', ');
  const more = callIds.length > 10 ? ` and ${callIds.length - 10} more` : '';
  return `the client closed with ${callIds.length} result${one ? '' : 's'} the service had not acknowledged (call${one ? '' : 's'} ${shown}${more}): it may not have ${one ? 'it' : 'them'}, and gives a call it has no result for to another client, which runs it again: at once when this client's close reached it, else after the session's grace period`;
}

/** The call's tool says running it again is harmless (`sideEffect` `'none'` or `'idempotent'`). */
function runsAgain(registry: ToolRegistry, execution: Execution): boolean {
  const sideEffect = registry.get(execution.toolName)?.definition.sideEffect;
  return sideEffect === 'none' || sideEffect === 'idempotent';
}

/**
 * Runs tool calls for one client. Owned by `Client`; not exported from the package.
 *
 * Guarantee: within one process a call id is executed at most once. A re-delivered `tool_call` joins the
 * execution in flight (it may carry the service's approval decision), or is answered from the outbox while its
 * result waits for the `ack` (with a `warn` when its arguments differ); a service never sends a call again once
 * it acked its result (docs/protocol/sessions.md), and one that does anyway is ignored while the id is remembered (the
 * last 10,000 to 20,000 finished calls).
 */
export class CallRunner implements ExecutionOwner {
  readonly #options: CallRunnerOptions & { updates: CallUpdateHooks };
  /** Calls received and not finished: queued, running or parked. */
  readonly #held = new CallMap<Execution>();
  /** Ids of finished calls: the last 10,000 to 20,000. */
  readonly #finished = new FinishedIds();
  /** Runs aborted by their caller (`client.run({ signal })`), oldest first, with the abort reason. */
  readonly #abortedRuns = new Map<string, unknown>();
  /** The run whose calls held here the service's last `run_cancelled` ended (see {@link CallRunner.cancel}). */
  #lastRunCancelled: string | undefined;
  #accepting = true;
  /**
   * Calls whose end is not a result for the service: `'back'`, a call of a tool with `concurrency` handed back while
   * it waited at its gate ({@link CallRunner.stopAccepting}), answered as a new call is; `'again'`, a running call
   * of a tool that may run again, handed back so when the client closes ({@link CallRunner.abortAll}); `'lost'`, a leased call
   * stopped by its session's grace period, and `'disowned'`, a call the service said it no longer holds here
   * (`cancel { reason: 'not_dispatched' }`), both ended without a result ({@link CallRunner.#endWithoutResult}). Weak, with their count apart (read on every
   * call's end): a `Map` whose keys come and go keeps them through young-generation collections (./call-map.ts).
   */
  readonly #handingBack = new WeakMap<Execution, 'back' | 'again' | 'lost' | 'disowned'>();
  /**
   * Ids of calls ended without a result (`'lost'`, `'disowned'`) whose code still runs: their tool did not stop at
   * its signal, whether it ran or waited for an answer or a nested run ({@link CallRunner.#forgo}). The call, sent
   * here again meanwhile, is answered busy, never run a second time at once in this process (nor met by what the
   * first run still does by its id: a question, a nested run's end). Made at the first.
   */
  #stillRunning: Set<string> | undefined;
  #handingBackCount = 0;
  readonly #slots: Slots;
  readonly #deadlines: Deadlines;
  readonly #outbox: Outbox;
  /** Made at the first approval a call asks for ({@link CallRunner.#approvalsNow}): until then no call waits for one. */
  #approvals: Approvals | undefined;
  /**
   * Calls whose tool has begun but not its `execute`, waiting in between: for code to load (browsers only: a part
   * of the call, src/call/parts.ts, {@link CallRunner.preExecuteWait}, or ./approvals.ts, {@link CallRunner.#approve})
   * or for their arguments' validation that answers later (an async `refine`). They go back to the service when the
   * client stops ({@link CallRunner.#waitsBeforeExecute}), as calls waiting for a slot do. Made at the first such
   * wait.
   */
  #waitingBeforeExecute: Set<Execution> | undefined;
  readonly #leases: Leases;
  /** The service takes the lease on this socket (`welcome`): the lease is told of every call that begins and ends. */
  #leased = false;
  /** The service takes a result's kind beside its output (feature `result_parts`), on this socket. */
  #resultParts = false;
  /** The service lists the calls still owed when this client resumes (feature `owed_calls`), on the last socket. */
  #listsOwed = false;
  /**
   * The socket is down and the service will list the calls still owed at the resume: no call waiting for its first
   * slot starts until then ({@link CallRunner.welcomed}). Its run may have been cancelled meanwhile, and the cancel
   * lost with the socket.
   */
  #awaitingOwed = false;
  /** Finished calls the call updates keep something of, until their result is acked. */
  readonly #updated = new Set<string>();
  /** A tool with `concurrency` was added: its calls may wait at its gate, their tool not begun. */
  #keyed = false;
  /** The calls waiting for their key's turn, as the service is told (feature `key_waits`). */
  readonly #keyWaits: SlotlessWaits;
  /**
   * The calls waiting for the local approver's later answer, as the service is told (feature `approval_waits`): made
   * only for a client with `onApproval`, so a client without one pays nothing for it.
   */
  readonly #approvalWaits: SlotlessWaits | undefined;
  #traces: CallTraces | undefined;
  /** The client traces its calls: a trace records a call's arguments at its end (./held-arguments.ts). */
  readonly tracesArguments: boolean;
  /**
   * UTF-8 bytes of the arguments of the calls waiting to begin (./held-arguments.ts): in line for their first slot
   * (held as JSON text: {@link CallRunner.#lined}), for a decision on their approval, and at their tool's gate, for
   * their key's turn or a slot in it ({@link CallRunner.#waits}). Counted against `maxQueueBytes`.
   */
  #waitingBytes = 0;
  /**
   * The calls waiting for a decision or at their tool's gate, whose arguments' bytes count in
   * {@link CallRunner.#waitingBytes}: each once, whichever it waits for. Made at the first.
   */
  #countedWaits: Set<Execution> | undefined;
  #idleWaiters: Array<() => void> = [];
  /** Once closed ({@link CallRunner.dispose}): the results it closed without an ack, a final figure. */
  #unackedAtClose: number | undefined;
  /** The `warn` line of each failed call, those the service caused bounded (./failure-log.ts). */
  readonly #failures: FailureLog;
  /** The call the service sent that could not be read while it ends ({@link CallRunner.unreadable}). */
  #unreadableId: string | undefined;
  /** Shared by this client's calls whose frames carry the same values (./execution.ts `CallExtras`). */
  lastExtras: CallExtras | undefined = undefined;
  /** What every call of this client shares: read by each call, its own options (`ClientExecution`). */
  readonly callOptions: SharedCallOptions;
  /**
   * The service's per-call deadline (`welcome.callDeadlineMs`, docs/protocol/deadlines.md): the figure of the text of
   * a call the deadline stops before its tool began. `undefined` until a `welcome` announces it.
   */
  callDeadlineMs: number | undefined = undefined;

  constructor(runnerOptions: CallRunnerOptions) {
    const { socket, events, logger } = runnerOptions;
    const updates =
      runnerOptions.updates ??
      CallUpdates.on(
        socket,
        runnerOptions.redactor,
        events,
        this.#held,
        // Results first: the updates' queue waits while the outbox has results to write.
        socketPacing(
          socket,
          runnerOptions.highWaterMarkBytes,
          runnerOptions.maxBufferedBytes,
          () => this.#outbox.waiting,
        ),
        // The service holds a call's deadline while it has a question open (docs/protocol/questions.md).
        (callId, open) => {
          const execution = this.#held.get(callId);
          if (execution !== undefined) this.#deadlines.asking(execution, open);
        },
      );
    const options = { ...runnerOptions, updates };
    this.#options = options;
    this.#traces = options.tracing && options.callTraces?.(options.tracing, options.redactor, options);
    this.tracesArguments = options.tracing !== undefined;
    this.#leases = new Leases(updates, () => this.#deadlines);
    this.#failures = new FailureLog(logger);
    this.#keyWaits = new SlotlessWaits(socket, 'key_waits');
    this.#approvalWaits =
      runnerOptions.onApproval === undefined ? undefined : new SlotlessWaits(socket, 'approval_waits');
    this.callOptions = {
      policies: options.policies,
      approve: this.#approve,
      onWidgetInvalid: this.#onWidgetInvalid,
      onProgress: updates.progress,
      onPreliminary: updates.preliminary,
      onEmit: updates.emit,
      // Only a traced client is told of retries: a call of another pays nothing for it.
      ...(options.tracing === undefined ? {} : { onRetry: this.#onRetry }),
      ...questionHooks(options.onQuestion ?? updates.ask, this),
      onStep: updates.step,
      logger: options.logger,
      extend: options.extend,
      redactor: options.redactor,
    };
    this.#slots = new Slots({
      maxConcurrency: options.maxConcurrency,
      // In the call's trace, if any: spans its context function and its tool start are children of its span.
      // Decided here: an untraced client's call goes straight to `#start`. A client with `tracing` may get its
      // tracing code later (`traceWith`, in a browser's `connect()`), so it is asked for at each start.
      start:
        options.tracing === undefined
          ? this.#start
          : (execution, now) =>
              this.#traces ? this.#traces.start(execution, this.#start) : this.#start(execution, now),
      mayStart: () => !this.#outbox.full && !this.#awaitingOwed,
      lined: this.#lined,
      expireIfOverdue: (execution) => {
        if (!this.#deadlines.overdue(execution)) return false;
        this.#cancel(
          execution.callId,
          abortReason('the call passed its deadline before it started', 'TimeoutError', 'deadline'),
        );
        return true;
      },
    });
    this.toolsChanged();
    this.#deadlines = new Deadlines({
      held: () => this.#held.values(),
      // A call whose tool began ends cancelled; one that never began, `timeout` (src/call/pipeline.ts `notBegun`).
      // A leased call stopped by its session's grace period is the service's to give to another worker.
      expire: (execution) => {
        if (this.#leased && this.#leases.lost(execution)) {
          this.#forgo(execution, 'lost');
          this.#cancel(
            execution.callId,
            abortReason(
              "the socket was down for the session's grace period: the service gives the call to another worker",
              'AbortError',
              'session_expired',
            ),
          );
          return;
        }
        logger.warn({ callId: execution.callId }, 'call passed its deadline');
        this.#cancel(
          execution.callId,
          abortReason('the call passed its deadline', 'TimeoutError', 'deadline'),
        );
      },
      // A call the lease holds has begun: a call not begun (each new call is armed) is not asked about.
      leased: (execution) => this.#leased && execution.begun && this.#leases.holds(execution),
      // Only a client with a tool with `concurrency` keeps a deadline aside (src/client/deadlines.ts).
      mayWait: (execution) => this.#keyed && this.#isKeyed(execution.toolName),
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
      ...(updates.lead === undefined ? {} : { lead: updates.lead.bind(updates) }),
    });
    updates.countKeptIn?.(this.#outbox);
  }

  /** This runner's approvals, made at once when ./approvals.ts is here (always in Node: src/node.ts registers it). */
  #approvalsNow(): Approvals | undefined {
    const code = approvalsCode.code;
    if (this.#approvals !== undefined || code === undefined) return this.#approvals;
    const options = this.#options;
    this.#approvals = new code.Approvals({
      onApproval: options.onApproval,
      socket: options.socket,
      redactor: options.redactor,
      slots: this.#slots,
      deadlines: this.#deadlines,
      requested: (request, service) => options.events.approvalRequested(request, service),
      held: this.#held,
      ...(this.#approvalWaits === undefined ? {} : { waits: this.#approvalWaits }),
      waitsForDecision: (execution, waits) => (waits ? this.#waits(execution) : this.#goesOn(execution)),
    });
    return this.#approvals;
  }

  /** Calls holding slots. */
  get running(): number {
    return this.#slots.running;
  }

  /**
   * Calls whose `execute` waits to begin: in line for a slot, and calls of tools with `concurrency` waiting for their
   * key's turn (those hold no slot and are in no line of the slots: counted here, so that the backlog shows).
   */
  get queued(): number {
    const queued = this.#slots.queued;
    const gate = this.#keyed ? callParts.concurrency.code : undefined;
    if (gate === undefined) return queued;
    let atKey = 0;
    // A call waiting for its key is parked at its gate; one granted its permit waits in its key's lane (`resuming`,
    // counted by the slots) or runs.
    for (const execution of this.#held.values())
      if (execution.state === 'parked' && gate.waitingAtGate(execution)) atKey += 1;
    return queued + atKey;
  }

  /** Slots held ({@link CallRunner.running} plus the extra slots of calls of tools with `slots`); `undefined`
   * while no tool has `slots` (then it is `running`). */
  get slotsHeld(): number | undefined {
    return this.#slots.weighted ? this.#slots.held : undefined;
  }

  /** A tool was added: once one has `slots`, every call is weighed (src/client/slots.ts). */
  toolsChanged(): void {
    const { registry } = this.#options;
    const weighted = registry.names().some((name) => (toolInternals(registry.get(name))?.slots ?? 1) > 1);
    if (weighted)
      this.#slots.weighBy((execution) => toolInternals(registry.get(execution.toolName))?.slots ?? 1);
    // A call of a tool with `concurrency` that would wait for a slot starts without one: its key, known once its
    // input is validated, gives it its lane (src/client/slots.ts).
    const keyed = registry.names().some((name) => this.#isKeyed(name));
    if (keyed) this.#keyed = true;
    if (keyed)
      this.#slots.startEarly(
        (execution) => toolInternals(registry.get(execution.toolName))?.concurrency !== undefined,
      );
  }

  /**
   * Tools were removed, and the service told (`tools_update`): each call held for one of them whose tool has not
   * begun (in line for its first slot, or waiting for its key's turn) is answered busy, as a drain answers it, so
   * that the service gives it to a worker that still offers the tool, or keeps it waiting for one
   * (docs/protocol/routing.md), rather than the model reading that the tool does not exist. Running calls finish.
   */
  toolsRemoved(): void {
    const { registry } = this.#options;
    for (const execution of [...this.#held.values()])
      if (!registry.has(execution.toolName)) this.#giveBack([execution.callId]);
  }

  /** Whether the tool of that name has `concurrency` (its calls may wait at its gate). */
  #isKeyed(toolName: string): boolean {
    return toolInternals(this.#options.registry.get(toolName))?.concurrency !== undefined;
  }

  /**
   * A call of a tool with `concurrency` waits at its gate, its tool not begun (`waits`: for its key's turn, or for
   * a slot in it), or goes on to its tool (`undefined`). While it waits it is not leased: the service's deadline
   * applies to it as to a queued call (docs/protocol/lease.md), what is left of it.
   */
  gateWait(callId: string, waits: 'key' | 'slot' | undefined): void {
    const execution = this.#held.get(callId);
    if (execution === undefined || execution.state === 'finished') return;
    if (waits === undefined) {
      this.#goesOn(execution);
      this.#approvals?.begins(execution);
      this.#keyWaits.running(callId);
      if (execution.begun) return;
      execution.begin();
      if (this.#leased) this.#leases.started(execution);
      return;
    }
    // Its tool has its arguments (validated for its key): while it waits, only small ones are kept, and the input
    // its tool holds counts against maxQueueBytes by their bytes.
    forgetLargeArguments(execution, true);
    this.#waits(execution);
    // Approved by its local approver, it has not used the answer yet: taken back here, it keeps it (`left`).
    this.#approvals?.atGate(execution);
    // Waiting for its key's turn it holds no slot: the service may count it in none (feature `key_waits`).
    if (waits === 'key') this.#keyWaits.waiting(callId);
    if (!execution.begun) return;
    if (this.#leased) {
      this.#options.updates.ended(execution);
      this.#deadlines.resume(execution);
    }
    execution.unbegin();
    // Not begun again: its deadline is due without the grace (set with it while its tool had begun).
    this.#deadlines.notBegun(execution);
  }

  /**
   * A call begins to wait for a decision on its approval, or at its tool's gate, its tool holding the input its
   * schema made: the bytes of its arguments as they came (./held-arguments.ts `argumentBytes`, measured once) count
   * in {@link CallRunner.#waitingBytes} until it goes on or ends ({@link CallRunner.#goesOn}). Counted once: an
   * approved call of a tool with `concurrency` that then waits at its gate is not counted twice. Their bytes, not
   * the input's: that is not JSON text, and may be smaller (keys a schema strips) or larger (defaults, transforms).
   */
  #waits(execution: Execution): void {
    this.#countedWaits ??= new Set();
    if (this.#countedWaits.has(execution)) return;
    this.#countedWaits.add(execution);
    this.#waitingBytes += execution.argumentBytes ?? 0;
  }

  /** The call no longer waits for a decision or at its gate: it goes on, or ended there. */
  #goesOn(execution: Execution): void {
    if (this.#countedWaits?.delete(execution) === true) this.#waitingBytes -= execution.argumentBytes ?? 0;
  }

  /**
   * UTF-8 bytes of the arguments of the calls waiting to begin, counted against `maxQueueBytes`: in line for their
   * first slot, for a decision on their approval, or at their tool's gate.
   */
  get waitingBytes(): number {
    return this.#waitingBytes;
  }

  /** Per tool with `concurrency`: calls holding a permit and calls waiting for one, in this process. */
  concurrencyStats(): Record<string, GateStats> | undefined {
    const { registry } = this.#options;
    let stats: Record<string, GateStats> | undefined;
    for (const name of registry.names()) {
      const concurrency = toolInternals(registry.get(name))?.concurrency;
      if (concurrency === undefined) continue;
      stats ??= {};
      // Before src/call/concurrency.ts is loaded (src/call/parts.ts) no call has entered a gate.
      stats[name] = callParts.concurrency.code?.concurrencyStats(concurrency) ?? { running: 0, waiting: 0 };
    }
    return stats;
  }

  /**
   * Calls begun that hold no slot and wait for something other than their key's turn: a human (a decision, an
   * answer) or a nested run. Whether such a call gave a slot up ({@link Slots.waiting}) or never had one (a call of
   * a tool with `concurrency` begun while every slot was busy), and never one waiting at its key's gate (in
   * {@link CallRunner.queued}).
   */
  get waiting(): number {
    const gate = this.#keyed ? callParts.concurrency.code : undefined;
    if (gate === undefined) return this.#slots.waiting;
    let waiting = 0;
    for (const execution of this.#held.values())
      if (execution.state === 'parked' && !gate.waitingAtGate(execution)) waiting += 1;
    return waiting;
  }

  /**
   * Results not yet acknowledged by the service; once {@link CallRunner.dispose}d (the client closed), those it
   * closed without an ack.
   */
  get unacked(): number {
    return this.#unackedAtClose ?? this.#outbox.size;
  }

  /**
   * Handles the frames about calls (`tool_call`, `cancel`, `hand_back`, `ack`, `answer`); `false` for any other
   * frame. `heardAt`: when the frame arrived (`performance.now()` time, as the socket's heartbeat read it); the
   * clock is read now when not given.
   */
  handle(frame: ServiceFrame, heardAt?: number): boolean {
    switch (frame.type) {
      case 'tool_call':
      case 'ack': {
        // Both come in one shape (src/wire/codec.ts `callFrame`), and their acks take one path: the same loads and
        // calls for an `ack` as for the acks riding on calls (docs/protocol/tool-calls.md), which V8 has seen
        // thousands of times when the first `ack` frame comes (often only once the calls pause), so that its
        // optimised code holds. An `ack`'s `callId` comes first, then its `callIds`; a call's acks come before it:
        // they free outbox room. One call site of `ack` (an `ack`'s `callId` is the item before its list, at -1): V8
        // inlines it once into this function's optimised code.
        const { callId, callIds, acks } = frame as CallFrame;
        const call = frame.type === 'tool_call';
        const many = call ? acks : callIds;
        const count = many === undefined ? 0 : many.length;
        for (let i = call ? 0 : -1; i < count; i++) this.ack(i < 0 ? callId : many?.[i]);
        if (call) this.receive(frame, heardAt);
        return true;
      }
      case 'cancel':
        this.cancel(frame.callId, frame.reason ?? 'service');
        return true;
      case 'hand_back':
        this.#giveBack(frame.callIds);
        return true;
      case 'answer':
        this.#options.updates.answer(frame);
        return true;
      default:
        return false;
    }
  }

  /**
   * Handles a `tool_call` frame, heard at `heardAt` (`performance.now()` time; read now when not given): new,
   * re-delivered, or carrying the service's approval decision.
   */
  receive(frame: ToolCallFrame, heardAt?: number): void {
    const { callId } = frame;
    const held = this.#held.get(callId);
    if (held !== undefined) {
      this.#joined(held, frame);
      this.#approvals?.redelivered(held, frame);
      if (this.#leased) this.#leases.redelivered(held);
      return;
    }
    const idHash = this.#finished.hashOf(callId);
    const finished = this.#finished.has(callId, idHash);
    const answered = this.#answered(callId, finished);
    if (answered !== undefined) {
      this.#joined(answered, frame);
      this.#outbox.resend(callId);
      return;
    }
    if (finished) {
      this.#options.logger.debug({ callId }, 'tool_call for a finished call ignored');
      return;
    }
    if (this.#stillRunning?.has(callId) === true) {
      // Its first run's tool has not returned: the service tries again later, or another worker takes it.
      this.#answerRetryable(callId, frame.toolName);
      return;
    }
    if (this.#refusedNew(callId, frame.toolName, frame)) return;
    const execution = new ClientExecution(frame, this);
    execution.idHash = idHash;
    // The clock is read once on arrival (by the socket's heartbeat): its deadline counts from it, and so does a call
    // that starts now.
    const now = heardAt ?? performance.now();
    this.#deadlines.arrived(execution, frame.deadlineMs, now);
    execution.heldAt = this.#held.add(callId, execution);
    this.#traces?.received(execution, frame);
    // A call of a run its caller aborted (the service has not heard yet): it ends cancelled, never started.
    if (this.#abortedRuns.size > 0 && this.#abortedRuns.has(frame.runId))
      this.#cancel(callId, this.#abortedRuns.get(frame.runId));
    else {
      const waits = this.#slots.admit(execution, now);
      if (waits) this.#traces?.queued(execution);
    }
  }

  /**
   * A `tool_call` the service got wrong (refused with `error invalid_frame`, docs/protocol/errors.md) names a call id:
   * the
   * call is answered rather than left to its deadline. A new call is not run (its fields cannot be trusted: a
   * decision, a deadline) and ends with an `error` result saying why; a call held or answered here keeps its
   * course (its result is sent again, if any).
   */
  unreadable(callId: string, about: { toolName?: string; runId?: string }, message: string): void {
    if (this.#held.has(callId)) return;
    const finished = this.#finished.has(callId);
    if (this.#answered(callId, finished) !== undefined) {
      this.#outbox.resend(callId);
      return;
    }
    if (finished) return;
    const toolName = about.toolName ?? 'the tool';
    // Its error result is held until the ack, as any result: within the same limits as a call that runs.
    if (this.#refusedNew(callId, toolName)) return;
    const frame: ToolCallFrame = { type: 'tool_call', callId, runId: about.runId ?? '', toolName };
    const execution = new ClientExecution(frame, this);
    execution.heldAt = this.#held.add(callId, execution);
    // The service caused its failure: its line is bounded as theirs are (./failure-log.ts).
    this.#unreadableId = callId;
    this.finished(execution, {
      status: 'error',
      output: unreadableCallText(toolName, message),
      durationMs: 0,
    });
    this.#unreadableId = undefined;
  }

  /**
   * The call whose result the outbox holds for `callId`, if any; `finished`: the finished ids remember `callId`. The
   * outbox holds the results of finished calls only, whose ids the finished ids remember unless the oldest result held
   * is older than the last 10,000 to 20,000 calls finished: only then is the outbox asked about a call they do not
   * remember (a new call, nearly always).
   */
  #answered(callId: string, finished: boolean): ToolCallFrame | undefined {
    const oldest = this.#outbox.oldest;
    if (oldest === undefined || (!finished && this.#finished.remembers(oldest.finishedAs))) return undefined;
    return this.#outbox.callOf(callId);
  }

  /**
   * A new call is refused with a retryable result when the client stops taking calls or has no room for it. Calls
   * running, queued, and results waiting for their ack all hold memory: together they stay within
   * maxConcurrency + maxQueue, so a service that floods calls, or never acks, cannot grow this process; results
   * waiting for their ack also stay within maxOutboxBytes (plus those of the calls already taken), and the arguments
   * of queued calls within maxQueueBytes (plus the last one queued). Calls waiting for
   * a human or a nested run ({@link Slots.waiting}) count apart, all held calls within twice that: the calls of a
   * nested run come to this client, which must have room for them while its callers wait. Those calls alone can
   * end such a wait, so a call of a nested run started here at depth d has `d × maxConcurrency` more (d at most
   * {@link NESTED_DEPTHS_RESERVED}): the callers of each depth fill at most the room of theirs, and the deepest
   * calls always have room, so nested runs end. Else callers filling twice the room had their nested runs' calls
   * answered busy until their deadlines. Every new call passes here, whether it is run or only answered (an
   * unreadable one).
   */
  #refusedNew(callId: string, toolName: string, frame?: Pick<ToolCallFrame, 'runId' | 'depth'>): boolean {
    const { maxConcurrency, maxQueue, maxQueueBytes = Number.POSITIVE_INFINITY } = this.#options;
    const outbox = this.#outbox;
    const capacity = maxConcurrency + maxQueue;
    const held = this.#held.size;
    const room =
      held - this.#slots.waiting + outbox.size < capacity &&
      (held < 2 * capacity || held < 2 * capacity + maxConcurrency * this.#nestedDepth(frame)) &&
      !outbox.full &&
      this.#waitingBytes < maxQueueBytes;
    if (this.#accepting && room) return false;
    this.#answerRetryable(callId, toolName);
    return true;
  }

  /**
   * The depth of a call of a nested run this client started (`asTool()`: one of its calls waits for it), 1 to
   * {@link NESTED_DEPTHS_RESERVED}; 0 for any other call.
   */
  #nestedDepth(frame: Pick<ToolCallFrame, 'runId' | 'depth'> | undefined): number {
    if (frame === undefined || this.#options.runCallers?.get(frame.runId)?.frame?.parentCallId === undefined)
      return 0;
    return Math.min(Math.max(frame.depth ?? 1, 1), NESTED_DEPTHS_RESERVED);
  }

  /**
   * Answers a call this client does not run with a retryable result (busy; shutting down once it stops), which
   * the service gives to another worker. Returns the output sent.
   */
  #answerRetryable(callId: string, toolName: string): string {
    const output = this.#accepting ? busyText(toolName) : shuttingDownText(toolName);
    this.#options.socket.send({ type: 'tool_result', callId, status: 'error', output, retryable: true });
    return output;
  }

  /**
   * A re-delivered `tool_call` joins the call of its id, whatever its arguments: a call id is executed at most
   * once. Different arguments mean a confused service; the operator is told which call (never the arguments,
   * which may hold secrets), within the bound of the lines the service causes (./failure-log.ts): a service that
   * sends them without end does not flood the log.
   */
  #joined(first: Pick<ToolCallFrame, 'callId' | 'toolName' | 'arguments'>, again: ToolCallFrame): void {
    if (sameArguments(first.arguments, again.arguments)) return;
    this.#failures.serviceLine(
      { callId: first.callId, toolName: first.toolName },
      'a re-delivered tool_call has arguments different from the call of that id; it joins the call as first received, and its arguments are ignored',
      'arguments_differ',
    );
  }

  /**
   * Runs a call that took its first slot: its context first (`contextFor`), then its tool. A context that fails
   * fails the call: without it a tool could run unscoped (a query for every tenant). One function for every call,
   * and no closure for a context at hand (a value, or none): only a promised one is waited for.
   */
  readonly #start = (execution: Execution, now?: number): void => {
    execution.started = Math.round(now ?? performance.now());
    const { callId, runId, toolName } = execution;
    const { events } = this.#options;
    // A call of a tool this client does not have runs nothing: it ends unknown_tool, as a call that never began.
    if (events.listens?.('tool_call') !== false && this.#options.registry.has(toolName))
      events.toolCall({ callId, runId, toolName });
    // As `settleNow` would (src/call/signal.ts), without its outcome object and continuation: a context at hand runs
    // the tool at once. A call cancelled before or while its context came runs nothing (the call layer ends it).
    let context: unknown;
    if (!execution.aborted) {
      try {
        context = this.#options.contextFor(execution);
      } catch (error) {
        if (!execution.aborted) {
          this.#contextFailed(execution, error);
          return;
        }
      }
      let thenable: boolean;
      try {
        thenable = isThenable(context);
      } catch (error) {
        this.#contextFailed(execution, error); // a `then` getter that throws, as Promise.resolve says
        return;
      }
      if (thenable) {
        this.#awaitContext(execution, context as PromiseLike<unknown>);
        return;
      }
    }
    this.#run(execution, execution.aborted ? undefined : context);
  };

  /**
   * A promised context: a cancel, the deadline or close() while it is awaited ends the wait (the call layer then
   * ends the call as any aborted call, running nothing): a context that never comes cannot hold the call or its slot.
   */
  #awaitContext(execution: Execution, pending: PromiseLike<unknown>): void {
    if (execution.aborted) {
      // Cancelled while the context function ran: its promise is not waited for, nor left to reject unhandled.
      Promise.resolve(pending).then(undefined, () => {});
      this.#run(execution, undefined);
      return;
    }
    settleThen(
      () => pending,
      { signal: execution },
      (outcome) => this.#contextReady(outcome, execution),
    );
  }

  /** The call's context came (or failed, or the call was cancelled meanwhile): runs its tool, or fails it. */
  #contextReady(outcome: Settled<unknown>, execution: Execution): void {
    if (outcome.kind !== 'error') this.#run(execution, outcome.kind === 'value' ? outcome.value : undefined);
    else this.#contextFailed(execution, outcome.error);
  }

  /** The call's context function threw or rejected: the call fails, its tool not run. */
  #contextFailed(execution: Execution, error: unknown): void {
    const output = contextFailedText(execution.toolName, thrownMessage(error));
    const durationMs = Math.max(0, Math.round(performance.now()) - execution.started);
    this.finished(execution, { status: 'error', output, durationMs, error });
  }

  /** Runs a call's tool, its context in hand. */
  #run(execution: Execution, context: unknown): void {
    // Cancelled while its context came: the call layer ends it at once, and there is nothing to lease.
    if (execution.state !== 'finished') {
      execution.begin();
      if (this.#leased) this.#leases.started(execution);
    }
    // A call whose phases are all synchronous (zod validation, a plain `execute`) ends here, in this turn.
    startByName(this.#options.registry, execution, execution.toolName, execution.arguments, context);
  }

  /**
   * Handles a `cancel`: aborts `ctx.signal` of the call, or drops it from the queue. `run_cancelled` says the
   * service ended the call's run, and that each call of the run it sent gets the same cancel
   * (docs/protocol/deadlines.md): the calls of that run waiting here for a slot (queued, or in line to go on) end
   * with the first, so that none starts in the slot that cancel freed before its own cancel is read. The run's
   * running calls wait for their own; any other reason ends only its call.
   */
  cancel(callId: string, reason: string): void {
    const aborted = abortReason(serviceCancelText(reason), 'AbortError', reason);
    if (reason === 'not_dispatched') {
      const disowned = this.#held.get(callId);
      if (disowned !== undefined) this.#disown(disowned, aborted);
      return;
    }
    const execution = reason === 'run_cancelled' ? this.#held.get(callId) : undefined;
    this.#cancel(callId, aborted);
    // The run's other cancels follow at once: its calls waiting for a slot were ended with the first.
    if (execution === undefined || execution.runId === this.#lastRunCancelled) return;
    const { runId } = execution;
    this.#lastRunCancelled = runId;
    for (const other of [...this.#held.values()]) {
      const waits = other.state === 'queued' || other.state === 'resuming';
      if (waits && other.runId === runId) this.#cancel(other.callId, aborted);
    }
  }

  /**
   * The service no longer holds the call for this worker (`cancel { reason: 'not_dispatched' }`, or left out of
   * `welcome.owed`, docs/protocol/calls-no-longer-held.md) and does not want its answer: it ends without a result, and is not
   * remembered as finished, so that the call runs here again if the service sends it again.
   */
  #disown(execution: Execution, reason: unknown): void {
    if (!this.#handingBack.has(execution)) this.#forgo(execution, 'disowned');
    this.#cancel(execution.callId, reason);
  }

  /**
   * A resume's `welcome` listed the calls the service is still owed a result for by this session (feature
   * `owed_calls`, docs/protocol/calls-no-longer-held.md): every call held here that is not among them ended there while the
   * socket was down (its `cancel` lost with it), or went to another worker. Each is disowned ({@link
   * CallRunner.#disown}): a queued call never starts (none started while the socket was down,
   * {@link CallRunner.disconnected}), a call waiting for its key's turn, a decision or an answer stops waiting, a
   * running call's `ctx.signal` aborts. A finished call is not held: its result, waiting for its
   * ack, goes out as before. Ids not held here are ignored.
   */
  #dropNotOwed(owed: readonly string[]): void {
    const kept = new Set(owed);
    let reason: unknown;
    for (const execution of [...this.#held.values()]) {
      if (kept.has(execution.callId)) continue;
      reason ??= abortReason(serviceCancelText('not_dispatched'), 'AbortError', 'not_dispatched');
      this.#disown(execution, reason);
    }
  }

  /** Cancels a call (a `cancel`, its deadline, its run's abort, `close()`) with `reason` as its signal's reason. */
  #cancel(callId: string, reason: unknown): void {
    const execution = this.#held.get(callId);
    if (execution === undefined) return;
    // Decided, waiting for a slot: it ends cancelled where it waits (for the approval), without one.
    this.#slots.leaveLine(execution);
    execution.abort(reason);
    if (execution.state === 'queued') {
      // Never started: it ends here, without a slot, a `tool_call` event or its context (`timeout` at its deadline).
      this.finished(execution, { ...notBegun(execution.toolName, execution.options), durationMs: 0 });
    }
  }

  /**
   * The caller of run `runId` aborted it (`cause`): every call of that run held here aborts now, whether or not
   * the socket is up (the service's `cancel` may be far off), and so does each call of it that arrives later.
   */
  cancelRun(runId: string, cause: unknown): void {
    const reason = abortReason(`run ${runId} was aborted by its caller`, 'AbortError', cause);
    this.#abortedRuns.delete(runId);
    this.#abortedRuns.set(runId, reason);
    if (this.#abortedRuns.size > REMEMBERED_ABORTED_RUNS) {
      for (const oldest of this.#abortedRuns.keys()) {
        this.#abortedRuns.delete(oldest);
        break;
      }
    }
    for (const execution of [...this.#held.values()]) {
      if (execution.runId === runId) this.#cancel(execution.callId, reason);
    }
  }

  /**
   * Aborts every call still held: its result says `cancelled`. With `handBack` (`close()`: its drain ran out of
   * time, or `drain: false`), a running call of a tool that may run again (`sideEffect` `'none'` or `'idempotent'`,
   * as for `retry`) goes back to the service instead, answered as a call that had not begun (retryable), and another
   * worker runs it again: running any other again is not this client's decision.
   */
  abortAll(reason: string, handBack = false): void {
    const aborted = abortReason(`cancelled (${reason})`, 'AbortError', reason);
    const { registry } = this.#options;
    for (const execution of [...this.#held.values()]) {
      if (
        handBack &&
        execution.state !== 'queued' &&
        !this.#handingBack.has(execution) &&
        runsAgain(registry, execution)
      ) {
        // Its `ctx.signal` says the client is shutting down; `finished` hands it back.
        this.#handBackAs(execution, 'again');
        execution.abort(shuttingDown());
      } else this.#cancel(execution.callId, aborted);
    }
  }

  /**
   * The service has the result (an `ack`), or will never record it (`refused`: the error code): forget it. A call
   * still waiting for the service's decision when the service refuses it (docs/protocol/tool-calls.md,
   * docs/protocol/approvals.md: its session is gone, e.g. after a new session) will never get it here: it ends
   * without a result, as a disowned call ({@link CallRunner.#disown}), rather than hold its place for ever.
   */
  ack(callId: string | undefined, refused?: string): void {
    // None: the `callId` an `ack` frame did not carry, or a call's own (see `handle`).
    if (callId === undefined) return;
    // Its `approval_request` refused: the call is not this session's (it went on without this worker: decided and
    // sent to another, perhaps running there). It ends without a result, as at `not_dispatched`: a `cancelled`
    // result from here would be taken as the call's, and cut the run of the worker that has it.
    const waiting = refused === undefined ? undefined : this.#held.get(callId);
    if (waiting?.decide !== undefined)
      this.#disown(waiting, abortReason(`the service refused the call (${refused})`, 'AbortError', refused));
    this.#outbox.ack(callId);
    if (this.#slots.queued > 0) this.#slots.reopen();
    if (this.#updated.size > 0 && this.#updated.delete(callId)) this.#options.updates.forget(callId);
    // A call that ends puts its result in the outbox: only an ack, or a call that ends without a result kept
    // (`#endWithoutResult`, `#handBack`), can leave the runner idle.
    if (this.#idleWaiters.length > 0 && this.#isIdle()) this.#wakeIdle();
  }

  /**
   * The service refused a result with `code` (one that drops it, docs/protocol/tool-calls.md): it is forgotten as at
   * {@link CallRunner.ack}. Returns whether that is worth an `error` event: not for the result of a call that ended
   * `cancelled` that the service does not know (`unknown_call`, `duplicate_result`: it restarted, or the client
   * re-sent it into a new session), which tells the service nothing it wants; that is logged at `debug`.
   */
  refusedResult(callId: string, code: string): boolean {
    // A call waiting for the service's decision, refused: it stops, with a `warn` of its own (`#endWithoutResult`).
    if (this.#held.get(callId)?.decide !== undefined) {
      this.ack(callId, code);
      return false;
    }
    const quiet =
      (code === 'unknown_call' || code === 'duplicate_result') &&
      this.#outbox.statusOf(callId) === 'cancelled';
    this.ack(callId, code);
    if (quiet)
      this.#options.logger.debug(
        { callId, code },
        'the service does not take the cancelled result of a call it no longer knows; it is dropped',
      );
    return !quiet;
  }

  /** Nothing is held and every result is acked: resolves the waiters of {@link CallRunner.idle}. */
  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
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
   * calls come to this client too, and would otherwise queue behind the calls waiting for them. So does a call
   * about to wait for its key's turn (src/call/concurrency.ts), before {@link CallRunner.gateWait}.
   */
  park(callId: string): void {
    const execution = this.#held.get(callId);
    if (execution === undefined) return;
    // Its tool has its arguments: while it waits, only small ones are kept (./held-arguments.ts); one about to wait
    // for its key's turn (no permit yet) has them measured first, for `gateWait` to count.
    forgetLargeArguments(
      execution,
      this.#keyed &&
        this.#isKeyed(execution.toolName) &&
        callParts.concurrency.code?.holdsPermit(execution) === false,
    );
    this.#slots.park(execution);
  }

  /**
   * A call parked by {@link CallRunner.park} goes on: resolves `true` once it holds a slot again, at once if one is
   * free, else first in line for the next, so that calls never run over `maxConcurrency` (with `lane`, in that
   * lane's turn: src/client/slots.ts). Resolves `false` when the call is cancelled or times out while in line: it
   * ended there, and its tool learns it from what it waited for (`QuestionError` `cancelled`, the abort reason).
   * A call that has ended meanwhile gets `true` at once, without a slot.
   */
  unpark(callId: string, lane?: string): Promise<boolean> {
    const execution = this.#held.get(callId);
    if (execution === undefined) return Promise.resolve(true);
    return this.#slots.backInSlot(execution, lane);
  }

  /**
   * {@link CallRunner.unpark} for a call that waited for a nested run: resolves with its result, `value`, once the
   * call holds a slot again; rejects with the reason of its `ctx.signal` when it is cancelled or times out while in
   * line, so that its tool's `await` settles there.
   */
  resumeParked<T>(callId: string, value: T): Promise<T> {
    const execution = this.#held.get(callId);
    if (execution === undefined) return Promise.resolve(value);
    return this.#slots.backInSlot(execution).then((inSlot) => {
      if (inSlot) return value;
      throw execution.ctx.signal.reason;
    });
  }

  /**
   * Whether the call holds a slot: not while it waits (parked, in line), nor when it started before a slot was
   * free (a call of a tool with `concurrency`, src/client/slots.ts). A call not held here has ended: it has
   * nothing to wait for.
   */
  holdsSlot(callId: string): boolean {
    const state = this.#held.get(callId)?.state;
    return state === undefined || state === 'running' || state === 'finished';
  }

  /**
   * The socket dropped: a leased call stops once the service would re-dispatch it (see `Leases`). With the feature
   * `owed_calls`, calls waiting for their first slot start no more until the resume says which are still owed.
   */
  disconnected(): void {
    this.#failures.flush('socket');
    this.#leases.disconnected(this.#held.values());
    this.#deadlines.disconnected();
    if (this.#listsOwed) this.#awaitingOwed = true;
  }

  /**
   * `welcome` arrived: what the service takes on this socket (docs/protocol/index.md), then {@link reconnected}. When
   * it begins to lease calls, the calls that began while it did not are leased too. A resume's list of the calls
   * still owed (feature `owed_calls`) drops the others held here first ({@link CallRunner.#dropNotOwed}).
   */
  welcomed(
    welcome: WelcomeTerms &
      Pick<FrameOf<ServiceFrame, 'welcome'>, 'owed' | 'callDeadlineMs'> & { resumed?: boolean },
  ): void {
    const { updates } = this.#options;
    const leasedBefore = this.#leased;
    this.callDeadlineMs = welcome.callDeadlineMs;
    updates.setWelcome?.(welcome);
    this.#leased = updates.leased;
    this.#resultParts = updates.takesResultParts === true;
    this.#keyWaits.welcomed(welcome.features?.includes('key_waits') === true, welcome.resumed !== false);
    this.#approvalWaits?.welcomed(
      welcome.features?.includes('approval_waits') === true,
      welcome.resumed !== false,
    );
    // The calls the service still owes a result for (feature `owed_calls`): the others held here are dropped before
    // anything is sent again for them (their approval requests, leases, questions, key waits).
    const { owed } = welcome;
    this.#listsOwed = welcome.features?.includes('owed_calls') === true;
    if (owed !== undefined && welcome.resumed === true && this.#held.size > 0 && this.#listsOwed)
      this.#dropNotOwed(owed);
    // Calls held back while the socket was down start now, those still owed (or all, without a list).
    if (this.#awaitingOwed) {
      this.#awaitingOwed = false;
      if (this.#slots.queued > 0) this.#slots.reopen();
    }
    if (this.#leased && !leasedBefore) {
      for (const execution of this.#held.values()) if (execution.begun) updates.started(execution);
    }
    this.reconnected(welcome.resumed !== false);
  }

  /**
   * A new socket is open: every pending approval request, everything in the outbox (each result after the updates
   * of its call: the service ignores those of a call it has the result of) and then the updates of the calls still
   * running are sent again, once, at the pace the socket drains.
   */
  reconnected(resumed = true): void {
    this.#approvals?.reconnected(this.#held.values());
    this.#leases.reconnected(this.#held.values(), resumed);
    this.#deadlines.reconnected();
    // Results first (each after what is kept of its own call, ./outbox.ts), then the updates of running calls.
    this.#outbox.reconnected();
    this.#options.updates.reconnected(resumed);
  }

  /**
   * Stops taking new calls; they are answered with a retryable shutting-down result. So are the calls whose
   * `execute` has not begun: waiting for their first slot, for their key's turn, for their `context`, for code,
   * for their arguments' validation (an async `refine`), or for an approval (the service's human, or
   * `onApproval`). They never ran here, and another worker runs them now rather than this one after its running
   * calls (or never, when its drain times out and aborts what it holds); a call held for the service's decision
   * stays held there, and the decision goes to the worker that then gets it (docs/protocol/approvals.md). A call
   * waiting for its key that the local approver approved through a promise (a person) stays, as it does at a
   * `hand_back`: on another worker the person would be asked again. The drain waits for it.
   * Calls that began and wait for a person's answer or a nested run are running: the drain waits for them, and a
   * `warn` says so.
   */
  stopAccepting(): void {
    if (!this.#accepting) return;
    this.#accepting = false;
    const gate = callParts.concurrency.code;
    for (const execution of [...this.#held.values()]) {
      if (execution.state === 'queued') this.#handBack(execution);
      else if (
        (gate?.waitingAtGate(execution) === true && !this.#approvals?.waitedHere(execution)) ||
        (execution.state === 'parked' && this.#approvals?.waiting(execution) === true) ||
        (this.#waitingBeforeExecute?.has(execution) === true && !this.#approvals?.waitedHere(execution)) ||
        (execution.state === 'running' && !execution.begun && !this.#approvals?.waitedHere(execution))
      ) {
        // Waiting for its key's turn (or, its permit taken, for a slot), for a decision, for code it needs first
        // or its validation, or for its context: its `execute` has not begun. Its wait ends on the abort, and
        // `finished` answers it as it answers a queued call.
        this.#handBackAs(execution, 'back');
        execution.abort(shuttingDown());
      }
    }
    const waiting = this.#slots.waiting;
    if (waiting > 0)
      this.#options.logger.warn(
        { calls: waiting },
        `${waiting} call(s) that began wait for a person's answer (ctx.askQuestion) or a nested run: the drain waits for them within its timeoutMs, then cancels them (or hands back those of tools with sideEffect 'none' or 'idempotent')`,
      );
  }

  /** Marks how a call's end goes back to the service ({@link CallRunner.#handingBack}). */
  #handBackAs(execution: Execution, kind: 'back' | 'again' | 'lost' | 'disowned'): void {
    if (!this.#handingBack.has(execution)) this.#handingBackCount += 1;
    this.#handingBack.set(execution, kind);
  }

  /**
   * The service will take no result of a held call, about to be aborted: it ends without one
   * ({@link CallRunner.#endWithoutResult}), and may be sent here again. Told now, before the abort ends its waits,
   * whether its code runs: a phase of it open, its tool begun. That is a tool running, or waiting for an answer or
   * a nested run, or in line for a slot to go on after one (it goes on when that wait ends at the abort); not a
   * call waiting for its key's turn or a slot in it (its tool has not begun), for a decision (nothing of it runs),
   * or for its context.
   */
  #forgo(execution: Execution, kind: 'lost' | 'disowned'): void {
    this.#handBackAs(execution, kind);
    if (execution.phaseOpen && execution.begun) {
      this.#stillRunning ??= new Set();
      this.#stillRunning.add(execution.callId);
    }
  }

  /**
   * The service asks for calls back (feature `hand_back`, docs/protocol/fleets.md): each one whose tool has not
   * begun, in line for its first slot or waiting for its key's turn, is answered busy, and the service gives it to a
   * worker with room. Any other id (a call that began or ended, or is not held here) is ignored, and so is a call the
   * local approver answered with a promise (a person, say): on another worker they would be asked about it again.
   */
  #giveBack(callIds: readonly string[]): void {
    const gate = callParts.concurrency.code;
    for (const callId of callIds) {
      const execution = this.#held.get(callId);
      if (execution === undefined || this.#handingBack.has(execution)) continue;
      // In line for its first slot: nothing of it has run.
      if (execution.state === 'queued') this.#handBack(execution);
      else if (gate?.waitingAtGate(execution) === true && !this.#approvals?.waitedHere(execution)) {
        // Its wait ends on the abort, and `finished` hands it back.
        this.#handBackAs(execution, 'back');
        execution.abort(handedBack());
      }
    }
  }

  /**
   * A call goes back to the service: answered as a new call is while the client stops (retryable), and not
   * remembered as finished (the service gives it to another worker, or again to this one). Mostly a call whose
   * `execute` never began; one that ran (`result`: its tool may run again, and the client closes,
   * {@link CallRunner.abortAll}) keeps its slot until its tool returns, as a cancelled call's, and its updates are
   * dropped: the call runs again elsewhere.
   */
  #handBack(execution: Execution, result?: ToolCallResult): void {
    // A call that left the queue emitted a `tool_call` event (its wait at its gate came after it).
    const started = execution.state !== 'queued';
    if (this.#slots.finish(execution, result !== undefined && execution.phaseOpen) === undefined) return;
    const { callId, runId, toolName } = execution;
    this.#release(execution);
    if (execution.updated) this.#options.updates.forget(callId);
    const output = this.#answerRetryable(callId, toolName);
    const durationMs = result?.durationMs ?? 0;
    this.#traces?.finished(execution, { status: 'error', output, durationMs }, output, durationMs);
    // It ends with its `tool_result` event.
    const { events } = this.#options;
    if (started && events.listens?.('tool_result') !== false)
      events.toolResult({ callId, runId, toolName, status: 'error', durationMs, output });
    // Answered at once, with no result kept for an ack: a drain waiting for this call is over once it was the last.
    if (this.#idleWaiters.length > 0 && this.#isIdle()) this.#wakeIdle();
    this.#options.logger.debug({ callId }, 'a call handed back to the service');
  }

  /**
   * A leased call stopped when its session's grace period passed while the socket was down
   * (docs/protocol/lease.md): by then the service has given it to another worker, or sends it here again on a
   * resume that came after this side's clock ran out; or (`disowned`) a call the service said it no longer holds
   * here (docs/protocol/calls-no-longer-held.md). Its end is no result for the service: nothing is sent or kept in the outbox,
   * and the id is not remembered as finished, so that the call runs again if it comes back: answered busy while
   * its first run's code still runs, and waiting for the answer its local approver was to give it, if any, rather
   * than ask again. Its slot is kept until its tool returns, as a cancelled call's.
   */
  #endWithoutResult(execution: Execution, result: ToolCallResult, kind: 'lost' | 'disowned'): void {
    if (this.#slots.finish(execution, execution.phaseOpen) === undefined) return;
    const { callId, runId, toolName } = execution;
    this.#release(execution);
    // What of it outlives its end meets the call if it comes again: its code, while it runs (answered busy until
    // `returned` is told; a phase that closed before the end tells nothing), and its local approver's answer.
    if (!execution.phaseOpen) this.#stillRunning?.delete(callId);
    this.#approvals?.left(execution);
    const { updates, events, logger } = this.#options;
    // Its progress, events, step results and questions are the call's, which runs again elsewhere.
    if (execution.updated) updates.forget(callId);
    const output = kind === 'lost' ? lostCallText(toolName) : disownedCallText(toolName);
    const { durationMs } = result;
    this.#traces?.finished(execution, { status: 'cancelled', output, durationMs }, output, durationMs);
    if (events.listens?.('tool_result') !== false)
      events.toolResult({ callId, runId, toolName, status: 'cancelled', durationMs, output });
    // No result to wait an ack for: a drain waiting for this call is over once it was the last.
    if (this.#idleWaiters.length > 0 && this.#isIdle()) this.#wakeIdle();
    logger.warn(
      { callId },
      kind === 'lost'
        ? "a call stopped: the socket was down for its session's grace period, and the service gives it to another worker"
        : 'a call stopped: the service no longer holds it for this worker (it ended, or went to another worker, while the socket was down)',
    );
  }

  /**
   * A call that ended here (with a result, handed back, or lost with its session) is no longer held: no deadline,
   * no key wait, no lease.
   */
  #release(execution: Execution): void {
    this.#deadlines.arm(execution, undefined);
    this.#held.take(execution.callId, execution.heldAt, execution);
    if (this.#keyed) this.#keyWaits.ended(execution.callId);
    // Only a client whose calls waited for a decision or at a gate has bytes of theirs counted.
    if (this.#countedWaits !== undefined) this.#goesOn(execution);
    this.#waitingBeforeExecute?.delete(execution);
    this.#approvalWaits?.ended(execution.callId);
    if (this.#leased) this.#options.updates.ended(execution);
  }

  /**
   * Resolves when no call is queued, running or parked (waiting for a human or a nested run), no tool still runs (a
   * call answered while its tool ran, cancelled or timed out, holds its slot until the tool returns) and the outbox
   * is empty.
   */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops timers; the client closed. The results never acknowledged are let go, their number kept as
   * {@link CallRunner.unacked}'s final figure, and a `warn` line names their calls: the service may not have them.
   */
  dispose(): void {
    this.#failures.flush('client');
    const callIds = this.#outbox.close();
    this.#unackedAtClose = callIds.length;
    if (callIds.length > 0)
      this.#options.logger.warn({ unacked: callIds.length }, unackedAtCloseText(callIds));
    this.#deadlines.dispose();
    this.#options.updates.dispose?.();
  }

  /** The tool of a call answered while it ran has returned (from its {@link Execution}): its slot is free. */
  returned(execution: Execution): void {
    this.#slots.release(execution);
    this.#stillRunning?.delete(execution.callId);
    // A drain waits for the tools still running, answered or not.
    if (this.#idleWaiters.length > 0 && this.#isIdle()) this.#wakeIdle();
  }

  /**
   * A call has its result (from its {@link Execution}). `wellFormed`: its output holds no lone surrogate, and is
   * not made so again.
   */
  finished(execution: Execution, result: ToolCallResult, wellFormed = false): void {
    if (this.#handingBackCount > 0) {
      const kind = this.#handingBack.get(execution);
      if (kind !== undefined) {
        this.#handingBack.delete(execution);
        this.#handingBackCount -= 1;
        if (kind === 'lost' || kind === 'disowned') this.#endWithoutResult(execution, result, kind);
        else this.#handBack(execution, kind === 'again' ? result : undefined);
        return;
      }
    }
    // Cancelled or timed out while its tool ran: answered now, its slot kept until the tool returns. A slow call's
    // result leaves before the next call starts (src/client/slots.ts).
    const from = this.#slots.finish(execution, execution.phaseOpen, result.durationMs >= SLOW_CALL_MS);
    if (from === undefined) return;
    const { callId } = execution;
    this.#release(execution);
    const finishedAs = this.#finished.add(callId, execution.idHash);
    const { updates } = this.#options;
    const { updated } = execution;
    if (updated) {
      // Its open questions are dropped, and the last progress or preliminary result goes before the result.
      updates.beforeResult(callId);
      this.#updated.add(callId);
    }
    // A call that ran counted its time when it ended (ResultSink.started is its `started`): not read again here.
    const durationMs = from === 'queued' ? 0 : result.durationMs;
    // The result's kind (feature `result_parts`): its value is sent only when `output` is not the result: the tool
    // projects it (`toModelOutput`), or an approver edited the arguments (the model reads a note before it).
    const part = this.#resultParts
      ? resultPartOf(
          result,
          result.status === 'ok' &&
            result.content === undefined &&
            (execution.editedArguments !== undefined || projects(execution)),
          this.#options.redactor,
          execution.redaction,
        )
      : undefined;
    // What the outbox keeps of the call until its result is acked, with the result (src/client/outbox.ts
    // `HeldResult`): its ids and tool (the texts and the log lines about the result name them), and its arguments
    // only when they are small enough to keep for comparing a re-delivery (./held-arguments.ts); never its kept
    // steps or larger arguments: a service that never acks would hold them for every call while the outbox counts
    // only its results' bytes (`maxOutboxBytes`). Made here, not in a function of its own nor in the outbox: V8 then
    // inlines its constructor into this function among the first of what it calls.
    const held = new HeldResult(
      callId,
      execution.runId,
      execution.toolName,
      keptOf(execution.arguments),
      finishedAs,
    );
    const { output } = this.#outbox.add(held, result, durationMs, part, updated, wellFormed);
    const { events } = this.#options;
    if (events.listens?.('tool_result') !== false)
      events.toolResult({
        callId,
        runId: execution.runId,
        toolName: execution.toolName,
        status: result.status,
        durationMs,
        output,
      });
    this.#traces?.finished(execution, result, output, durationMs);
    if (result.status !== 'ok')
      this.#failures.failed(execution, result, output, this.#unreadableId === callId);
  }

  /** `approve` for every call (one function, not a closure per call): the request names its call. */
  readonly #approve = (request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision> => {
    const execution = this.#held.get(request.callId);
    if (execution === undefined) return false; // cannot happen: a call asks while it runs
    if (!this.#accepting) {
      // It reached its approval while the client stops: its `execute` has not begun, so it goes back to the
      // service (see stopAccepting) rather than hold the drain for a human.
      this.#handBackAs(execution, 'back');
      execution.abort(shuttingDown());
      return false;
    }
    const approvals = this.#approvalsNow();
    // In a browser whose `connect()` did not load ./approvals.ts (a tool added while connected): the call waits for
    // it, under its signal as for any approver; a failed load is the approver's failure (`approval_failed`, saying
    // why), and the next call loads again.
    if (approvals === undefined) {
      this.#waitsBeforeExecute(execution, true);
      const loaded = approvalsCode.load();
      const over = () => this.#waitsBeforeExecute(execution, false);
      loaded.then(over, over);
      return loaded.then(() => this.#approve(request));
    }
    const decision = approvals.ask(execution, request);
    return this.#traces ? this.#traces.approval(execution, decision) : decision;
  };

  /**
   * A call waits before its `execute` begins, for code it needs or for its validation (`waits`), or no longer (told
   * by the call: `CallWaits.preExecuteWait`). See {@link CallRunner.#waitsBeforeExecute}.
   */
  preExecuteWait(callId: string, waits: boolean): void {
    const execution = this.#held.get(callId);
    if (execution !== undefined) this.#waitsBeforeExecute(execution, waits);
  }

  /**
   * A call waits before its `execute` begins (`waits`: for code, a part of the call or ./approvals.ts, or for its
   * validation), or no longer. Such a call goes back to the service when the client stops
   * ({@link CallRunner.stopAccepting}), at once when it began to wait after that: a chunk or a validation that is
   * slow or never comes (a network that hangs) does not hold `close()`. But for a call the local approver answered
   * with a promise (a person), as at its key's gate: it stays, and the drain waits.
   */
  #waitsBeforeExecute(execution: Execution, waits: boolean): void {
    if (!waits) {
      this.#waitingBeforeExecute?.delete(execution);
      return;
    }
    if (this.#accepting || this.#approvals?.waitedHere(execution) === true) {
      this.#waitingBeforeExecute ??= new Set();
      this.#waitingBeforeExecute.add(execution);
      return;
    }
    // Its wait ends on the abort, and `finished` answers it as it answers a queued call.
    this.#handBackAs(execution, 'back');
    execution.abort(shuttingDown());
  }

  /** ./tracing.ts arrived (a browser client with `tracing` loads it in `connect()`): calls are traced from now. */
  traceWith(code: typeof callTraces): void {
    const options = this.#options;
    if (options.tracing !== undefined) this.#traces ??= code(options.tracing, options.redactor, options);
  }

  /** A traced call's attempt failed and another follows: its trace records `toolwire.retry`. */
  readonly #onRetry = (info: { callId: string; attempt: number; delayMs: number; error: unknown }): void => {
    const execution = this.#held.get(info.callId);
    if (execution !== undefined) this.#traces?.retried(execution, info);
  };

  readonly #onWidgetInvalid = (info: WidgetInvalidInfo): void =>
    this.#options.events.widgetInvalid(this.#options.redactor.value(info));

  /**
   * A new call waits for its first slot: its arguments are held as JSON text meanwhile, their bytes counted
   * against `maxQueueBytes` (./held-arguments.ts). Taken from the line they are parsed again (to start, or to end
   * past its deadline, answered as it would have been then); a call that ended in line (cancelled) keeps what an
   * answered call keeps of them.
   */
  readonly #lined = (execution: Execution, change: 'waits' | 'taken' | 'ended'): void => {
    const args = execution.arguments;
    if (change === 'waits') {
      // A string is the model's JSON text as it wrote it: counted too, its bytes are held all the same.
      if (
        typeof args !== 'string' &&
        (typeof args !== 'object' || args === null || args instanceof ArgumentsText)
      )
        return;
      const text = argumentsText(args);
      execution.arguments = text;
      this.#waitingBytes += text.bytes;
      return;
    }
    if (!(args instanceof ArgumentsText)) return;
    this.#waitingBytes -= args.bytes;
    if (change === 'taken') execution.arguments = parsedArguments(args);
    else if (!this.tracesArguments) execution.arguments = keptOf(args);
  };

  /** No call queued, running or parked (waiting for a human or a nested run), no tool running, every result acked. */
  #isIdle(): boolean {
    return this.#held.size === 0 && this.#outbox.size === 0 && this.#slots.running === 0;
  }
}

/**
 * The tool a call ran shows the model a projection of its result (`toModelOutput`): asked of a call that ended `ok`,
 * whose tool ran (a call that never began has no tool).
 */
function projects(execution: Execution): boolean {
  return (execution.internals as ToolInternals | undefined)?.toModelOutput !== undefined;
}
