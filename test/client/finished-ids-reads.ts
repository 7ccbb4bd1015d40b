/**
 * The words a `FinishedIds` (src/client/finished-ids.ts) reads from its table, seen from outside: while
 * {@link countingReads} runs, every `Int32Array` made is a Proxy that counts the reads of its elements. A question
 * (`has`) reads the words of the run it lands in from its hash's place up to the free word it stops at (or the id's
 * own): its count less one is the taken words it passed, what the table's runs cost a call. No timing, no hook in
 * the source.
 */

/** `has(id, hash)` of `ids`, with the words it read; `undefined` when it switched the ids to whole hashes. */
export type Question = (
  ids: { has(id: string, hash?: number): boolean; hashOf: unknown },
  id: string,
  hash?: number,
) => { found: boolean; passed: number | undefined };

/**
 * Runs `body` with counted tables (every `Int32Array` made meanwhile), handing it {@link Question}: a question's
 * taken words passed. The question that turns the table to whole hashes reads them all again: `passed` is then
 * `undefined`.
 */
export function countingReads<T>(body: (ask: Question) => T): T {
  const Real = Int32Array;
  let reads = 0;
  const Counted = new Proxy(Real, {
    construct(target, args) {
      const array = Reflect.construct(target, args) as Int32Array;
      return new Proxy(array, {
        get(inner, key) {
          // An element's key is its index, which begins with a digit: `length` and the methods do not.
          if (typeof key === 'string' && key.charCodeAt(0) <= 57) reads++;
          const value = Reflect.get(inner, key, inner) as unknown;
          return typeof value === 'function' ? value.bind(inner) : value;
        },
        set: (inner, key, value) => Reflect.set(inner, key, value, inner),
      });
    },
  });
  globalThis.Int32Array = Counted;
  try {
    return body((ids, id, hash) => {
      const hashOf = ids.hashOf;
      const before = reads;
      const found = hash === undefined ? ids.has(id) : ids.has(id, hash);
      return { found, passed: ids.hashOf === hashOf ? reads - before - 1 : undefined };
    });
  } finally {
    globalThis.Int32Array = Real;
  }
}
