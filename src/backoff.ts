/**
 * Delays between attempts: exponential backoff with full jitter, for the socket's reconnects (src/wire/connection.ts)
 * and a tool's `retry` (src/call/retry.ts). A leaf of its own: a page whose tools retry loads src/call/retry.ts as a
 * chunk, and with this import it reaches no module of the wire.
 *
 * @see https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/ ("Full Jitter")
 *
 * @module
 */
/** Backoff settings. All durations in milliseconds. */
export interface BackoffOptions {
  /** Ceiling of the first delay. @default 100 */
  initialDelayMs: number;
  /** No delay is longer than this. @default 10_000 */
  maxDelayMs: number;
}

/**
 * Delay before reconnect attempt `attempt` (1 for the first retry): a uniform random value in
 * `[0, min(maxDelayMs, initialDelayMs × 2^(attempt−1))]`.
 *
 * @param random - a source in `[0, 1)`, replaceable for tests. @default Math.random
 * @returns whole milliseconds, never negative.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
  return Math.floor(random() * (ceiling + 1));
}
