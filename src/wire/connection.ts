/**
 * The connection to the service, across sockets: open, `hello`/`welcome`, reconnect with backoff and session
 * resume (each socket is a {@link Link}, ./link.ts). The connection knows nothing of tools: it hands decoded
 * service frames to its owner (the `Client`), and tells it of every failed attempt and of every frame it could
 * not send. Nothing a socket throws escapes it. In order: the reconnect delays, the options, the
 * {@link Connection}.
 *
 * @module
 */

import { type BackoffOptions, backoffDelay } from '../backoff';
import { ConnectionError, OptionsError, type ProtocolError } from '../errors';
import { displayUrl, type Logger, scrubError, urlScrubber } from '../logger';
import { learnApiKey, type Redactor, SHORT_SECRET } from '../redact';
import { API_KEY_TIMEOUT_MS, type ApiKeySource, readApiKey } from './api-key';
import { BACKPRESSURE_DEFAULTS } from './backpressure';
import type { HeartbeatClock } from './heartbeat';
import { Link, type LinkClose, type LinkOptions, type Welcome } from './link';
import {
  CLOSE_CODES,
  type ClientFrame,
  type FrameOf,
  PROTOCOL_DEFAULTS,
  type ServiceFrame,
} from './protocol';
import {
  chooseWebSocket,
  describeThrown,
  type WebSocketChoice,
  type WebSocketConstructor,
} from './transport';

export type { Welcome } from './link';
export { HANDSHAKE_TIMEOUT_MS } from './link';

/*
 * The options of a {@link Connection} and of its `connect()`.
 */
/** Reconnect policy. Durations in milliseconds. */
export interface ReconnectOptions extends BackoffOptions {
  /**
   * Consecutive attempts that do not reach the service (no `welcome`) before giving up; the client then closes.
   * A connection that was welcomed, however short, proves the service reachable and starts the count again.
   * Not while `close()` drains: the attempts then go on until the drain's `timeoutMs`.
   * A whole number ≥ 1 or `Infinity` (`new Client()` throws `OptionsError` `invalid_option` otherwise).
   * @default Infinity
   */
  maxAttempts: number;
}

/** Options of `connect()`. */
export interface ConnectOptions {
  /**
   * Failed attempts after which `connect()` rejects (`ConnectionError` `unreachable`, the last attempt's failure
   * as its `cause`) and the client closes. `1` fails at the first attempt that does not reach `welcome`. Every
   * failed attempt is reported (an `error` event and a `warn` line) whatever this is.
   * @default reconnect.maxAttempts. With `reconnect: false` there is one attempt whatever this says, and
   *   `connectTimeoutMs` bounds the wait in any case.
   */
  maxAttempts?: number | undefined;
}

/** The `hello` frame, as the client builds it before the connection adds `sessionId` and `apiKey`. */
export type HelloBody = Omit<FrameOf<ClientFrame, 'hello'>, 'type' | 'sessionId' | 'apiKey'>;

/** What a connection needs from its owner (`onRefused`: a refused frame whose type and some ids are readable). */
export interface ConnectionOptions extends Pick<LinkOptions, 'onRefused'> {
  url: string;
  /** The key, or a function read before every connection attempt (./api-key.ts). */
  apiKey: ApiKeySource;
  /**
   * The owner's redactor: each key a key function returns is added to it before it is used anywhere (a socket,
   * a log line, an error), so that it is redacted wherever a key given as a string is. @default none
   */
  redactor?: Redactor;
  WebSocket: WebSocketConstructor | undefined;
  /** `false` disables reconnecting. */
  reconnect: ReconnectOptions | false;
  /** Overrides the interval announced in `welcome`, in milliseconds. */
  heartbeatIntervalMs: number | undefined;
  /** `connect()` rejects when no `welcome` arrived within this many milliseconds. */
  connectTimeoutMs: number;
  logger: Logger;
  /**
   * Told once more, besides `logger`, when `connect()`'s first attempt fails and another follows: a client given
   * no logger passes the console here (src/logger.ts `consoleNotice`), so that a wrong url is not silent for
   * `connectTimeoutMs`. Absent: only `logger` is told.
   */
  retryNotice?: Logger;
  hello(): HelloBody;
  onWelcome(welcome: Welcome): void;
  /**
   * A frame after `welcome`, and when it arrived (`performance.now()` time; `undefined` without a heartbeat or
   * under another `heartbeatClock`: the reader reads the clock itself).
   */
  onFrame(frame: Exclude<ServiceFrame, Welcome>, heardAt: number | undefined): void;
  onDisconnected(code: number, reason: string): void;
  onReconnecting(attempt: number, delayMs: number): void;
  onClosed(error: ConnectionError | undefined): void;
  /**
   * Something went wrong that does not end the connection by itself: a failed attempt (before it is retried or
   * given up on), a 4009, a frame the service got wrong that cannot be answered, a frame that could not be sent.
   */
  onError(error: ConnectionError | ProtocolError): void;
  /**
   * `frame` was not sent and never will be as it is: it cannot be encoded (`unencodable_frame`), is over the
   * service's `maxPayloadBytes` (`frame_too_large`), or the socket threw on it (`send_failed`; the socket is then
   * dropped and the client reconnects, so a frame re-sent as it was may throw again). Called after `onError`.
   */
  onUnsendable(frame: ClientFrame, error: ConnectionError): void;
  /**
   * A reconnection's `hello` was refused with 4010 for this tool's fleet limits (docs/protocol/fleet-limits.md: a tool
   * added since, whose refusal never came, or came while the socket was down). `true` when the owner no longer
   * offers it: the connection then starts a new session with the `hello` it makes now, as a 4010 ends the refused
   * one. Absent, or `false`: the connection closes, as for any 4010.
   */
  onFleetRefused?(toolName: string): boolean;
  /** The heartbeat's clock and timers. @default the system clock */
  heartbeatClock?: HeartbeatClock;
  /** Answers that can wait are held while more than this many bytes are unread by the service. @default 1 MiB */
  highWaterMarkBytes?: number;
  /** Past this many unread bytes the socket is dropped (1008) and the client resumes. @default 16 MiB */
  maxBufferedBytes?: number;
}

/** The connection's state. Leaving a state cleans up what it owned (timers, sockets). */
export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'draining' | 'closed';

/** A connection open this long (milliseconds) resets the backoff; a shorter one counts as a failed attempt. */
export const STABLE_CONNECTION_MS = 5_000;

/**
 * The longest wait between attempts to reopen the socket while draining, in milliseconds: a drain has its results
 * to deliver within its `timeoutMs`, and a backoff grown during an outage (up to `reconnect.maxDelayMs`) would let
 * it sleep through the service's return. The delays keep their full jitter, under this ceiling.
 */
export const DRAIN_RECONNECT_MAX_DELAY_MS = 1_000;

/**
 * The longest an attempt to reopen the socket may take to reach `welcome` while draining, in milliseconds from its
 * start ({@link HANDSHAKE_TIMEOUT_MS} otherwise): an attempt stuck in any step (an `apiKey` function that does not
 * answer, a WebSocket class that does not load, a port that accepts TCP but never answers the upgrade, a service
 * that never answers `hello`) is cut then, and the next one follows at the drain's pace. The steps share the one
 * bound, counted from before the key is read, so that an attempt never holds the drain longer whichever step
 * stalls. Two seconds leave a live service room for TCP, TLS, the upgrade and `hello`/`welcome` over a slow link
 * (about five round trips of 300 ms), where one would cut it every time.
 */
export const DRAIN_HANDSHAKE_TIMEOUT_MS = 2_000;

/** The backoff while draining: `policy`'s, its delays at most {@link DRAIN_RECONNECT_MAX_DELAY_MS}. */
function drainBackoff(policy: BackoffOptions): BackoffOptions {
  return {
    initialDelayMs: Math.min(policy.initialDelayMs, DRAIN_RECONNECT_MAX_DELAY_MS),
    maxDelayMs: Math.min(policy.maxDelayMs, DRAIN_RECONNECT_MAX_DELAY_MS),
  };
}

/** One logical connection to the service, which may span many sockets (one {@link Link} each). */
export class Connection {
  #state: ConnectionState = 'idle';
  /** {@link drain} was called: a socket opened from now on is draining too. */
  #draining = false;
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
  /** The smallest frame the service closed a socket with 1009 for, in bytes; never written again. */
  #refusedBytes = Number.POSITIVE_INFINITY;
  /** {@link maxPayloadBytes}, kept as it changes (on `welcome` and on a 1009): every result frame reads it. */
  #frameLimit: number;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  /** The timer of the next attempt while it waits out its backoff delay, and when it is due (`performance.now()`). */
  #retry: { timer: ReturnType<typeof setTimeout>; at: number } | undefined;
  #pending: { resolve(welcome: Welcome): void; reject(error: ConnectionError): void } | undefined;
  readonly #options: ConnectionOptions;
  /** Finds the WebSocket and how it is called, chosen for the runtime when the connection is made. */
  readonly #socket: () => Promise<WebSocketChoice>;
  /** The key the current attempt presented (read from a key function, or the key itself). */
  #key: string | undefined;
  /** Counts attempts: an attempt whose number is no longer this one was cut, and what it awaited is ignored. */
  #attemptId = 0;
  /** When the current attempt began (`performance.now()`), before its key was read. */
  #attemptStartedAt = 0;
  /** What the current attempt awaits before it has a socket: its key (a key function), or the WebSocket class. */
  #preparing: 'key' | 'socket' | undefined;
  /** Ends the wait for an `apiKey` function's key when its attempt is given up (closed, or cut by a drain). */
  #keyRead: AbortController | undefined;
  /** While draining: the timer that cuts the attempt being prepared {@link DRAIN_HANDSHAKE_TIMEOUT_MS} after it began. */
  #cut: ReturnType<typeof setTimeout> | undefined;
  /** The key of a refused attempt that a key function is being read again for. */
  #refusedKey: string | undefined;
  /** A refusal was met by reading the key again since the last `welcome` (a second refusal ends the connection). */
  #refusalRetried = false;

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#socket = chooseWebSocket(options.WebSocket);
    this.#frameLimit = this.#computeFrameLimit();
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
   * or `maxBufferedBytes` when smaller (a larger frame would drop every socket it is written on), or one byte under
   * the smallest frame the service closed a socket with 1009 for (it would refuse it again). What frames are
   * cut to.
   */
  get maxPayloadBytes(): number {
    return this.#frameLimit;
  }

  #computeFrameLimit(): number {
    const buffered = this.#options.maxBufferedBytes ?? BACKPRESSURE_DEFAULTS.maxBufferedBytes;
    return Math.min(this.#serviceLimit, buffered, this.#refusedBytes - 1);
  }

  /** Largest frame the service accepts and sends (from `welcome`, else the protocol default). */
  get #serviceLimit(): number {
    return this.#welcome?.maxPayloadBytes ?? PROTOCOL_DEFAULTS.maxPayloadBytes;
  }

  /** Bytes waiting in the current socket's send buffer (0 when there is no socket). */
  get bufferedAmount(): number {
    return this.#link?.bufferedAmount ?? 0;
  }

  /** A writer found no room: the socket asks the service to prove it read what was written. */
  askProof(): void {
    this.#link?.askProof();
  }

  /** `true` when frames can be sent now. */
  get writable(): boolean {
    return this.#state === 'open' || this.#state === 'draining';
  }

  /**
   * Opens the connection. Resolves with the first `welcome`.
   * @throws ConnectionError `unauthorized`, `unsupported_protocol`, `upgrade_failed` and `invalid_welcome` (not a
   *   toolwire service: ./link.ts `AttemptFailure.notTheProtocol`), `connect_timeout`, `unreachable` (after
   *   `maxAttempts` failed attempts; the last one is the `cause`), `hello_too_large`, `invalid_url` or `closed`;
   *   `already_connecting` while a first call is connecting, `already_connected` once one has resolved.
   * @throws OptionsError `invalid_option` when `maxAttempts` is not a whole number ≥ 1 or Infinity.
   * @param timeoutMs - how long the first `welcome` may take: what is left of `connectTimeoutMs` when the owner
   *   spent part of it before (a browser client waiting for its code); the whole of it when omitted.
   */
  connect(options: ConnectOptions = {}, timeoutMs = this.#options.connectTimeoutMs): Promise<Welcome> {
    if (this.#state === 'closed') {
      return Promise.reject(
        new ConnectionError('closed', 'this client is closed; create a new Client to connect again'),
      );
    }
    if (this.#state === 'connecting') return Promise.reject(alreadyConnecting());
    if (this.#state !== 'idle') {
      // open, draining or reconnecting: the first connect() resolved, and the client reconnects by itself.
      return Promise.reject(
        new ConnectionError(
          'already_connected',
          `already connected (${this.#state}); call connect() once: the client reconnects by itself`,
        ),
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
    // `connectTimeoutMs` after the owner's `connect()` began, whatever part of it the owner spent first.
    this.#later(timeoutMs, () => {
      if (!this.#pending) return;
      const last = this.#lastFailure;
      const { url, connectTimeoutMs } = this.#options;
      const message = `no welcome from ${displayUrl(url)} within ${connectTimeoutMs}ms${last ? ` (last attempt: ${last.message})` : ''}${refusedHint(last)}`;
      this.#fail(new ConnectionError('connect_timeout', message, last ? { cause: last } : undefined));
    });
    void this.#open();
    return promise;
  }

  /**
   * Sends a frame when the socket is open. Returns `false` (and sends nothing) when it is not; a frame that
   * cannot be sent as it is is also reported through `onError` and `onUnsendable`.
   */
  send(frame: ClientFrame): boolean {
    if (!this.writable || !this.#link) return false;
    return this.#link.send(frame);
  }

  /**
   * Marks the connection as draining: open, but the owner takes no new work. A socket that closes meanwhile, or
   * was down, is opened again (the session resumed, to deliver what the owner still has to send), and stays
   * draining; until then the attempts come at most {@link DRAIN_RECONNECT_MAX_DELAY_MS} apart, sooner than a
   * backoff grown during the outage would make them, each cut {@link DRAIN_HANDSHAKE_TIMEOUT_MS} after it began
   * without `welcome` (the one under way now too, whether it waits for its key, the WebSocket class or the
   * service), and `reconnect.maxAttempts` no longer ends them: the owner's deadline does, by {@link close}.
   */
  drain(): void {
    this.#draining = true;
    if (this.#state === 'open') this.#state = 'draining';
    // An attempt under way is cut at the drain's pace too, not HANDSHAKE_TIMEOUT_MS after it began: in its
    // handshake, or still reading its key or loading the WebSocket class.
    this.#link?.handshakeWithin(DRAIN_HANDSHAKE_TIMEOUT_MS);
    this.#cutPreparing();
    const retry = this.#retry;
    const policy = this.#options.reconnect;
    if (retry === undefined || policy === false) return;
    if (retry.at - performance.now() <= DRAIN_RECONNECT_MAX_DELAY_MS) return;
    clearTimeout(retry.timer);
    this.#timers.delete(retry.timer);
    this.#retry = undefined;
    this.#retryLater(policy);
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
    const attempt = ++this.#attemptId;
    this.#attemptStartedAt = performance.now();
    this.#preparing = 'key';
    if (this.#draining) this.#cutPreparing();
    let key: string;
    const source = this.#options.apiKey;
    if (typeof source === 'string') key = source;
    else {
      // A key function: read before every attempt; a throw, a hang or a bad value fails this attempt only.
      const { redactor } = this.#options;
      const keyRead = new AbortController();
      this.#keyRead = keyRead;
      const read = await readApiKey(source, this.#key, API_KEY_TIMEOUT_MS, redactor, keyRead.signal);
      if (this.#keyRead === keyRead) this.#keyRead = undefined;
      if (!read.ok) {
        if (this.#state !== 'closed' && attempt === this.#attemptId) {
          this.#prepared();
          this.#attemptFailed({ error: read.error, fatal: false }, false);
        }
        return;
      }
      key = read.key;
      // Known to the redactor before anything can show it, even when the client closed meanwhile.
      if (redactor !== undefined && learnApiKey(redactor, key) && key.length < SHORT_SECRET) {
        this.#options.logger.warn(
          { length: key.length },
          `the apiKey function returned a key shorter than ${SHORT_SECRET} characters: it is not searched for inside the texts tools return, log and throw, only replaced where it is a whole value; use a longer key in production`,
        );
      }
      // Cut meanwhile (a draining connection's pace): the next attempt reads the key again.
      if (this.#state === 'closed' || attempt !== this.#attemptId) return;
      const refused = this.#refusedKey;
      this.#refusedKey = undefined;
      if (refused !== undefined && refused === key) {
        const message = `the service refused the API key, and the apiKey function returned the same key again`;
        this.#refusedForGood(new ConnectionError('unauthorized', message));
        return;
      }
    }
    this.#key = key;
    this.#preparing = 'socket';
    let socket: WebSocketChoice;
    try {
      socket = await this.#socket();
    } catch (error) {
      if (attempt !== this.#attemptId) return;
      // A loader that knew what went wrong said so (src/wire/ws.ts: `ws` in an ES module bundle).
      if (error instanceof ConnectionError && error.code === 'no_websocket') this.#fail(error);
      else {
        const message = `no WebSocket implementation found (${describeThrown(error)}); pass \`WebSocket\` (e.g. \`import { WebSocket } from 'ws'\`)`;
        this.#fail(new ConnectionError('no_websocket', message, { cause: error }));
      }
      return;
    }
    if (this.#state === 'closed' || attempt !== this.#attemptId) return;
    this.#prepared();
    const options = this.#options;
    try {
      const link: Link = new Link({
        WebSocket: socket.WebSocket,
        style: socket.style,
        url: options.url,
        apiKey: key,
        startedAt: this.#attemptStartedAt,
        maxPayloadBytes: this.#serviceLimit,
        heartbeatIntervalMs: options.heartbeatIntervalMs,
        heartbeatClock: options.heartbeatClock,
        refusedBytes: this.#refusedBytes,
        onTooBig: (bytes) => {
          this.#refusedBytes = Math.min(this.#refusedBytes, bytes);
          this.#frameLimit = this.#computeFrameLimit();
        },
        highWaterMarkBytes: options.highWaterMarkBytes ?? BACKPRESSURE_DEFAULTS.highWaterMarkBytes,
        maxBufferedBytes: options.maxBufferedBytes ?? BACKPRESSURE_DEFAULTS.maxBufferedBytes,
        logger: options.logger,
        hello: () => ({
          type: 'hello',
          ...options.hello(),
          ...(this.#sessionId === undefined ? {} : { sessionId: this.#sessionId }),
        }),
        onWelcome: (welcome) => this.#onWelcome(link, welcome),
        // Every frame of every call passes here: guarded in place, with no closure made per frame.
        onFrame: (frame, heardAt) => {
          if (link !== this.#link) return;
          try {
            options.onFrame(frame, heardAt);
          } catch (error) {
            this.#ownerThrew(error);
          }
        },
        onError: (error) => this.#guard(() => options.onError(error)),
        onUnsendable: (frame, error) => this.#guard(() => options.onUnsendable(frame, error)),
        onRefused: (about, message) => this.#guard(() => options.onRefused?.(about, message)),
        onClose: (close) => {
          if (link === this.#link) this.#onClose(close);
        },
      });
      if (this.#draining) link.handshakeWithin(DRAIN_HANDSHAKE_TIMEOUT_MS);
      this.#link = link;
    } catch (error) {
      // An invalid URL throws at once everywhere (no retry can fix it); its message may quote the URL.
      const shown = displayUrl(options.url);
      const scrub = urlScrubber(options.url);
      this.#fail(
        new ConnectionError('invalid_url', `cannot open ${shown}: ${scrub(describeThrown(error))}`, {
          cause: scrubError(error, scrub),
        }),
      );
    }
  }

  /**
   * While draining, cuts the attempt still reading its key or loading the WebSocket class
   * {@link DRAIN_HANDSHAKE_TIMEOUT_MS} after it began, as its handshake would be (./link.ts `handshakeWithin`):
   * the attempt fails (`api_key_failed`, `handshake_timeout`) and the next follows at the drain's pace; what the
   * step gives later is ignored. Nothing when no attempt is being prepared, or its cut is set already.
   */
  #cutPreparing(): void {
    if (this.#preparing === undefined || this.#cut !== undefined) return;
    const attempt = this.#attemptId;
    const left = Math.max(0, this.#attemptStartedAt + DRAIN_HANDSHAKE_TIMEOUT_MS - performance.now());
    this.#cut = this.#later(left, () => {
      this.#cut = undefined;
      const step = this.#preparing;
      if (step === undefined || attempt !== this.#attemptId || this.#state === 'closed') return;
      this.#preparing = undefined;
      this.#attemptId += 1;
      this.#keyRead?.abort();
      this.#attemptFailed({ error: preparationTimeout(step, this.#options.url), fatal: false }, false);
    });
  }

  /** The attempt has its key and WebSocket class (or failed before): nothing left for {@link #cutPreparing}. */
  #prepared(): void {
    this.#preparing = undefined;
    if (this.#cut === undefined) return;
    clearTimeout(this.#cut);
    this.#timers.delete(this.#cut);
    this.#cut = undefined;
  }

  #onWelcome(link: Link, given: Welcome): void {
    if (link !== this.#link) return;
    // `resumed` with another session than the one `hello` asked for (or none) resumes nothing the client held there:
    // it is a new session (its runs end `session_lost`, docs/protocol/lifecycle.md).
    const asked = this.#sessionId;
    let welcome = given;
    if (given.resumed && given.sessionId !== asked) {
      this.#options.logger.warn(
        { sessionId: given.sessionId },
        `the service said it resumed session ${given.sessionId}, but the client asked for ${asked ?? 'a new one'}; taken as a new session`,
      );
      welcome = { ...given, resumed: false };
    }
    this.#welcome = welcome;
    this.#frameLimit = this.#computeFrameLimit();
    this.#sessionId = welcome.sessionId;
    // The attempt count is reset only once the connection proved stable (see #onClose), so a service that
    // welcomes and then drops at once still meets a growing backoff instead of a reconnect storm.
    this.#welcomedAt = performance.now();
    this.#failed = 0;
    this.#refusalRetried = false;
    if (this.#state === 'connecting' || this.#state === 'reconnecting')
      this.#state = this.#draining ? 'draining' : 'open';
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
      if (performance.now() - this.#welcomedAt >= STABLE_CONNECTION_MS) this.#attempt = 0;
      this.#afterDisconnect(code, reason);
      return;
    }
    this.#attemptFailed(failure, reported);
  }

  /**
   * A key function is read once more after a refusal (4001, HTTP 401/403): `true` when an attempt with the key it
   * gives is under way (a different key; the same one ends the connection there).
   */
  #retryRefusedKey(error: ConnectionError): boolean {
    if (typeof this.#options.apiKey === 'string' || error.code !== 'unauthorized') return false;
    if (this.#refusalRetried || this.#key === undefined) return false;
    this.#refusalRetried = true;
    this.#refusedKey = this.#key;
    this.#options.logger.warn({ code: error.code }, `${error.message}; reading the API key again`);
    if (this.#state === 'open' || this.#state === 'draining') this.#state = 'reconnecting';
    void this.#open();
    return true;
  }

  /**
   * A reconnection refused with 4010 for `tool` (named by the close reason, ./link.ts `AttemptFailure.refusedTool`),
   * which the owner then stops offering ({@link ConnectionOptions.onFleetRefused}): a new session, at once. Never for
   * `connect()`'s own attempts: a client whose first `hello` is refused was told so by `connect()`.
   */
  #retryRefusedTool(error: ConnectionError, tool: string | undefined): boolean {
    if (tool === undefined || this.#state !== 'reconnecting') return false;
    if (this.#options.onFleetRefused?.(tool) !== true) return false;
    this.#sessionId = undefined;
    this.#options.logger.warn(
      { code: error.code, tool },
      `${error.message}; starting a new session without ${tool}`,
    );
    this.#scheduleReconnect();
    return true;
  }

  /** An attempt that did not reach `welcome` (its socket closed, or its key could not be read). */
  #attemptFailed(failure: LinkClose['failure'], reported: boolean): void {
    this.#failed += 1;
    const { error, fatal } = failure;
    this.#lastFailure = error;
    const failedText = `connection attempt ${this.#failed} failed: ${error.message}`;
    if (!reported) {
      this.#options.logger.warn({ attempt: this.#failed, code: error.code }, failedText);
      this.#guard(() => this.#options.onError(error));
    }
    const policy = this.#options.reconnect;
    const url = displayUrl(this.#options.url);
    const attempts = `${this.#failed} attempt${this.#failed === 1 ? '' : 's'}`;
    if (fatal) {
      if (!this.#retryRefusedKey(error) && !this.#retryRefusedTool(error, failure.refusedTool))
        this.#fail(error);
    } else if (this.#state === 'connecting') {
      // No toolwire service at the address, before any session worked there: the URL is wrong (./link.ts).
      if (failure.notTheProtocol === true) this.#fail(error);
      else if (this.#failed >= this.#connectMaxAttempts) {
        const message = `cannot reach ${url} after ${attempts}: ${error.message}${refusedHint(error)}`;
        this.#fail(new ConnectionError('unreachable', message, { cause: error }));
      } else {
        if (this.#failed === 1) {
          // `connect({ maxAttempts })` (or `reconnect.maxAttempts`) may end it before `connectTimeoutMs`.
          const max = this.#connectMaxAttempts;
          const limit = Number.isFinite(max) ? `${max} attempts or ` : '';
          this.#options.retryNotice?.warn(
            { code: error.code },
            `${failedText}${refusedHint(error)}; trying again until connect() gives up after ${limit}${this.#options.connectTimeoutMs} ms (connectTimeoutMs); give the client a logger to see every attempt`,
          );
        }
        this.#scheduleReconnect();
      }
    } else if (policy === false || (!this.#draining && this.#failed >= policy.maxAttempts)) {
      // Not while draining: the drain's `timeoutMs` bounds the attempts then (the owner closes at it).
      const message = `cannot reach ${url}: ${error.message}; gave up after ${attempts}${refusedHint(error)}`;
      this.#fail(new ConnectionError('unreachable', message, { cause: error }));
    } else this.#scheduleReconnect();
  }

  /** After a welcomed socket closed: stop, start a new session, or resume. */
  #afterDisconnect(code: number, reason: string): void {
    const detail = `${code}${reason ? `: ${reason}` : ''}`;
    if (
      code === CLOSE_CODES.unauthorized ||
      code === CLOSE_CODES.unsupportedProtocol ||
      code === CLOSE_CODES.fleetConflict
    ) {
      const errorCode =
        code === CLOSE_CODES.unauthorized
          ? 'unauthorized'
          : code === CLOSE_CODES.fleetConflict
            ? 'fleet_conflict'
            : 'unsupported_protocol';
      const error = new ConnectionError(errorCode, `the service refused the connection (${detail})`);
      // A revoked key (docs/protocol/keys.md): a key function may have the new one.
      if (!this.#retryRefusedKey(error)) this.#refusedForGood(error);
      return;
    }
    if (code === CLOSE_CODES.sessionReplaced) {
      // docs/protocol/sessions.md and docs/protocol/errors.md: never reconnect with that session id; a new session is
      // the way back.
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
    if (this.#state === 'open' || this.#state === 'draining') this.#state = 'reconnecting';
    this.#retryLater(policy);
  }

  /**
   * Opens a socket after this attempt's backoff delay (under {@link DRAIN_RECONNECT_MAX_DELAY_MS} while draining),
   * and says when. The timer is set before the owner is told, so that a `close()` from its listener finds it.
   */
  #retryLater(policy: BackoffOptions): void {
    const delayMs = backoffDelay(this.#attempt, this.#draining ? drainBackoff(policy) : policy);
    const timer = this.#later(delayMs, () => {
      if (this.#retry?.timer === timer) this.#retry = undefined;
      if (this.#state === 'connecting' || this.#state === 'reconnecting') void this.#open();
    });
    this.#retry = { timer, at: performance.now() + delayMs };
    this.#guard(() => this.#options.onReconnecting(this.#attempt, delayMs));
  }

  /**
   * The service refused this client in a way retrying cannot mend: the `error` event, then `closed` with the same
   * error (docs/guide/client.md), as an attempt refused at the upgrade does.
   */
  #refusedForGood(error: ConnectionError): void {
    if (this.#state === 'closed') return;
    this.#guard(() => this.#options.onError(error));
    this.#fail(error);
  }

  #fail(error: ConnectionError | undefined): void {
    if (this.#state === 'closed') return;
    // Once connected, no `connect()` is left to reject: an application that listens for no event learns from this
    // line that the client has stopped for good (e.g. its resume refused with 4010) and serves no more calls.
    if (error !== undefined && this.#pending === undefined) {
      this.#options.logger.error(
        { code: error.code },
        `the client closed for good and serves no more calls: ${error.message}`,
      );
    }
    this.#state = 'closed';
    this.#clearTimers();
    this.#keyRead?.abort();
    const link = this.#link;
    this.#link = undefined;
    link?.abandon();
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error ?? closedBeforeConnected());
    this.#guard(() => this.#options.onClosed(error));
  }

  /** Runs an owner callback; a throw is logged and reported, never left to unwind into a socket's event handler. */
  #guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#ownerThrew(error);
    }
  }

  /** An owner callback threw: logged and reported. */
  #ownerThrew(error: unknown): void {
    const message = `the client failed while handling the connection: ${describeThrown(error)}`;
    const failure = new ConnectionError('internal', message, { cause: error });
    this.#options.logger.error({ code: failure.code }, failure.message);
    try {
      this.#options.onError(failure);
    } catch {
      // The error reporter itself failed: the log line above is all that can be done.
    }
  }

  #later(ms: number, fn: () => void): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    // Not unref'd: while connecting or reconnecting, the client keeps the process alive (as an open socket
    // would), so a tool server does not exit during an outage. `close()` clears every timer.
    this.#timers.add(timer);
    return timer;
  }

  #clearTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#retry = undefined;
    this.#cut = undefined;
  }
}

/**
 * `close()` ended a `connect()` that had not connected yet: here, and in a client whose first `connect()` still
 * waits for code before the socket opens (src/client/client.ts).
 */
export function closedBeforeConnected(): ConnectionError {
  return new ConnectionError('closed', 'the client was closed before it connected');
}

/**
 * `connect()` called again while a first call is connecting: here, and in a client whose first `connect()` still
 * waits for code before the socket opens (src/client/client.ts).
 */
export function alreadyConnecting(): ConnectionError {
  return new ConnectionError(
    'already_connecting',
    'connect() is already connecting; await the first call instead of calling it again',
  );
}

/** After an error whose last attempt found nothing listening: the service is not running there, or the url is wrong. */
function refusedHint(last: ConnectionError | undefined): string {
  return last?.code === 'connection_refused'
    ? '; nothing accepts connections there: start the service (the stand-in: npx toolwire-stub) or check the url'
    : '';
}

/**
 * An attempt cut while draining before it had a socket: its key function had not answered (`api_key_failed`, in
 * the words of ./api-key.ts), or the WebSocket class had not loaded (`handshake_timeout`).
 */
function preparationTimeout(step: 'key' | 'socket', url: string): ConnectionError {
  const ms = DRAIN_HANDSHAKE_TIMEOUT_MS;
  return step === 'key'
    ? new ConnectionError('api_key_failed', `the apiKey function did not answer within ${ms}ms`)
    : new ConnectionError(
        'handshake_timeout',
        `${displayUrl(url)}: the WebSocket class did not load within ${ms} ms`,
      );
}
