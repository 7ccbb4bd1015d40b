/**
 * Preliminary results: an `execute` that is a generator (async or not), or that returns any async iterable (the
 * AI SDK's shape), yields results before its result. Each yield goes to the call as a preliminary result; the
 * result is the generator's return value, or, when it returns nothing (or for an iterable that is no generator),
 * the last value yielded. A call that is cancelled or times out ends the iteration (`return()`), and a value
 * yielded after that is dropped. This file holds how such a value is recognised and read to its end; how an attempt
 * of a tool with `retry` ends at its first yield is ./retry.ts's (`untilFirstYield`), loaded with that part.
 *
 * @module
 */
import type { CallState } from './types';

/** An iterator of `execute`'s value, or `undefined` when the value yields nothing (the usual case). */
export function iteratorOf(value: unknown): Iterator<unknown> | AsyncIterator<unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  try {
    const tag = Object.prototype.toString.call(value);
    if (tag === '[object AsyncGenerator]' || tag === '[object Generator]') {
      return value as AsyncIterator<unknown>;
    }
    const make = (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator];
    if (typeof make === 'function') return make.call(value) as AsyncIterator<unknown>;
  } catch {
    // A hostile proxy, or an iterable whose iterator cannot be made: not something that yields.
  }
  return undefined;
}

/** Ends an iteration early (`return()`), whatever state it is in; never throws, never leaves a rejection unhandled. */
export function closeIterator(iterator: Iterator<unknown> | AsyncIterator<unknown>): void {
  try {
    const closing = iterator.return?.();
    if (closing && typeof (closing as PromiseLike<unknown>).then === 'function') {
      (closing as PromiseLike<unknown>).then(undefined, () => {});
    }
  } catch {
    // A `return()` that throws: the iteration is over for us either way.
  }
}

/**
 * Reads the iterator to its end, giving each value to `onYield`, and resolves with the result: the return value
 * when it is not `undefined`, else the last value yielded. An abort of the call's signal (cancel, timeout) ends
 * the iteration with `return()`; from then on nothing more is given to `onYield`.
 */
export function drainYields(
  call: CallState,
  iterator: Iterator<unknown> | AsyncIterator<unknown>,
  onYield: (value: unknown) => void,
): Promise<unknown> {
  const signal = call.ctx.signal;
  let stopped = signal.aborted;
  const stop = () => {
    stopped = true;
    closeIterator(iterator);
  };
  signal.addEventListener('abort', stop, { once: true });
  return (async () => {
    let last: unknown;
    try {
      for (;;) {
        const step = await iterator.next();
        if (stopped) return undefined;
        if (step.done) return step.value !== undefined ? step.value : last;
        last = step.value;
        onYield(step.value);
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
  })();
}

/*
 * An attempt of a tool whose `execute` yields preliminary results under `retry` (./retry.ts): the attempt lasts
 * until its first yield (or its end), so that a generator that throws before it yields anything is retried as any
 * other `execute` that throws. Once it has yielded, the preliminary result goes out and the attempt has succeeded:
 * what it throws after that ends the call, never retried (the model's preliminary results were already sent).
 */
