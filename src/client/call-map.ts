/**
 * `CallMap`: entries by call id that come and go one at a time (the calls held, the results waiting for their
 * ack), with the `Map` methods they use and a `Map`'s insertion order.
 *
 * V8 makes a `Map`'s table again, in a runtime call, when a delete leaves it less than a quarter full: a `Map` that
 * goes from one entry to none does so every time. A client answering calls one at a time would pay that twice a
 * call (the call held, then its result acked). So the oldest entry, when it is the only one or the first of
 * several, sits in two fields, and the `Map` is used only while there are more: a lone call touches no table.
 *
 * @module
 */

/** No entry in the first place (a key no caller passes: call ids are strings). */
const NONE: unique symbol = Symbol('no entry');

export class CallMap<V> {
  /** The oldest entry, while it is in the first place; {@link NONE} when the first place is free. */
  #firstKey: string | typeof NONE = NONE;
  #firstValue: V | undefined;
  /** The entries after the first place, in the order they came. */
  readonly #rest = new Map<string, V>();
  /** Walks of {@link CallMap.values} under way: meanwhile a new key always comes last, in the rest. */
  #walks = 0;

  /** Entries held (a field, not a getter: read on every call). Set only by the methods below. */
  size = 0;

  get(key: string): V | undefined {
    if (this.#firstKey === key) return this.#firstValue;
    return this.#rest.size === 0 ? undefined : this.#rest.get(key);
  }

  has(key: string): boolean {
    return this.#firstKey === key || (this.#rest.size > 0 && this.#rest.has(key));
  }

  /** Sets the value of `key`; a new key comes last, as in a `Map`, and a key already there keeps its place. */
  set(key: string, value: V): this {
    if (this.#firstKey === key) this.#firstValue = value;
    // The first place holds the oldest entry: a new key takes it only when there is no other entry (and no walk
    // is under way, which has read the first place already and visits new keys in the rest).
    else if (this.size === 0 && this.#walks === 0) {
      this.#firstKey = key;
      this.#firstValue = value;
      this.size = 1;
    } else {
      const rest = this.#rest;
      const before = rest.size;
      rest.set(key, value);
      this.size += rest.size - before;
    }
    return this;
  }

  delete(key: string): boolean {
    if (this.#firstKey === key) {
      this.#firstKey = NONE;
      this.#firstValue = undefined;
    } else if (this.#rest.size === 0 || !this.#rest.delete(key)) return false;
    this.size -= 1;
    return true;
  }

  /**
   * The values in the order their keys came, live as a `Map`'s: an entry deleted before it is reached is not
   * visited, one set meanwhile is (last).
   */
  *values(): Generator<V, void, undefined> {
    this.#walks += 1;
    try {
      if (this.#firstKey !== NONE) yield this.#firstValue as V;
      yield* this.#rest.values();
    } finally {
      this.#walks -= 1;
    }
  }
}
