/**
 * Retry, the execute phase of a call whose tool has `retry` (a tool without runs `execute` once, in
 * src/call/pipeline.ts): attempts until one succeeds, the call is cancelled, `retry.when` says no, or
 * `retry.maxAttempts` ran. This file holds `executeAttempts`, then `retry.when`, the wait between attempts, and
 * how the attempt of a tool that yields ends at its first yield (`untilFirstYield`; preliminary results are
 * ./yields.ts). Each attempt has a `ctx` and a signal of its own (`ctx.attempt` tells them apart; everything else is the same) and
 * `timeoutMs` of its own; between attempts the call waits a backoff delay with full jitter, which a cancel ends.
 *
 * @module
 */
import { backoffDelay } from '../backoff';
import { TimeoutError } from '../errors';
import { RETRY_DEFAULTS, type RetryOptions } from '../tool/tool';
import { type Settled, settleThen } from './signal';
import type { AbortLike, CallState } from './types';
import { iteratorOf } from './yields';

/**
 * `retry.when(error)`, answered to `then`: its answer read as a condition (a truthy one retries, as a
 * `needsApproval` predicate's asks: a `when` that answers `'yes'` or `1` was meant to). A `when` that throws or
 * rejects says no; so does an async `when` that has not answered within `timeoutMs` (the tool's, when it has
 * one). A cancel of the call while it answers ends the call `cancelled` (`then` gets `'aborted'`).
 */
function worthRetrying(
  retry: RetryOptions,
  error: unknown,
  limits: { signal: AbortLike | undefined; timeoutMs: number | undefined },
  then: (answer: boolean | 'aborted') => void,
  owner: { fail(error: unknown): void },
): void {
  const when = retry.when;
  if (when === undefined) {
    then(true);
    return;
  }
  settleThen(
    () => when(error),
    limits,
    (settled) =>
      then(settled.kind === 'aborted' ? 'aborted' : settled.kind === 'value' && Boolean(settled.value)),
    owner,
  );
}

/** Waits `delayMs`, or until `signal` aborts (then `false`). */
function pause(delayMs: number, signal: AbortLike | undefined, then: (goOn: boolean) => void): void {
  if (signal?.aborted) {
    then(false);
    return;
  }
  const onAbort = () => {
    clearTimeout(timer);
    then(false);
  };
  const timer = setTimeout(() => {
    signal?.removeEventListener('abort', onAbort);
    then(true);
  }, delayMs);
  signal?.addEventListener('abort', onAbort, { once: true });
}

/**
 * Runs `execute` in attempts under the tool's `retry` (of more than one attempt: a tool without runs it once, in
 * src/call/pipeline.ts) and goes on with how the last attempt ended.
 */
export function executeAttempts(
  call: CallState,
  input: unknown,
  retry: RetryOptions,
  next: (outcome: Settled<unknown>, call: CallState) => void,
): void {
  const { internals } = call;
  const name = call.tool.name;
  const { timeLimitMs: timeoutMs } = call;
  const signal = call.options.signal;
  const run = (number: number): void => {
    const attempt = call.newAttempt(number);
    // `errorFunction` and the timeout text get the last attempt's `ctx` (its `signal.reason`, its `attempt`).
    call.ctx = attempt.ctx;
    const budget = number === 1 ? call.remainingMs : timeoutMs;
    const started = performance.now();
    const onTimeout = () =>
      attempt.abort(
        new TimeoutError('timeout', `${name} timed out after ${timeoutMs}ms (attempt ${number})`),
      );
    settleThen(
      // A generator's attempt lasts until its first yield: one that throws before it is retried.
      () => untilFirstYield(internals.execute(input, attempt.ctx)),
      { signal, timeoutMs: budget, onTimeout },
      (settled) => {
        attempt.end();
        if (budget !== undefined) call.remainingMs = Math.max(0, budget - (performance.now() - started));
        const error =
          settled.kind === 'error'
            ? settled.error
            : settled.kind === 'timeout'
              ? attempt.ctx.signal.reason
              : null;
        if (error === null || number >= retry.maxAttempts) {
          next(settled, call);
          return;
        }
        worthRetrying(
          retry,
          error,
          { signal, timeoutMs },
          (answer) => {
            if (answer === 'aborted') next({ kind: 'aborted' }, call);
            else if (!answer) next(settled, call);
            else backOff(number, error);
          },
          call,
        );
      },
      call,
    );
  };
  const backOff = (number: number, error: unknown): void => {
    const delayMs = backoffDelay(number, {
      initialDelayMs: retry.initialDelayMs ?? RETRY_DEFAULTS.initialDelayMs,
      maxDelayMs: retry.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs,
    });
    call.ctx.logger.info(
      { delayMs, error },
      `attempt ${number} of ${retry.maxAttempts} failed; retrying in ${delayMs}ms`,
    );
    try {
      call.options.onRetry?.({ callId: call.ctx.callId, attempt: number, delayMs, error });
    } catch {
      // The host's failure is not the tool's.
    }
    pause(delayMs, signal, (goOn) => (goOn ? run(number + 1) : next({ kind: 'aborted' }, call)));
  };
  run(1);
}

type AnyIterator = Iterator<unknown> | AsyncIterator<unknown>;

/**
 * `execute`'s value as an attempt ends with it: a value that yields nothing as it is (a promise of one too); one that
 * yields, once its first step is taken (a step that throws is the attempt's failure), as an async iterator that
 * gives that step first and then the rest of the original (`return()` ends the original).
 */
export function untilFirstYield(value: unknown): unknown {
  if (typeof (value as PromiseLike<unknown> | undefined)?.then === 'function')
    return (value as PromiseLike<unknown>).then(untilFirstYield);
  const iterator = iteratorOf(value);
  if (iterator === undefined) return value;
  return Promise.resolve(iterator.next()).then((first) => replaying(iterator, first));
}

function replaying(iterator: AnyIterator, first: IteratorResult<unknown>): AsyncIterableIterator<unknown> {
  let head: IteratorResult<unknown> | undefined = first;
  const replay: AsyncIterableIterator<unknown> = {
    next: () => {
      const step = head;
      head = undefined;
      return step === undefined ? Promise.resolve(iterator.next()) : Promise.resolve(step);
    },
    return: (result?: unknown) => {
      head = undefined;
      const closing = iterator.return?.(result);
      return Promise.resolve(closing ?? { done: true as const, value: result });
    },
    [Symbol.asyncIterator]: () => replay,
  };
  return replay;
}
