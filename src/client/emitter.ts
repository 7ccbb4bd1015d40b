/**
 * `Emitter`: the typed event emitter a `Client` extends. Its methods and their behaviour are eventemitter3's (the
 * same names, arguments and semantics; test/client/emitter.test.ts compares the two), in a fraction of its size:
 *
 * - a listener runs with `this` set to the `context` it was added with, else the emitter;
 * - `emit` calls the listeners present when it starts, in the order they were added, and returns whether there
 *   were any; an `error` with no listener is not thrown (unlike Node's `EventEmitter`);
 * - `removeListener(event, fn?, context?, once?)` removes every listener of `event` matching what is given (all
 *   of them when `fn` is absent or falsy, `null` included);
 * - event names are property keys (a number is its string), and `eventNames()` lists them in an object's key
 *   order: integer-like names ascending, then the other strings as added, then the Symbols as added.
 *
 * @module
 */

/** The listener of event `K` of the event map `E`. */
export type EventListener<E, K extends keyof E> = E[K] extends unknown[] ? (...args: E[K]) => void : never;

interface Entry {
  /** The listener as given (called through {@link Emitter.emit} with its event's arguments). */
  fn: unknown;
  context: unknown;
  once: boolean;
}

/** A typed event emitter: `E` maps each event name to the arguments its listeners get. */
export class Emitter<E extends { [K in keyof E]: unknown[] }> {
  // A new array on every change: an `emit` under way keeps the listeners it started with. An object without a
  // prototype, as eventemitter3's: its key order is the order `eventNames()` gives, `__proto__` is a plain key.
  #events: Record<PropertyKey, readonly Entry[] | undefined> = Object.create(null);

  #add<K extends keyof E>(event: K, fn: EventListener<E, K>, context: unknown, once: boolean): this {
    if (typeof fn !== 'function') throw new TypeError('The listener must be a function');
    this.#events[event] = [...(this.#events[event] ?? []), { fn, context: context || this, once }];
    return this;
  }

  /** The events that have listeners: string names (integer-like ones first, ascending), then Symbols. */
  eventNames(): Array<keyof E> {
    const events = this.#events;
    return [...Object.keys(events), ...Object.getOwnPropertySymbols(events)] as Array<keyof E>;
  }

  /** The listeners of `event`, in the order they run. */
  listeners<K extends keyof E>(event: K): Array<EventListener<E, K>> {
    return (this.#events[event] ?? []).map((entry) => entry.fn as EventListener<E, K>);
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof E): number {
    return this.#events[event]?.length ?? 0;
  }

  /** Calls each listener of `event` with `args`; `true` when it had any. A listener's throw propagates. */
  emit<K extends keyof E>(event: K, ...args: E[K]): boolean {
    const entries = this.#events[event];
    if (entries === undefined) return false;
    for (const entry of entries) {
      if (entry.once) this.removeListener(event, entry.fn as EventListener<E, K>, undefined, true);
      (entry.fn as (...given: unknown[]) => void).apply(entry.context, args);
    }
    return true;
  }

  /** Adds a listener of `event`, run with `this` set to `context` (else the emitter). */
  on<K extends keyof E>(event: K, fn: EventListener<E, K>, context?: unknown): this {
    return this.#add(event, fn, context, false);
  }

  /** {@link Emitter.on}. */
  addListener<K extends keyof E>(event: K, fn: EventListener<E, K>, context?: unknown): this {
    return this.#add(event, fn, context, false);
  }

  /** Adds a listener of `event` removed before it first runs. */
  once<K extends keyof E>(event: K, fn: EventListener<E, K>, context?: unknown): this {
    return this.#add(event, fn, context, true);
  }

  /**
   * Removes the listeners of `event`: all of them without `fn` (or with a falsy one: `off(event, null)`), else
   * those of `fn`, and of `context` and only the `once` ones when given.
   */
  removeListener<K extends keyof E>(
    event: K,
    fn?: EventListener<E, K>,
    context?: unknown,
    once?: boolean,
  ): this {
    const entries = this.#events[event];
    if (entries === undefined) return this;
    const kept = !fn
      ? []
      : entries.filter(
          (entry) => entry.fn !== fn || (!!once && !entry.once) || (!!context && entry.context !== context),
        );
    if (kept.length === 0) delete this.#events[event];
    else if (kept.length !== entries.length) this.#events[event] = kept;
    return this;
  }

  /** {@link Emitter.removeListener}. */
  off<K extends keyof E>(event: K, fn?: EventListener<E, K>, context?: unknown, once?: boolean): this {
    return this.removeListener(event, fn, context, once);
  }

  /** Removes every listener, or those of `event` (every listener, as eventemitter3, when `event` is falsy). */
  removeAllListeners(event?: keyof E): this {
    if (!event) this.#events = Object.create(null);
    else delete this.#events[event];
    return this;
  }
}
