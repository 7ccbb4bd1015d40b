/**
 * A token bucket: `burst` tokens to start with, refilled at `perSecond`; one frame takes one token.
 *
 * @module
 */

/** Counts frames of one connection against a sustained rate with a burst allowance. */
export class RateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  /**
   * @param perSecond - sustained rate, in frames per second.
   * @param burst - frames allowed at once above the sustained rate (the bucket's size).
   */
  constructor(perSecond: number, burst: number, now: number = performance.now()) {
    this.#perMs = perSecond / 1000;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = now;
  }

  /** Takes one token; `false` when the bucket is empty (the peer is over its rate). */
  take(now: number = performance.now()): boolean {
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#last) * this.#perMs);
    this.#last = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
