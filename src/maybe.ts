/**
 * Values that are ready now or later. A call whose steps are all synchronous (a zod schema, a plain `execute`)
 * runs to its result in the same turn, without a promise per step: on the hot path, every `await` costs an
 * allocation and a microtask, and a held call keeps each suspended frame in memory.
 *
 * @module
 */

/** A value, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * (Not named `then`: a module exporting `then` makes its namespace a thenable, which `await import()` would call.)
 *
 * Applies `fn` to `value` now when it is ready, or when its promise fulfils. `value` must not itself be a
 * promise-like that is not a native `Promise` (toolwire's steps only ever return plain values or promises).
 */
export function andThen<T, U>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
