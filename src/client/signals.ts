/**
 * `handleSignals`: a client that drains on SIGTERM and SIGINT and then lets the process end as Node would, so
 * that a deploy or a Ctrl-C loses no call in flight.
 *
 * @module
 */
import type { Logger } from '../logger';

/** The signals a client with `handleSignals` drains on. */
export const DRAIN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
type DrainSignal = (typeof DRAIN_SIGNALS)[number];

/** What {@link drainOnSignals} needs of its client (structural, so this file does not import the client). */
export interface DrainedClient {
  close(options: { drain: true; timeoutMs: number }): Promise<void>;
}

/**
 * What the client tells {@link drainOnSignals}, by direct calls: never through the client's public events, which
 * the application may clear (`client.removeAllListeners()`) and would list (`client.eventNames()`).
 */
export interface SignalHooks {
  /** A `welcome` arrived (each one): listening starts at the first. */
  connected(): void;
  /** The client closed: listening stops. */
  closed(): void;
}

/** The hooks of a client without `handleSignals` (or without process signals). */
export const NO_SIGNAL_HOOKS: SignalHooks = { connected() {}, closed() {} };

/** The bits of Node's `process` used here; absent in browsers, where `handleSignals` does nothing. */
interface SignalProcess {
  pid: number;
  on(signal: DrainSignal, listener: (signal: DrainSignal) => void): unknown;
  removeListener(signal: DrainSignal, listener: (signal: DrainSignal) => void): unknown;
  listenerCount(signal: DrainSignal): number;
  kill(pid: number, signal: DrainSignal): unknown;
}

function nodeProcess(): SignalProcess | undefined {
  const candidate = (globalThis as { process?: Partial<SignalProcess> }).process;
  return typeof candidate?.on === 'function' && typeof candidate.kill === 'function'
    ? (candidate as SignalProcess)
    : undefined;
}

/**
 * Makes `client` drain on SIGTERM and SIGINT (`handleSignals`), listening from its first connection until it is
 * closed; the client calls the returned hooks. Nothing when `timeoutMs` is `undefined` (no `handleSignals`) or
 * where there is no `process`.
 *
 * - The first signal drains the client once: `close({ drain: true, timeoutMs })`, so calls in flight finish
 *   and their results are acknowledged (or, past `timeoutMs`, are aborted and answered `cancelled`).
 * - A second signal while it drains ends the process at once (results not yet acknowledged are lost; the
 *   service sends those calls again, to another client, once the session's grace period has passed).
 * - Then its listeners are removed and the signal is raised again: with no other listener for it, Node's default
 *   ends the process by that signal (exit status 128 + its number: 143 for SIGTERM, 130 for SIGINT). When the
 *   application listens for it too, Node would not exit by itself, and neither does this: the application's
 *   listener, which got the signal as well, decides.
 */
export function drainOnSignals(
  client: DrainedClient,
  timeoutMs: number | undefined,
  logger: Logger,
): SignalHooks {
  if (timeoutMs === undefined) return NO_SIGNAL_HOOKS;
  const process = nodeProcess();
  if (process === undefined) {
    logger.warn({}, 'handleSignals: no process signals in this runtime; ignored');
    return NO_SIGNAL_HOOKS;
  }
  let draining = false;
  let listening = false;
  const stop = () => {
    if (!listening) return;
    listening = false;
    for (const signal of DRAIN_SIGNALS) process.removeListener(signal, received);
  };
  // Removes the listeners (if `closed` has not), then raises the signal again unless the application listens too.
  const exit = (signal: DrainSignal) => {
    stop();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const received = (signal: DrainSignal) => {
    if (draining) {
      logger.warn({ signal }, `received ${signal} again while draining: exiting now`);
      return exit(signal);
    }
    draining = true;
    logger.info(
      { signal, timeoutMs },
      `received ${signal}: draining (calls in flight finish, at most ${timeoutMs} ms), then exiting`,
    );
    void client.close({ drain: true, timeoutMs }).finally(() => exit(signal));
  };
  let closed = false;
  return {
    connected() {
      if (listening || draining || closed) return;
      listening = true;
      for (const signal of DRAIN_SIGNALS) process.on(signal, received);
    },
    closed() {
      closed = true;
      stop();
    },
  };
}
