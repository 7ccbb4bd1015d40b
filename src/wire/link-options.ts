/**
 * What a {@link Link} (src/wire/link.ts) needs from its connection, and how it tells that the link ended.
 *
 * @module
 */
import type { ConnectionError, ProtocolError } from '../errors';
import type { Logger } from '../logger';
import type { AttemptFailure } from './attempt-failure';
import type { RefusedFrame } from './codec';
import type { HeartbeatClock } from './heartbeat';
import type { ClientFrame, FrameOf, ServiceFrame } from './protocol';
import type { WebSocketConstructor } from './transport';

/** The `welcome` frame. */
export type Welcome = FrameOf<ServiceFrame, 'welcome'>;

/** How a link ended. */
export interface LinkClose {
  code: number;
  reason: string;
  /** The socket had its `welcome`: a disconnection, not a failed attempt. */
  welcomed: boolean;
  /** Before `welcome`: why the attempt failed, and whether trying again can help. */
  failure: AttemptFailure;
  /** The failure was already logged and reported through `onError`. */
  reported: boolean;
}

/** What a link needs from its connection. */
export interface LinkOptions {
  WebSocket: WebSocketConstructor;
  url: string;
  apiKey: string;
  /** The frame limit until `welcome` announces one: the last announced, else the protocol default. */
  maxPayloadBytes: number;
  /** Overrides the interval announced in `welcome`, in milliseconds. */
  heartbeatIntervalMs: number | undefined;
  heartbeatClock: HeartbeatClock | undefined;
  /** Answers that can wait are held while more than this many bytes are unread (see backpressure.ts). */
  highWaterMarkBytes: number;
  /** Past this many unread bytes the socket is dropped (1008) and the client resumes. */
  maxBufferedBytes: number;
  logger: Logger;
  /** The `hello` to send (with `sessionId` when resuming); the link adds `apiKey` where headers are impossible. */
  hello(): FrameOf<ClientFrame, 'hello'>;
  onWelcome(welcome: Welcome): void;
  onFrame(frame: Exclude<ServiceFrame, Welcome>): void;
  onError(error: ConnectionError | ProtocolError): void;
  onUnsendable(frame: ClientFrame, error: ConnectionError): void;
  /** A frame was refused (answered `error`, unless it is one) whose type and some ids are readable: end its waiter. */
  onRefused?(about: RefusedFrame, message: string): void;
  /** Called once, synchronously when the link itself drops the socket. */
  onClose(close: LinkClose): void;
}
