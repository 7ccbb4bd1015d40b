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

/**
 * Why backoff delays contradict each other, or `undefined`: an `initialDelayMs` above `maxDelayMs` (each as
 * `given`, else as `defaults`, which the text then names), which no delay could ever wait. The one rule of
 * `new Client({ reconnect })` and a tool's `retry`; `name` is the option's (`'reconnect'`, `'retry'`).
 */
export function backoffDelaysFault(
  name: string,
  given: Partial<BackoffOptions>,
  defaults: Readonly<BackoffOptions>,
): string | undefined {
  const initialDelayMs = given.initialDelayMs ?? defaults.initialDelayMs;
  const maxDelayMs = given.maxDelayMs ?? defaults.maxDelayMs;
  if (initialDelayMs <= maxDelayMs) return undefined;
  const initial = `${initialDelayMs}${given.initialDelayMs === undefined ? ', the default' : ''}`;
  const max = `${maxDelayMs}${given.maxDelayMs === undefined ? ', the default' : ''}`;
  return `${name}.initialDelayMs (${initial}) must not exceed ${name}.maxDelayMs (${max})`;
}
