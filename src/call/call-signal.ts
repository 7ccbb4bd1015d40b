/**
 * `ctx.signal`, made when a tool first reads it. Most tools never do, and in Node an `AbortController` (an
 * `EventTarget` with its own listener map) costs microseconds and hundreds of bytes per call; an abort that
 * comes first is remembered and shows on the signal when it is made.
 *
 * @module
 */
import { AbortError } from '../errors';

/**
 * The part of `AbortSignal` toolwire's steps listen to: `AbortSignal` itself (a caller's `options.signal`) or a
 * {@link Cancellation}.
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

/**
 * A listener, as `EventTarget` takes them: a function, or an object whose `handleEvent()` is called (a wait that
 * already keeps an object listens with it rather than with one more closure per call: src/call/settle.ts).
 */
export type AbortListener = (() => void) | { handleEvent(): void };

/** Calls `listener` as `EventTarget` would (without an event: toolwire's listeners take none). */
export function callListener(listener: AbortListener): void {
  if (typeof listener === 'function') listener();
  else listener.handleEvent();
}

/** The `#reason` of a cancellation or call not aborted (an abort's reason may be anything, `undefined` included). */
const NOT_ABORTED: unique symbol = Symbol('not aborted');

/**
 * A cancellation without an `EventTarget`: what the client keeps per call instead of an `AbortController`
 * (which costs microseconds and hundreds of bytes in Node, for calls that are almost never cancelled).
 * Listeners run synchronously, in the order they were added, once.
 */
export class Cancellation implements AbortLike {
  /** The abort's reason, or {@link NOT_ABORTED}: one field for both (a held call keeps one field less). */
  #reason: unknown = NOT_ABORTED;
  /** One listener (the usual case: the step waiting on the tool) or several. */
  #listeners: AbortListener | AbortListener[] | undefined;

  get aborted(): boolean {
    return this.#reason !== NOT_ABORTED;
  }

  get reason(): unknown {
    return this.#reason === NOT_ABORTED ? undefined : this.#reason;
  }

  /** Cancels with `reason` (the first cancel wins) and calls the listeners. A listener that throws is skipped. */
  abort(reason: unknown): void {
    if (this.#reason !== NOT_ABORTED) return;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of Array.isArray(listeners) ? listeners : [listeners]) {
      try {
        callListener(listener);
      } catch {
        // As an EventTarget does: one listener's failure does not stop the others.
      }
    }
  }

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#reason !== NOT_ABORTED) return;
    const listeners = this.#listeners;
    if (listeners === undefined) this.#listeners = listener;
    else if (Array.isArray(listeners)) listeners.push(listener);
    else this.#listeners = [listeners, listener];
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    const listeners = this.#listeners;
    if (listeners === listener) this.#listeners = undefined;
    else if (Array.isArray(listeners)) {
      const index = listeners.indexOf(listener);
      if (index !== -1) listeners.splice(index, 1);
    }
  }
}

/**
 * The abort state of one call, and its `ctx.signal` on demand. It listens to the caller's cancellation itself
 * (`handleEvent`, as `EventTarget` calls it): a held call keeps no closure for it.
 */
export class CallSignal {
  #controller: AbortController | undefined;
  /** The abort's reason, or {@link NOT_ABORTED}: one field for both. */
  #reason: unknown = NOT_ABORTED;
  /** The caller's cancellation, forwarded while the call runs (see {@link CallSignal.end}). */
  #outer: AbortLike | undefined;
  readonly #toolName: string;

  /**
   * @param outer - the caller's signal (or the client's {@link Cancellation}): its abort aborts this one while
   *   the call runs, with its reason, or an `AbortError` naming the tool when it gave none.
   * @param toolName - names the tool in that `AbortError`.
   */
  constructor(outer: AbortLike | undefined, toolName: string) {
    this.#outer = outer;
    this.#toolName = toolName;
  }

  // Static: a private instance method would give every call a field of its own (V8's brand).
  static #outerReason(signal: CallSignal): unknown {
    return signal.#outer?.reason ?? new AbortError('cancelled', `${signal.#toolName} was cancelled`);
  }

  /** The signal, made on first read; already aborted if the call was. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#reason === NOT_ABORTED && this.#outer?.aborted) this.abort(CallSignal.#outerReason(this));
      if (this.#reason !== NOT_ABORTED) controller.abort(this.#reason);
      else this.#outer?.addEventListener('abort', this, { once: true });
    }
    return this.#controller.signal;
  }

  /** The caller's cancellation aborted (this listens to it once `signal` is read). */
  handleEvent(): void {
    this.abort(CallSignal.#outerReason(this));
  }

  /** Aborts with `reason` (the first abort wins). */
  abort(reason: unknown): void {
    if (this.#reason !== NOT_ABORTED) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** The call is over: an abort of the caller's signal until now counts, later ones no longer do. */
  end(): void {
    const outer = this.#outer;
    if (outer === undefined) return;
    if (outer.aborted) this.abort(CallSignal.#outerReason(this));
    this.#outer = undefined;
    if (this.#controller !== undefined) outer.removeEventListener('abort', this);
  }
}

/**
 * A cancellation's `signal.reason` as the platform makes them: a `DOMException` named `AbortError` (as
 * `AbortSignal.abort()` gives) or `TimeoutError` (as `AbortSignal.timeout()` gives), with what caused it in
 * `cause` (e.g. the service's `cancel` reason, `'deadline'`).
 */
export function abortReason(
  message: string,
  name: 'AbortError' | 'TimeoutError',
  cause: unknown,
): DOMException {
  const reason = new DOMException(message, name);
  // Set by hand: not every runtime's DOMException takes `{ cause }`.
  Object.defineProperty(reason, 'cause', { value: cause, writable: true, configurable: true });
  return reason;
}
