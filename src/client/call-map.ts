/**
 * `CallMap`: entries by call id that come and go one at a time (the calls held, what is kept of each call), with
 * the `Map` methods they use and a `Map`'s insertion order.
 *
 * V8 makes a `Map`'s table again, in a runtime call, when a delete leaves it less than a quarter full: a `Map` that
 * goes from one entry to none does so every time. A client answering calls one at a time would pay that for each
 * call held. So the oldest entry, when it is the only one or the first of
 * several, sits in two fields, and the `Map` is used only while there are more: a lone call touches no table.
 *
 * The `Map` maps the other keys to places in an array, not to the values themselves. A `Map` whose entries come and
 * go is made again every few dozen of them, and V8 keeps a link from each old table to the next (for iterators
 * that were under way), with the old table's entries in it. Once one of those tables has lived through a
 * young-generation collection, the chain from it holds every value set since, as far as the next young collection
 * can tell: with calls many in flight, every call's objects (its frames, its result) were kept and copied to the
 * old generation, about 250 bytes a call, ten times what the same calls leave there otherwise, and the collections
 * took twice as long. Places, small integers, hold nothing.
 *
 * @module
 */

/** No entry in the first place (a key no caller passes: call ids are strings). */
const NONE: unique symbol = Symbol('no entry');

/** Values are never `undefined`: {@link CallMap.take} and {@link CallMap.put} say "none" with it. */
export class CallMap<V extends NonNullable<unknown>> {
  /** The oldest entry, while it is in the first place; {@link NONE} when the first place is free. */
  #firstKey: string | typeof NONE = NONE;
  #firstValue: V | undefined;
  /** The keys after the first place, in the order they came, each with its value's place in {@link CallMap.#values}. */
  readonly #rest = new Map<string, number>();
  /**
   * The values of {@link CallMap.#rest}'s keys, at their places; `undefined` at a free place. No array of the keys
   * beside it: a place given by {@link CallMap.add} is trusted when it still holds the value taken (see
   * {@link CallMap.take}), and each key is in the `Map` already (a held call's id in its call too: an array of them
   * was 8 B more a call held).
   */
  readonly #values: (V | undefined)[] = [];
  /** Free places in {@link CallMap.#values}, the last freed last. */
  readonly #free: number[] = [];
  /** Walks of {@link CallMap.values} under way: meanwhile a new key always comes last, in the rest. */
  #walks = 0;

  /** Entries held (a field, not a getter: read on every call). Set only by the methods below. */
  size = 0;

  get(key: string): V | undefined {
    if (this.#firstKey === key) return this.#firstValue;
    if (this.#rest.size === 0) return undefined;
    const place = this.#rest.get(key);
    return place === undefined ? undefined : this.#values[place];
  }

  has(key: string): boolean {
    return this.#firstKey === key || (this.#rest.size > 0 && this.#rest.has(key));
  }

  /** Sets the value of `key`; a new key comes last, as in a `Map`, and a key already there keeps its place. */
  set(key: string, value: V): this {
    this.put(key, value);
    return this;
  }

  /** Sets `key` to `value`, and returns the value it replaced, if any. */
  put(key: string, value: V): V | undefined {
    if (this.#firstKey === key) {
      const before = this.#firstValue;
      this.#firstValue = value;
      return before;
    }
    const place = this.#rest.size === 0 ? undefined : this.#rest.get(key);
    if (place !== undefined) {
      const before = this.#values[place];
      this.#values[place] = value;
      return before;
    }
    this.add(key, value);
    return undefined;
  }

  /**
   * Adds `key`, which is not held (its caller has just asked, and nothing came between), with `value`: as
   * {@link CallMap.put} without looking for it first (each call's arrival does; the lookup is most of a `put`).
   * Returns where it was put, for {@link CallMap.take}: -1 for the first place, else its place.
   */
  add(key: string, value: V): number {
    this.size += 1;
    // The first place holds the oldest entry: a new key takes it only when there is no other entry (and no walk
    // is under way, which has read the first place already and visits new keys in the rest).
    if (this.size === 1 && this.#walks === 0) {
      this.#firstKey = key;
      this.#firstValue = value;
      return -1;
    }
    const place = this.#free.pop() ?? this.#values.length;
    this.#rest.set(key, place);
    this.#values[place] = value;
    return place;
  }

  delete(key: string): boolean {
    return this.take(key) !== undefined;
  }

  /**
   * Removes `key`, and returns its value, if it had one: one lookup where `get` then `delete` take two. `at`: where
   * {@link CallMap.add} put it (what it returned), if known, with `value`, the value it was given there: the place is
   * trusted when it still holds that value (a value held under one key only, as a call under its id), and the `Map`
   * only deletes the key. A place that no longer holds it (taken, and given to another key) is not trusted.
   */
  take(key: string, at = -1, value?: V): V | undefined {
    let taken: V | undefined;
    if (this.#firstKey === key) {
      taken = this.#firstValue;
      this.#firstKey = NONE;
      this.#firstValue = undefined;
    } else {
      const rest = this.#rest;
      let place: number | undefined = at;
      if (at < 0 || value === undefined || this.#values[at] !== value) {
        place = rest.size === 0 ? undefined : rest.get(key);
        if (place === undefined) return undefined;
      }
      taken = this.#values[place];
      rest.delete(key);
      if (rest.size === 0) {
        // Nothing after the first place: the places start again, so that the array is as long as the most
        // entries held at once since the rest was last empty, not ever. Emptied, not replaced: a new `[]` is an
        // array of small integers until its first value (V8 does not always learn otherwise for the `[]` here), and
        // V8's optimised `put`, its `push` inlined for such an array, threw its code away at that first value (`not
        // a Smi`), and the code of the calls that inline it (receive a call, hold a result): compiled again after
        // a pause in calls had emptied the map, tens of thousands of calls into a run. An array emptied keeps the
        // kind of elements its values gave it.
        this.#values.length = 0;
        this.#free.length = 0;
      } else {
        this.#values[place] = undefined;
        this.#free.push(place);
      }
    }
    this.size -= 1;
    return taken;
  }

  /** The key that came first of those held, if any. */
  oldestKey(): string | undefined {
    if (this.#firstKey !== NONE) return this.#firstKey;
    for (const key of this.#rest.keys()) return key;
    return undefined;
  }

  /** The keys in the order they came, live as a `Map`'s (see {@link CallMap.values}). */
  *keys(): Generator<string, void, undefined> {
    this.#walks += 1;
    try {
      if (this.#firstKey !== NONE) yield this.#firstKey;
      yield* this.#rest.keys();
    } finally {
      this.#walks -= 1;
    }
  }

  /**
   * The values in the order their keys came, live as a `Map`'s: an entry deleted before it is reached is not
   * visited, one set meanwhile is (last).
   */
  *values(): Generator<V, void, undefined> {
    this.#walks += 1;
    try {
      if (this.#firstKey !== NONE) yield this.#firstValue as V;
      // A place is read when its key is reached: a value set again meanwhile is the new one.
      for (const place of this.#rest.values()) yield this.#values[place] as V;
    } finally {
      this.#walks -= 1;
    }
  }
}
