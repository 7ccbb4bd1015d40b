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
import type { InvokeOptions, ToolCallResult } from './invoke';
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

/** One call in progress: what {@link runCall} needs, and the time left of its budget. */
export interface CallState {
  tool: Tool;
  internals: ToolInternals;
  ctx: ToolContext;
  options: InvokeOptions;
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

/** Runs one phase of the tool's own work under what is left of the budget, and spends the time it took. */
async function timed<T>(call: CallState, fn: () => T | PromiseLike<T>): Promise<Settled<Awaited<T>>> {
  const started = performance.now();
  const outcome = await settle(fn, {
    signal: call.options.signal,
    timeoutMs: call.remainingMs,
    onTimeout: call.abortWithTimeout,
  });
  if (call.remainingMs !== undefined) {
    call.remainingMs = Math.max(0, call.remainingMs - (performance.now() - started));
  }
  return outcome;
}

const cancelled = (call: CallState): CallOutcome => ({
  status: 'cancelled',
  output: cancelledText(call.tool.name),
});

/** The outcome of a call whose budget ran out: `timeout`, with the timeout text (through `errorFunction`). */
function timedOut(call: CallState): Promise<CallOutcome> {
  const { tool, ctx, timeoutMs } = call;
  return failure(call, 'timeout', ctx.signal.reason, timeoutText(tool.name, timeoutMs ?? 0));
}

/**
 * The model's text for a failure: `errorFunction`'s, verbatim, or `fallback` when it is absent, throws, returns
 * something other than a string, or does not answer within {@link errorFunctionTimeoutMs}.
 */
async function failure(
  call: CallState,
  status: 'error' | 'timeout',
  error: unknown,
  fallback: string,
): Promise<CallOutcome> {
  const { errorFunction } = call.internals;
  if (errorFunction === undefined) return { status, output: fallback };
  const outcome = await settle(() => errorFunction(call.ctx, error), {
    signal: call.options.signal,
    timeoutMs: errorFunctionTimeoutMs(call.timeoutMs),
  });
  if (outcome.kind === 'aborted') return cancelled(call);
  if (outcome.kind !== 'value') return { status, output: fallback };
  // A non-string (e.g. `undefined` from a function that forgot to return) would read `null`: use the default.
  return { status, output: typeof outcome.value === 'string' ? outcome.value : fallback };
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

async function succeed(call: CallState, returned: unknown): Promise<CallOutcome> {
  const { internals, tool } = call;
  let value = returned;
  if (internals.outputSchema !== undefined) {
    const schema = internals.outputSchema;
    const checked = await timed(call, () => schema.validate(returned));
    if (checked.kind === 'aborted') return cancelled(call);
    if (checked.kind === 'timeout') return timedOut(call);
    if (checked.kind === 'error') {
      return failure(call, 'error', checked.error, errorText(tool.name, thrownMessage(checked.error)));
    }
    if (!checked.value.ok)
      return { status: 'error', output: outputMismatchText(tool.name, checked.value.issues) };
    value = checked.value.value;
  }
  const { data, widget } = splitWidget(call, value);
  let forModel = data;
  const project = internals.toModelOutput;
  if (project !== undefined) {
    const projected = await timed(call, () => project(value));
    if (projected.kind === 'aborted') return cancelled(call);
    if (projected.kind === 'timeout') return timedOut(call);
    if (projected.kind === 'error') {
      return failure(call, 'error', projected.error, errorText(tool.name, thrownMessage(projected.error)));
    }
    forModel = projected.value;
  }
  const outcome: CallOutcome = { status: 'ok', output: serializeOutput(forModel), value };
  if (widget !== undefined) outcome.widget = widget;
  return outcome;
}

/**
 * Runs a call from its decoded arguments. Never rejects for anything the model or the tool does (a schema
 * library that throws while validating is a bug, rejected for `invokeTool` to report).
 */
export async function runCall(call: CallState, args: object): Promise<CallOutcome> {
  const { tool, internals, ctx } = call;
  const validated = await timed(call, () => internals.parameters.validate(args));
  if (validated.kind === 'aborted') return cancelled(call);
  if (validated.kind === 'timeout') return timedOut(call);
  if (validated.kind === 'error') throw validated.error;
  if (!validated.value.ok) {
    return { status: 'invalid_arguments', output: invalidArgumentsText(tool.name, validated.value.issues) };
  }
  const input = validated.value.value;

  const approval = await decideApproval(internals, ctx, input, call.options, (fn) => timed(call, fn));
  if (!approval.go) {
    return approval.status === 'timeout'
      ? timedOut(call)
      : { status: approval.status, output: approval.output };
  }
  ctx.approved = approval.approved;

  const executed = await timed(call, () => internals.execute(input, ctx));
  if (executed.kind === 'aborted') return cancelled(call);
  if (executed.kind === 'timeout') return timedOut(call);
  if (executed.kind === 'error') {
    return failure(call, 'error', executed.error, errorText(tool.name, thrownMessage(executed.error)));
  }
  return succeed(call, executed.value);
}
