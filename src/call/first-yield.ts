/**
 * An attempt of a tool whose `execute` yields preliminary results (./yields.ts) under `retry`: the attempt lasts
 * until its first yield (or its end), so that a generator that throws before it yields anything is retried as any
 * other `execute` that throws. Once it has yielded, the preliminary result goes out and the attempt has succeeded:
 * what it throws after that ends the call, never retried (the model's preliminary results were already sent).
 *
 * @module
 */
import { iteratorOf } from './yields';

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
