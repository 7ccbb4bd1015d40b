/**
 * One socket of a {@link Connection}, from its upgrade to its close: the subprotocol check, `hello`, `welcome`,
 * the frame limit on receive, the heartbeat, answers to `ping` and to frames the service got wrong, and every
 * write. Nothing the socket throws escapes: a socket that throws on `send` is dropped. When the socket closes
 * before `welcome`, the link says why (see {@link attemptFailure}).
 *
 * @module
 */

import { ConnectionError, ProtocolError } from '../errors';
import { type AttemptFailure, attemptFailure, unsupportedProtocol } from './attempt-failure';
import { Backpressure } from './backpressure';
import {
  decodeServiceFrame,
  encodeFrame,
  isRefusedErrorFrame,
  type RefusalCode,
  type RefusedFrame,
  refusal,
} from './codec';
import { describeThrown } from './describe-thrown';
import {
  beforeWelcome,
  type EarlyFrame,
  HANDSHAKE_TIMEOUT_MS,
  handshakeTimeout,
  helloText,
  welcomeAgainLog,
} from './handshake';
import { type Heartbeat, startHeartbeat, systemClock } from './heartbeat';
import { droppedFieldsLog } from './informative';
import type { LinkOptions, Welcome } from './link-options';
import { CLOSE_CODES, type ClientFrame, type ServiceFrame, SUBPROTOCOL, utf8Length } from './protocol';
import { canSendHeaders, openTransport, type Transport } from './transport';

export { HANDSHAKE_TIMEOUT_MS } from './handshake';

/** Close code reported for a socket this client dropped without a close handshake (RFC 6455 §7.1.5). */
const ABNORMAL_CLOSURE = 1006;

type Verdict = AttemptFailure & { reported: boolean };

/** One socket. Opening throws only for a URL the runtime refuses outright. */
export class Link {
  readonly #options: LinkOptions;
  readonly #transport: Transport;
  readonly #sendsHeaders: boolean;
  readonly #handshakeTimer: ReturnType<typeof setTimeout>;
  #opened = false;
  #welcomed = false;
  #closed = false;
  #verdict: Verdict | undefined;
  #heartbeat: Heartbeat | undefined;
  /** The service's frame limit: what a frame read may take (`welcome.maxPayloadBytes`, else the protocol's). */
  #maxPayloadBytes: number;
  /**
   * The largest frame written: the service's limit, or `maxBufferedBytes` when smaller. A frame over it would pass
   * the hard limit of backpressure.ts by itself, and be written again on every new socket for ever.
   */
  #sendLimit: number;
  readonly #dropped: (frame: ServiceFrame, dropped: readonly string[]) => void;
  readonly #welcomeAgain: () => void;
  /**
   * The largest frame written on this socket (by length): when the service closes with 1009 (frame too big), it is
   * the one it refused, though it was within the announced limit. Re-sent as is, it would be refused every time.
   */
  #largest: { frame: ClientFrame; length: number } | undefined;
  readonly #budget: Backpressure;

  constructor(options: LinkOptions) {
    this.#options = options;
    this.#maxPayloadBytes = options.maxPayloadBytes;
    this.#sendLimit = Math.min(options.maxPayloadBytes, options.maxBufferedBytes);
    this.#dropped = droppedFieldsLog(options.logger, 'service');
    this.#welcomeAgain = welcomeAgainLog(options.logger);
    this.#sendsHeaders = canSendHeaders(options.WebSocket);
    const headers = { Authorization: `Bearer ${options.apiKey}` };
    this.#transport = openTransport(
      options.WebSocket,
      options.url,
      { headers, maxPayloadBytes: options.maxPayloadBytes },
      {
        onOpen: () => this.#onOpen(),
        onMessage: (text) => this.#onMessage(text),
        onBinary: () => this.#onBinary(),
        onClose: (code, reason, failure) => {
          const { url } = options;
          const facts = {
            url,
            code,
            reason,
            failure,
            opened: this.#opened,
            sendsHeaders: this.#sendsHeaders,
          };
          if (code === CLOSE_CODES.tooBig && failure.error === undefined && this.#verdict === undefined)
            this.#refusedBySize();
          this.#onClose(code, reason, this.#verdict ?? attemptFailure(facts));
        },
      },
    );
    this.#handshakeTimer = setTimeout(() => this.#handshakeTimedOut(), HANDSHAKE_TIMEOUT_MS);
    const clock = options.heartbeatClock ?? systemClock;
    this.#budget = new Backpressure({
      softLimitBytes: options.highWaterMarkBytes,
      hardLimitBytes: options.maxBufferedBytes,
      reported: () => this.#transport.bufferedAmount,
      // `ws` reports its unsent bytes exactly and at once; another WebSocket may not (see backpressure.ts).
      countsOwn: !this.#sendsHeaders,
      now: () => clock.now(),
      write: (text, type) => this.#write(text, type),
      overflow: (message) => {
        this.#options.logger.warn({ code: CLOSE_CODES.policyViolation }, message);
        this.#drop(undefined, 'the service is not reading', CLOSE_CODES.policyViolation);
      },
    });
  }

  /** Bytes written and not yet read by the service, as best known, plus answers held back (backpressure.ts). */
  get bufferedAmount(): number {
    return this.#budget.pendingBytes;
  }

  /**
   * Sends a frame. Returns `false` when it was not sent; a frame that cannot be sent as it is (not JSON, over the
   * limit, or the socket threw on it) is also reported through `onError` and `onUnsendable`.
   */
  send(frame: ClientFrame): boolean {
    if (this.#closed) return false;
    let text: string;
    try {
      text = encodeFrame(frame);
    } catch (error) {
      const message = `a ${frame.type} frame could not be encoded as JSON: ${describeThrown(error)}`;
      this.#unsendable(frame, new ConnectionError('unencodable_frame', message, { cause: error }));
      return false;
    }
    const limit = this.#sendLimit;
    if (text.length * 3 > limit && utf8Length(text) > limit) {
      const message = `a ${frame.type} frame of ${utf8Length(text)} bytes is over ${limitName(limit, this.#maxPayloadBytes)}; not sent`;
      this.#unsendable(frame, new ConnectionError('frame_too_large', message));
      return false;
    }
    if (frame.type === 'tool_result') {
      // A retryable answer ("busy") may wait while the service does not read; a real result makes it obsolete.
      if (frame.retryable === true) return this.#budget.busy(frame.callId, text);
      this.#budget.answered(frame.callId);
    }
    return this.#write(text, frame.type, frame);
  }

  /** Closes politely; `onClose` is not called. */
  close(code: number, reason: string): void {
    this.#stop();
    this.#transport.close(code, reason);
  }

  /** Drops the socket at once; `onClose` is not called. */
  abandon(): void {
    this.#stop();
    this.#transport.terminate(CLOSE_CODES.normal, 'client closed');
  }

  #onOpen(): void {
    if (this.#closed) return;
    this.#opened = true;
    // Browsers complete an upgrade whose answer selects no subprotocol; `ws` refuses it before this point.
    const protocol = this.#transport.protocol;
    if (protocol !== undefined && protocol !== SUBPROTOCOL) {
      this.#drop({ ...unsupportedProtocol(this.#options.url), reported: false }, 'no subprotocol');
      return;
    }
    const hello = helloText(
      this.#options.hello,
      this.#sendsHeaders ? undefined : this.#options.apiKey,
      this.#sendLimit,
    );
    if (!('text' in hello)) {
      this.#drop({ ...hello, reported: false }, hello.error.code.replaceAll('_', ' '));
      return;
    }
    this.#write(hello.text, 'hello');
  }

  #onMessage(text: string): void {
    if (this.#closed) return;
    this.#heartbeat?.heard();
    const decoded = decodeServiceFrame(text, this.#maxPayloadBytes);
    if (this.#notWelcome(decoded)) return;
    if (!decoded.ok) {
      // A peer never answers an error frame with an error frame (PROTOCOL.md §12): only this process can be told.
      if (isRefusedErrorFrame(decoded)) {
        const message = `invalid frame from the service (not answered: it is an error frame): ${decoded.message}`;
        if (this.#budget.mayAnswerError(0) !== undefined)
          this.#options.logger.warn({ code: decoded.code }, message);
        this.#options.onError(new ProtocolError(decoded.code, message));
        if (decoded.about !== undefined) this.#options.onRefused?.(decoded.about, decoded.message);
        return;
      }
      this.#refuse(decoded.code, decoded.message, decoded.about);
      if (decoded.about !== undefined) this.#options.onRefused?.(decoded.about, decoded.message);
      return;
    }
    const frame = decoded.frame;
    if (decoded.dropped !== undefined) this.#dropped(frame, decoded.dropped);
    // A welcome after the first is ignored: nothing of it is adopted (PROTOCOL.md §3).
    if (frame.type === 'welcome') {
      if (this.#welcomed) this.#welcomeAgain();
      else this.#onWelcome(frame);
    } else if (frame.type === 'ping') {
      const pong = encodeFrame({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) });
      this.#budget.ping(frame.id, pong);
    } else if (frame.type === 'pong') this.#budget.ponged(frame.id);
    else this.#options.onFrame(frame);
  }

  #onBinary(): void {
    if (this.#closed || this.#notWelcome('binary')) return;
    this.#heartbeat?.heard();
    this.#refuse('invalid_frame', 'binary frames are not part of the protocol; send JSON text frames');
  }

  /** Answers a frame the service got wrong with `error` (PROTOCOL.md §12), naming its readable ids; stays up. */
  #refuse(code: RefusalCode, message: string, about?: RefusedFrame): void {
    const answer = refusal(code, message, about);
    const text = encodeFrame(answer);
    // At most ERROR_FRAMES_PER_INTERVAL answers (and log lines) a second, none while the service does not read.
    const unanswered = this.#budget.mayAnswerError(utf8Length(text));
    if (unanswered === undefined || this.#closed) return;
    const more = unanswered > 0 ? ` (${unanswered} more invalid frames before it were not answered)` : '';
    const { type: _, message: __, ...fields } = answer;
    this.#options.logger.warn({ ...fields, unanswered }, `invalid frame from the service: ${message}${more}`);
    this.#write(text, 'error');
  }

  /** Before the first `welcome`, ends the attempt on a frame that cannot come before it (PROTOCOL.md §3). */
  #notWelcome(early: EarlyFrame): boolean {
    const ended = this.#welcomed ? undefined : beforeWelcome(this.#options.url, early);
    if (ended === undefined) return false;
    // Closed (not dropped) so that the service learns why; the attempt ends now, not at the close handshake.
    const { failure, reason } = ended;
    this.#verdict = { ...failure, reported: false };
    this.#transport.close(CLOSE_CODES.helloExpected, reason);
    this.#onClose(CLOSE_CODES.helloExpected, reason, failure);
    return true;
  }

  #onWelcome(welcome: Welcome): void {
    this.#welcomed = true;
    clearTimeout(this.#handshakeTimer);
    this.#maxPayloadBytes = welcome.maxPayloadBytes;
    this.#sendLimit = Math.min(welcome.maxPayloadBytes, this.#options.maxBufferedBytes);
    this.#transport.setMaxPayload(welcome.maxPayloadBytes);
    this.#startHeartbeat(this.#options.heartbeatIntervalMs ?? welcome.heartbeatIntervalMs);
    this.#options.onWelcome(welcome);
  }

  #startHeartbeat(requestedMs: number): void {
    this.#heartbeat?.stop();
    this.#heartbeat = startHeartbeat(requestedMs, {
      clock: this.#options.heartbeatClock,
      logger: this.#options.logger,
      ping: () => {
        const id = this.#budget.pingId();
        if (this.#write(encodeFrame({ type: 'ping', id }), 'ping')) this.#budget.pinged(id);
      },
      dead: () => this.#drop(undefined, 'heartbeat timeout', CLOSE_CODES.heartbeatTimeout),
    });
  }

  #handshakeTimedOut(): void {
    if (this.#closed || this.#welcomed) return;
    const failure = handshakeTimeout(this.#options.url, this.#opened);
    this.#drop({ ...failure, reported: false }, 'handshake timeout');
  }

  /** Writes one frame's text. A socket that throws is dropped, after the throw is logged and reported. */
  #write(text: string, type: string, frame?: ClientFrame): boolean {
    if (this.#closed) return false;
    const failure = this.#transport.send(text);
    if (failure === undefined) {
      if (frame !== undefined && text.length > (this.#largest?.length ?? 0))
        this.#largest = { frame, length: text.length };
      // May drop the socket (a service that does not read): the frame stays where it came from (the outbox).
      this.#budget.wrote(text);
      return true;
    }
    const error = new ConnectionError(
      'send_failed',
      `a ${type} frame could not be sent (the socket threw: ${describeThrown(failure.thrown)}); the socket is dropped and the client reconnects`,
      { cause: failure.thrown },
    );
    this.#drop({ error, fatal: false, reported: true }, 'the socket threw on send');
    if (frame) this.#unsendable(frame, error);
    else this.#report(error);
    return false;
  }

  /** The service closed with 1009 (not `ws` on our side, which sets `failure.error`): blames the largest frame. */
  #refusedBySize(): void {
    const largest = this.#largest;
    if (largest === undefined || this.#closed) return;
    this.#largest = undefined;
    const size = utf8Length(encodeFrame(largest.frame));
    const message = `the service closed the connection with 1009 (frame too big) after a ${largest.frame.type} frame of ${size} bytes, within its announced limit of ${this.#maxPayloadBytes}; that frame is not sent again`;
    this.#unsendable(largest.frame, new ConnectionError('frame_too_large', message));
  }

  #unsendable(frame: ClientFrame, error: ConnectionError): void {
    this.#report(error);
    this.#options.onUnsendable(frame, error);
  }

  #report(error: ConnectionError): void {
    this.#options.logger.error({ code: error.code }, error.message);
    this.#options.onError(error);
  }

  /** Drops the socket at once; `onClose` follows synchronously, with `verdict` as the attempt's failure. */
  #drop(verdict: Verdict | undefined, reason: string, code = ABNORMAL_CLOSURE): void {
    if (this.#closed) return;
    this.#verdict = verdict;
    this.#transport.terminate(code, reason);
  }

  #onClose(code: number, reason: string, failure: AttemptFailure): void {
    if (this.#closed) return;
    const reported = this.#verdict?.reported ?? false;
    this.#stop();
    this.#options.onClose({ code, reason, welcomed: this.#welcomed, failure, reported });
  }

  #stop(): void {
    this.#closed = true;
    this.#budget.stop();
    clearTimeout(this.#handshakeTimer);
    this.#heartbeat?.stop();
    this.#heartbeat = undefined;
  }
}

/** What limits a frame written: the service's limit, or the client's `maxBufferedBytes` when that is smaller. */
function limitName(limit: number, serviceLimit: number): string {
  return limit < serviceLimit ? `maxBufferedBytes (${limit})` : `the service's limit of ${limit}`;
}
