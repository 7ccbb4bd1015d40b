/**
 * Socket lifecycle: open, `hello`/`welcome`, application heartbeat, reconnect with backoff and session resume.
 * The connection knows nothing of tools: it hands decoded service frames to its owner (the `Client`), and tells
 * it of every failed attempt and of every frame it could not send. Nothing a socket throws escapes it.
 *
 * @module
 */

import { ConnectionError, OptionsError } from '../errors';
import { displayUrl, scrubError } from '../logger';
import { backoffDelay } from './backoff';
import { BACKPRESSURE_DEFAULTS } from './backpressure';
import type { ConnectionOptions, ConnectOptions } from './connection-options';
import { describeThrown } from './describe-thrown';
import { Link } from './link';
import type { LinkClose, Welcome } from './link-options';
import { CLOSE_CODES, type ClientFrame, PROTOCOL_DEFAULTS } from './protocol';
import { resolveWebSocket, type WebSocketConstructor } from './transport';

export type {
  ConnectionOptions,
  ConnectOptions,
  HelloBody,
  ReconnectOptions,
} from './connection-options';
export { HANDSHAKE_TIMEOUT_MS } from './link';
export type { Welcome } from './link-options';

/** The connection's state. Leaving a state cleans up what it owned (timers, sockets). */
export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'draining' | 'closed';

/** A connection open this long (milliseconds) resets the backoff; a shorter one counts as a failed attempt. */
export const STABLE_CONNECTION_MS = 5_000;

/** One logical connection to the service, which may span many sockets (one {@link Link} each). */
export class Connection {
  #state: ConnectionState = 'idle';
  #link: Link | undefined;
  #welcome: Welcome | undefined;
  #sessionId: string | undefined;
  /** Reconnects since the connection was last stable: drives the backoff. */
  #attempt = 0;
  /** Consecutive attempts that did not reach `welcome`. */
  #failed = 0;
  #connectMaxAttempts = Number.POSITIVE_INFINITY;
  #lastFailure: ConnectionError | undefined;
  #welcomedAt = 0;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #pending: { resolve(welcome: Welcome): void; reject(error: ConnectionError): void } | undefined;
  readonly #options: ConnectionOptions;

  constructor(options: ConnectionOptions) {
    this.#options = options;
  }

  /** Current state. */
  get state(): ConnectionState {
    return this.#state;
  }

  /** Session id from the last `welcome`, kept across reconnects (forgotten after a 4009). */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /**
   * Largest frame the client sends, in UTF-8 bytes: the service's limit (from `welcome`, else the protocol default),
   * or `maxBufferedBytes` when smaller (a larger frame would drop every socket it is written on). What frames are
   * cut to.
   */
  get maxPayloadBytes(): number {
    const buffered = this.#options.maxBufferedBytes ?? BACKPRESSURE_DEFAULTS.maxBufferedBytes;
    return Math.min(this.#serviceLimit, buffered);
  }

  /** Largest frame the service accepts and sends (from `welcome`, else the protocol default). */
  get #serviceLimit(): number {
    return this.#welcome?.maxPayloadBytes ?? PROTOCOL_DEFAULTS.maxPayloadBytes;
  }

  /** Bytes waiting in the current socket's send buffer (0 when there is no socket). */
  get bufferedAmount(): number {
    return this.#link?.bufferedAmount ?? 0;
  }

  /** `true` when frames can be sent now. */
  get writable(): boolean {
    return this.#state === 'open' || this.#state === 'draining';
  }

  /**
   * Opens the connection. Resolves with the first `welcome`.
   * @throws ConnectionError `unauthorized`, `unsupported_protocol`, `connect_timeout`, `unreachable` (after
   *   `maxAttempts` failed attempts; the last one is the `cause`), `hello_too_large`, `invalid_url` or `closed`.
   * @throws OptionsError `invalid_option` when `maxAttempts` is not a whole number ≥ 1 or Infinity.
   */
  connect(options: ConnectOptions = {}): Promise<Welcome> {
    if (this.#state === 'closed') {
      return Promise.reject(
        new ConnectionError('closed', 'this client is closed; create a new Client to connect again'),
      );
    }
    if (this.#state !== 'idle') {
      return Promise.reject(
        new ConnectionError('already_connecting', `connect() called in state ${this.#state}`),
      );
    }
    const { maxAttempts } = options;
    if (
      maxAttempts !== undefined &&
      !(maxAttempts === Number.POSITIVE_INFINITY || (Number.isInteger(maxAttempts) && maxAttempts >= 1))
    ) {
      const message = `client.connect(): maxAttempts must be a whole number ≥ 1 or Infinity, got ${String(maxAttempts)}`;
      return Promise.reject(new OptionsError('invalid_option', message));
    }
    const policy = this.#options.reconnect;
    // Without a reconnect policy there is one attempt: retrying the first connection is reconnecting too.
    this.#connectMaxAttempts = policy === false ? 1 : (maxAttempts ?? policy.maxAttempts);
    this.#state = 'connecting';
    const promise = new Promise<Welcome>((resolve, reject) => {
      this.#pending = { resolve, reject };
    });
    this.#later(this.#options.connectTimeoutMs, () => {
      if (!this.#pending) return;
      const last = this.#lastFailure;
      const { url, connectTimeoutMs } = this.#options;
      const message = `no welcome from ${displayUrl(url)} within ${connectTimeoutMs}ms${last ? ` (last attempt: ${last.message})` : ''}`;
      this.#fail(new ConnectionError('connect_timeout', message, last ? { cause: last } : undefined));
    });
    const ready = this.#options.ready?.();
    if (ready === undefined) void this.#open();
    else
      ready.then(
        () => this.#pending !== undefined && void this.#open(),
        (error) => this.#unready(error),
      );
    return promise;
  }

  /** What `connect()` waited for failed (src/wire/connection-options.ts, `ready`): back to `idle`. */
  #unready(error: ConnectionError): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    this.#clearTimers();
    this.#state = 'idle';
    pending.reject(error);
  }

  /**
   * Sends a frame when the socket is open. Returns `false` (and sends nothing) when it is not; a frame that
   * cannot be sent as it is is also reported through `onError` and `onUnsendable`.
   */
  send(frame: ClientFrame): boolean {
    if (!this.writable || !this.#link) return false;
    return this.#link.send(frame);
  }

  /** Marks the connection as draining: still open, but the owner takes no new work. */
  drain(): void {
    if (this.#state === 'open') this.#state = 'draining';
  }

  /** Closes with a normal close code and stops reconnecting. Idempotent. */
  close(reason = 'client closed'): void {
    if (this.#state === 'closed') return;
    const link = this.#link;
    this.#link = undefined;
    link?.close(CLOSE_CODES.normal, reason);
    this.#fail(undefined);
  }

  async #open(): Promise<void> {
    let ctor: WebSocketConstructor;
    try {
      ctor = await resolveWebSocket(this.#options.WebSocket);
    } catch (error) {
      const message = 'no WebSocket implementation found; pass `WebSocket`';
      this.#fail(new ConnectionError('no_websocket', message, { cause: error }));
      return;
    }
    if (this.#state === 'closed') return;
    const options = this.#options;
    try {
      const link: Link = new Link({
        WebSocket: ctor,
        url: options.url,
        apiKey: options.apiKey,
        maxPayloadBytes: this.#serviceLimit,
        heartbeatIntervalMs: options.heartbeatIntervalMs,
        heartbeatClock: options.heartbeatClock,
        highWaterMarkBytes: options.highWaterMarkBytes ?? BACKPRESSURE_DEFAULTS.highWaterMarkBytes,
        maxBufferedBytes: options.maxBufferedBytes ?? BACKPRESSURE_DEFAULTS.maxBufferedBytes,
        logger: options.logger,
        hello: () => ({
          type: 'hello',
          ...options.hello(),
          ...(this.#sessionId === undefined ? {} : { sessionId: this.#sessionId }),
        }),
        onWelcome: (welcome) => this.#onWelcome(link, welcome),
        onFrame: (frame) => {
          if (link === this.#link) this.#guard(() => options.onFrame(frame));
        },
        onError: (error) => this.#guard(() => options.onError(error)),
        onUnsendable: (frame, error) => this.#guard(() => options.onUnsendable(frame, error)),
        onRefused: (about, message) => this.#guard(() => options.onRefused?.(about, message)),
        onClose: (close) => {
          if (link === this.#link) this.#onClose(close);
        },
      });
      this.#link = link;
    } catch (error) {
      // An invalid URL throws at once everywhere (no retry can fix it); its message may quote the URL.
      const shown = displayUrl(options.url);
      const scrub = (text: string) => text.replaceAll(options.url, shown);
      this.#fail(
        new ConnectionError('invalid_url', `cannot open ${shown}: ${scrub(describeThrown(error))}`, {
          cause: scrubError(error, scrub),
        }),
      );
    }
  }

  #onWelcome(link: Link, welcome: Welcome): void {
    if (link !== this.#link) return;
    this.#welcome = welcome;
    this.#sessionId = welcome.sessionId;
    // The attempt count is reset only once the connection proved stable (see #onClose), so a service that
    // welcomes and then drops at once still meets a growing backoff instead of a reconnect storm.
    this.#welcomedAt = Date.now();
    this.#failed = 0;
    if (this.#state === 'connecting' || this.#state === 'reconnecting') this.#state = 'open';
    const pending = this.#pending;
    this.#pending = undefined;
    this.#clearTimers();
    this.#guard(() => this.#options.onWelcome(welcome));
    pending?.resolve(welcome);
  }

  #onClose({ code, reason, welcomed, failure, reported }: LinkClose): void {
    this.#link = undefined;
    this.#options.logger.info({ code, reason }, 'socket closed');
    if (welcomed) {
      this.#guard(() => this.#options.onDisconnected(code, reason));
      if (Date.now() - this.#welcomedAt >= STABLE_CONNECTION_MS) this.#attempt = 0;
      this.#afterDisconnect(code, reason);
      return;
    }
    this.#failed += 1;
    const { error, fatal } = failure;
    this.#lastFailure = error;
    if (!reported) {
      const message = `connection attempt ${this.#failed} failed: ${error.message}`;
      this.#options.logger.warn({ attempt: this.#failed, code: error.code }, message);
      this.#guard(() => this.#options.onError(error));
    }
    const policy = this.#options.reconnect;
    const url = displayUrl(this.#options.url);
    const attempts = `${this.#failed} attempt${this.#failed === 1 ? '' : 's'}`;
    if (fatal) this.#fail(error);
    else if (this.#state === 'connecting') {
      if (this.#failed >= this.#connectMaxAttempts) {
        const message = `cannot reach ${url} after ${attempts}: ${error.message}`;
        this.#fail(new ConnectionError('unreachable', message, { cause: error }));
      } else this.#scheduleReconnect();
    } else if (policy === false || this.#failed >= policy.maxAttempts) {
      const message = `cannot reach ${url}: ${error.message}; gave up after ${attempts}`;
      this.#fail(new ConnectionError('unreachable', message, { cause: error }));
    } else this.#scheduleReconnect();
  }

  /** After a welcomed socket closed: stop, start a new session, or resume. */
  #afterDisconnect(code: number, reason: string): void {
    const detail = `${code}${reason ? `: ${reason}` : ''}`;
    if (code === CLOSE_CODES.unauthorized || code === CLOSE_CODES.unsupportedProtocol) {
      const errorCode = code === CLOSE_CODES.unauthorized ? 'unauthorized' : 'unsupported_protocol';
      this.#fail(new ConnectionError(errorCode, `the service refused the connection (${detail})`));
      return;
    }
    if (this.#state === 'draining') {
      this.#fail(new ConnectionError('closed', `socket closed while draining (${code})`));
      return;
    }
    if (code === CLOSE_CODES.sessionReplaced) {
      // PROTOCOL.md §9 and §14: never reconnect with that session id; a new session is the way back.
      const error = new ConnectionError(
        'session_replaced',
        `another connection resumed session ${this.#sessionId} (${detail}); starting a new session`,
      );
      this.#sessionId = undefined;
      this.#options.logger.warn({ code }, error.message);
      this.#guard(() => this.#options.onError(error));
    }
    if (this.#options.reconnect === false) {
      const message = `the connection to ${displayUrl(this.#options.url)} closed (${detail}) and reconnect is disabled`;
      this.#fail(new ConnectionError('unreachable', message));
      return;
    }
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const policy = this.#options.reconnect;
    if (policy === false) return;
    this.#attempt += 1;
    if (this.#state === 'open') this.#state = 'reconnecting';
    const delayMs = backoffDelay(this.#attempt, policy);
    this.#guard(() => this.#options.onReconnecting(this.#attempt, delayMs));
    this.#later(delayMs, () => {
      if (this.#state === 'connecting' || this.#state === 'reconnecting') void this.#open();
    });
  }

  #fail(error: ConnectionError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#clearTimers();
    const link = this.#link;
    this.#link = undefined;
    link?.abandon();
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error ?? new ConnectionError('closed', 'the client was closed before it connected'));
    this.#guard(() => this.#options.onClosed(error));
  }

  /** Runs an owner callback; a throw is logged and reported, never left to unwind into a socket's event handler. */
  #guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      const message = `the client failed while handling the connection: ${describeThrown(error)}`;
      const failure = new ConnectionError('internal', message, { cause: error });
      this.#options.logger.error({ code: failure.code }, failure.message);
      try {
        this.#options.onError(failure);
      } catch {
        // The error reporter itself failed: the log line above is all that can be done.
      }
    }
  }

  #later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    // Not unref'd: while connecting or reconnecting, the client keeps the process alive (as an open socket
    // would), so a tool server does not exit during an outage. `close()` clears every timer.
    this.#timers.add(timer);
  }

  #clearTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
