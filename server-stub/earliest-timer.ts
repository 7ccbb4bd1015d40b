/**
 * `EarliestTimer`: one timer for a task several callers want run at some time, run at the earliest time asked.
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../src/limits';

/**
 * Runs its task once at the earliest time asked of it ({@link EarliestTimer.at}): a later time asked while it is set
 * changes nothing, an earlier one moves it. A time past the longest delay a timer takes is run at that delay
 * instead (Node fires a longer timer after 1 ms, again and again); the task looks again then.
 */
export class EarliestTimer {
  readonly #task: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When {@link EarliestTimer.#timer} fires (epoch milliseconds). */
  #at = 0;

  constructor(task: () => void) {
    this.#task = task;
  }

  /** Runs the task at `at` (epoch milliseconds), or earlier if it is set for earlier already. */
  at(at: number): void {
    const now = Date.now();
    const fires = Math.min(at, now + MAX_TIMEOUT_MS);
    if (this.#timer !== undefined) {
      if (this.#at <= fires) return;
      clearTimeout(this.#timer);
    }
    this.#at = fires;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#task();
      },
      Math.max(0, fires - now),
    );
  }

  /** Stops the timer; the task does not run. */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
