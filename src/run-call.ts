/**
 * One call once its arguments are decoded: validation, approval, `execute`, `errorFunction`, `outputSchema`, the
 * widget split and `toModelOutput`, each under the call's time budget and signal.
 *
 * Time: `timeoutMs` is one budget for the tool's own work in the call: argument validation, the `needsApproval`
 * predicate, `execute`, `outputSchema` validation and `toModelOutput` (the time a human takes to approve is not
 * counted). When it runs out in any of them, `ctx.signal` aborts with a `TimeoutError` and the call ends
 * `timeout`. `errorFunction` then has its own bound ({@link errorFunctionTimeoutMs}). `options.signal` ends the
 * call in every phase, with or without `timeoutMs`.
 *
 * @module
 */
import { decideApproval } from './approval';
import type { AbortLike } from './call-signal';
import type { InvokeOptions, ToolCallResult } from './invoke';
import { andThen, type MaybePromise } from './maybe';
import {
  cancelledText,
  errorText,
  invalidArgumentsText,
  outputMismatchText,
  timeoutText,
} from './model-text';
import { serializeOutput, thrownMessage } from './output';
import { isPlainObject } from './schema/json-schema';
import { formatPath } from './schema/path';
import { type Settled, settle } from './settle';
import { ERROR_FUNCTION_TIMEOUT_MS, type Tool, type ToolContext, type ToolInternals } from './tool';
import { validateWidget, type Widget } from './widget';

/** A result without its duration. */
export type CallOutcome = Omit<ToolCallResult, 'durationMs'>;

/** The options a call runs with; the client's cancellation is a {@link Cancellation}, not an `AbortSignal`. */
export type CallOptions = Omit<InvokeOptions, 'signal'> & { signal?: AbortLike | undefined };

/** One call in progress: what {@link runCall} needs, and the time left of its budget. */
export interface CallState {
  tool: Tool;
  internals: ToolInternals;
  ctx: ToolContext;
  options: CallOptions;
  /** The call's time limit in milliseconds (`options.timeoutMs`, else the tool's), or none. */
  timeoutMs: number | undefined;
  /** Milliseconds left of `timeoutMs`; each timed phase spends what it takes. */
  remainingMs: number | undefined;
  /** Aborts `ctx.signal` with a `TimeoutError`. */
  abortWithTimeout: () => void;
}

/** `errorFunction`'s own time limit: `timeoutMs` when the call has one, at most 5,000 ms. */
export function errorFunctionTimeoutMs(timeoutMs: number | undefined): number {
  return Math.min(timeoutMs ?? ERROR_FUNCTION_TIMEOUT_MS, ERROR_FUNCTION_TIMEOUT_MS);
}

/**
 * Runs one phase of the tool's own work under what is left of the budget, and spends the time it took. A phase
 * that answers synchronously is settled at once (see src/settle.ts).
 */
function timed<T>(call: CallState, fn: () => T | PromiseLike<T>): MaybePromise<Settled<Awaited<T>>> {
  const budget = call.remainingMs;
  if (budget === undefined) return settle(fn, { signal: call.options.signal });
  const started = performance.now();
  const outcome = settle(fn, {
    signal: call.options.signal,
    timeoutMs: budget,
    onTimeout: call.abortWithTimeout,
  });
  return andThen(outcome, (settled) => {
    call.remainingMs = Math.max(0, (call.remainingMs ?? budget) - (performance.now() - started));
    return settled;
  });
}

const cancelled = (call: CallState): CallOutcome => ({
  status: 'cancelled',
  output: cancelledText(call.tool.name),
});

/** The outcome of a call whose budget ran out: `timeout`, with the timeout text (through `errorFunction`). */
function timedOut(call: CallState): MaybePromise<CallOutcome> {
  const { tool, ctx, timeoutMs } = call;
  return failure(call, 'timeout', ctx.signal.reason, timeoutText(tool.name, timeoutMs ?? 0));
}

/** How a phase of the tool's own work ends the call when it gave no value: cancelled, timed out or failed. */
function stopped(
  call: CallState,
  outcome: Exclude<Settled<unknown>, { kind: 'value' }>,
): MaybePromise<CallOutcome> {
  if (outcome.kind === 'aborted') return cancelled(call);
  if (outcome.kind === 'timeout') return timedOut(call);
  return failure(call, 'error', outcome.error, errorText(call.tool.name, thrownMessage(outcome.error)));
}

/**
 * The model's text for a failure: `errorFunction`'s, verbatim, or `fallback` when it is absent, throws, returns
 * something other than a string, or does not answer within {@link errorFunctionTimeoutMs}.
 */
function failure(
  call: CallState,
  status: 'error' | 'timeout',
  error: unknown,
  fallback: string,
): MaybePromise<CallOutcome> {
  const { errorFunction } = call.internals;
  if (errorFunction === undefined) return { status, output: fallback };
  const outcome = settle(() => errorFunction(call.ctx, error), {
    signal: call.options.signal,
    timeoutMs: errorFunctionTimeoutMs(call.timeoutMs),
  });
  return andThen(outcome, (settled): CallOutcome => {
    if (settled.kind === 'aborted') return cancelled(call);
    if (settled.kind !== 'value') return { status, output: fallback };
    // A non-string (e.g. `undefined` from a function that forgot to return) would read `null`: use the default.
    return { status, output: typeof settled.value === 'string' ? settled.value : fallback };
  });
}

function reportInvalidWidget(call: CallState, path: string, message: string): void {
  const info = { toolName: call.tool.name, callId: call.ctx.callId, path, message };
  try {
    if (call.options.onWidgetInvalid) call.options.onWidgetInvalid(info);
    else
      console.warn(
        `toolwire: dropped the invalid widget of ${info.toolName} (call ${info.callId}): ${path}: ${message}`,
      );
  } catch {
    // A failing listener must not change the call's result.
  }
}

/**
 * Splits `{ ...data, widget }` into the data the model reads and a validated widget (or none). Never throws: a
 * `widget` getter that throws is an invalid widget at `(root)`. The data keeps the result's other properties
 * as they are (getters included), so `serializeOutput` writes them by its usual rules.
 */
function splitWidget(call: CallState, value: unknown): { data: unknown; widget?: Widget } {
  let descriptors: PropertyDescriptorMap;
  try {
    if (!isPlainObject(value) || !Object.hasOwn(value, 'widget')) return { data: value };
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
  const checked = validateWidget(widget);
  if (checked.ok) return { data, widget: checked.widget };
  reportInvalidWidget(call, checked.path, checked.message);
  return { data };
}

/** `execute` returned: `outputSchema`, then the widget split and `toModelOutput`. */
function succeed(call: CallState, returned: unknown): MaybePromise<CallOutcome> {
  const schema = call.internals.outputSchema;
  if (schema === undefined) return project(call, returned);
  return andThen(
    timed(call, () => schema.validate(returned)),
    (checked) => {
      if (checked.kind !== 'value') return stopped(call, checked);
      if (!checked.value.ok) {
        return { status: 'error', output: outputMismatchText(call.tool.name, checked.value.issues) };
      }
      return project(call, checked.value.value);
    },
  );
}

/** The result's widget split off, and the rest turned into the model's text (through `toModelOutput`). */
function project(call: CallState, value: unknown): MaybePromise<CallOutcome> {
  const { data, widget } = splitWidget(call, value);
  const done = (forModel: unknown): CallOutcome => {
    const outcome: CallOutcome = { status: 'ok', output: serializeOutput(forModel), value };
    if (widget !== undefined) outcome.widget = widget;
    return outcome;
  };
  const toModelOutput = call.internals.toModelOutput;
  if (toModelOutput === undefined) return done(data);
  return andThen(
    timed(call, () => toModelOutput(value)),
    (projected) => (projected.kind === 'value' ? done(projected.value) : stopped(call, projected)),
  );
}

/**
 * Runs a call from its decoded arguments, synchronously as far as every step answers synchronously. Never fails
 * for anything the model or the tool does; a schema library that throws while validating is a bug, thrown (or
 * rejected) for `invokeTool` to report.
 */
export function runCall(call: CallState, args: object): MaybePromise<CallOutcome> {
  const { tool, internals, ctx } = call;
  return andThen(
    timed(call, () => internals.parameters.validate(args)),
    (validated) => {
      if (validated.kind === 'aborted') return cancelled(call);
      if (validated.kind === 'timeout') return timedOut(call);
      if (validated.kind === 'error') throw validated.error;
      if (!validated.value.ok) {
        return {
          status: 'invalid_arguments',
          output: invalidArgumentsText(tool.name, validated.value.issues),
        };
      }
      const input = validated.value.value;
      const approval = decideApproval(internals, ctx, input, call.options, (fn) => timed(call, fn));
      return andThen(approval, (decided) => {
        if (!decided.go) {
          return decided.status === 'timeout'
            ? timedOut(call)
            : { status: decided.status, output: decided.output };
        }
        ctx.approved = decided.approved;
        return andThen(
          timed(call, () => internals.execute(input, ctx)),
          (executed) => (executed.kind === 'value' ? succeed(call, executed.value) : stopped(call, executed)),
        );
      });
    },
  );
}
