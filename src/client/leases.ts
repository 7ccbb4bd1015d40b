/**
 * The lease of long calls as the call runner keeps it (docs/protocol/lease.md): a call that has started here is kept
 * alive on the service while this client is connected (the call updates send the `lease` frames), so it has no
 * deadline of its own then; when the socket drops, it stops once the service would re-dispatch it (the session's
 * grace period, counted from the drop), unless a new socket resumes the session first. A call that starts while
 * the socket is down gets what is left of that grace period; one held when a new socket starts a new session
 * (`resumed: false`: nobody leases it any more) keeps it.
 *
 * The frames themselves are ./lease-renewal.ts; ./call-updates.ts sends them.
 *
 * @module
 */
import type { CallUpdateHooks } from './call-updates';
import type { Deadlines } from './deadlines';
import type { Execution } from './execution';

/** The states of a call that has started and not finished. */
const STARTED: ReadonlySet<string> = new Set(['running', 'parked', 'resuming']);

/** The leases of one client's running calls: which calls the lease holds, and their deadlines when offline. */
export class Leases {
  readonly #updates: Pick<CallUpdateHooks, 'leased' | 'sessionGraceMs' | 'started'>;
  readonly #deadlines: () => Pick<Deadlines, 'arm' | 'suspend'>;
  /** When the socket dropped (`performance.now()` time); `undefined` while connected. */
  #downSince: number | undefined;
  /**
   * The calls whose deadline here is the session's grace period (armed while the socket was down, not given back
   * by a resume): when it passes, the service has given them to another worker ({@link Leases.lost}).
   */
  readonly #graceArmed = new WeakSet<Execution>();

  /** @param deadlines - read when needed (the deadlines ask this object which calls it holds). */
  constructor(
    updates: Pick<CallUpdateHooks, 'leased' | 'sessionGraceMs' | 'started'>,
    deadlines: () => Pick<Deadlines, 'arm' | 'suspend'>,
  ) {
    this.#updates = updates;
    this.#deadlines = deadlines;
  }

  /** `true` for a call the lease keeps alive: its tool began here, with the feature `lease` on this socket. */
  holds(execution: Execution): boolean {
    return this.#updates.leased && STARTED.has(execution.state) && execution.begun;
  }

  /**
   * A call's tool began (its context in hand): leased from now on, so its deadline here goes; while the socket is
   * down, it stops when the grace period that began at the drop ends.
   */
  started(execution: Execution): void {
    execution.heardAt = Number.NEGATIVE_INFINITY;
    this.#updates.started(execution);
    if (!this.#updates.leased) return;
    this.#deadlines().suspend(execution);
    if (this.#downSince !== undefined) this.#armGrace(execution);
  }

  /** The socket dropped: each leased call stops once the session's grace period has passed. */
  disconnected(held: Iterable<Execution>): void {
    this.#downSince ??= performance.now();
    if (!this.#updates.leased) return;
    for (const execution of held) {
      if (this.holds(execution) && execution.decide === undefined) this.#armGrace(execution);
    }
  }

  /**
   * A new socket is open. When it resumed the session, the lease keeps the calls alive again (one that ended or
   * went elsewhere while the socket was down gets `cancel { reason: 'not_dispatched' }` at its first renewal,
   * docs/protocol/calls-no-longer-held.md); a new session knows none of them, so they keep the deadline the drop gave them.
   */
  reconnected(held: Iterable<Execution>, resumed = true): void {
    this.#downSince = undefined;
    if (!this.#updates.leased || !resumed) return;
    for (const execution of held) {
      if (!this.holds(execution)) continue;
      this.#graceArmed.delete(execution);
      this.#deadlines().suspend(execution);
    }
  }

  /**
   * `true` for a call stopped by the end of its session's grace period (counted from the drop): the service gives
   * it to another worker then (or sends it here again, on a resume that came after this side's clock ran out), so
   * its result is not the call's (docs/protocol/lease.md).
   */
  lost(execution: Execution): boolean {
    return this.#graceArmed.has(execution);
  }

  /**
   * The service sent the call again on the socket now open (a new session it gave the call to): the call is owed
   * here again, so the end of the old session's grace no longer stops it, and the lease holds it.
   */
  redelivered(execution: Execution): void {
    if (this.#graceArmed.delete(execution) && this.holds(execution)) this.#deadlines().suspend(execution);
  }

  #armGrace(execution: Execution): void {
    this.#graceArmed.add(execution);
    this.#deadlines().arm(execution, this.#graceLeft(), true);
  }

  /** What is left of the session's grace period since the drop, in milliseconds. */
  #graceLeft(): number {
    const since = this.#downSince ?? performance.now();
    return Math.max(0, this.#updates.sessionGraceMs - Math.round(performance.now() - since));
  }
}
