/**
 * Socket lifecycle: open, `hello`/`welcome`, application heartbeat, reconnect with backoff and session resume.
 * The connection knows nothing of tools: it hands decoded service frames to its owner (the `Client`).
 *
 * @module
 */

import { ConnectionError } from '../errors';
import { MAX_TIMEOUT_MS } from '../limits';
import { displayUrl, type Logger, scrubError } from '../logger';
import { type BackoffOptions, backoffDelay } from './backoff';
import {
  CLOSE_CODES,
  type ClientFrame,
  decodeServiceFrame,
  encodeFrame,
  type FrameOf,
  PROTOCOL_DEFAULTS,
  type ServiceFrame,
  utf8Length,
} from './protocol';
import {
  canSendHeaders,
  openTransport,
  resolveWebSocket,
  type Transport,
  type WebSocketConstructor,
} from './transport';

/** The connection's state. Leaving a state cleans up what it owned (timers, sockets). */
export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'draining' | 'closed';

/** Reconnect policy. Durations in milliseconds. */
export interface ReconnectOptions extends BackoffOptions {
  /**
   * Consecutive attempts that do not reach the service (no `welcome`) before giving up; the client then closes.
   * A connection that was welcomed, however short, proves the service reachable and starts the count again.
   * @default Infinity
   */
  maxAttempts: number;
}

/** The `welcome` frame. */
export type Welcome = FrameOf<ServiceFrame, 'welcome'>;
/** The `hello` frame, as the client builds it before the connection adds `sessionId` and `apiKey`. */
export type HelloBody = Omit<FrameOf<ClientFrame, 'hello'>, 'type' | 'sessionId' | 'apiKey'>;

/** What a connection needs from its owner. */
export interface ConnectionOptions {
  url: string;
  apiKey: string;
  WebSocket: WebSocketConstructor | undefined;
  /** `false` disables reconnecting. */
  reconnect: ReconnectOptions | false;
  /** Overrides the interval announced in `welcome`, in milliseconds. */
  heartbeatIntervalMs: number | undefined;
  /** `connect()` rejects when no `welcome` arrived within this many milliseconds. */
  connectTimeoutMs: number;
  logger: Logger;
  hello(): HelloBody;
  onWelcome(welcome: Welcome): void;
  onFrame(frame: Exclude<ServiceFrame, Welcome>): void;
  onDisconnected(code: number, reason: string): void;
  onReconnecting(attempt: number, delayMs: number): void;
  onClosed(error: ConnectionError | undefined): void;
}

/** An attempt that has not received `welcome` within this many milliseconds is dropped and retried. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** A connection open this long (milliseconds) resets the backoff; a shorter one counts as a failed attempt. */
export const STABLE_CONNECTION_MS = 5_000;

/** Close codes after which reconnecting cannot help. */
const FATAL_CLOSE_CODES = new Map<number, string>([
  [CLOSE_CODES.unauthorized, 'unauthorized'],
  [CLOSE_CODES.unsupportedProtocol, 'unsupported_protocol'],
  // Another connection resumed this session: this process must not fight it for the session.
  [CLOSE_CODES.sessionReplaced, 'session_replaced'],
]);

/** One logical connection to the service, which may span many sockets. */
export class Connection {
  #state: ConnectionState = 'idle';
  #transport: Transport | undefined;
  #welcome: Welcome | undefined;
  #sessionId: string | undefined;
  #attempt = 0;
  /** Attempts since the last `welcome`: what `reconnect.maxAttempts` bounds (a welcomed service was reachable). */
  #unreached = 0;
  #lastFailure = '';
  #welcomedAt = 0;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #lastHeard = 0;
  #pingSeq = 0;
  #pending: { resolve(welcome: Welcome): void; reject(error: ConnectionError): void } | undefined;
  readonly #options: ConnectionOptions;

  constructor(options: ConnectionOptions) {
    this.#options = options;
  }

  /** Current state. */
  get state(): ConnectionState {
    return this.#state;
  }

  /** Session id from the last `welcome`, kept across reconnects. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Largest frame the service accepts, in UTF-8 bytes (from `welcome`, else the protocol default). */
  get maxPayloadBytes(): number {
    return this.#welcome?.maxPayloadBytes ?? PROTOCOL_DEFAULTS.maxPayloadBytes;
  }

  /** Bytes waiting in the current socket's send buffer (0 when there is no socket). */
  get bufferedAmount(): number {
    return this.#transport?.bufferedAmount ?? 0;
  }

  /** `true` when frames can be sent now. */
  get writable(): boolean {
    return this.#state === 'open' || this.#state === 'draining';
  }

  /**
   * Opens the connection. Resolves with the first `welcome`.
   * @throws ConnectionError `unauthorized`, `unsupported_protocol`, `connect_timeout`, `unreachable` or `closed`.
   */
  connect(): Promise<Welcome> {
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
    this.#state = 'connecting';
    const promise = new Promise<Welcome>((resolve, reject) => {
      this.#pending = { resolve, reject };
    });
    this.#later(this.#options.connectTimeoutMs, () => {
      if (this.#pending) {
        this.#fail(
          new ConnectionError(
            'connect_timeout',
            `no welcome from ${displayUrl(this.#options.url)} within ${this.#options.connectTimeoutMs}ms${this.#lastFailure ? ` (last attempt: ${this.#lastFailure})` : ''}`,
          ),
        );
      }
    });
    void this.#open();
    return promise;
  }

  /**
   * Sends a frame when the socket is open. Returns `false` (and sends nothing) when it is not, or when the frame
   * is larger than the service's `maxPayloadBytes`.
   */
  send(frame: ClientFrame): boolean {
    if (!this.writable || !this.#transport) return false;
    const text = encodeFrame(frame);
    if (text.length * 3 > this.maxPayloadBytes && utf8Length(text) > this.maxPayloadBytes) {
      this.#options.logger.error({ type: frame.type }, 'frame larger than maxPayloadBytes not sent');
      return false;
    }
    this.#transport.send(text);
    return true;
  }

  /** Marks the connection as draining: still open, but the owner takes no new work. */
  drain(): void {
    if (this.#state === 'open') this.#state = 'draining';
  }

  /** Closes with a normal close code and stops reconnecting. Idempotent. */
  close(reason = 'client closed'): void {
    if (this.#state === 'closed') return;
    const transport = this.#transport;
    this.#transport = undefined;
    transport?.close(CLOSE_CODES.normal, reason);
    this.#fail(undefined);
  }

  async #open(): Promise<void> {
    let ctor: WebSocketConstructor;
    try {
      ctor = await resolveWebSocket(this.#options.WebSocket);
    } catch (error) {
      this.#fail(
        new ConnectionError('no_websocket', 'no WebSocket implementation found; pass `WebSocket`', {
          cause: error,
        }),
      );
      return;
    }
    if (this.#state === 'closed') return;
    const headers = { Authorization: `Bearer ${this.#options.apiKey}` };
    let transport: Transport;
    try {
      transport = openTransport(ctor, this.#options.url, headers, {
        onOpen: () => this.#onOpen(transport, ctor),
        onMessage: (text) => this.#onMessage(transport, text),
        onClose: (code, reason) => this.#onClose(transport, code, reason),
      });
    } catch (error) {
      // An invalid URL throws at once (retrying cannot fix it), quoting the URL: shown as every message shows it.
      const shown = displayUrl(this.#options.url);
      const cause = scrubError(error, (text) => text.replaceAll(this.#options.url, shown));
      this.#fail(new ConnectionError('invalid_url', `cannot open ${shown}`, { cause }));
      return;
    }
    this.#transport = transport;
    this.#later(HANDSHAKE_TIMEOUT_MS, () => {
      if (this.#transport === transport && this.#state !== 'open' && this.#state !== 'draining')
        transport.terminate();
    });
  }

  #onOpen(transport: Transport, ctor: WebSocketConstructor): void {
    if (transport !== this.#transport) return;
    const hello: FrameOf<ClientFrame, 'hello'> = { type: 'hello', ...this.#options.hello() };
    if (this.#sessionId !== undefined) hello.sessionId = this.#sessionId;
    // Browsers cannot set headers on the upgrade request: the key travels in `hello` there.
    if (!canSendHeaders(ctor)) hello.apiKey = this.#options.apiKey;
    this.#lastHeard = Date.now();
    const text = encodeFrame(hello);
    const size = utf8Length(text);
    if (size > this.maxPayloadBytes) {
      // Retrying cannot help: the service would close with 1009 every time.
      this.#fail(
        new ConnectionError(
          'hello_too_large',
          `the tool definitions make a hello of ${size} bytes, over the service's limit of ${this.maxPayloadBytes}`,
        ),
      );
      return;
    }
    transport.send(text);
  }

  #onMessage(transport: Transport, text: string): void {
    if (transport !== this.#transport) return;
    this.#lastHeard = Date.now();
    const decoded = decodeServiceFrame(text, this.maxPayloadBytes);
    if (!decoded.ok) {
      this.#options.logger.warn({ code: decoded.code }, `invalid frame from the service: ${decoded.message}`);
      transport.send(encodeFrame({ type: 'error', code: decoded.code, message: decoded.message }));
      return;
    }
    const frame = decoded.frame;
    if (frame.type === 'welcome') {
      this.#onWelcome(frame);
      return;
    }
    if (frame.type === 'ping') {
      transport.send(encodeFrame({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) }));
      return;
    }
    if (frame.type === 'pong') return;
    this.#options.onFrame(frame);
  }

  #onWelcome(welcome: Welcome): void {
    this.#welcome = welcome;
    this.#sessionId = welcome.sessionId;
    // The attempt count is reset only once the connection proved stable (see #onClose), so a service that
    // welcomes and then drops at once still meets a growing backoff instead of a reconnect storm.
    this.#welcomedAt = Date.now();
    this.#unreached = 0;
    if (this.#state === 'connecting' || this.#state === 'reconnecting') this.#state = 'open';
    this.#startHeartbeat(this.#options.heartbeatIntervalMs ?? welcome.heartbeatIntervalMs);
    const pending = this.#pending;
    this.#pending = undefined;
    this.#clearTimers();
    this.#options.onWelcome(welcome);
    pending?.resolve(welcome);
  }

  #startHeartbeat(announcedMs: number): void {
    this.#stopHeartbeat();
    // The service's number: past the longest timer, setInterval would tick every millisecond.
    const intervalMs = Math.min(announcedMs, MAX_TIMEOUT_MS);
    // Check four times per interval, so a dead peer is noticed between 2 and 2.25 intervals of silence.
    const tickMs = Math.max(1, Math.floor(intervalMs / 4));
    let sincePing = 0;
    let lastTick = Date.now();
    this.#heartbeat = setInterval(() => {
      const transport = this.#transport;
      if (!transport) return;
      const now = Date.now();
      const late = now - lastTick > 2 * tickMs;
      lastTick = now;
      // A late tick means this process was blocked (a synchronous tool, a long GC): frames from the service may
      // be waiting unread in the socket. Node reads them after the timers, so judge silence on the next tick.
      if (late) return;
      if (now - this.#lastHeard > 2 * intervalMs) {
        this.#options.logger.warn({ intervalMs }, 'no frame from the service within two heartbeat intervals');
        transport.terminate();
        return;
      }
      sincePing += tickMs;
      if (sincePing >= intervalMs) {
        sincePing = 0;
        transport.send(encodeFrame({ type: 'ping', id: String(++this.#pingSeq) }));
      }
    }, tickMs);
    unref(this.#heartbeat);
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #onClose(transport: Transport, code: number, reason: string): void {
    if (transport !== this.#transport) return;
    this.#transport = undefined;
    this.#stopHeartbeat();
    const wasOpen = this.#state === 'open' || this.#state === 'draining';
    this.#options.logger.info({ code, reason }, 'socket closed');
    if (wasOpen) this.#options.onDisconnected(code, reason);
    if (wasOpen && Date.now() - this.#welcomedAt >= STABLE_CONNECTION_MS) this.#attempt = 0;
    this.#lastFailure = `${code}${reason ? ` ${reason}` : ''}`;
    const fatal = FATAL_CLOSE_CODES.get(code);
    if (fatal) {
      this.#fail(
        new ConnectionError(
          fatal,
          `the service refused the connection (${code}${reason ? `: ${reason}` : ''})`,
        ),
      );
      return;
    }
    if (this.#state === 'draining') {
      this.#fail(new ConnectionError('closed', `socket closed while draining (${code})`));
      return;
    }
    this.#scheduleReconnect(code, reason);
  }

  #scheduleReconnect(code: number, reason: string): void {
    const policy = this.#options.reconnect;
    this.#attempt += 1;
    this.#unreached += 1;
    if (policy === false || this.#unreached > policy.maxAttempts) {
      const why = policy === false ? 'reconnect is disabled' : `gave up after ${policy.maxAttempts} attempts`;
      const where = displayUrl(this.#options.url);
      this.#fail(new ConnectionError('unreachable', `cannot reach ${where} (${code} ${reason}): ${why}`));
      return;
    }
    if (this.#state === 'open') this.#state = 'reconnecting';
    const delayMs = backoffDelay(this.#attempt, policy);
    this.#options.onReconnecting(this.#attempt, delayMs);
    this.#later(delayMs, () => {
      if (this.#state === 'connecting' || this.#state === 'reconnecting') void this.#open();
    });
  }

  #fail(error: ConnectionError | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#stopHeartbeat();
    this.#clearTimers();
    const transport = this.#transport;
    this.#transport = undefined;
    transport?.terminate();
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error ?? new ConnectionError('closed', 'the client was closed before it connected'));
    this.#options.onClosed(error);
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

/** Lets Node exit while only toolwire timers remain (no-op in browsers). */
function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}
