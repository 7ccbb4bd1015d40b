/**
 * Values that are ready now or later. A call whose steps are all synchronous (a zod schema, a plain `execute`)
 * runs to its result in the same turn, without a promise per step: on the hot path, every `await` costs an
 * allocation and a microtask, and a held call keeps each suspended frame in memory.
 *
 * @module
 */

/** A value, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** `true` for a promise, from this realm or another, or any other thenable (as the spec of `await` has it). */
export function isThenable<T>(value: PromiseLike<T> | T): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Applies `fn` to `value` now when it is ready, or when it fulfils if it is a promise (any thenable). Not named
 * `then`: a module exporting `then` makes its namespace a thenable, which `await import()` would call.
 */
export function andThen<T, U>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isThenable(value) ? Promise.resolve(value).then(fn) : fn(value as T);
}
