/**
 * One listener on a caller's `AbortSignal`, however many calls share it. A request's or a process's signal is
 * often passed to every `invokeTool` call; with a listener per waiting call, Node warns past 10
 * (`MaxListenersExceededWarning`) and every abort walks them all in the signal's own list.
 *
 * @module
 */
import { type AbortLike, type AbortListener, callListener } from './call-signal';

/** The calls waiting on one signal; it listens to the signal only while one does. */
class SharedAbort implements AbortLike {
  readonly #signal: AbortSignal;
  readonly #listeners = new Set<AbortListener>();
  readonly #onAbort = (): void => {
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) {
      try {
        callListener(listener);
      } catch {
        // As an EventTarget does: one listener's failure does not stop the others.
      }
    }
  };

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  get aborted(): boolean {
    return this.#signal.aborted;
  }

  get reason(): unknown {
    return this.#signal.reason;
  }

  /** Listens once; a signal already aborted never calls it (as `AbortSignal` does not). */
  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#signal.aborted || this.#listeners.has(listener)) return;
    if (this.#listeners.size === 0) this.#signal.addEventListener('abort', this.#onAbort, { once: true });
    this.#listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#listeners.delete(listener) && this.#listeners.size === 0) {
      this.#signal.removeEventListener('abort', this.#onAbort);
    }
  }
}

const SHARED = new WeakMap<object, SharedAbort>();

/**
 * The one {@link AbortLike} every call given `signal` listens to: it adds a single listener to `signal` while
 * any call waits, and removes it when the last one stops waiting.
 */
export function sharedAbort(signal: AbortSignal): AbortLike {
  let shared = SHARED.get(signal);
  if (shared === undefined) {
    shared = new SharedAbort(signal);
    SHARED.set(signal, shared);
  }
  return shared;
}
