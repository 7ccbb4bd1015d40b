/**
 * The options of a {@link Connection} (src/wire/connection.ts) and of its `connect()`.
 *
 * @module
 */
import type { ConnectionError, ProtocolError } from '../errors';
import type { Logger } from '../logger';
import type { BackoffOptions } from './backoff';
import type { HeartbeatClock } from './heartbeat';
import type { LinkOptions, Welcome } from './link-options';
import type { ClientFrame, FrameOf, ServiceFrame } from './protocol';
import type { WebSocketConstructor } from './transport';

/** Reconnect policy. Durations in milliseconds. */
export interface ReconnectOptions extends BackoffOptions {
  /**
   * Consecutive attempts that do not reach the service (no `welcome`) before giving up; the client then closes.
   * A connection that was welcomed, however short, proves the service reachable and starts the count again.
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
  apiKey: string;
  WebSocket: WebSocketConstructor | undefined;
  /** `false` disables reconnecting. */
  reconnect: ReconnectOptions | false;
  /** Overrides the interval announced in `welcome`, in milliseconds. */
  heartbeatIntervalMs: number | undefined;
  /** `connect()` rejects when no `welcome` arrived within this many milliseconds. */
  connectTimeoutMs: number;
  /**
   * What `connect()` waits for before its first socket (the browser build's tracer code,
   * src/client/tracing.browser.ts), or `undefined` when nothing: the wait counts toward `connectTimeoutMs` and
   * `close()` ends it; a rejection rejects that `connect()` with its error and leaves the connection `idle`, so
   * that the next `connect()` waits again.
   */
  ready?(): Promise<void> | undefined;
  logger: Logger;
  hello(): HelloBody;
  onWelcome(welcome: Welcome): void;
  onFrame(frame: Exclude<ServiceFrame, Welcome>): void;
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
  /** The heartbeat's clock and timers. @default the system clock */
  heartbeatClock?: HeartbeatClock;
  /** Answers that can wait are held while more than this many bytes are unread by the service. @default 1 MiB */
  highWaterMarkBytes?: number;
  /** Past this many unread bytes the socket is dropped (1008) and the client resumes. @default 16 MiB */
  maxBufferedBytes?: number;
}
