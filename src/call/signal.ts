/**
 * A call's cancellation and time: how it stops, and how each of its phases waits.
 *
 * - `Cancellation`: a cancellation without an `EventTarget`: every call is one (src/call/pipeline.ts `CallRun`);
 * - `CallSignal`: the abort state of one call, and its `ctx.signal`, made when a tool first reads it (most tools
 *   never do, and in Node an `AbortController` costs microseconds and hundreds of bytes per call; an abort that
 *   comes first is remembered and shows on the signal when it is made);
 * - `abortReason`: the reasons a client's cancellation gives, as the platform makes them;
 * - `sharedAbort`: one listener on a caller's `AbortSignal`, however many calls share it;
 * - `settleThen`: a callback that may be slow, async, throw or never finish, settled by its result, an abort or a
 *   time limit, whichever comes first;
 * - `timed`: a phase of a call under what is left of its time budget.
 *
 * @module
 */
import { AbortError, TimeoutError } from '../errors';
import { isThenable } from '../maybe';
import { inStage } from '../tool/model-text';
import { ERROR_FUNCTION_TIMEOUT_MS } from '../tool/tool';
import type { AbortLike, AbortListener, CallState, Settled } from './types';

/** Calls `listener` as `EventTarget` would (without an event: toolwire's listeners take none). */
export function callListener(listener: AbortListener): void {
  if (typeof listener === 'function') listener();
  else listener.handleEvent();
}

/** The `abortedWith` of a cancellation or call not aborted (an abort's reason may be anything, `undefined` included). */
const NOT_ABORTED: unique symbol = Symbol('not aborted');

/**
 * A cancellation without an `EventTarget`: what the client keeps per call instead of an `AbortController`
 * (which costs microseconds and hundreds of bytes in Node, for calls that are almost never cancelled).
 * Listeners run synchronously, in the order they were added, once.
 */
export class Cancellation implements AbortLike {
  // Fields are declared only and set in the constructor (TypeScript's `private`, not `#`): every call is a class
  // built on this one, and on V8 (Node 20, 22 and 24 alike) a `super()` into a class that declares fields is not inlined, which
  // costs each call ~230 instructions per class of its chain that does (see src/call/pipeline.ts `CallRun`).
  /** The abort's reason, or {@link NOT_ABORTED}: one field for both (a held call keeps one field less). */
  declare private abortedWith: unknown;
  /** One listener (the usual case: the step waiting on the tool) or several. */
  declare private listeners: AbortListener | AbortListener[] | undefined;

  constructor() {
    this.abortedWith = NOT_ABORTED;
    this.listeners = undefined;
  }

  get aborted(): boolean {
    return this.abortedWith !== NOT_ABORTED;
  }

  get reason(): unknown {
    return this.abortedWith === NOT_ABORTED ? undefined : this.abortedWith;
  }

  /** Cancels with `reason` (the first cancel wins) and calls the listeners. A listener that throws is skipped. */
  abort(reason: unknown): void {
    if (this.abortedWith !== NOT_ABORTED) return;
    this.abortedWith = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of Array.isArray(listeners) ? listeners : [listeners]) {
      try {
        callListener(listener);
      } catch {
        // As an EventTarget does: one listener's failure does not stop the others.
      }
    }
  }

  /** Adds `listener`, once: adding one already there does nothing (as `EventTarget` does). */
  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.abortedWith !== NOT_ABORTED) return;
    const listeners = this.listeners;
    if (listeners === undefined) this.listeners = listener;
    else if (Array.isArray(listeners)) {
      if (!listeners.includes(listener)) listeners.push(listener);
    } else if (listeners !== listener) this.listeners = [listeners, listener];
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    const listeners = this.listeners;
    if (listeners === listener) this.listeners = undefined;
    else if (Array.isArray(listeners)) {
      const index = listeners.indexOf(listener);
      if (index !== -1) listeners.splice(index, 1);
    }
  }
}

/** An abort that came before `ctx.signal` was first read: its reason, until the signal is made (few calls). */
class EarlyAbort {
  constructor(readonly reason: unknown) {}
}

/**
 * The abort state of a `ctx.signal`, and the signal on demand. It listens to the caller's cancellation itself
 * (`handleEvent`, as `EventTarget` calls it): no closure for it. The name its `AbortError` gives comes from the
 * subclass ({@link CallSignal}). A call (`CallRun`, src/call/pipeline.ts) makes one only when its `ctx.signal` is
 * read or aborts first: a call held in flight keeps none.
 */
export abstract class CallAbortState {
  /** The signal's controller once read, or the abort that came first, or neither (not aborted, never read). */
  #state: AbortController | EarlyAbort | undefined;
  /** The caller's cancellation, forwarded while the call runs (see {@link CallAbortState.end}). */
  #outer: AbortLike | undefined;

  /**
   * @param outer - the caller's signal (or the client's {@link Cancellation}): its abort aborts this one while
   *   the call runs, with its reason, or an `AbortError` naming the tool when it gave none.
   */
  constructor(outer: AbortLike | undefined) {
    this.#outer = outer;
  }

  /** The name of the tool, for the `AbortError` of a caller's abort that gave no reason. */
  protected abstract cancelledToolName(): string;

  // Static: a private instance method would give every call a field of its own (V8's brand).
  static #outerReason(signal: CallAbortState): unknown {
    return (
      signal.#outer?.reason ?? new AbortError('cancelled', `${signal.cancelledToolName()} was cancelled`)
    );
  }

  /** The signal, made on first read; already aborted if the call was. */
  get signal(): AbortSignal {
    const state = this.#state;
    if (state instanceof AbortController) return state.signal;
    const controller = new AbortController();
    this.#state = controller;
    if (state !== undefined) controller.abort(state.reason);
    else if (this.#outer?.aborted) this.abort(CallAbortState.#outerReason(this));
    else this.#outer?.addEventListener('abort', this, { once: true });
    return controller.signal;
  }

  /** Whether `signal` was read (made). */
  get read(): boolean {
    return this.#state instanceof AbortController;
  }

  /**
   * Follows `outer` from now on, as if new, when `signal` was never read: an abort before now, which nobody saw,
   * is forgotten. For an approval request whose call the service took back and sent again: the answer to it is
   * wanted again (src/client/approvals.ts). A signal read keeps its state.
   */
  renew(outer: AbortLike | undefined): void {
    if (this.read) return;
    this.#state = undefined;
    this.#outer = outer;
  }

  /** The caller's cancellation aborted (this listens to it once `signal` is read). */
  handleEvent(): void {
    this.abort(CallAbortState.#outerReason(this));
  }

  /** Aborts with `reason` (the first abort wins). */
  abort(reason: unknown): void {
    const state = this.#state;
    if (state === undefined) this.#state = new EarlyAbort(reason);
    else if (state instanceof AbortController && !state.signal.aborted) state.abort(reason);
  }

  /** The call is over: an abort of the caller's signal until now counts, later ones no longer do. */
  end(): void {
    const outer = this.#outer;
    if (outer === undefined) return;
    if (outer.aborted) this.abort(CallAbortState.#outerReason(this));
    this.#outer = undefined;
    if (this.#state instanceof AbortController) outer.removeEventListener('abort', this);
  }
}

/**
 * {@link CallAbortState} of a tool named at its making: an attempt's `ctx.signal`, an approval request's `signal`
 * (src/call/approval.ts), and a bare signal in tests.
 */
export class CallSignal extends CallAbortState {
  readonly #toolName: string;

  /**
   * @param outer - see {@link CallAbortState}.
   * @param toolName - names the tool in the `AbortError` of a caller's abort that gave no reason.
   */
  constructor(outer: AbortLike | undefined, toolName: string) {
    super(outer);
    this.#toolName = toolName;
  }

  protected cancelledToolName(): string {
    return this.#toolName;
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

/*
 * One listener on a caller's `AbortSignal`, however many calls share it. A request's or a process's signal is
 * often passed to every `invokeTool` call; with a listener per waiting call, Node warns past 10
 * (`MaxListenersExceededWarning`) and every abort walks them all in the signal's own list.
 */
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

/*
 * Runs a callback that may be slow, async, throw, or never finish, and settles on whichever comes first: its
 * result, an abort, or a time limit. A result (or rejection) arriving after that is dropped, and a late
 * rejection is handled so it never becomes an unhandled rejection.
 */
export type { Settled } from './types';

/** Options of {@link settleThen}. */
export interface SettleOptions {
  /** Ends the wait with `aborted` (immediately when already aborted: the callback is not called). */
  signal?: AbortLike | undefined;
  /** Ends the wait with `timeout` after this many milliseconds. @default none */
  timeoutMs?: number | undefined;
  /** Called once, synchronously, when the time limit passes, before the outcome is given. */
  onTimeout?: () => void;
}

/** The outcome of a wait its signal ended. */
export const ABORTED = { kind: 'aborted' } as const;

/** Who is told when `done` throws after an asynchronous answer (the call). */
export interface SettleOwner {
  fail(error: unknown): void;
  /** The promise of a phase is pending (a call keeps its slot while its tool runs: src/call/pipeline.ts). */
  opened?(): void;
  /** That promise settled, whether or not the wait was over already (aborted, timed out). */
  returned?(): void;
}

/**
 * Calls `fn` and tells `done` how it ended, exactly once: synchronously when `fn` returns a plain value or throws
 * (no promise, no timer, no listener), else when its promise settles, the signal aborts or the time limit
 * passes, whichever comes first. A synchronous throw is an `error` outcome. It keeps one reaction on `fn`'s
 * promise rather than a chain of promises (a call's own phases wait in the call: `settleNow`). When `done` throws after an
 * asynchronous answer (where nobody could catch it), the error goes to `owner.fail`; without an owner, `done`
 * must not throw. `done` gets `owner` back as its second argument, so that it can be a function made once
 * rather than a closure per call (a held call then keeps no scope of the step that started the wait).
 */
export function settleThen<T>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions,
  done: (outcome: Settled<Awaited<T>>) => void,
): void;
export function settleThen<T, O extends SettleOwner>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions,
  done: (outcome: Settled<Awaited<T>>, owner: O) => void,
  owner: O,
): void;
export function settleThen<T>(
  fn: () => T | PromiseLike<T>,
  options: SettleOptions,
  done: (outcome: Settled<Awaited<T>>, owner: SettleOwner | undefined) => void,
  owner?: SettleOwner,
): void {
  const { signal, timeoutMs, onTimeout } = options;
  const pending = settleNow(fn, signal, done, owner);
  if (pending === undefined) return;
  const wait = new Wait(done as Done, signal, owner);
  owner?.opened?.();
  signal?.addEventListener('abort', wait, { once: true });
  if (timeoutMs !== undefined) wait.limit(timeoutMs, onTimeout);
  relayTo(pending, wait);
}

/**
 * What {@link settleThen} does before it waits: calls `fn` and tells `done` at once when it is over already (`fn`
 * returned a plain value or threw, or `signal` aborted), else returns the promise to wait for. For a waiter that
 * is not a {@link Wait} (a call waits on its phases itself: `CallRun.settle`, src/call/pipeline.ts).
 */
export function settleNow<T, O, A = undefined>(
  fn: (owner: O, arg: A) => T | PromiseLike<T>,
  signal: AbortLike | undefined,
  done: (outcome: Settled<Awaited<T>>, owner: O) => void,
  owner: O,
  arg?: A,
): PromiseLike<T> | undefined {
  if (signal?.aborted) {
    done(ABORTED, owner);
    return undefined;
  }
  let pending: PromiseLike<T> | T;
  try {
    pending = fn(owner, arg as A);
  } catch (error) {
    done(signal?.aborted ? ABORTED : { kind: 'error', error }, owner);
    return undefined;
  }
  // A synchronous result needs no listener and no timer (the common case: a validator or a plain function):
  // nothing else can run before it, so only an abort made by `fn` itself can come first.
  let thenable: boolean;
  try {
    thenable = isThenable(pending);
  } catch (error) {
    done({ kind: 'error', error }, owner); // a `then` getter that throws, as Promise.resolve says
    return undefined;
  }
  if (!thenable) {
    done(signal?.aborted ? ABORTED : { kind: 'value', value: pending as Awaited<T> }, owner);
    return undefined;
  }
  if (signal?.aborted) {
    // Aborted while `fn` ran: its promise is not waited for, but a rejection of it must not go unhandled.
    Promise.resolve(pending).then(undefined, () => {});
    done(ABORTED, owner);
    return undefined;
  }
  return pending as PromiseLike<T>;
}

type Done = (outcome: Settled<unknown>, owner: SettleOwner | undefined) => void;

/** The time limit of a {@link Wait}. */
interface TimeLimit {
  timer: ReturnType<typeof setTimeout>;
  onTimeout: (() => void) | undefined;
  /** The time limit passed: an abort that `onTimeout` itself causes does not make the outcome `aborted`. */
  expired: boolean;
}

/** The time limit of a {@link Wait} passed (one function for every timer: no closure per wait). */
function expire(wait: Wait): void {
  wait.expire();
}

/**
 * One asynchronous wait of {@link settleThen}: its state in one object, which is also its abort listener (an
 * `EventTarget` calls `handleEvent`), so that a wait keeps this and the two reactions on the promise, and
 * nothing of the scopes that started it. Once over, it drops what it points to: a promise that
 * never settles, kept forever by its maker (a local `onQuestion` whose UI never answers), then keeps only this
 * small object, not the abandoned call.
 */
class Wait {
  #done: Done | undefined;
  #signal: AbortLike | undefined;
  #owner: SettleOwner | undefined;
  /**
   * The owner to tell when the promise settles ({@link SettleOwner.returned}), kept after the wait is over: a
   * call that ended while its tool ran is told when the tool returns.
   */
  #returnTo: SettleOwner | undefined;
  /** Its time limit, when it has one (a wait without keeps no field for its timer). */
  #limit: TimeLimit | undefined;

  constructor(done: Done, signal: AbortLike | undefined, owner: SettleOwner | undefined) {
    this.#done = done;
    this.#signal = signal;
    this.#owner = owner;
    this.#returnTo = owner?.returned === undefined ? undefined : owner;
  }

  /** Ends the wait with `timeout` after `timeoutMs`, `onTimeout` called first. */
  limit(timeoutMs: number, onTimeout: (() => void) | undefined): void {
    this.#limit = { timer: setTimeout(expire, timeoutMs, this), onTimeout, expired: false };
  }

  /** The signal aborted. */
  handleEvent(): void {
    if (this.#limit?.expired !== true) this.finish(ABORTED);
  }

  /** The time limit passed. */
  expire(): void {
    const limit = this.#limit;
    if (this.#done === undefined || limit === undefined) return;
    limit.expired = true;
    limit.onTimeout?.();
    this.finish({ kind: 'timeout' });
  }

  /** The promise waited for fulfilled (a reaction on it: see {@link relayTo}). */
  fulfilled(value: unknown): void {
    Wait.#returned(this);
    this.finish({ kind: 'value', value });
  }

  /** The promise waited for rejected (a reaction on it: see {@link relayTo}). */
  rejected(error: unknown): void {
    Wait.#returned(this);
    this.finish({ kind: 'error', error });
  }

  // Static: a private instance method would give every wait a field of its own (V8's brand).
  static #returned(wait: Wait): void {
    const owner = wait.#returnTo;
    wait.#returnTo = undefined;
    owner?.returned?.();
  }

  /** Ends the wait with `outcome`, unless it is over already. */
  finish(outcome: Settled<unknown>): void {
    const done = this.#done;
    if (done === undefined) return;
    const owner = this.#owner;
    const signal = this.#signal;
    this.#done = undefined;
    this.#owner = undefined;
    this.#signal = undefined;
    if (this.#limit !== undefined) clearTimeout(this.#limit.timer);
    this.#limit = undefined;
    signal?.removeEventListener('abort', this);
    if (owner === undefined) done(outcome, owner);
    else
      try {
        done(outcome, owner);
      } catch (error) {
        owner.fail(error);
      }
  }
}

/**
 * Hands the outcome of `pending` to `wait`: its two reactions are the wait's methods bound to it (48 bytes each
 * in V8, where two closures cost 56 each and their shared scope 40 more), and hold only the wait, which lets go
 * of the call once it is over. Methods, not functions: a bound function stays this small only while its target
 * keeps V8's own `name` and `length`, and a build that keeps names (esbuild's `keepNames`, as tsx and vitest
 * use) redefines the `name` of functions, never of class methods.
 */
function relayTo<T>(pending: PromiseLike<T>, wait: Wait): void {
  Promise.resolve(pending).then(wait.fulfilled.bind(wait), wait.rejected.bind(wait));
}

/*
 * Runs a phase of a call under what is left of its time budget and its signal, and spends the time it took.
 */
/** `errorFunction`'s own time limit: `timeoutMs` when the call has one, at most 5,000 ms. */
export function errorFunctionTimeoutMs(timeoutMs: number | undefined): number {
  return Math.min(timeoutMs ?? ERROR_FUNCTION_TIMEOUT_MS, ERROR_FUNCTION_TIMEOUT_MS);
}

/** `<name> timed out after <n>ms`, and ` in <stage>` when a policy or the `needsApproval` check hung. */
export function timeoutError(toolName: string, timeoutMs: number, stage: string | undefined): TimeoutError {
  return new TimeoutError('timeout', `${toolName} timed out after ${timeoutMs}ms${inStage(stage)}`);
}

/**
 * Runs one phase of the tool's own work under what is left of the budget, spends the time it took, and goes on
 * with how it ended (at once when the phase answers synchronously; see {@link settleThen}). `fn` gets `call` and
 * `arg`, and `next` gets `call` back, so that both can be functions made once: a call without a time limit makes
 * no closure for its phases, and a held call keeps none.
 */
export function timed<T, A = undefined>(
  call: CallState,
  fn: (call: CallState, arg: A) => T | PromiseLike<T>,
  next: (outcome: Settled<Awaited<T>>, call: CallState) => void,
  arg?: A,
): void {
  const budget = call.remainingMs;
  // The call waits itself: a synchronous throw of `next` reaches the caller's guard, a later one `call.fail()`.
  // Small, so that V8 inlines it where a phase starts, and `fn` and `next` are known there (no generic call).
  if (budget === undefined) call.settle(fn, next, arg);
  else timedWithin(call, budget, fn, next, arg);
}

/** {@link timed} for a call with a time limit: `budget` milliseconds left of it. */
function timedWithin<T, A>(
  call: CallState,
  budget: number,
  fn: (call: CallState, arg: A) => T | PromiseLike<T>,
  next: (outcome: Settled<Awaited<T>>, call: CallState) => void,
  arg: A | undefined,
): void {
  const started = performance.now();
  const options = {
    signal: call.options.signal,
    timeoutMs: budget,
    onTimeout: () => call.abortWithTimeout(),
  };
  const spend = (settled: Settled<Awaited<T>>) => {
    call.remainingMs = Math.max(0, budget - (performance.now() - started));
    next(settled, call);
  };
  settleThen(() => fn(call, arg as A), options, spend, call);
}
