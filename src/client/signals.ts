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

/** What a {@link SignalDrain} needs of its client (structural, so this file does not import the client). */
export interface DrainedClient {
  close(options: { drain: true; timeoutMs: number }): Promise<void>;
  once(event: 'connected' | 'closed', listener: () => void): unknown;
}

/** The bits of Node's `process` used here; absent in browsers, where `handleSignals` does nothing. */
interface SignalProcess {
  pid: number;
  on(signal: DrainSignal, listener: () => void): unknown;
  removeListener(signal: DrainSignal, listener: () => void): unknown;
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
 * Listens for SIGTERM and SIGINT from its client's first connection until the client is closed.
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
export class SignalDrain {
  readonly #client: DrainedClient;
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  /** The process listened on, while listening. */
  #process: SignalProcess | undefined;
  #draining = false;

  constructor(client: DrainedClient, timeoutMs: number, logger: Logger) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
    this.#logger = logger;
  }

  /**
   * Makes `client` drain on signals when `timeoutMs` is set (`handleSignals`): it listens from the client's first
   * connection until it is closed.
   */
  static when(timeoutMs: number | undefined, client: DrainedClient, logger: Logger): SignalDrain | undefined {
    if (timeoutMs === undefined) return undefined;
    const drain = new SignalDrain(client, timeoutMs, logger);
    client.once('connected', () => drain.install());
    return drain;
  }

  /** Starts listening (once; again after nothing). Does nothing where there is no `process`. */
  install(): void {
    if (this.#process !== undefined || this.#draining) return;
    const process = nodeProcess();
    if (process === undefined) {
      this.#logger.warn({}, 'handleSignals: this runtime has no process signals; ignored');
      return;
    }
    this.#process = process;
    for (const signal of DRAIN_SIGNALS) process.on(signal, this.#listeners[signal]);
    this.#client.once('closed', () => this.#uninstall());
  }

  readonly #listeners: Record<DrainSignal, () => void> = {
    SIGTERM: () => this.#received('SIGTERM'),
    SIGINT: () => this.#received('SIGINT'),
  };

  #received(signal: DrainSignal): void {
    if (this.#draining) {
      this.#logger.warn({ signal }, `received ${signal} again while draining: exiting now`);
      this.#exit(signal);
      return;
    }
    this.#draining = true;
    this.#logger.info(
      { signal, timeoutMs: this.#timeoutMs },
      `received ${signal}: draining (calls in flight finish, at most ${this.#timeoutMs} ms), then exiting`,
    );
    void this.#client.close({ drain: true, timeoutMs: this.#timeoutMs }).finally(() => this.#exit(signal));
  }

  /** Removes the listeners (if `closed` has not), then raises `signal` again unless the application listens for it. */
  #exit(signal: DrainSignal): void {
    this.#uninstall();
    const process = nodeProcess();
    if (process !== undefined && process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  }

  #uninstall(): void {
    const process = this.#process;
    if (process === undefined) return;
    this.#process = undefined;
    for (const signal of DRAIN_SIGNALS) process.removeListener(signal, this.#listeners[signal]);
  }
}
