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
import type { Redactor } from '../redact';
import type { AskOptions, ProgressInput } from '../tool/context-methods';
import { errorText } from '../tool/model-text';
import { toWellFormed, truncateUtf8 } from '../tool/output';
import { type Tool, type ToolContext, type ToolInternals, toolInternals } from '../tool/tool';
import { newAttempt } from './attempt';
import { CallSignal } from './call-signal';
import { withNote } from './edited-note';
import { checkEvent } from './emit';
import type { FieldRedaction } from './field-redaction';
import { checkProgress } from './progress';
import { askQuestion } from './questions';
import { withSensitiveValues } from './sensitive-fields';
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
  note: string | undefined;
  stage: string | undefined;
  fieldRedactor: FieldRedaction | undefined;
  steps: CallSteps | undefined;
  questions: number;
  /** The call has sensitive values of its own: what it gives out is redacted with its own redactor. */
  ownRedactor: boolean;
}

/** A result redacted with a call's own redactor (sensitive values of its arguments). */
function redactOutcome(outcome: Outcome, redactor: Redactor): void {
  outcome.output = redactor.text(outcome.output);
  if (outcome.widget !== undefined) outcome.widget = redactor.value(outcome.widget);
  if (outcome.content !== undefined)
    outcome.content = outcome.content.map((part) =>
      part.type === 'text'
        ? { ...part, text: redactor.text(part.text) }
        : part.type === 'json'
          ? { ...part, value: redactor.value(part.value) }
          : part,
    );
  if (outcome.error !== undefined) redactor.error(outcome.error);
}

/** A text or value redacted with `redactor`. */
function scrub<T>(value: T, redactor: Redactor): T {
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

  /** A line put before the text the model reads (the approver edited the arguments). */
  get note(): string | undefined {
    return this.#rare?.note;
  }

  set note(note: string | undefined) {
    CallRun.#rareOf(this).note = note;
  }

  /** The stage the call is in when it is not the tool's own work (`policy 2`), named if it times out there. */
  get stage(): string | undefined {
    return this.#rare?.stage;
  }

  set stage(stage: string | undefined) {
    if (stage === undefined && this.#rare === undefined) return;
    CallRun.#rareOf(this).stage = stage;
  }

  /** Scrubs the values of input fields a policy asked to redact, when it did. */
  get fieldRedactor(): FieldRedaction | undefined {
    return this.#rare?.fieldRedactor;
  }

  set fieldRedactor(redaction: FieldRedaction | undefined) {
    CallRun.#rareOf(this).fieldRedactor = redaction;
  }

  // Static, as `#scrub` is: a private instance method would give every call a field of its own (V8's brand).
  static #rareOf(call: CallRun): RareState {
    call.#rare ??= {
      note: undefined,
      stage: undefined,
      fieldRedactor: undefined,
      steps: undefined,
      questions: 0,
      ownRedactor: false,
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
  }

  done(outcome: Outcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.end();
    const { maxOutputBytes } = this.options;
    if (this.note !== undefined && outcome.status !== 'cancelled')
      outcome.output = withNote(this.note, outcome.output, maxOutputBytes);
    if (this.fieldRedactor !== undefined) {
      outcome.output = this.fieldRedactor.text(outcome.output);
      if (outcome.error !== undefined) outcome.error = this.fieldRedactor.error(outcome.error);
    }
    if (this.#rare?.ownRedactor === true) redactOutcome(outcome, this.options.redactor!);
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

  /** Adds the values of `inputs` under the tool's `sensitiveFieldNames` to what the call redacts. */
  redactFieldsOf(...inputs: unknown[]): void {
    const names = this.internals.sensitiveFieldNames;
    if (names.length === 0) return;
    const redactor = withSensitiveValues(this.options.redactor, names, inputs);
    if (redactor === undefined || redactor === this.options.redactor) return;
    // Over the call's options rather than a copy of them: a client's keep what they share on their prototype.
    this.options = Object.create(this.options, {
      redactor: { value: redactor, enumerable: true, writable: true, configurable: true },
    }) as CallOptions;
    CallRun.#rareOf(this).ownRedactor = true;
  }

  validated(input: unknown): void {
    this.redactFieldsOf(input);
  }

  /** A text or value the call gives out, redacted with the call's own redactor when it has one. */
  static #scrub<T>(call: CallRun, value: T): T {
    return call.#rare?.ownRedactor === true ? scrub(value, call.options.redactor!) : value;
  }

  /** `ctx.logger` of attempt `attempt`. */
  loggerFor(attempt: number): Logger {
    const { logger, redactor } = this.options;
    if (logger === undefined) return silentLogger;
    const fields = { callId: this.ctx.callId, toolName: this.tool.name, attempt };
    return scopedLogger(logger, fields, this.#rare?.ownRedactor === true ? redactor : undefined);
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
          listener(record);
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

  /** `ctx.emit()`: checked (a bad name throws to the tool), then given to `onEmit` while the call runs. */
  emit(type: string, data?: unknown): void {
    const checked = checkEvent(type, data);
    const listener = this.options.onEmit;
    if (this.#finished || listener === undefined) return;
    const { callId, runId, toolName } = this.ctx;
    const event = this.fieldRedactor === undefined ? checked : this.fieldRedactor.value(checked);
    try {
      listener({ callId, runId, toolName, ...CallRun.#scrub(this, event) });
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
    let output = toWellFormed(CallRun.#scrub(this, this.fieldRedactor?.text(result.output) ?? result.output));
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
