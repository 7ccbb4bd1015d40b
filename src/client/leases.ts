/**
 * The lease of long calls as the call runner keeps it (PROTOCOL.md §18.4): a call that has started here is kept
 * alive on the service while this client is connected (the call updates send the `lease` frames), so it has no
 * deadline of its own then; when the socket drops, it stops once the service would re-dispatch it (the session's
 * grace period), unless a new socket resumes first.
 *
 * @module
 */
import type { CallUpdateHooks } from './call-updates';
import type { Deadlines } from './deadlines';
import type { Execution } from './execution';

/** The states of a call that has started and not finished. */
const STARTED: ReadonlySet<string> = new Set(['running', 'parked', 'resuming']);

export class Leases {
  readonly #updates: Pick<CallUpdateHooks, 'leased' | 'sessionGraceMs' | 'started'>;
  readonly #deadlines: () => Pick<Deadlines, 'arm'>;

  /** @param deadlines - read when needed (the deadlines ask this object which calls it holds). */
  constructor(
    updates: Pick<CallUpdateHooks, 'leased' | 'sessionGraceMs' | 'started'>,
    deadlines: () => Pick<Deadlines, 'arm'>,
  ) {
    this.#updates = updates;
    this.#deadlines = deadlines;
  }

  /**
   * The calls whose tool has begun. Not before: a call waiting for its context (a `context` function that never
   * settles) or for a slot keeps its deadline, and cannot hold its slot forever under a lease renewed for it.
   */
  readonly #begun = new WeakSet<Execution>();

  /** `true` for a call the lease keeps alive: its tool began here, with the feature `lease` on this socket. */
  holds(execution: Execution): boolean {
    return this.#updates.leased && STARTED.has(execution.state) && this.#begun.has(execution);
  }

  /** A call's tool began (its context in hand): leased from now on, so its deadline here goes. */
  started(execution: Execution): void {
    this.#begun.add(execution);
    this.#updates.started(execution.frame.callId);
    if (this.#updates.leased) this.#deadlines().arm(execution, undefined);
  }

  /** The socket dropped: each leased call stops once the session's grace period has passed. */
  disconnected(held: Iterable<Execution>): void {
    if (!this.#updates.leased) return;
    for (const execution of held) {
      if (this.holds(execution) && execution.decide === undefined) {
        this.#deadlines().arm(execution, this.#updates.sessionGraceMs, true);
      }
    }
  }

  /** A new socket is open: the lease keeps the calls alive again (one the service gave up on gets its `cancel`). */
  reconnected(held: Iterable<Execution>): void {
    if (!this.#updates.leased) return;
    for (const execution of held) if (this.holds(execution)) this.#deadlines().arm(execution, undefined);
  }
}
