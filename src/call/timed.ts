/**
 * Runs a phase of a call under what is left of its time budget and its signal, and spends the time it took.
 *
 * @module
 */

import { TimeoutError } from '../errors';
import { inStage } from '../tool/model-text';
import { ERROR_FUNCTION_TIMEOUT_MS } from '../tool/tool';
import { type Settled, settleThen } from './settle';
import type { CallState } from './types';

/** `errorFunction`'s own time limit: `timeoutMs` when the call has one, at most 5,000 ms. */
export function errorFunctionTimeoutMs(timeoutMs: number | undefined): number {
  return Math.min(timeoutMs ?? ERROR_FUNCTION_TIMEOUT_MS, ERROR_FUNCTION_TIMEOUT_MS);
}

/** `<name> timed out after <n>ms`, and ` in <stage>` when a policy or the `needsApproval` check hung. */
export function timeoutError(toolName: string, timeoutMs: number, stage: string | undefined): TimeoutError {
  return new TimeoutError('timeout', `${toolName} timed out after ${timeoutMs}ms${inStage(stage)}`);
}

/**
 * Runs one phase of the tool's own work under what is left of the budget, spends the time it took, and goes on
 * with how it ended (at once when the phase answers synchronously; see src/call/settle.ts). `next` gets `call`
 * back, so that it can be a function made once (a held call then keeps no closure for it).
 */
export function timed<T>(
  call: CallState,
  fn: () => T | PromiseLike<T>,
  next: (outcome: Settled<Awaited<T>>, call: CallState) => void,
): void {
  const budget = call.remainingMs;
  if (budget === undefined) {
    // `next` runs inside settleThen: a synchronous throw reaches the caller's guard, a later one `call.fail()`.
    settleThen(fn, { signal: call.options.signal }, next, call);
    return;
  }
  const started = performance.now();
  const options = { signal: call.options.signal, timeoutMs: budget, onTimeout: call.abortWithTimeout };
  const spend = (settled: Settled<Awaited<T>>) => {
    call.remainingMs = Math.max(0, budget - (performance.now() - started));
    next(settled, call);
  };
  settleThen(fn, options, spend, call);
}
