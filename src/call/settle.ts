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

/** Who is told when `done` throws after an asynchronous answer (the call). */
export interface SettleOwner {
  fail(error: unknown): void;
}

/**
 * Calls `fn` and tells `done` how it ended, exactly once: synchronously when `fn` returns a plain value or throws
 * (no promise, no timer, no listener), else when its promise settles, the signal aborts or the time limit
 * passes, whichever comes first. A synchronous throw is an `error` outcome. Calls run on this, so that a held
 * call keeps one reaction on the tool's own promise rather than a chain of promises. When `done` throws after an
 * asynchronous answer (where nobody could catch it), the error goes to `owner.fail`; without an owner, `done`
 * must not throw. `done` gets `owner` back as its second argument, so that it can be a function made once
 * rather than a closure per call (a held call then keeps no scope of the step that started the wait).
 */
export function settleThen<T>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions,
  done: (outcome: Settled<Awaited<T>>) => void,
): void;
export function settleThen<T, O extends SettleOwner>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions,
  done: (outcome: Settled<Awaited<T>>, owner: O) => void,
  owner: O,
): void;
export function settleThen<T>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions,
  done: (outcome: Settled<Awaited<T>>, owner: SettleOwner | undefined) => void,
  owner?: SettleOwner,
): void {
  const { signal, timeoutMs, onTimeout } = options;
  if (signal?.aborted) {
    done(ABORTED, owner);
    return;
  }
  let pending: PromiseLike<T> | T;
  try {
    pending = fn();
  } catch (error) {
    done(signal?.aborted ? ABORTED : { kind: 'error', error }, owner);
    return;
  }
  // A synchronous result needs no listener and no timer (the common case: a validator or a plain function):
  // nothing else can run before it, so only an abort made by `fn` itself can come first.
  let thenable: boolean;
  try {
    thenable = isThenable(pending);
  } catch (error) {
    done({ kind: 'error', error }, owner); // a `then` getter that throws, as Promise.resolve says
    return;
  }
  if (!thenable) {
    done(signal?.aborted ? ABORTED : { kind: 'value', value: pending as Awaited<T> }, owner);
    return;
  }
  if (signal?.aborted) {
    // Aborted while `fn` ran: its promise is not waited for, but a rejection of it must not go unhandled.
    Promise.resolve(pending).then(undefined, () => {});
    done(ABORTED, owner);
    return;
  }
  const wait = new Wait(done as Done, signal, owner);
  signal?.addEventListener('abort', wait, { once: true });
  if (timeoutMs !== undefined) wait.limit(timeoutMs, onTimeout);
  relayTo(pending as PromiseLike<T>, wait);
}

type Done = (outcome: Settled<unknown>, owner: SettleOwner | undefined) => void;

/** The time limit of a {@link Wait}. */
interface TimeLimit {
  timer: ReturnType<typeof setTimeout>;
  onTimeout: (() => void) | undefined;
  /** The time limit passed: an abort that `onTimeout` itself causes does not make the outcome `aborted`. */
  expired: boolean;
}

/** The time limit of a {@link Wait} passed (one function for every timer: no closure per wait). */
function expire(wait: Wait): void {
  wait.expire();
}

/**
 * One asynchronous wait of {@link settleThen}: its state in one object, which is also its abort listener (an
 * `EventTarget` calls `handleEvent`), so that a held call keeps this and the two reactions on the tool's
 * promise, and nothing of the scopes that started it. Once over, it drops what it points to: a promise that
 * never settles, kept forever by its maker (a local `onQuestion` whose UI never answers), then keeps only this
 * small object, not the abandoned call.
 */
class Wait {
  #done: Done | undefined;
  #signal: AbortLike | undefined;
  #owner: SettleOwner | undefined;
  /** Its time limit, when it has one (a wait without keeps no field for its timer). */
  #limit: TimeLimit | undefined;

  constructor(done: Done, signal: AbortLike | undefined, owner: SettleOwner | undefined) {
    this.#done = done;
    this.#signal = signal;
    this.#owner = owner;
  }

  /** Ends the wait with `timeout` after `timeoutMs`, `onTimeout` called first. */
  limit(timeoutMs: number, onTimeout: (() => void) | undefined): void {
    this.#limit = { timer: setTimeout(expire, timeoutMs, this), onTimeout, expired: false };
  }

  /** The signal aborted. */
  handleEvent(): void {
    if (this.#limit?.expired !== true) this.finish(ABORTED);
  }

  /** The time limit passed. */
  expire(): void {
    const limit = this.#limit;
    if (this.#done === undefined || limit === undefined) return;
    limit.expired = true;
    limit.onTimeout?.();
    this.finish({ kind: 'timeout' });
  }

  /** The promise waited for fulfilled (a reaction on it: see {@link relayTo}). */
  fulfilled(value: unknown): void {
    this.finish({ kind: 'value', value });
  }

  /** The promise waited for rejected (a reaction on it: see {@link relayTo}). */
  rejected(error: unknown): void {
    this.finish({ kind: 'error', error });
  }

  /** Ends the wait with `outcome`, unless it is over already. */
  finish(outcome: Settled<unknown>): void {
    const done = this.#done;
    if (done === undefined) return;
    const owner = this.#owner;
    const signal = this.#signal;
    this.#done = undefined;
    this.#owner = undefined;
    this.#signal = undefined;
    if (this.#limit !== undefined) clearTimeout(this.#limit.timer);
    this.#limit = undefined;
    signal?.removeEventListener('abort', this);
    if (owner === undefined) done(outcome, owner);
    else
      try {
        done(outcome, owner);
      } catch (error) {
        owner.fail(error);
      }
  }
}

/**
 * Hands the outcome of `pending` to `wait`: its two reactions are the wait's methods bound to it (48 bytes each
 * in V8, where two closures cost 56 each and their shared scope 40 more), and hold only the wait, which lets go
 * of the call once it is over. Methods, not functions: a bound function stays this small only while its target
 * keeps V8's own `name` and `length`, and a build that keeps names (esbuild's `keepNames`, as tsx and vitest
 * use) redefines the `name` of functions, never of class methods.
 */
function relayTo<T>(pending: PromiseLike<T>, wait: Wait): void {
  Promise.resolve(pending).then(wait.fulfilled.bind(wait), wait.rejected.bind(wait));
}
