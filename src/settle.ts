/**
 * Runs a callback that may be slow, async, throw, or never finish, and settles on whichever comes first: its
 * result, an abort, or a time limit. A result (or rejection) arriving after that is dropped, and a late
 * rejection is handled so it never becomes an unhandled rejection.
 *
 * @module
 */
import type { AbortLike } from './call-signal';
import type { MaybePromise } from './maybe';

/** How a {@link settle} ended. */
export type Settled<T> =
  | { kind: 'value'; value: T }
  | { kind: 'error'; error: unknown }
  | { kind: 'aborted' }
  | { kind: 'timeout' };

/** Options of {@link settle}. */
export interface SettleOptions {
  /** Ends the wait with `aborted` (immediately when already aborted: the callback is not called). */
  signal?: AbortLike | undefined;
  /** Ends the wait with `timeout` after this many milliseconds. @default none */
  timeoutMs?: number | undefined;
  /** Called once, synchronously, when the time limit passes (before anyone awaiting the outcome resumes). */
  onTimeout?: () => void;
}

/**
 * Calls `fn` and tells how it ended: at once when `fn` returns a plain value or throws (no promise, no timer,
 * no listener), else through a promise. Never throws or rejects: a synchronous throw is an `error` outcome.
 *
 * @example
 * ```ts
 * const outcome = await settle(() => fetchSlowly(), { signal, timeoutMs: 5_000 });
 * if (outcome.kind === 'value') use(outcome.value);
 * ```
 */
export function settle<T>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions = {},
): MaybePromise<Settled<Awaited<T>>> {
  const { signal, timeoutMs, onTimeout } = options;
  if (signal?.aborted) return { kind: 'aborted' };
  let pending: PromiseLike<T> | T;
  try {
    pending = fn();
  } catch (error) {
    return signal?.aborted ? { kind: 'aborted' } : { kind: 'error', error };
  }
  // A synchronous result needs no listener and no timer (the common case: a validator or a plain function):
  // nothing else can run before it, so only an abort made by `fn` itself can come first.
  let thenable: boolean;
  try {
    thenable = isThenable(pending);
  } catch (error) {
    return { kind: 'error', error }; // a `then` getter that throws, as Promise.resolve says
  }
  if (!thenable) {
    return signal?.aborted ? { kind: 'aborted' } : { kind: 'value', value: pending as Awaited<T> };
  }
  return new Promise((resolve) => {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (outcome: Settled<Awaited<T>>) => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'aborted' });
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        if (done) return;
        // Settle first: `onTimeout` may abort the very signal listened to here, and the outcome is `timeout`.
        finish({ kind: 'timeout' });
        onTimeout?.();
      }, timeoutMs);
    }
    Promise.resolve(pending).then(
      (value) => finish({ kind: 'value', value: value as Awaited<T> }),
      (error: unknown) => finish({ kind: 'error', error }),
    );
  });
}

function isThenable<T>(value: PromiseLike<T> | T): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
