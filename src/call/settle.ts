/**
 * Runs a callback that may be slow, async, throw, or never finish, and settles on whichever comes first: its
 * result, an abort, or a time limit. A result (or rejection) arriving after that is dropped, and a late
 * rejection is handled so it never becomes an unhandled rejection.
 *
 * @module
 */

import { isThenable } from '../maybe';
import type { AbortLike } from './call-signal';

/** How a {@link settleThen} ended. */
export type Settled<T> =
  | { kind: 'value'; value: T }
  | { kind: 'error'; error: unknown }
  | { kind: 'aborted' }
  | { kind: 'timeout' };

/** Options of {@link settleThen}. */
export interface SettleOptions {
  /** Ends the wait with `aborted` (immediately when already aborted: the callback is not called). */
  signal?: AbortLike | undefined;
  /** Ends the wait with `timeout` after this many milliseconds. @default none */
  timeoutMs?: number | undefined;
  /** Called once, synchronously, when the time limit passes, before the outcome is given. */
  onTimeout?: () => void;
}

const ABORTED = { kind: 'aborted' } as const;

/**
 * Calls `fn` and tells `done` how it ended, exactly once: synchronously when `fn` returns a plain value or throws
 * (no promise, no timer, no listener), else when its promise settles, the signal aborts or the time limit
 * passes, whichever comes first. A synchronous throw is an `error` outcome. Calls run on this, so that a held
 * call keeps one reaction on the tool's own promise rather than a chain of promises. When `done` throws after an
 * asynchronous answer (where nobody could catch it), the error goes to `owner.fail`; without an owner, `done`
 * must not throw.
 */
export function settleThen<T>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions,
  done: (outcome: Settled<Awaited<T>>) => void,
  owner?: { fail(error: unknown): void },
): void {
  const { signal, timeoutMs, onTimeout } = options;
  if (signal?.aborted) {
    done(ABORTED);
    return;
  }
  let pending: PromiseLike<T> | T;
  try {
    pending = fn();
  } catch (error) {
    done(signal?.aborted ? ABORTED : { kind: 'error', error });
    return;
  }
  // A synchronous result needs no listener and no timer (the common case: a validator or a plain function):
  // nothing else can run before it, so only an abort made by `fn` itself can come first.
  let thenable: boolean;
  try {
    thenable = isThenable(pending);
  } catch (error) {
    done({ kind: 'error', error }); // a `then` getter that throws, as Promise.resolve says
    return;
  }
  if (!thenable) {
    done(signal?.aborted ? ABORTED : { kind: 'value', value: pending as Awaited<T> });
    return;
  }
  if (signal?.aborted) {
    // Aborted while `fn` ran: its promise is not waited for, but a rejection of it must not go unhandled.
    Promise.resolve(pending).then(undefined, () => {});
    done(ABORTED);
    return;
  }
  let finished = false;
  let expired = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const relay: Relay<Awaited<T>> = {};
  const finish = (outcome: Settled<Awaited<T>>) => {
    if (finished) return;
    finished = true;
    relay.to = undefined;
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (owner === undefined) done(outcome);
    else
      try {
        done(outcome);
      } catch (error) {
        owner.fail(error);
      }
  };
  // An abort that `onTimeout` itself causes (it may abort this very signal) does not make the outcome `aborted`.
  const onAbort = () => {
    if (!expired) finish(ABORTED);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  if (timeoutMs !== undefined) {
    timer = setTimeout(() => {
      if (finished) return;
      expired = true;
      onTimeout?.();
      finish({ kind: 'timeout' });
    }, timeoutMs);
  }
  relay.to = finish;
  relayTo(pending as PromiseLike<Awaited<T>>, relay);
}

/** Where {@link relayTo} hands an outcome; `to` is cleared once the wait is over. */
interface Relay<T> {
  to?: ((outcome: Settled<T>) => void) | undefined;
}

/**
 * Hands the outcome of `pending` to `relay.to` while it is set. In a scope of its own: the reactions on
 * `pending` hold only the relay, so a promise that never settles, and that its maker keeps forever (a local
 * `onQuestion` whose UI never answers), keeps nothing of the abandoned wait once `to` is cleared.
 */
function relayTo<T>(pending: PromiseLike<T>, relay: Relay<T>): void {
  Promise.resolve(pending).then(
    (value) => relay.to?.({ kind: 'value', value }),
    (error: unknown) => relay.to?.({ kind: 'error', error }),
  );
}
