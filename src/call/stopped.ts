/**
 * How a call ends when a phase of it gave no value: cancelled, timed out (through `errorFunction`), or failed.
 *
 * @module
 */
import { cancelledText, errorText, timeoutText } from '../tool/model-text';
import { thrownMessage } from '../tool/serialize';
import { type Settled, settleThen } from './settle';
import { errorFunctionTimeoutMs } from './timed';
import type { CallOutcome, CallState } from './types';

/** The outcome of a cancelled call. */
export const cancelled = (call: CallState): CallOutcome => ({
  status: 'cancelled',
  output: cancelledText(call.tool.name),
});

/**
 * Ends a call whose budget ran out: `timeout`, with the timeout text (through `errorFunction`), naming the stage
 * that hung when it was a policy or the `needsApproval` check.
 */
export function timedOut(call: CallState): void {
  const { tool, ctx, timeoutMs } = call;
  failure(call, 'timeout', ctx.signal.reason, timeoutText(tool.name, timeoutMs ?? 0, call.stage));
}

/** Ends the call for a phase of the tool's own work that gave no value: cancelled, timed out or failed. */
export function stopped(call: CallState, outcome: Exclude<Settled<unknown>, { kind: 'value' }>): void {
  if (outcome.kind === 'aborted') call.done(cancelled(call));
  else if (outcome.kind === 'timeout') timedOut(call);
  else {
    const message = thrownMessage(outcome.error, undefined, call.options.redactor);
    failure(call, 'error', outcome.error, errorText(call.tool.name, message));
  }
}

/**
 * Ends the call with the model's text for a failure: `errorFunction`'s, verbatim, or `fallback` when it is absent,
 * throws, returns something other than a string, or does not answer within {@link errorFunctionTimeoutMs}.
 */
export function failure(
  call: CallState,
  status: 'error' | 'timeout',
  error: unknown,
  fallback: string,
): void {
  const { errorFunction } = call.internals;
  if (errorFunction === undefined) {
    call.done({ status, output: fallback, error });
    return;
  }
  const options = { signal: call.options.signal, timeoutMs: errorFunctionTimeoutMs(call.timeoutMs) };
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
