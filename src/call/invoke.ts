/**
 * `invokeTool()`: one call, from the model's raw arguments to the exact text the model reads. No network: the
 * client calls it for every `tool_call`, and tool authors call it to unit-test their tools.
 *
 * A tool failure is a result, never an exception: `invokeTool` resolves for anything the model or the tool
 * did. It rejects only for a usage error (see {@link invokeTool}).
 *
 * @module
 */
import { OptionsError, TimeoutError } from '../errors';
import { MAX_ARGUMENT_DEPTH } from '../limits';
import { type Logger, scopedLogger, silentLogger } from '../logger';
import {
  aBoolean,
  aDuration,
  aFunction,
  anAbortSignal,
  anArrayOf,
  anInteger,
  anything,
  aRecord,
  aString,
  checkOptions,
  type OptionsOwner,
  type OptionsSpec,
} from '../tool/check-options';
import type { AskOptions, ProgressInput } from '../tool/context-methods';
import { cancelledText, errorText, notJsonText, notObjectText, tooDeepText } from '../tool/model-text';
import { toWellFormed, truncateUtf8 } from '../tool/output';
import { toTool } from '../tool/structural';
import type { ToolSourceOf } from '../tool/structural-types';
import { type Tool, type ToolContext, type ToolInternals, toolInternals } from '../tool/tool';
import { checkArguments } from './argument-limits';
import { decodeArguments } from './arguments';
import { newAttempt } from './attempt';
import { contextClassFor } from './call-context';
import { CallSignal } from './call-signal';
import { checkEvent } from './emit';
import type { FieldRedaction } from './field-redaction';
import { checkProgress } from './progress';
import { askQuestion } from './questions';
import { runCall } from './run-call';
import { withSensitiveValues } from './sensitive-fields';
import { sharedAbort } from './shared-abort';
import { CallSteps } from './steps';
import type {
  Attempt,
  CallOptions,
  CallOutcome,
  CallState,
  InvokeOptions,
  PreliminaryResult,
  ResultSink,
  ToolCallResult,
} from './types';

type Outcome = CallOutcome;

/** What `invokeTool()` accepts: one rule per option of {@link InvokeOptions}. */
const INVOKE_OPTIONS: OptionsSpec<InvokeOptions> = {
  rules: {
    callId: aString(),
    runId: aString(),
    depth: anInteger({ min: 0 }),
    context: anything,
    signal: anAbortSignal,
    approved: aBoolean,
    rejectionReason: aString(),
    agentName: aString(),
    policies: anArrayOf(aFunction, 'an array of functions'),
    approve: aFunction,
    timeoutMs: aDuration(1),
    maxOutputBytes: anInteger({ min: 1, unit: 'bytes' }),
    onWidgetInvalid: aFunction,
    onProgress: aFunction,
    onPreliminary: aFunction,
    onQuestion: aFunction,
    onEmit: aFunction,
    sessionId: aString(),
    steps: aRecord,
    onStep: aFunction,
    logger: aRecord,
    extend: aRecord,
  },
  /** Names from neighbouring APIs, and what they are called here. */
  aliases: {
    timeout: 'timeoutMs',
    onApproval: 'approve',
    abortSignal: 'signal',
    maxOutput: 'maxOutputBytes',
    toolCallId: 'callId',
    abort: 'signal',
    onWidgetError: 'onWidgetInvalid',
    completedSteps: 'steps',
  },
};

const INVOKE_OWNER: OptionsOwner = { name: 'invokeTool()', error: OptionsError };

/**
 * Checks options of {@link invokeTool} (or of a function that takes the same, named by `owner` in messages).
 * @throws OptionsError `invalid_options`, `unknown_option` or `invalid_option`.
 */
export function checkInvokeOptions(options: unknown, owner?: string): asserts options is InvokeOptions {
  checkOptions(
    options,
    INVOKE_OPTIONS,
    owner === undefined ? INVOKE_OWNER : { ...INVOKE_OWNER, name: owner },
  );
}

/** A random id: `crypto.randomUUID()` where available (it is missing on insecure browser origins). */
function randomId(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** A bug in toolwire or a schema library must still give the model an answer. */
function bugOutcome(tool: Tool, error: unknown): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  return { status: 'error', output: errorText(tool.name, message), error };
}

/**
 * One call from its start to its result: the {@link CallState} the steps share, and the one place a call ends
 * (a class rather than closures: a call held in flight keeps one object, not a context and two functions).
 */
class CallRun extends CallSignal implements CallState {
  readonly tool: Tool;
  readonly internals: ToolInternals;
  options: CallOptions;
  readonly timeoutMs: number | undefined;
  remainingMs: number | undefined;
  ctx!: ToolContext;
  abortWithTimeout: (() => void) | undefined;
  note: string | undefined;
  fieldRedactor: FieldRedaction | undefined;
  readonly #started = performance.now();
  #finished = false;
  #questions = 0;
  readonly #sink: ResultSink;
  #steps: CallSteps | undefined;
  /** Set when the call has sensitive values of its own: what it gives out is redacted with it here. */
  #ownRedactor = false;

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
    if (this.note !== undefined && outcome.status !== 'cancelled')
      outcome.output = `${this.note}\n${outcome.output}`;
    if (this.fieldRedactor !== undefined) {
      outcome.output = this.fieldRedactor.text(outcome.output);
      if (outcome.error !== undefined) outcome.error = this.fieldRedactor.error(outcome.error);
    }
    if (this.#ownRedactor) this.#redactOutcome(outcome);
    // A lone surrogate (half an emoji cut by `slice`) cannot be encoded: the model reads U+FFFD instead.
    outcome.output = toWellFormed(outcome.output);
    const { maxOutputBytes } = this.options;
    if (maxOutputBytes !== undefined) outcome.output = truncateUtf8(outcome.output, maxOutputBytes);
    // The outcome is this call's own object: completed in place rather than copied.
    const result = outcome as ToolCallResult;
    result.durationMs = Math.max(0, Math.round(performance.now() - this.#started));
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
    this.options = { ...this.options, redactor };
    this.#ownRedactor = true;
  }

  validated(input: unknown): void {
    this.redactFieldsOf(input);
  }

  #redactOutcome(outcome: Outcome): void {
    const redactor = this.options.redactor!;
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

  /** A text or value the call gives out, redacted with the call's own redactor when it has one. */
  #scrub<T>(value: T): T {
    if (!this.#ownRedactor) return value;
    const redactor = this.options.redactor!;
    return (typeof value === 'string' ? redactor.text(value) : redactor.value(value)) as T;
  }

  /** `ctx.logger` of attempt `attempt`. */
  loggerFor(attempt: number): Logger {
    const { logger, redactor } = this.options;
    if (logger === undefined) return silentLogger;
    const fields = { callId: this.ctx.callId, toolName: this.tool.name, attempt };
    return scopedLogger(logger, fields, this.#ownRedactor ? redactor : undefined);
  }

  /** `ctx.step()`. */
  step(key: string, fn: () => unknown): Promise<unknown> {
    this.#steps ??= new CallSteps(this.options.steps);
    return this.#steps.run(this.ctx.callId, key, fn, this.options.redactor, {
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
    this.#questions += 1;
    return `q${this.#questions}`;
  }

  /** `ctx.emit()`: checked (a bad name throws to the tool), then given to `onEmit` while the call runs. */
  emit(type: string, data?: unknown): void {
    const checked = checkEvent(type, data);
    const listener = this.options.onEmit;
    if (this.#finished || listener === undefined) return;
    const { callId, runId, toolName } = this.ctx;
    const event = this.fieldRedactor === undefined ? checked : this.fieldRedactor.value(checked);
    try {
      listener({ callId, runId, toolName, ...this.#scrub(event) });
    } catch {
      // The listener's failure is not the tool's.
    }
  }

  /** `ctx.askQuestion()`. */
  askQuestion(question: string, options?: AskOptions<unknown>): Promise<unknown> {
    return askQuestion(this, typeof question === 'string' ? this.#scrub(question) : question, options);
  }

  /** A value the tool yielded, while the call runs: as the result's text would be, within `maxOutputBytes`. */
  preliminary(result: Pick<PreliminaryResult, 'output' | 'widget' | 'value'>): void {
    const listener = this.options.onPreliminary;
    if (this.#finished || listener === undefined) return;
    let output = toWellFormed(this.#scrub(this.fieldRedactor?.text(result.output) ?? result.output));
    const { maxOutputBytes } = this.options;
    if (maxOutputBytes !== undefined) output = truncateUtf8(output, maxOutputBytes);
    const { callId, runId, toolName } = this.ctx;
    try {
      const widget = this.#scrub(result.widget);
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
      listener({ callId, runId, toolName, ...this.#scrub(checked) });
    } catch {
      // The listener's failure is not the tool's.
    }
  }
}

/**
 * {@link invokeTool} without its checks of `tool` and `options`, for the client: `sink` gets the result exactly
 * once, synchronously when every step of the call is synchronous. Never throws.
 */
export function startCall(tool: Tool, rawArguments: unknown, options: CallOptions, sink: ResultSink): void {
  const call = new CallRun(tool, options, sink);
  const outer = options.signal;
  if (outer?.aborted) {
    call.done({ status: 'cancelled', output: cancelledText(tool.name) });
    return;
  }
  const decoded = decodeArguments(rawArguments);
  if (!decoded.ok) {
    const output =
      decoded.reason === 'not_json'
        ? notJsonText(tool.name, decoded.detail)
        : notObjectText(tool.name, decoded.type);
    call.done({ status: 'invalid_arguments', output });
    return;
  }
  call.redactFieldsOf(decoded.value);
  const refused = checkArguments(decoded.value, tool.definition.parameters);
  if (refused?.kind === 'too_deep') {
    call.done({ status: 'invalid_arguments', output: tooDeepText(tool.name, MAX_ARGUMENT_DEPTH) });
    return;
  }
  const { timeoutMs } = call;
  if (timeoutMs !== undefined) {
    call.abortWithTimeout = () =>
      call.abort(new TimeoutError('timeout', `${tool.name} timed out after ${timeoutMs}ms`));
  }
  try {
    const Context = contextClassFor(options.extend);
    call.ctx = new Context(
      call,
      options.context,
      options.callId ?? randomId(),
      options.runId ?? randomId(),
      tool.name,
      options.depth ?? 0,
      { attempt: 1, sessionId: options.sessionId, agentName: options.agentName },
    ) as unknown as ToolContext;
    runCall(call, decoded.value, refused?.issues);
  } catch (error) {
    call.fail(error);
  }
}

/**
 * Runs one call of `tool` with the model's raw arguments and resolves with what the model reads.
 *
 * Steps: decode the arguments (`''`, `null` and absent mean `{}`; a JSON string is parsed, double-encoded
 * once unwrapped) → validate → `allowedAgentNames` (`agentName`) → `policies` → approval (`needsApproval`,
 * `approved`, `approve`; edited arguments validated again) → `execute` → `outputSchema`
 * → widget split → `toModelOutput` → text (lone surrogates become U+FFFD) → `maxOutputBytes`.
 *
 * Time: `timeoutMs` bounds the tool's own work, all of it from one budget: validation, the `needsApproval`
 * predicate, `execute`, `outputSchema` and `toModelOutput` (the wait for `approve` is not counted: a human may
 * take minutes). Past it, `ctx.signal` aborts with a `TimeoutError` and the status is `timeout`, whichever
 * phase was running. `errorFunction` then gets at most `timeoutMs`, and never more than 5,000 ms
 * (`ERROR_FUNCTION_TIMEOUT_MS`, also its bound when there is no `timeoutMs`) before the default text is used.
 * `signal` ends the call as `cancelled` in every phase, `approve` and `errorFunction` included. The
 * model-facing texts are listed in src/tool/model-text.ts.
 *
 * @returns a {@link ToolCallResult}; never rejects for anything the model or the tool did.
 * `source`: any single tool a client accepts, e.g. an object with a `name` (see src/tool/structural.ts).
 *
 * @throws (as a rejection) only for a usage error, before anything runs: ToolDefinitionError `not_a_tool` when
 *   `source` is of no accepted shape, or what `tool()` throws for an object it refuses; OptionsError `invalid_options` when `options` is not an object,
 *   `unknown_option` for a key {@link InvokeOptions} does not have (e.g. `timeout` for `timeoutMs`: a misspelt
 *   limit would otherwise be silently ignored), `invalid_option` for an option of the wrong kind or out of
 *   range (`callId: 42`, `timeoutMs: 0`, `signal` not an `AbortSignal`, …).
 * @example
 * ```ts
 * const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'hi' });
 * const result = await invokeTool(echo, '{}'); // { status: 'ok', output: 'hi', value: 'hi', durationMs: 0 }
 * ```
 */
export async function invokeTool<C = unknown, P = unknown>(
  source: ToolSourceOf<P, C>,
  rawArguments: unknown,
  options: InvokeOptions<C> = {},
): Promise<ToolCallResult> {
  const tool = toTool(source, 'invokeTool(): the tool');
  checkInvokeOptions(options);
  // Many calls may share one signal: they listen to it through one listener (src/call/shared-abort.ts).
  const { signal } = options;
  const callOptions: CallOptions =
    signal === undefined
      ? (options as CallOptions)
      : { ...(options as CallOptions), signal: sharedAbort(signal) };
  return new Promise((resolve) => startCall(tool as Tool, rawArguments, callOptions, { result: resolve }));
}
