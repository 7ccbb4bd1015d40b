/**
 * `Deadlines`: a call whose `deadlineMs` (plus {@link DEADLINE_GRACE_MS}) has passed is cancelled here, in case
 * the service's own `cancel` was lost with a socket. While the socket is down no `cancel` can come, so there is no
 * grace: a call stops at its deadline. Nor is there for a call whose tool has not begun: a service that counts it
 * as running (sent into what it took for a free slot, or queued behind a call whose result came while its tool
 * ran on, holding the slot) may have leased it, and then sends no `cancel` (docs/protocol/deadlines.md). One
 * timer serves every call.
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../limits';
import type { Execution } from './execution';

/** Extra time after `deadlineMs` before a call whose tool began aborts itself while connected, in milliseconds. */
export const DEADLINE_GRACE_MS = 1_000;

/** Dependencies of {@link Deadlines}. */
export interface DeadlinesOptions {
  /** Every call held now (queued, running or parked): the ones the sweep looks at. */
  held(): Iterable<Execution>;
  /** Cancels a call past its deadline (and says so in the log). */
  expire(execution: Execution): void;
  /**
   * `true` for a call the service keeps alive past its deadline while this client is connected (a started call,
   * with the feature `lease`, docs/protocol/lease.md): it gets no deadline here (see {@link Deadlines.arm}).
   */
  leased?(execution: Execution): boolean;
  /**
   * `true` for a call that may leave the lease before its tool begins (a call of a tool with `concurrency`, which
   * waits at its gate for its key's turn): its deadline is kept aside while the lease holds it, for
   * {@link Deadlines.resume}. Absent: no call does.
   */
  mayWait?(execution: Execution): boolean;
}

/**
 * When a call given `deadlineMs` now aborts itself (`performance.now()` time). The grace lets the service's own
 * cancel (and timeout result) come first whenever it can. The service's number may be huge: past the longest
 * timer, it is as good as none. Whole milliseconds: a small integer is stored in the call itself, a fraction in a
 * heap number of its own.
 */
function dueAt(deadlineMs: number, now = performance.now()): number {
  return Math.ceil(now + Math.min(deadlineMs + DEADLINE_GRACE_MS, MAX_TIMEOUT_MS));
}

export class Deadlines {
  readonly #options: DeadlinesOptions;
  /** The one timer for every call's deadline, and when it fires (`performance.now()` time). */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at = Number.POSITIVE_INFINITY;
  /** The socket is down: deadlines are due without the grace. */
  #down = false;
  /**
   * Calls with a question open on the service (docs/protocol/questions.md): the service does not cut them at their
   * deadline, so neither does this side. Weak: a call that ends with a question open leaves nothing behind.
   */
  readonly #asking = new WeakSet<Execution>();
  /**
   * The deadline (as `deadlineAt`) of each call the lease holds that may leave it before its tool begins
   * ({@link DeadlinesOptions.mayWait}): only calls of tools with `concurrency` have an entry.
   */
  readonly #aside = new WeakMap<Execution, number>();

  constructor(options: DeadlinesOptions) {
    this.#options = options;
  }

  /**
   * Sets (or, with `undefined`, clears) when a call aborts itself: `deadlineMs` plus {@link DEADLINE_GRACE_MS}
   * from now. The timer is set for the earliest deadline (a timer per call would cost a `Timeout` object and two
   * timer-list operations per call); calls that end first just leave it nothing to do. A leased call gets none
   * unless `force` (the socket is down: it stops once the service would re-dispatch it). A service's `deadlineMs`
   * is kept with the call (its question restarts it in full, {@link Deadlines.asking}); a call with a question open
   * gets no deadline until the last one closes.
   */
  arm(execution: Execution, deadlineMs: number | undefined, force = false): void {
    if (deadlineMs !== undefined && !force) {
      execution.deadlineMs = deadlineMs;
      if (this.#options.leased?.(execution) === true) {
        if (this.#options.mayWait?.(execution) === true) this.#aside.set(execution, dueAt(deadlineMs));
        deadlineMs = undefined;
      } else if (this.#asking.has(execution)) deadlineMs = undefined;
    }
    if (deadlineMs === undefined) {
      execution.deadlineAt = undefined;
      return;
    }
    this.#set(execution, dueAt(deadlineMs));
  }

  /**
   * A new call, arrived at `now` (`performance.now()`, as its caller read it): its deadline, when the service gave
   * one, counts from then. Its tool has not begun, so neither the lease nor a question holds it yet (see
   * {@link Deadlines.arm}).
   */
  arrived(execution: Execution, deadlineMs: number | undefined, now: number): void {
    if (deadlineMs === undefined) return;
    execution.deadlineMs = deadlineMs;
    this.#set(execution, dueAt(deadlineMs, now));
  }

  /**
   * The lease holds the call now (its tool began, with the feature `lease`): it has no deadline here. A call that
   * may leave the lease before its tool begins ({@link DeadlinesOptions.mayWait}) keeps its deadline aside, once:
   * a deadline the socket's drop gave it is not the service's.
   */
  suspend(execution: Execution): void {
    const at = execution.deadlineAt;
    if (at !== undefined && !this.#aside.has(execution) && this.#options.mayWait?.(execution) === true)
      this.#aside.set(execution, at);
    execution.deadlineAt = undefined;
  }

  /**
   * The lease no longer holds the call (it waits for its concurrency key's turn, its tool not begun): the deadline
   * it had before the lease applies again (a call past it ends at the next sweep, at once).
   */
  resume(execution: Execution): void {
    const at = this.#aside.get(execution);
    if (at === undefined) return;
    this.#aside.delete(execution);
    this.#set(execution, at);
  }

  /**
   * The call's tool has not begun after all (it began, then waits at its concurrency key's gate): its deadline is
   * due without the grace from now on, at once when that has passed (a timer set while it had begun is not).
   */
  notBegun(execution: Execution): void {
    const at = execution.deadlineAt;
    if (at !== undefined) this.#set(execution, at);
  }

  #set(execution: Execution, at: number): void {
    execution.deadlineAt = at;
    const due = this.#due(execution, at);
    if (due < this.#at) this.#schedule(due);
  }

  /**
   * A call's first question is open on the service (`open`), or its last one closed: while one is open the call
   * has no deadline; when the last closes, its deadline starts again in full, from the `deadlineMs` it was given
   * (docs/protocol/questions.md, as the service does).
   */
  asking(execution: Execution, open: boolean): void {
    if (open) this.#asking.add(execution);
    else if (!this.#asking.delete(execution)) return;
    // A leased call has no deadline here but the session's grace while the socket is down: a question leaves it be.
    if (this.#options.leased?.(execution) === true) return;
    if (open) execution.deadlineAt = undefined;
    else this.arm(execution, execution.deadlineMs);
  }

  /**
   * Whether the service's own deadline of the call (its `deadlineMs`, without this side's grace) has passed: the
   * model has been told it timed out. `false` for a call with no deadline here (none given, or leased).
   */
  overdue(execution: Execution): boolean {
    const at = execution.deadlineAt;
    return at !== undefined && performance.now() >= at - DEADLINE_GRACE_MS;
  }

  /** The socket dropped: the service cannot cancel anything now, so each call stops at its deadline itself. */
  disconnected(): void {
    this.#down = true;
    this.#rescan();
  }

  /** A socket is open again: the grace is given back to the calls still running. */
  reconnected(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#rescan();
  }

  /**
   * When a call whose deadline (plus the grace) is `at` stops: without the grace while the socket is down, or while
   * its tool has not begun (see the module; `heardAt` is unset until then, ./execution.ts `begun`).
   */
  #due(execution: Execution, at: number): number {
    return this.#down || execution.heardAt === undefined ? at - DEADLINE_GRACE_MS : at;
  }

  #rescan(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#sweep();
  }

  /** Stops the timer. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
  }

  #schedule(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#at = at;
    // Capped: `at` is rounded up, so a deadline at the end of the range can be a fraction of a millisecond past
    // it, and a longer delay would fire after 1 ms instead (and set the timer again, and again).
    const delay = Math.min(Math.max(0, at - performance.now()), MAX_TIMEOUT_MS);
    this.#timer = setTimeout(() => this.#sweep(), delay);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Cancels every call past its deadline, and sets the timer for the next deadline. */
  #sweep(): void {
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    // A copy: cancelling a call removes it from the calls held.
    for (const execution of [...this.#options.held()]) {
      const at = execution.deadlineAt;
      if (at === undefined) continue;
      const due = this.#due(execution, at);
      if (due > now) {
        next = Math.min(next, due);
        continue;
      }
      execution.deadlineAt = undefined;
      this.#options.expire(execution);
    }
    if (next < this.#at) this.#schedule(next);
  }
}
