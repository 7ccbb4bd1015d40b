/**
 * A call's pipeline: one call from the model's raw arguments to its result.
 *
 * - `CallRun`: the state the phases of a call share, its cancellation, what `ctx`'s methods reach, and the one
 *   place a call ends (redaction, the edited-arguments note, well-formed text, `maxOutputBytes`, the duration); a
 *   host subclasses it to keep its side of a call in the same object (`SinkRun` for a host that gives options and
 *   a sink);
 * - `startCall` / `startRun`: the arguments decoded and checked (./arguments.ts), `ctx` made (./context.ts) when
 *   `execute` may read it (else when first asked for), then `runCall`;
 * - `runCall` and its phases: validate → the gate and approval → `execute` → the widget split → `outputSchema`
 *   (on the data) → `toModelOutput` → the model's text;
 * - how a call ends when a phase gives no value: cancelled, timed out or failed (through `errorFunction`);
 * - the widget split, and the note the model reads when an approver edited the arguments.
 *
 * A call takes only the phases its tool and its host have: the gate and approval (./policies.ts,
 * ./approval.ts) for a tool that asks for approval or names its agents, a host with policies, or a call a human
 * already decided; attempts (./retry.ts) for a tool with `retry`; preliminary results (./yields.ts) when `execute`
 * returned something that yields. The code of the optional phases (the gate and approval, attempts, concurrency,
 * steps, questions, the widget check) is reached through ./parts.ts: in a browser it may still be loading, and a
 * call that needs it then waits for it (`withPart`); a plain call never looks. Each phase runs under the call's
 * time budget and signal (`timed`, ./signal.ts) and goes on at once when it answers synchronously: a call of a
 * tool with none of these and a synchronous `execute` ends in the turn that started it.
 *
 * Time: `timeoutMs` is one budget for the tool's own work in the call: argument validation, the policies, the
 * `needsApproval` predicate, `execute`, `outputSchema` validation and `toModelOutput` (the time a human takes to
 * approve is not counted). When it runs out in any of them, `ctx.signal` aborts with a `TimeoutError` and the call
 * ends `timeout` (the text names a policy or the `needsApproval` check when one of them hung). `errorFunction` then
 * has its own bound (`errorFunctionTimeoutMs`). `options.signal` ends the call in every phase.
 *
 * @module
 */

import type { CodeOnDemand } from '../code-on-demand';
import { isPlainObject } from '../json';
import { MAX_ARGUMENT_DEPTH } from '../limits';
import { type Logger, scopedLogger, silentLogger } from '../logger';
import { contentText, isToolContent, redactedPart } from '../tool/content';
import {
  cancelledText,
  declinedText,
  editedInvalidText,
  editedNoteText,
  errorText,
  hookFailedText,
  invalidArgumentsText,
  notJsonText,
  notObjectText,
  outputMismatchText,
  timeoutText,
  tooDeepText,
} from '../tool/model-text';
import { serializeOutput, thrownMessage, toWellFormed, truncateUtf8 } from '../tool/output';
import type { ValidationIssue, ValidationResult } from '../tool/schema';
import { formatPath } from '../tool/schema/adapter';
import {
  AiSdkDeniedOutput,
  AiSdkErrorOutput,
  type AskOptions,
  type ProgressInput,
  type Tool,
  type ToolContext,
  type ToolInternals,
  toolInternals,
} from '../tool/tool';
import type { Widget } from '../tool/widget';
import type { ApprovalOutcome } from './approval';
import { decodeArguments, isArgumentsObject, refuseNumbers, scanArguments } from './arguments';
import {
  checkEvent,
  checkEventCount,
  checkProgress,
  contextClassFor,
  cutProgressMessage,
  newAttempt,
} from './context';
import { type CallParts, callParts, type PartName } from './parts';
import type { GateOutcome } from './policies';
import type { CallRedaction } from './redaction';
import {
  ABORTED,
  CallSignal,
  Cancellation,
  errorFunctionTimeoutMs,
  type Settled,
  settleNow,
  settleThen,
  timed,
  timeoutError,
} from './signal';
import type { CallSteps } from './steps';
import type {
  AbortLike,
  Attempt,
  CallOptions,
  CallOutcome,
  CallState,
  PreliminaryResult,
  ResultSink,
  ToolCallResult,
} from './types';
import { closeIterator, drainYields, iteratorOf } from './yields';

/**
 * A bug in toolwire or a schema library must still give the model an answer: whatever was thrown, read without
 * throwing again (`thrownMessage`).
 */
function bugOutcome(tool: Tool, error: unknown): CallOutcome {
  return { status: 'error', output: errorText(tool.name, thrownMessage(error, 'toolwire')), error };
}

/** What few calls need, kept apart so that a call needs no field for it (see `CallRun`). */
interface RareState {
  editedArguments: object | undefined;
  stage: string | undefined;
  /** The call's redaction by field name: made at the start when the tool or a policy may redact fields. */
  redaction: CallRedaction | undefined;
  steps: CallSteps | undefined;
  questions: number;
  /** `ctx.emit()` events recorded: past `EVENT_LIMITS.maxPerCall` the next one is refused. */
  events: number;
  remainingMs: number | undefined;
}

/** What goes on after a phase of a call (see `CallRun.settle`). */
type Next = (outcome: Settled<unknown>, call: CallState) => void;

/** `CallRun.next` once a wait of the call is over (the call may still listen to its signal: see `done`). */
const WAITED: Next = () => {};

/** `CallRun.next` once the call has its result. */
const FINISHED: Next = () => {};

/** A result redacted with a call's own redactor (sensitive values of its arguments). */
function redactOutcome(outcome: CallOutcome, redactor: CallRedaction): void {
  outcome.output = redactor.output(outcome.output);
  if (outcome.widget !== undefined) outcome.widget = redactor.value(outcome.widget);
  if (outcome.content !== undefined)
    outcome.content = outcome.content.map((part) => redactedPart(part, redactor));
  if (outcome.error !== undefined) outcome.error = redactor.error(outcome.error);
}

/** A text or value redacted with `redactor`. */
function scrub<T>(value: T, redactor: CallRedaction): T {
  return (typeof value === 'string' ? redactor.text(value) : redactor.value(value)) as T;
}

/**
 * One call from its start to its result: the {@link CallState} the phases share, its cancellation (it is a
 * {@link Cancellation}: `abort()` cancels it), and the one place a call ends (a class rather than closures: a call
 * held in flight keeps one object, not a context and two functions). A host subclasses it to keep its own side
 * of a call in the same object (the client's `Execution`, src/client/execution.ts, which is also the call's
 * options); `startCall` uses {@link SinkRun}.
 *
 * Memory: a call held in flight (its `execute` not settled) keeps this object, so it keeps few fields: what few
 * calls need sits in one object made on demand (its `ctx.signal`'s state too), and it has no private instance
 * methods (V8 gives every instance of a class with them a field of its own).
 */
export abstract class CallRun extends Cancellation implements CallState {
  // Fields are declared only and set in the constructor, `private` rather than `#`: a class built on this one (the
  // client's `Execution`) calls `super()`, which V8 (Node 20, 22 and 24 alike) does not inline into a class that declares
  // fields (instance members to initialise), nor into one with private instance methods: each such class of the
  // chain then costs every call ~230 instructions (a generic construct). See src/call/signal.ts `Cancellation`.
  /** Its tool, once it starts (`startRun`). */
  declare tool: Tool;
  /** Its tool's internals, once it starts: read at every phase (a field, not a lookup each time). */
  declare internals: ToolInternals;
  declare options: CallOptions;
  /**
   * Its `ctx` once made; before, its `ctx.context` when it has one ({@link Unmade}). A tool whose `execute` cannot
   * read a `ctx` (`ToolInternals.executeReadsContext`) makes none unless something else asks for it.
   */
  declare private madeCtx: ToolContext | Unmade | undefined;
  /** The state of its first `ctx.signal`: made when read, or when it aborts first (a timeout, the call's end). */
  declare private signalState: CallSignal | undefined;
  /** What few calls need (a note, a field redaction, steps, questions, a redactor of their own): made when first needed. */
  declare private rare: RareState | undefined;
  /**
   * What goes on when the phase the call waits on is over (`settle`): `undefined` before its first wait,
   * {@link WAITED} between waits and after them, {@link FINISHED} once the call has its result.
   */
  declare private next: Next | undefined;
  /**
   * A phase's promise (its `execute`, say) is pending: set when the call waits on one, cleared when it settles,
   * even after the call has its result (a cancel or a timeout does not wait for it: see {@link CallRun.lateReturn}).
   */
  declare private open: boolean;

  /** @param options - the call's options; none: the call is its own (a subclass then has their members). */
  constructor(options?: CallOptions) {
    super();
    this.tool = undefined as unknown as Tool;
    this.internals = undefined as unknown as ToolInternals;
    this.options = options ?? (this as unknown as CallOptions);
    this.madeCtx = undefined;
    this.signalState = undefined;
    this.rare = undefined;
    this.next = undefined;
    this.open = false;
  }

  /** Where the call's result goes, once. */
  abstract result(result: ToolCallResult): void;

  /** When the call started (`performance.now()`, ms): the result's `durationMs` counts from it. */
  abstract readonly started: number | undefined;

  /** The call's `ctx`, made on first read (with the ids, context and scope of its options then). */
  get ctx(): ToolContext {
    const ctx = this.madeCtx;
    if (ctx !== undefined && !(ctx instanceof Unmade)) return ctx;
    const made = newContext(this, ctx?.context);
    this.madeCtx = made;
    return made;
  }

  /** An attempt of a tool with `retry` gives the call its own `ctx` (./retry.ts). */
  set ctx(ctx: ToolContext) {
    this.madeCtx = ctx;
  }

  /** `ctx.signal` of its first `ctx` (./context.ts `ContextCall`), made on first read. */
  get contextSignal(): AbortSignal {
    return CallRun.#signalOf(this).signal;
  }

  /**
   * The call takes its tool and, until its `ctx` is made, what `ctx.context` will be; its redaction is made when
   * fields may be redacted (the tool names some, or a policy may): a held call stays small. `false` when that
   * redaction's code is not loaded yet (./parts.ts): the call is to wait for it and take its tool again.
   */
  static take(call: CallRun, tool: Tool, context: unknown): boolean {
    call.tool = tool;
    call.internals = toolInternals(tool)!;
    if (context !== undefined) call.madeCtx = new Unmade(context);
    const names = call.internals.sensitiveFieldNames;
    if (names.length > 0 || (call.options.policies?.length ?? 0) > 0) return CallRun.#redacted(call, names);
    return true;
  }

  /**
   * {@link CallRun.take} for a call whose fields may be redacted: its redaction, `false` when its code is not loaded
   * yet. Apart, so that a call without one makes no scope for the closure it takes.
   */
  static #redacted(call: CallRun, names: readonly string[]): boolean {
    const code = callParts.redaction.code;
    if (code === undefined) return false;
    CallRun.#rareOf(call).redaction = new code.CallRedaction(call.options.redactor, names, (redactor) => {
      // Over the call's options rather than a copy of them: a client's keep what they share on their prototype.
      // Their `signal` as an own value: a call that is its own options (the client's) reads it as itself, which
      // would be these.
      const { options } = call;
      call.options = Object.create(options, {
        redactor: { value: redactor, enumerable: true, writable: true, configurable: true },
        signal: { value: options.signal, enumerable: true, writable: true, configurable: true },
      }) as CallOptions;
    });
    return true;
  }

  get timeLimitMs(): number | undefined {
    return this.options.timeoutMs ?? this.internals.timeoutMs;
  }

  /** What is left of `timeLimitMs`: kept apart once a phase spent some (only a call with a time limit has any). */
  get remainingMs(): number | undefined {
    const rare = this.rare;
    return rare === undefined ? this.timeLimitMs : rare.remainingMs;
  }

  set remainingMs(ms: number | undefined) {
    CallRun.#rareOf(this).remainingMs = ms;
  }

  abortWithTimeout(): void {
    CallRun.#signalOf(this).abort(timeoutError(this.tool.name, this.timeLimitMs ?? 0, this.stage));
  }

  preExecuteWait(waits: boolean): void {
    const { waits: hooks, callId } = this.options;
    if (callId !== undefined) hooks?.preExecuteWait?.(callId, waits);
  }

  /** The arguments an approver edited, when they did: the model reads them (redacted) before the result's text. */
  get editedArguments(): object | undefined {
    return this.rare?.editedArguments;
  }

  set editedArguments(edited: object | undefined) {
    if (edited === undefined && this.rare === undefined) return;
    CallRun.#rareOf(this).editedArguments = edited;
  }

  /** The stage the call is in when it is not the tool's own work (`policy 2`), named if it times out there. */
  get stage(): string | undefined {
    return this.rare?.stage;
  }

  set stage(stage: string | undefined) {
    if (stage === undefined && this.rare === undefined) return;
    CallRun.#rareOf(this).stage = stage;
  }

  /** The call's redaction by field name (`sensitiveFieldNames`, a policy's `redact`): ./redaction.ts. */
  get redaction(): CallRedaction | undefined {
    return this.rare?.redaction;
  }

  // Static, as `#scrub` is: a private instance method would give every call a field of its own (V8's brand).
  static #rareOf(call: CallRun): RareState {
    call.rare ??= {
      editedArguments: undefined,
      stage: undefined,
      redaction: undefined,
      steps: undefined,
      questions: 0,
      events: 0,
      remainingMs: call.timeLimitMs,
    };
    return call.rare;
  }

  /**
   * The state of the call's first `ctx.signal`, made now if it was not: it follows the caller's cancellation
   * until the call ends, then no longer.
   */
  static #signalOf(call: CallRun): CallSignal {
    call.signalState ??= new CallSignal(call.finished ? undefined : call.options.signal, call.tool.name);
    return call.signalState;
  }

  /**
   * The call is its own wait (no object per wait, see {@link CallState.settle}): its abort listener on
   * `options.signal` (from its first asynchronous phase until it ends: one listener for its waits), and its
   * methods `fulfilled` and `rejected` bound as the reactions on the phase's promise (a bound method is the
   * smallest function V8 makes).
   */
  settle<T, A = undefined>(
    fn: (call: CallState, arg: A) => T | PromiseLike<T>,
    next: (outcome: Settled<Awaited<T>>, call: CallState) => void,
    arg?: A,
  ): void {
    const signal = this.options.signal;
    const pending = settleNow(fn, signal, next, this as CallState, arg as A);
    if (pending !== undefined) CallRun.#wait(this, pending, next as Next, signal);
  }

  /** The phase answered with a promise: the call waits for it (see {@link CallRun.settle}). */
  static #wait(
    call: CallRun,
    pending: PromiseLike<unknown>,
    next: Next,
    signal: AbortLike | undefined,
  ): void {
    call.next = next;
    call.opened();
    signal?.addEventListener('abort', call, { once: true });
    Promise.resolve(pending).then(call.fulfilled.bind(call), call.rejected.bind(call));
  }

  /** The promise of the phase the call waits on fulfilled. */
  fulfilled(value: unknown): void {
    this.returned();
    CallRun.#settled(this, { kind: 'value', value });
  }

  /** The promise of the phase the call waits on rejected. */
  rejected(error: unknown): void {
    this.returned();
    CallRun.#settled(this, { kind: 'error', error });
  }

  /**
   * Whether the promise of a phase is pending: when the call has its result, that its tool (or another phase's
   * code) still runs, the call having been cancelled or timed out meanwhile.
   */
  get phaseOpen(): boolean {
    return this.open;
  }

  /**
   * A phase's promise is pending: the call waits on it ({@link CallRun.settle}, or `settleThen` for a phase with a
   * time limit, ./signal.ts). Its phases have its arguments by now: a host may let go of what it keeps of them for
   * as long as the call waits (the client's `Execution`). Not told of a call whose phases all answer at once.
   */
  opened(): void {
    this.open = true;
  }

  /**
   * `execute` is about to get `input`, which may be the very object its host handed in as the call's arguments (a
   * tool whose schema hands back its input: `ToolInternals.sharesInput`), and may add to or change it: a host that
   * keeps the arguments as received (the client's `Execution`, for its trace and to compare a re-delivery) keeps
   * its own from now. Told of the calls of such tools only, before each attempt (the first one acts); a no-op here.
   */
  handsInput(_input: unknown): void {}

  /** The pending phase's promise settled; after the call's end, {@link CallRun.lateReturn} is told. */
  returned(): void {
    this.open = false;
    if (this.next !== FINISHED) return;
    if (this.internals.concurrency !== undefined) callParts.concurrency.code?.releasePermit(this);
    this.lateReturn();
  }

  /**
   * The code a phase ran returned after the call had its result (it was cancelled or timed out while its tool
   * ran): its permit (a tool with `concurrency`) is given back before this; a host frees what the running tool held
   * (the client, its slot).
   */
  lateReturn(): void {}

  /**
   * The caller's cancellation aborted: the phase the call waits on ends `aborted` (its `ctx.signal`, once made,
   * listens for itself).
   */
  handleEvent(): void {
    CallRun.#settled(this, ABORTED);
  }

  /** The phase the call waits on is over, unless it was already: what goes on is told `outcome`. */
  static #settled(call: CallRun, outcome: Settled<unknown>): void {
    const next = call.next;
    if (next === undefined || next === WAITED || next === FINISHED) return;
    call.next = WAITED;
    try {
      next(outcome, call);
    } catch (error) {
      call.fail(error);
    }
  }

  done(outcome: CallOutcome, wellFormed = false): void {
    const waited = this.next;
    if (waited === FINISHED) return;
    // Its `ctx.signal` no longer follows the caller's cancellation: one read later is aborted only if it came first.
    if (this.signalState !== undefined || this.options.signal?.aborted === true)
      CallRun.#signalOf(this).end();
    this.next = FINISHED;
    // It waited: it listens to the caller's signal until now, and a wait still open is dropped.
    if (waited !== undefined) this.options.signal?.removeEventListener('abort', this);
    // A tool with `concurrency`: the call's permit goes to the next call of its key (./concurrency.ts), once its
    // tool returns if it still runs.
    if (this.internals.concurrency !== undefined) callParts.concurrency.code?.releasePermit(this, this.open);
    const { maxOutputBytes } = this.options;
    let formed = wellFormed;
    const redaction = this.redaction;
    if (redaction?.active === true) {
      redactOutcome(outcome, redaction);
      formed = false;
    }
    const edited = this.editedArguments;
    if (edited !== undefined && outcome.status !== 'cancelled') {
      outcome.output = withNote(editedNote(this, edited), outcome.output, maxOutputBytes);
      formed = false;
    }
    // A lone surrogate (half an emoji cut by `slice`) cannot be encoded: the model reads U+FFFD instead. JSON
    // `serializeOutput` wrote has none (nor has the text of a number): not scanned again.
    if (!formed) outcome.output = toWellFormed(outcome.output);
    if (maxOutputBytes !== undefined) outcome.output = truncateUtf8(outcome.output, maxOutputBytes);
    // The outcome is this call's own object: completed in place rather than copied.
    const result = outcome as ToolCallResult;
    result.durationMs = Math.max(0, Math.round(performance.now() - (this.started ?? 0)));
    this.result(result);
  }

  fail(error: unknown): void {
    this.done(bugOutcome(this.tool, error));
  }

  /** The values of `input` (raw, validated or edited arguments) under the redacted field names are redacted. */
  validated(input: unknown): void {
    this.rare?.redaction?.addInputs(input);
  }

  /** A text or value the call gives out while it runs, with the call's fields redacted when it has any. */
  static #scrub<T>(call: CallRun, value: T): T {
    const redaction = call.rare?.redaction;
    return redaction?.active === true ? scrub(value, redaction) : value;
  }

  /** A kept step's record as listeners get it: its result redacted when the call has fields to redact. */
  static #scrubStep<R extends { result: unknown }>(call: CallRun, record: R): R {
    const redaction = call.rare?.redaction;
    return redaction?.active === true ? { ...record, result: redaction.value(record.result) } : record;
  }

  /** Whether `ctx.logger` logs anywhere (`options.logger`). */
  get logs(): boolean {
    return this.options.logger !== undefined;
  }

  /** `ctx.logger` of attempt `attempt`. */
  loggerFor(attempt: number): Logger {
    const { logger } = this.options;
    if (logger === undefined) return silentLogger;
    const fields = { callId: this.ctx.callId, toolName: this.tool.name, attempt };
    const redaction = this.redaction;
    return scopedLogger(logger, fields, redaction?.active === true ? redaction : undefined);
  }

  /** `ctx.step()`. */
  step(key: string, fn: () => unknown): Promise<unknown> {
    // ./steps.ts loads at a page's first step (./parts.ts).
    const part = callParts.steps.code;
    if (part === undefined) return callParts.steps.load().then(() => this.step(key, fn));
    const rare = CallRun.#rareOf(this);
    rare.steps ??= new part.CallSteps(this.options.steps);
    return rare.steps.run(this, key, fn, {
      kept: (record) => {
        const listener = this.options.onStep;
        if (this.finished || listener === undefined) return;
        try {
          listener(CallRun.#scrubStep(this, record));
        } catch {
          // The listener's failure is not the tool's.
        }
      },
      notKept: ({ key: shown, reason }) =>
        this.ctx.logger.warn({ step: shown }, `step ${JSON.stringify(shown)} is not kept: ${reason}`),
    });
  }

  /** A `ctx` (and a signal) for attempt `number` of a tool with `retry`. */
  newAttempt(number: number): Attempt {
    return newAttempt(this, number);
  }

  /** `true` once the call has its result. */
  get finished(): boolean {
    return this.next === FINISHED;
  }

  /** `q1`, `q2`, … */
  nextQuestionId(): string {
    const rare = CallRun.#rareOf(this);
    rare.questions += 1;
    return `q${rare.questions}`;
  }

  /**
   * `ctx.emit()`: checked (a bad name, or one holding a secret, throws to the tool; so does an event past the 256
   * a call may record, whoever listens), then given to `onEmit` while the call runs.
   */
  emit(type: string, data?: unknown): void {
    const checked = checkEvent(type, data, this.options.redactor);
    if (this.finished) return;
    const rare = CallRun.#rareOf(this);
    checkEventCount(rare.events);
    rare.events += 1;
    const listener = this.options.onEmit;
    if (listener === undefined) return;
    const { callId, runId, toolName } = this.ctx;
    const event = { ...checked };
    if ('data' in event) event.data = CallRun.#scrub(this, event.data);
    try {
      listener({ callId, runId, toolName, ...event });
    } catch {
      // The listener's failure is not the tool's.
    }
  }

  /** `ctx.askQuestion()`. */
  askQuestion(question: string, options?: AskOptions<unknown>): Promise<unknown> {
    // ./questions.ts loads at a page's first question (./parts.ts).
    const part = callParts.questions.code;
    if (part === undefined) return callParts.questions.load().then(() => this.askQuestion(question, options));
    return part.askQuestion(
      this,
      typeof question === 'string' ? CallRun.#scrub(this, question) : question,
      options,
    );
  }

  /** A value the tool yielded, while the call runs: as the result's text would be, within `maxOutputBytes`. */
  preliminary(result: Pick<PreliminaryResult, 'output' | 'widget' | 'value'>): void {
    const listener = this.options.onPreliminary;
    if (this.finished || listener === undefined) return;
    const redaction = this.redaction;
    let output = toWellFormed(redaction?.active === true ? redaction.output(result.output) : result.output);
    const { maxOutputBytes } = this.options;
    if (maxOutputBytes !== undefined) output = truncateUtf8(output, maxOutputBytes);
    const { callId, runId, toolName } = this.ctx;
    try {
      const widget = CallRun.#scrub(this, result.widget);
      listener({ callId, runId, toolName, ...result, output, ...(widget === undefined ? {} : { widget }) });
    } catch {
      // The listener's failure is not the tool's.
    }
  }

  /** `ctx.progress()`: checked (a bad update throws to the tool), then given to `onProgress` while the call runs. */
  progress(update: ProgressInput): void {
    const checked = checkProgress(update);
    const listener = this.options.onProgress;
    if (this.finished || listener === undefined) return;
    const { callId, runId, toolName } = this.ctx;
    if (checked.message !== undefined) {
      // Redacted whole, then cut: a secret across the cut would otherwise leave a piece no rule finds.
      const { redactor } = this.options;
      checked.message = cutProgressMessage(
        redactor === undefined ? checked.message : redactor.text(checked.message),
      );
    }
    try {
      listener({ callId, runId, toolName, ...CallRun.#scrub(this, checked) });
    } catch {
      // The listener's failure is not the tool's.
    }
  }
}

/** A call's `ctx.context` until its `ctx` is made (a value of the host's could be anything: it is wrapped). */
class Unmade {
  constructor(readonly context: unknown) {}
}

/** The first `ctx` of `call`, from its options as they are now. */
function newContext(call: CallRun, context: unknown): ToolContext {
  const { options } = call;
  const Context = contextClassFor(options.extend);
  return new Context(
    call,
    context,
    options.callId ?? randomId(),
    options.runId ?? randomId(),
    call.tool.name,
    options.depth ?? 0,
    {
      attempt: 1,
      sessionId: options.sessionId,
      agentName: options.agentName,
      tenantId: options.tenantId,
      userId: options.userId,
      agentRevision: options.agentRevision,
    },
  ) as unknown as ToolContext;
}

/** A random id: `crypto.randomUUID()` where available (it is missing on insecure browser origins). */
function randomId(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** A call of a host that gives its options and a sink for its result (`startCall`). */
export class SinkRun extends CallRun {
  /** Where the result goes. */
  readonly #sink: ResultSink;

  constructor(options: CallOptions, sink: ResultSink) {
    super(options);
    this.#sink = sink;
  }

  get started(): number | undefined {
    return this.#sink.started;
  }

  result(result: ToolCallResult): void {
    this.#sink.result(result);
  }
}

/**
 * Starts one call of `tool` with the model's raw arguments (`invokeTool` without its checks, for the hosts that
 * give options and a sink): `sink` gets the result exactly once, synchronously when every phase of the call
 * answers synchronously. A call id and a run id not given are random UUIDs; `context` is `ctx.context`. Never
 * throws.
 */
export function startCall(
  tool: Tool,
  rawArguments: unknown,
  options: CallOptions,
  sink: ResultSink,
  context: unknown = options.context,
): void {
  sink.started ??= performance.now();
  startRun(new SinkRun(options, sink), tool, rawArguments, context);
}

/**
 * Starts `call` (a host's own {@link CallRun}, e.g. the client's call, which is its own options and sink) as a
 * call of `tool` with the model's raw arguments; `context` is `ctx.context` (the client's per-call options leave
 * it out: the call keeps it until its `ctx` is made). Never throws.
 */
export function startRun(call: CallRun, tool: Tool, rawArguments: unknown, context: unknown): void {
  if (!CallRun.take(call, tool, context)) {
    startOnceRedactionLoads(call, tool, rawArguments, context);
    return;
  }
  if (call.options.signal?.aborted) {
    // Aborted while its host held it (waiting for its context): its tool never began.
    call.done(notBegun(tool.name, call.options));
    return;
  }
  // Arguments that are an object already (a host's decoded frame) are used as they are, as `decodeArguments`
  // would; anything else is decoded apart, where a failure ends the call.
  const args = isArgumentsObject(rawArguments) ? rawArguments : decodedArguments(call, tool, rawArguments);
  if (args === undefined) return;
  call.validated(args);
  const scanned = scanArguments(args);
  if (scanned === 'too_deep') {
    call.done({ status: 'invalid_arguments', output: tooDeepText(tool.name, MAX_ARGUMENT_DEPTH) });
    return;
  }
  try {
    // Made now, with the options as they are when the call starts, when `execute` may read it; else when first
    // asked for (most tools that take no `ctx` never are).
    if (call.internals.executeReadsContext) void call.ctx;
    const refused = scanned === 'ok' ? undefined : refuseNumbers(args, tool.definition.parameters);
    runCall(call, args, refused);
  } catch (error) {
    call.fail(error);
  }
}

/**
 * Its redaction by field name waits for its code, which reads the arguments first. Apart from {@link startRun}
 * (as every closure of a phase is): a function that makes a closure makes a scope for what it captures at each
 * call, whichever way it goes.
 */
function startOnceRedactionLoads(call: CallRun, tool: Tool, rawArguments: unknown, context: unknown): void {
  withPart(call, 'redaction', () => startRun(call, tool, rawArguments, context));
}

/** `rawArguments` decoded (`decodeArguments`), or `undefined` once `call` ended `invalid_arguments` for them. */
function decodedArguments(call: CallRun, tool: Tool, rawArguments: unknown): object | undefined {
  const decoded = decodeArguments(rawArguments);
  if (decoded.ok) return decoded.value;
  const output =
    decoded.reason === 'not_json'
      ? notJsonText(tool.name, decoded.detail)
      : notObjectText(tool.name, decoded.type);
  call.done({ status: 'invalid_arguments', output });
  return undefined;
}

/**
 * Runs a call from its decoded arguments and ends it through `call.done`, synchronously as far as every phase
 * answers synchronously. `refused` lists numbers of the arguments toolwire refuses itself (./arguments.ts): the
 * call then ends `invalid_arguments` with them and the schema's issues, whatever validation says. Never fails for
 * anything the model or the tool does; a schema library that throws while validating is a bug, given to
 * `call.fail`.
 */
export function runCall(call: CallState, args: object, refused?: readonly ValidationIssue[]): void {
  // A plain call's phases are functions made once; a call with refusals or edited arguments needs them after.
  if (refused === undefined && call.options.argumentsEdited !== true)
    timed(call, validateArguments, argumentsValidated, args);
  else runCallWith(call, args, refused);
}

/** {@link runCall} of a call with refusals or edited arguments: its next phase keeps them. */
function runCallWith(call: CallState, args: object, refused: readonly ValidationIssue[] | undefined): void {
  timed(call, validateArguments, (validated) => argumentsValidated(validated, call, args, refused), args);
}

/**
 * Validates the call's arguments; one that answers later (the JSON Schema validator loaded first, an async
 * `refine`, a Standard Schema whose `validate` returns a promise) is a wait its host is told of ({@link validationWait}).
 */
function validateArguments(call: CallState, args: object) {
  const validated = call.internals.parameters.validate(args);
  // Read inline, not through a function: a synchronous answer (a plain call's) pays nothing for the check.
  return typeof (validated as { then?: unknown }).then === 'function'
    ? validationWait(call, validated as Promise<ValidationResult>)
    : validated;
}

/**
 * Validation answers later: its host is told of the wait (`CallWaits.preExecuteWait`), its `execute` not begun,
 * until the answer comes, whatever it is. The host may end the call meanwhile (the
 * client hands it back at `close()`); the validation then runs on, and its answer is dropped.
 */
function validationWait(call: CallState, pending: Promise<ValidationResult>): Promise<ValidationResult> {
  call.preExecuteWait(true);
  const over = () => call.preExecuteWait(false);
  // Before the call's own reaction to it: the wait is over when the call goes on.
  pending.then(over, over);
  return pending;
}

/** The arguments validated: on to the gate or `execute`. `args` and `refused` only when the call needs them. */
function argumentsValidated(
  validated: Settled<ValidationResult>,
  call: CallState,
  args?: object,
  refused?: readonly ValidationIssue[],
): void {
  if (validated.kind === 'aborted') {
    call.done(cancelled(call));
    return;
  }
  if (validated.kind === 'timeout') {
    timedOut(call);
    return;
  }
  if (validated.kind === 'error') {
    call.fail(validated.error);
    return;
  }
  if (!validated.value.ok || refused !== undefined) {
    const issues = withRefusals(validated.value.ok ? [] : validated.value.issues, refused ?? []);
    const text = call.options.argumentsEdited ? editedInvalidText : invalidArgumentsText;
    call.done({ status: 'invalid_arguments', output: text(call.tool.name, issues) });
    return;
  }
  const input = validated.value.value;
  call.validated(input);
  const { options } = call;
  if (options.argumentsEdited) call.editedArguments = ranWith(input, args);
  // Read once: a host's options may be getters (the client's read the call's frame).
  const { approved } = options;
  if (checkedBeforeExecute(call, approved)) gated(call, input);
  else execute(call, input, approved === true);
}

/**
 * Whether a validated call passes the gate and approval before `execute`: its tool asks for approval (or may) or
 * names the agents that may call it, the host has policies, or a human already rejected it (the service held
 * the call). Any other call goes straight to `execute`: approved when the service says a human approved it.
 * `approved`: the call's `options.approved`, as its caller read it.
 */
function checkedBeforeExecute(call: CallState, approved: boolean | undefined): boolean {
  const { internals } = call;
  return (
    (internals.needsApproval ?? false) !== false ||
    internals.allowedAgentNames !== undefined ||
    (call.options.policies?.length ?? 0) > 0 ||
    approved === false
  );
}

/**
 * The schema's issues, with toolwire's own refusals of numbers (./arguments.ts) in place of the schema's issue at
 * the same path (they say why: the number was rounded), and after them where it had none.
 */
function withRefusals(
  issues: readonly ValidationIssue[],
  refused: readonly ValidationIssue[],
): ValidationIssue[] {
  const rest = [...refused];
  const merged = issues.map((issue) => {
    const index = rest.findIndex((item) => item.path === issue.path);
    return index === -1 ? issue : (rest.splice(index, 1)[0] as ValidationIssue);
  });
  return [...merged, ...rest];
}

/**
 * A validated call through the allowlist and the policies (./policies.ts), then approval (./approval.ts), then
 * `execute`. A call a human already rejected (the service held it) skips the gate: it ends `rejected` either
 * way. Policies, the `needsApproval` predicate and the approver see one deep-frozen copy of `input`.
 */
function gated(call: CallState, input: unknown): void {
  withPart(call, 'gate', (part) => {
    const pass = call.options.approved === false ? skipGate : part.passGate;
    const view = part.lazyFrozenCopy(input);
    pass(call, view, (gate) =>
      guarded(call, () => {
        if (!gate.go) return refuse(call, gate);
        if (gate.redact.length > 0) call.redaction?.addNames(gate.redact);
        part.decideApproval(call, view, gate.approvalReason, (decided) =>
          guarded(call, () => {
            if (!decided.go) refuse(call, decided);
            else if (decided.edited === undefined) execute(call, input, decided.approved);
            else revalidate(call, decided.edited);
          }),
        );
      }),
    );
  });
}

/**
 * Goes on with part `name` (./parts.ts): at once when it is loaded, else once it is, the call waiting for it under
 * its budget and signal (a load that fails ends the call `error`, saying so). Every part is needed before `execute`
 * begins: the host is told of the wait (`CallWaits.preExecuteWait`), and may end the call meanwhile (the client
 * hands it back at `close()`, as it does a call waiting for a slot).
 */
function withPart<K extends PartName>(call: CallState, name: K, go: (part: CallParts[K]) => void): void {
  const code: CodeOnDemand<CallParts[K]> = callParts[name];
  const part = code.code;
  if (part !== undefined) {
    go(part);
    return;
  }
  call.preExecuteWait(true);
  timed(
    call,
    () => code.load(),
    (loaded, waited) => {
      waited.preExecuteWait(false);
      if (loaded.kind === 'value') guarded(waited, () => go(loaded.value));
      else stopped(waited, loaded);
    },
  );
}

/** The gate of a call already rejected: nothing to check. */
function skipGate(_call: CallState, _view: () => unknown, done: (outcome: GateOutcome) => void): void {
  done({ go: true, approvalReason: undefined, redact: [] });
}

/** Runs `step`, and ends the call as a bug when it throws (a continuation may run from a promise reaction). */
function guarded(call: CallState, step: () => void): void {
  try {
    step();
  } catch (error) {
    call.fail(error);
  }
}

/** Ends the call with a gate's or an approval's refusal. */
function refuse(call: CallState, refusal: Exclude<GateOutcome | ApprovalOutcome, { go: true }>): void {
  if (refusal.status === 'timeout') {
    timedOut(call);
    return;
  }
  const outcome: CallOutcome = { status: refusal.status, output: refusal.output };
  if (refusal.reason !== undefined) outcome.reason = refusal.reason;
  if (refusal.error !== undefined) outcome.error = refusal.error;
  call.done(outcome);
}

/**
 * Arguments an approver edited: validated again against the schema, then through the allowlist and the policies
 * again (as a call the service re-delivers with edited arguments is), then run; the model is told. A policy's
 * `block` ends the call `rejected`, its `redact` applies; its `requireApproval` is met by the approval that made
 * the edit (the approver wrote these arguments): a call is put to an approver at most once, so an edit can never
 * loop back to approval.
 */
function revalidate(call: CallState, edited: Record<string, unknown>): void {
  // What execute gets is what is redacted: the edit's values under the redacted names are secrets too (and an
  // invalid edit's issues may quote them).
  call.validated(edited);
  timed(
    call,
    () => validateArguments(call, edited),
    (validated) => {
      if (validated.kind === 'error') call.fail(validated.error);
      else if (validated.kind !== 'value') stopped(call, validated);
      else if (!validated.value.ok) {
        call.done({
          status: 'invalid_arguments',
          output: editedInvalidText(call.tool.name, validated.value.issues),
        });
      } else {
        const input = validated.value.value;
        call.validated(input);
        call.editedArguments = ranWith(input, edited);
        // Only an approver's edit comes here: the gate is loaded.
        const { passGate, lazyFrozenCopy } = callParts.gate.code as CallParts['gate'];
        passGate(call, lazyFrozenCopy(input), (gate) =>
          guarded(call, () => {
            if (!gate.go) return refuse(call, gate);
            if (gate.redact.length > 0) call.redaction?.addNames(gate.redact);
            execute(call, input, true);
          }),
        );
      }
    },
  );
}

/**
 * Runs `execute` with the input it may have: once, or in attempts for a tool with `retry` (./retry.ts). Its
 * continuation is made once ({@link afterExecute}): a held call keeps no closure of its own for it.
 */
function execute(call: CallState, input: unknown, approved: boolean): void {
  const { internals } = call;
  // A tool with `concurrency` waits for a permit first (./concurrency.ts), then comes back here holding it.
  if (internals.concurrency !== undefined && !holdsPermit(call, input, approved)) return;
  // `false` is what a new `ctx` says: a call whose `ctx` is not made yet keeps it unmade.
  if (approved) call.ctx.approved = true;
  // Its waits (a decision, its key's turn) measured what its host keeps of the arguments before: told only now.
  if (internals.sharesInput) call.handsInput(input);
  const { retry } = internals;
  if (retry === undefined || retry.maxAttempts <= 1) timed(call, callExecute, afterExecute, input);
  else executeAttempts(call, input, retry);
}

/**
 * Whether a call of a tool with `concurrency` holds its key's permit (./concurrency.ts): if not, it waits for it
 * (and for the code first), then comes back to {@link execute}.
 */
function holdsPermit(call: CallState, input: unknown, approved: boolean): boolean {
  const part = callParts.concurrency.code;
  if (part === undefined) {
    withPart(call, 'concurrency', () => execute(call, input, approved));
    return false;
  }
  if (part.holdsPermit(call)) return true;
  part.enterGate(
    call,
    call.internals.concurrency as NonNullable<ToolInternals['concurrency']>,
    input,
    () => guarded(call, () => execute(call, input, approved)),
    stoppedAtGate,
  );
  return false;
}

/** `execute` in attempts, for a tool with `retry` (./retry.ts). */
function executeAttempts(call: CallState, input: unknown, retry: NonNullable<ToolInternals['retry']>): void {
  withPart(call, 'retry', (part) => part.executeAttempts(call, input, retry, afterExecute));
}

/** The tool's `execute`, given a `ctx` only when it can read one. */
function callExecute(call: CallState, input: unknown): unknown {
  const { internals } = call;
  return internals.execute(input, internals.executeReadsContext ? call.ctx : (undefined as never));
}

function afterExecute(result: Settled<unknown>, call: CallState): void {
  if (result.kind === 'value') executed(call, result.value);
  else stopped(call, result);
}

/**
 * `execute` returned: a value that yields preliminary results (only an object can: a generator, an async
 * iterable) is read to its end first, under what is left of the budget (./yields.ts); then the result goes on
 * as any other.
 */
function executed(call: CallState, value: unknown): void {
  const iterator = typeof value === 'object' && value !== null ? iteratorOf(value) : undefined;
  if (iterator === undefined) succeed(call, value);
  else drainOnceWidgetLoads(call, iterator);
}

/** A value that yields is read to its end ({@link drain}), once the widget check is loaded. */
function drainOnceWidgetLoads(call: CallState, iterator: NonNullable<ReturnType<typeof iteratorOf>>): void {
  // What a tool yields may carry a widget: the widget check is loaded before the first value is read.
  if (callParts.widget.code === undefined) {
    timed(
      call,
      () => callParts.widget.load(),
      (loaded, waited) => {
        if (loaded.kind === 'value') drain(waited, iterator);
        else {
          closeIterator(iterator);
          stopped(waited, loaded);
        }
      },
    );
    return;
  }
  drain(call, iterator);
}

/** Reads what `execute` returned that yields to its end, then the result goes on as any other. */
function drain(call: CallState, iterator: NonNullable<ReturnType<typeof iteratorOf>>): void {
  timed(
    call,
    () => drainYields(call, iterator, (yielded) => preliminary(call, yielded)),
    (drained) => {
      if (drained.kind === 'value') succeed(call, drained.value);
      else {
        closeIterator(iterator);
        stopped(call, drained);
      }
    },
  );
}

/** A value yielded before the result: its widget split off, the rest written as a result would be. */
function preliminary(call: CallState, value: unknown): void {
  if (call.options.onPreliminary === undefined) return;
  const split = splitWidget(call, value);
  if (split === NEEDS_WIDGET) return; // never: the widget check is loaded before a tool's yields are read
  const { data, widget } = split;
  // Content parts of a preliminary result travel as their text.
  const output = isToolContent(data) ? contentText(data.parts) : serializeOutput(data, call.options.redactor);
  call.preliminary({ output, value, ...(widget === undefined ? {} : { widget }) });
}

/**
 * `execute` returned: the result's widget split off, the rest checked by `outputSchema` (which describes what the
 * model reads: the data, never the widget), then turned into the model's text (through `toModelOutput`).
 * `unchecked`: why the widget check could not be loaded (the widget is then dropped, as an invalid one is).
 */
function succeed(call: CallState, value: unknown, unchecked?: string): void {
  // A result that is not an object with an own `widget` (nearly all) is the data as it is: no split.
  if (!mayHaveWidget(value)) {
    checkOutput(call, value, value, undefined);
    return;
  }
  const split = splitWidget(call, value, unchecked);
  if (split === NEEDS_WIDGET) succeedOnceWidgetLoads(call, value);
  else checkOutput(call, value, split.data, split.widget);
}

/**
 * A page's first result with a widget waits for the widget check (./parts.ts). The tool has run by now: when the
 * check cannot load, the result stands and its widget is dropped and reported, as an invalid widget is.
 */
function succeedOnceWidgetLoads(call: CallState, value: unknown): void {
  timed(
    call,
    () => callParts.widget.load(),
    (loaded, waited) => {
      if (loaded.kind === 'value') guarded(waited, () => succeed(waited, value));
      else if (loaded.kind === 'error')
        guarded(waited, () => succeed(waited, value, thrownMessage(loaded.error, 'the load')));
      else stopped(waited, loaded);
    },
  );
}

/**
 * The data of a result (its widget split off) checked by the tool's `outputSchema`, when it has one, then
 * {@link projected}: `toModelOutput` and `ToolCallResult.value` get what the schema parsed, the widget put back.
 * A mismatch ends the call `error`.
 */
function checkOutput(call: CallState, value: unknown, data: unknown, widget: Widget | undefined): void {
  const schema = call.internals.outputSchema;
  if (schema === undefined) projected(call, value, data, widget);
  else checkOutputWith(call, schema, value, data, widget);
}

/** {@link checkOutput} by the tool's `outputSchema`. */
function checkOutputWith(
  call: CallState,
  schema: NonNullable<ToolInternals['outputSchema']>,
  value: unknown,
  data: unknown,
  widget: Widget | undefined,
): void {
  timed(
    call,
    () => schema.validate(data),
    (checked) => {
      if (checked.kind !== 'value') stopped(call, checked);
      else if (checked.value.ok) {
        const parsed = checked.value.value;
        const whole = widget !== undefined && isPlainObject(parsed) ? { ...parsed, widget } : parsed;
        projected(call, whole, parsed, widget);
      } else if (data !== value) checkWhole(call, value, widget, checked.value.issues);
      else call.done({ status: 'error', output: outputMismatchText(call.tool.name, checked.value.issues) });
    },
  );
}

/**
 * A result with a widget whose data the schema refused: a schema written for the whole result, widget included
 * (`widget: z.any()`, as one had to be while the schema saw the widget), still passes it, the model reading the
 * parsed result without its widget. Else the call ends `error` with the data's issues.
 */
function checkWhole(
  call: CallState,
  value: unknown,
  widget: Widget | undefined,
  issues: readonly ValidationIssue[],
): void {
  const schema = call.internals.outputSchema as NonNullable<ToolInternals['outputSchema']>;
  timed(
    call,
    () => schema.validate(value),
    (checked) => {
      if (checked.kind !== 'value') stopped(call, checked);
      else if (!checked.value.ok)
        call.done({ status: 'error', output: outputMismatchText(call.tool.name, issues) });
      else {
        const parsed = checked.value.value;
        projected(call, parsed, withoutOwnWidget(parsed), widget);
      }
    },
  );
}

/** `value` without its own `widget` (a copy), or `value` itself when it has none. */
export function withoutOwnWidget(value: unknown): unknown {
  if (!mayHaveWidget(value)) return value;
  const { widget: _, ...rest } = value;
  return rest;
}

/** The data of a result, its widget split off: through `toModelOutput` when the tool has one, then {@link ended}. */
function projected(call: CallState, value: unknown, data: unknown, widget: Widget | undefined): void {
  const toModelOutput = call.internals.toModelOutput;
  if (toModelOutput === undefined) ended(call, value, data, widget);
  else projectedWith(call, toModelOutput, value, widget);
}

/** {@link projected} through the tool's `toModelOutput`. */
function projectedWith(
  call: CallState,
  toModelOutput: NonNullable<ToolInternals['toModelOutput']>,
  value: unknown,
  widget: Widget | undefined,
): void {
  timed(
    call,
    () => toModelOutput(value, call.ctx),
    (forModel) => {
      if (forModel.kind === 'value') ended(call, value, forModel.value, widget);
      else if (forModel.kind !== 'error') stopped(call, forModel);
      else {
        // `execute` ran and returned: the text names the function that failed, as a throwing `needsApproval`'s does;
        // an AI SDK tool's `error-text` answer is its own error, as `execute`'s would read, and its
        // `execution-denied` answer a declined call, which keeps what `execute` returned: unlike a call declined
        // before it, this one ran (its result part says so, and a replay tells the two apart by it).
        const { error } = forModel;
        if (error instanceof AiSdkDeniedOutput) {
          call.done({ status: 'rejected', output: declinedText(call.tool.name, error.reason), value });
          return;
        }
        const message = thrownMessage(error, 'it', call.options.redactor);
        const text =
          error instanceof AiSdkErrorOutput
            ? errorText(call.tool.name, message)
            : hookFailedText(call.tool.name, 'toModelOutput', message);
        failure(call, 'error', error, text);
      }
    },
  );
}

/** The call's outcome: `forModel` as the model's text (a string as it is, content parts beside their text). */
function ended(call: CallState, value: unknown, forModel: unknown, widget: Widget | undefined): void {
  // `durationMs` is set by `done`, but has its place from the start: set there as a new field, it gave results a
  // hidden class of their own that only lived while a result did, and a full collection in a pause (an idle
  // client) freed it and threw away the optimised code of the result path (`done`, the client's `finished`, the
  // outbox's `add`), compiled again by the next calls.
  const outcome: ToolCallResult = { status: 'ok', output: '', value, durationMs: 0 };
  let wellFormed = false;
  if (typeof forModel === 'string') outcome.output = forModel;
  else if (isToolContent(forModel)) {
    outcome.output = contentText(forModel.parts);
    outcome.content = [...forModel.parts];
  } else {
    outcome.output = serializeOutput(forModel, call.options.redactor);
    wellFormed = true;
  }
  if (widget !== undefined) outcome.widget = widget;
  call.done(outcome, wellFormed);
}

/*
 * How a call ends when a phase of it gave no value: cancelled, timed out (through `errorFunction`), or failed.
 */
/** The outcome of a cancelled call. */
const cancelled = (call: CallState): CallOutcome => ({
  status: 'cancelled',
  output: cancelledText(call.tool.name),
});

/**
 * The outcome of a call stopped before its tool began (its host held it, or it waited at its concurrency key's
 * gate): `timeout` when its host's deadline stopped it (`options.deadlineMs` set, its signal's reason a
 * `TimeoutError`), with the text the service gives the model for a call it cut at its deadline, naming the whole
 * deadline (`options.callDeadlineMs`, else `deadlineMs`; docs/protocol/deadlines.md); else cancelled.
 */
export function notBegun(toolName: string, options: CallOptions): CallOutcome {
  const { deadlineMs } = options;
  if (deadlineMs !== undefined && (options.signal?.reason as { name?: unknown })?.name === 'TimeoutError')
    return { status: 'timeout', output: timeoutText(toolName, options.callDeadlineMs ?? deadlineMs) };
  return { status: 'cancelled', output: cancelledText(toolName) };
}

/**
 * Ends a call whose budget ran out: `timeout`, with the timeout text (through `errorFunction`), naming the stage
 * that hung when it was a policy or the `needsApproval` check.
 */
function timedOut(call: CallState): void {
  const { tool, ctx, timeLimitMs } = call;
  failure(call, 'timeout', ctx.signal.reason, timeoutText(tool.name, timeLimitMs ?? 0, call.stage));
}

/**
 * Ends the call for a phase of the tool's own work that gave no value: cancelled, timed out or failed (a replayed
 * copy's recorded failure as the run recorded it).
 */
function stopped(call: CallState, outcome: Exclude<Settled<unknown>, { kind: 'value' }>): void {
  if (outcome.kind === 'aborted') call.done(cancelled(call));
  else if (outcome.kind === 'timeout') timedOut(call);
  else {
    const recorded = call.internals.recordedFailure?.(outcome.error);
    // A copy: the outcome is the call's own, completed in place.
    if (recorded) call.done({ ...recorded });
    else {
      const message = thrownMessage(outcome.error, undefined, call.options.redactor);
      failure(call, 'error', outcome.error, errorText(call.tool.name, message));
    }
  }
}

/** Ends a call that stopped while it waited at its concurrency key's gate, its tool not begun. */
function stoppedAtGate(call: CallState, outcome: Exclude<Settled<unknown>, { kind: 'value' }>): void {
  if (outcome.kind === 'aborted') call.done(notBegun(call.tool.name, call.options));
  else stopped(call, outcome);
}

/**
 * Ends the call with the model's text for a failure: `errorFunction`'s, verbatim, or `fallback` when it is absent,
 * throws, returns something other than a string, or does not answer within {@link errorFunctionTimeoutMs}.
 */
function failure(
  call: CallState,
  status: 'error' | 'timeout' | 'cancelled',
  error: unknown,
  fallback: string,
): void {
  const { errorFunction } = call.internals;
  if (errorFunction === undefined) {
    call.done({ status, output: fallback, error });
    return;
  }
  const options = { signal: call.options.signal, timeoutMs: errorFunctionTimeoutMs(call.timeLimitMs) };
  settleThen(
    () => errorFunction(call.ctx, error),
    options,
    (settled) => {
      if (settled.kind === 'aborted') call.done(cancelled(call));
      else if (settled.kind !== 'value') call.done({ status, output: fallback, error });
      // A non-string (e.g. `undefined` from a function that forgot to return) would read `null`: use the default.
      else call.done({ status, output: typeof settled.value === 'string' ? settled.value : fallback, error });
    },
    call,
  );
}

/*
 * `{ ...data, widget }`: the widget split off a result (or a preliminary result) and validated, the rest kept for
 * the model's text. An invalid widget is reported and dropped; the data still goes through.
 */
function reportInvalidWidget(call: CallState, path: string, message: string): void {
  // The message may quote the widget's values: redacted as the call's output is (sensitive fields included).
  const redactor = call.options.redactor;
  const info = {
    toolName: call.tool.name,
    callId: call.ctx.callId,
    path: redactor === undefined ? path : redactor.text(path),
    message: redactor === undefined ? message : redactor.text(message),
  };
  try {
    if (call.options.onWidgetInvalid) call.options.onWidgetInvalid(info);
    else {
      // `invokeTool()`: its `logger` when given (a client logs from its `onWidgetInvalid`), else the console.
      const text = `dropped the invalid widget of ${info.toolName} (call ${info.callId}): ${info.path}: ${info.message}`;
      const { logger } = call.options;
      if (logger !== undefined)
        logger.warn({ toolName: info.toolName, callId: info.callId, path: info.path }, text);
      else console.warn(`toolwire: ${text}`);
    }
  } catch {
    // A failing listener must not change the call's result.
  }
}

/** What {@link splitWidget} answers for a result with a widget before the widget check is loaded. */
const NEEDS_WIDGET: unique symbol = Symbol('needs the widget check');

/**
 * Whether `value` may carry a widget to split off: a plain object with an own `widget`. A value whose check throws
 * (a hostile proxy) has none: its data goes on as it is, and `serializeOutput` copes with it.
 */
function mayHaveWidget(value: unknown): value is { widget?: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return isPlainObject(value) && Object.hasOwn(value, 'widget');
  } catch {
    return false;
  }
}

/**
 * Splits `{ ...data, widget }` into the data the model reads and a validated widget (or none). Never throws: a
 * `widget` getter that throws is an invalid widget at `(root)`. The data keeps the result's other properties
 * as they are (getters included), so `serializeOutput` writes them by its usual rules.
 */
function splitWidget(
  call: CallState,
  value: unknown,
  unchecked?: string,
): { data: unknown; widget?: Widget } | typeof NEEDS_WIDGET {
  let descriptors: PropertyDescriptorMap;
  try {
    if (!mayHaveWidget(value)) return { data: value };
    if (callParts.widget.code === undefined && unchecked === undefined) return NEEDS_WIDGET;
    descriptors = Object.getOwnPropertyDescriptors(value);
    delete descriptors.widget;
  } catch {
    return { data: value }; // a hostile proxy: serializeOutput copes with it
  }
  const data: unknown = Object.create(Object.getPrototypeOf(value), descriptors);
  let widget: unknown;
  try {
    widget = value.widget;
  } catch (error) {
    reportInvalidWidget(call, formatPath([]), `could not be read: ${thrownMessage(error, 'its getter')}`);
    return { data };
  }
  if (widget === undefined) return { data };
  if (unchecked !== undefined) {
    reportInvalidWidget(call, formatPath([]), `could not be checked: ${unchecked}`);
    return { data };
  }
  const checked = (callParts.widget.code as CallParts['widget']).validateWidget(widget);
  if (checked.ok) return { data, widget: checked.widget };
  reportInvalidWidget(call, checked.path, checked.message);
  return { data };
}

/*
 * The note the model reads before a result when an approver edited the arguments, bounded so that the tool's own
 * output always keeps its room: the note's JSON is shown only up to 512 bytes (else the edited fields are named,
 * see `editedNoteText` in src/tool/model-text.ts), and with `maxOutputBytes` the note takes at most half of it.
 */
/**
 * What the model is told an approver's edit ran with: the validated input (a schema strips the fields it does not
 * know, and fills defaults), or the edit itself when validation gave no object.
 */
function ranWith(input: unknown, edited: object | undefined): object | undefined {
  return typeof input === 'object' && input !== null ? input : edited;
}

/** `The approver edited the arguments of <name> to <JSON>.`, or the names of the edited fields when longer. */
function editedNote(call: CallState, args: object): string {
  const { redaction } = call;
  const json =
    redaction?.active === true ? redaction.json(args) : serializeOutput(args, call.options.redactor);
  return editedNoteText(call.tool.name, json, Object.keys(args));
}

/** `note` on a line before `output`; with `maxOutputBytes`, the note is cut to half of it. */
function withNote(note: string, output: string, maxOutputBytes: number | undefined): string {
  const shown = maxOutputBytes === undefined ? note : truncateUtf8(note, Math.floor(maxOutputBytes / 2));
  return `${shown}\n${output}`;
}
