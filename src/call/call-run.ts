/**
 * `CallRun`: one call from its start to its result, the state the steps of a call share (`CallState`), the one
 * place a call ends, and what `ctx`'s methods reach. Started by `startCall` (./invoke.ts).
 *
 * Memory: a call held in flight (its `execute` not settled) keeps this object, so it keeps few fields: what few
 * calls need sits in one object made on demand, and it has no private instance methods (V8 gives every instance
 * of a class with them a field of its own).
 *
 * @module
 */
import { type Logger, scopedLogger, silentLogger } from '../logger';
import { redactedPart } from '../tool/content';
import type { AskOptions, ProgressInput } from '../tool/context-methods';
import { errorText } from '../tool/model-text';
import { toWellFormed, truncateUtf8 } from '../tool/output';
import { type Tool, type ToolContext, type ToolInternals, toolInternals } from '../tool/tool';
import { newAttempt } from './attempt';
import { CallRedaction } from './call-redaction';
import { CallSignal } from './call-signal';
import { editedNote, withNote } from './edited-note';
import { checkEvent } from './emit';
import { checkProgress } from './progress';
import { askQuestion } from './questions';
import { CallSteps } from './steps';
import type {
  Attempt,
  CallOptions,
  CallOutcome,
  CallState,
  PreliminaryResult,
  ResultSink,
  ToolCallResult,
} from './types';

type Outcome = CallOutcome;

/** A bug in toolwire or a schema library must still give the model an answer. */
function bugOutcome(tool: Tool, error: unknown): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  return { status: 'error', output: errorText(tool.name, message), error };
}

/** What few calls need, kept apart so that a call needs no field for it (see `CallRun`). */
interface RareState {
  editedArguments: object | undefined;
  stage: string | undefined;
  /** The call's redaction by field name: made at the start when the tool or a policy may redact fields. */
  redaction: CallRedaction | undefined;
  steps: CallSteps | undefined;
  questions: number;
}

/** A result redacted with a call's own redactor (sensitive values of its arguments). */
function redactOutcome(outcome: Outcome, redactor: CallRedaction): void {
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
 * One call from its start to its result: the {@link CallState} the steps share, and the one place a call ends
 * (a class rather than closures: a call held in flight keeps one object, not a context and two functions).
 */
export class CallRun extends CallSignal implements CallState {
  readonly tool: Tool;
  readonly internals: ToolInternals;
  options: CallOptions;
  readonly timeoutMs: number | undefined;
  remainingMs: number | undefined;
  ctx!: ToolContext;
  abortWithTimeout: (() => void) | undefined;
  /** When the call started, in sixteenths of a millisecond (a small integer for 37 hours, not a heap number). */
  readonly #started = Math.round(performance.now() * 16);
  #finished = false;
  readonly #sink: ResultSink;
  /** What few calls need (a note, a field redaction, steps, questions, a redactor of their own): made when first needed. */
  #rare: RareState | undefined;

  /** The arguments an approver edited, when they did: the model reads them (redacted) before the result's text. */
  get editedArguments(): object | undefined {
    return this.#rare?.editedArguments;
  }

  set editedArguments(edited: object | undefined) {
    if (edited === undefined && this.#rare === undefined) return;
    CallRun.#rareOf(this).editedArguments = edited;
  }

  /** The stage the call is in when it is not the tool's own work (`policy 2`), named if it times out there. */
  get stage(): string | undefined {
    return this.#rare?.stage;
  }

  set stage(stage: string | undefined) {
    if (stage === undefined && this.#rare === undefined) return;
    CallRun.#rareOf(this).stage = stage;
  }

  /** The call's redaction by field name (`sensitiveFieldNames`, a policy's `redact`): src/call/call-redaction.ts. */
  get redaction(): CallRedaction | undefined {
    return this.#rare?.redaction;
  }

  // Static, as `#scrub` is: a private instance method would give every call a field of its own (V8's brand).
  static #rareOf(call: CallRun): RareState {
    call.#rare ??= {
      editedArguments: undefined,
      stage: undefined,
      redaction: undefined,
      steps: undefined,
      questions: 0,
    };
    return call.#rare;
  }

  constructor(tool: Tool, options: CallOptions, sink: ResultSink) {
    super(options.signal, tool.name);
    this.tool = tool;
    this.internals = toolInternals(tool)!;
    this.options = options;
    this.timeoutMs = options.timeoutMs ?? this.internals.timeoutMs;
    this.remainingMs = this.timeoutMs;
    this.#sink = sink;
    // Made only when fields may be redacted (the tool names some, or a policy may): a held call stays small.
    const names = this.internals.sensitiveFieldNames;
    if (names.length > 0 || (options.policies?.length ?? 0) > 0) {
      const redaction = new CallRedaction(options.redactor, names, (redactor) => {
        // Over the call's options rather than a copy of them: a client's keep what they share on their prototype.
        this.options = Object.create(this.options, {
          redactor: { value: redactor, enumerable: true, writable: true, configurable: true },
        }) as CallOptions;
      });
      CallRun.#rareOf(this).redaction = redaction;
      sink.redaction = redaction;
    }
  }

  done(outcome: Outcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.end();
    const { maxOutputBytes } = this.options;
    const redaction = this.redaction;
    if (redaction?.active === true) redactOutcome(outcome, redaction);
    const edited = this.editedArguments;
    if (edited !== undefined && outcome.status !== 'cancelled')
      outcome.output = withNote(editedNote(this, edited), outcome.output, maxOutputBytes);
    // A lone surrogate (half an emoji cut by `slice`) cannot be encoded: the model reads U+FFFD instead.
    outcome.output = toWellFormed(outcome.output);
    if (maxOutputBytes !== undefined) outcome.output = truncateUtf8(outcome.output, maxOutputBytes);
    // The outcome is this call's own object: completed in place rather than copied.
    const result = outcome as ToolCallResult;
    result.durationMs = Math.max(0, Math.round(performance.now() - this.#started / 16));
    this.#sink.result(result);
  }

  fail(error: unknown): void {
    this.done(bugOutcome(this.tool, error));
  }

  /** The values of `inputs` (raw, validated or edited arguments) under the redacted field names are redacted. */
  validated(...inputs: unknown[]): void {
    this.#rare?.redaction?.addInputs(...inputs);
  }

  /** A text or value the call gives out while it runs, with the call's fields redacted when it has any. */
  static #scrub<T>(call: CallRun, value: T): T {
    const redaction = call.#rare?.redaction;
    return redaction?.active === true ? scrub(value, redaction) : value;
  }

  /** A kept step's record as listeners get it: its result redacted when the call has fields to redact. */
  static #scrubStep<R extends { result: unknown }>(call: CallRun, record: R): R {
    const redaction = call.#rare?.redaction;
    return redaction?.active === true ? { ...record, result: redaction.value(record.result) } : record;
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
    const rare = CallRun.#rareOf(this);
    rare.steps ??= new CallSteps(this.options.steps);
    return rare.steps.run(this, key, fn, {
      kept: (record) => {
        const listener = this.options.onStep;
        if (this.#finished || listener === undefined) return;
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
    return this.#finished;
  }

  /** `q1`, `q2`, … */
  nextQuestionId(): string {
    const rare = CallRun.#rareOf(this);
    rare.questions += 1;
    return `q${rare.questions}`;
  }

  /** `ctx.emit()`: checked (a bad name, or one holding a secret, throws to the tool), then given to `onEmit` while the call runs. */
  emit(type: string, data?: unknown): void {
    const checked = checkEvent(type, data, this.options.redactor);
    const listener = this.options.onEmit;
    if (this.#finished || listener === undefined) return;
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
    return askQuestion(
      this,
      typeof question === 'string' ? CallRun.#scrub(this, question) : question,
      options,
    );
  }

  /** A value the tool yielded, while the call runs: as the result's text would be, within `maxOutputBytes`. */
  preliminary(result: Pick<PreliminaryResult, 'output' | 'widget' | 'value'>): void {
    const listener = this.options.onPreliminary;
    if (this.#finished || listener === undefined) return;
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
    if (this.#finished || listener === undefined) return;
    const { callId, runId, toolName } = this.ctx;
    try {
      listener({ callId, runId, toolName, ...CallRun.#scrub(this, checked) });
    } catch {
      // The listener's failure is not the tool's.
    }
  }
}
