/**
 * The part of a call after its arguments are valid: approval, `execute` under its time limit and signal,
 * `errorFunction`, `outputSchema`, the widget split and `toModelOutput`.
 *
 * @module
 */
import { decideApproval } from './approval';
import type { InvokeOptions, ToolCallResult } from './invoke';
import { cancelledText, errorText, outputMismatchText, timeoutText } from './model-text';
import { serializeOutput, thrownMessage } from './output';
import { isPlainObject } from './schema/json-schema';
import { formatPath } from './schema/path';
import { settle } from './settle';
import type { Tool, ToolContext, ToolInternals } from './tool';
import { validateWidget, type Widget } from './widget';

/** A result without its duration. */
export type CallOutcome = Omit<ToolCallResult, 'durationMs'>;

/** What {@link runValidated} needs. */
export interface ValidatedCall {
  tool: Tool;
  internals: ToolInternals;
  input: unknown;
  ctx: ToolContext;
  options: InvokeOptions;
  timeoutMs: number | undefined;
  /** Aborts `ctx.signal` with a `TimeoutError`. */
  abortWithTimeout: () => void;
}

/**
 * The model's text for a failure: `errorFunction`'s, verbatim, or `fallback` when it is absent, throws or
 * returns something other than a string.
 */
async function failure(
  call: ValidatedCall,
  status: 'error' | 'timeout',
  error: unknown,
  fallback: string,
): Promise<CallOutcome> {
  const { errorFunction } = call.internals;
  if (errorFunction === undefined) return { status, output: fallback };
  const { signal } = call.options;
  const outcome = await settle(() => errorFunction(call.ctx, error), { signal, timeoutMs: call.timeoutMs });
  if (outcome.kind === 'aborted') return { status: 'cancelled', output: cancelledText(call.tool.name) };
  if (outcome.kind !== 'value') return { status, output: fallback };
  // A non-string (e.g. `undefined` from a function that forgot to return) would read `null`: use the default.
  return { status, output: typeof outcome.value === 'string' ? outcome.value : fallback };
}

function reportInvalidWidget(call: ValidatedCall, path: string, message: string): void {
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
function splitWidget(call: ValidatedCall, value: unknown): { data: unknown; widget?: Widget } {
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

async function succeed(call: ValidatedCall, returned: unknown): Promise<CallOutcome> {
  const { internals, tool, options } = call;
  let value = returned;
  if (internals.outputSchema !== undefined) {
    const schema = internals.outputSchema;
    const checked = await settle(() => schema.validate(returned), { signal: options.signal });
    if (checked.kind === 'aborted') return { status: 'cancelled', output: cancelledText(tool.name) };
    if (checked.kind === 'error') {
      return failure(call, 'error', checked.error, errorText(tool.name, thrownMessage(checked.error)));
    }
    if (checked.kind !== 'value')
      return { status: 'error', output: errorText(tool.name, 'output validation failed') };
    if (!checked.value.ok)
      return { status: 'error', output: outputMismatchText(tool.name, checked.value.issues) };
    value = checked.value.value;
  }
  const { data, widget } = splitWidget(call, value);
  let forModel = data;
  const project = internals.toModelOutput;
  if (project !== undefined) {
    const projected = await settle(() => project(value), { signal: options.signal });
    if (projected.kind === 'aborted') return { status: 'cancelled', output: cancelledText(tool.name) };
    if (projected.kind === 'error') {
      return failure(call, 'error', projected.error, errorText(tool.name, thrownMessage(projected.error)));
    }
    forModel = projected.kind === 'value' ? projected.value : undefined;
  }
  const outcome: CallOutcome = { status: 'ok', output: serializeOutput(forModel), value };
  if (widget !== undefined) outcome.widget = widget;
  return outcome;
}

/** Runs a call whose input is valid. Never rejects for anything the tool does. */
export async function runValidated(call: ValidatedCall): Promise<CallOutcome> {
  const { tool, internals, input, ctx, options, timeoutMs } = call;
  const approval = await decideApproval(internals, ctx, input, options);
  if (!approval.go) return { status: approval.status, output: approval.output };
  ctx.approved = approval.approved;

  const executed = await settle(() => internals.execute(input, ctx), {
    signal: options.signal,
    timeoutMs,
    onTimeout: call.abortWithTimeout,
  });
  if (executed.kind === 'aborted') return { status: 'cancelled', output: cancelledText(tool.name) };
  if (executed.kind === 'timeout') {
    return failure(call, 'timeout', ctx.signal.reason, timeoutText(tool.name, timeoutMs ?? 0));
  }
  if (executed.kind === 'error') {
    return failure(call, 'error', executed.error, errorText(tool.name, thrownMessage(executed.error)));
  }
  return succeed(call, executed.value);
}
