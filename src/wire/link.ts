/**
 * One socket of a {@link Connection}, from its upgrade to its close: the subprotocol check, `hello`, `welcome`,
 * the frame limit on receive, the heartbeat, answers to `ping` and to frames the service got wrong, and every
 * write. Nothing the socket throws escapes: a socket that throws on `send` is dropped. When the socket closes
 * before `welcome`, the link says why (see {@link attemptFailure}). In order: why an attempt failed, the
 * handshake as text, what a link needs from its connection, the {@link Link}.
 *
 * @module
 */
import { ConnectionError, ProtocolError } from '../errors';
import { displayUrl, type Logger } from '../logger';
import { REDACTED } from '../redact';
import { Backpressure, ERROR_FRAMES_PER_INTERVAL } from './backpressure';
import {
  type DecodeResult,
  decodeServiceFrame,
  droppedFieldsLog,
  encodeFrame,
  INFORMATIVE_SERVICE_FIELDS,
  informativePath,
  isRefusedErrorFrame,
  type RefusalCode,
  type RefusedFrame,
  refusal,
} from './codec';
import { type Heartbeat, type HeartbeatClock, startHeartbeat, systemClock } from './heartbeat';
import {
  CLOSE_CODES,
  type ClientFrame,
  type FrameOf,
  type ServiceFrame,
  SUBPROTOCOL,
  utf8Length,
} from './protocol';
import {
  describeThrown,
  openTransport,
  type SocketFailure,
  type SocketStyle,
  type Transport,
  type WebSocketConstructor,
} from './transport';

/*
 * Why a connection attempt failed, in words a person can act on, and whether trying again can help. An attempt
 * fails when its socket closes before `welcome`; what the runtime said about it (see {@link SocketFailure}) and
 * the close code decide the {@link ConnectionError} code:
 *
 * | code                    | what happened                                                                     | retried         |
 * | ----------------------- | --------------------------------------------------------------------------------- | --------------- |
 * | `connection_refused`    | nothing listens at the address (`ECONNREFUSED`; Deno: `tcp connect error`)        | yes             |
 * | `host_not_found`        | the host name does not resolve (`ENOTFOUND`, `EAI_AGAIN`)                         | yes             |
 * | `network_error`         | any other socket or TLS error the runtime names                                   | yes             |
 * | `upgrade_failed`        | HTTP 408, 429 or 5xx instead of 101: the service or its gateway is not ready      | yes             |
 * | `upgrade_failed`        | any other HTTP status instead of 101 (a 3xx names where): not a toolwire endpoint | after a session |
 * | `unauthorized`          | HTTP 401 or 403 at the upgrade, or close 4001: the key was refused                | no              |
 * | `unsupported_protocol`  | no `toolwire.v1` subprotocol selected: not a toolwire endpoint                    | after a session |
 * | `unsupported_protocol`  | close 4002: the service refuses this protocol version                             | no              |
 * | `fleet_conflict`        | close 4010: a tool's `fleet` limits differ from other workers' (fleets.md)        | no              |
 * | `connection_failed`     | the runtime's WebSocket failed and gives no reason (browsers)                     | yes             |
 * | `closed_before_welcome` | the socket opened, then closed before `welcome`                                   | yes             |
 *
 * `handshake_timeout` and `invalid_welcome` (see the handshake below) and `send_failed` are decided by the link itself.
 * "After a session": the address answers, but not as a toolwire service ({@link AttemptFailure.notTheProtocol}).
 */
/** A failed attempt: the error to report and whether reconnecting can help. */
export interface AttemptFailure {
  error: ConnectionError;
  /** Retrying cannot help: the service refused this client (its key, its protocol version, its fleet limits). */
  fatal: boolean;
  /**
   * The address answers, but not as a toolwire service: an HTTP status that is not the upgrade (a wrong path's
   * 404, a plain web server's 200, a redirect), no `toolwire.v1` subprotocol, or a first frame that is not a
   * protocol frame. `connect()`'s first connection stops there (the URL is wrong: retrying cannot mend it); after
   * a session worked at this address it is retried (a deploy may route elsewhere for a moment).
   */
  notTheProtocol?: true;
  /**
   * With a 4010: the tool the close reason names (`fleet limits of <tool> disagree: …`, words docs/protocol/fleet-limits.md
   * fixes), which the owner may stop offering and try again with another `hello`.
   */
  refusedTool?: string;
}

/** What is known of an attempt whose socket closed before `welcome`. */
export interface AttemptFacts {
  url: string;
  code: number;
  reason: string;
  failure: SocketFailure;
  /** The socket opened (the upgrade completed). */
  opened: boolean;
  /** The runtime's WebSocket sends headers (the key went in `Authorization`, not in `hello`). */
  sendsHeaders: boolean;
}

const HOST_NOT_FOUND = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA']);

/** Classifies a failed attempt. */
export function attemptFailure(facts: AttemptFacts): AttemptFailure {
  // Messages show the URL without userinfo, query or fragment, where tokens travel.
  const url = displayUrl(facts.url);
  const { code, failure } = facts;
  const reason = withoutUrlSecrets(facts.reason, facts.url);
  const retry = (errorCode: string, message: string, cause?: unknown): AttemptFailure => ({
    error: new ConnectionError(errorCode, `${url}: ${message}`, cause === undefined ? undefined : { cause }),
    fatal: false,
  });
  const stop = (errorCode: string, message: string): AttemptFailure => ({
    error: new ConnectionError(errorCode, `${url}: ${message}`),
    fatal: true,
  });
  if (failure.status !== undefined) {
    if (failure.status === 401 || failure.status === 403) {
      return stop(
        'unauthorized',
        `the API key was refused at the WebSocket upgrade (HTTP ${failure.status})`,
      );
    }
    const { status } = failure;
    const answered = `the WebSocket upgrade was answered with HTTP ${status} instead of 101`;
    // The service, or the gateway in front of it, is there but not ready (starting, overloaded, being deployed).
    if (status === 408 || status === 429 || status >= 500) return retry('upgrade_failed', answered);
    const redirect =
      status >= 300 && status < 400 && failure.location !== undefined
        ? ` (a redirect to ${failure.location}: use that URL; WebSocket clients do not follow redirects)`
        : ': no toolwire service answers at this URL (is it right?)';
    return { ...retry('upgrade_failed', `${answered}${redirect}`), notTheProtocol: true };
  }
  if (failure.selectedProtocol !== undefined && failure.selectedProtocol !== SUBPROTOCOL) {
    return unsupportedProtocol(url);
  }
  if (code === CLOSE_CODES.fleetConflict) {
    const refusedTool = /^fleet limits of (\S+) disagree\b/.exec(facts.reason)?.[1];
    return {
      ...stop(
        'fleet_conflict',
        `the service refused the tools' fleet limits (${code}: ${reason}); every worker offering a tool must announce the same fleet limits: to change them, replace every worker offering it, or rename the tool`,
      ),
      ...(refusedTool === undefined ? {} : { refusedTool }),
    };
  }
  if (code === CLOSE_CODES.unauthorized || code === CLOSE_CODES.unsupportedProtocol) {
    return stop(
      code === CLOSE_CODES.unauthorized ? 'unauthorized' : 'unsupported_protocol',
      `the service refused the connection (${code}${reason ? `: ${reason}` : ''})`,
    );
  }
  if (facts.opened) {
    return retry(
      'closed_before_welcome',
      `the socket closed before welcome (${code}${reason ? ` ${reason}` : ''})`,
    );
  }
  const thrown = failure.error as { code?: unknown; message?: unknown; name?: unknown } | undefined;
  const said = typeof thrown?.message === 'string' ? thrown.message : '';
  // A runtime's message may quote the whole URL, its query included (Bun's does): shown as `url` is, and the
  // error kept as the cause is a copy saying the same.
  const detail = withoutUrlSecrets(said, facts.url);
  const error =
    detail === said
      ? thrown
      : Object.assign(new Error(detail), {
          name: typeof thrown?.name === 'string' ? thrown.name : 'Error',
          ...(thrown?.code === undefined ? {} : { code: thrown.code }),
        });
  // Node's `ws` and Bun name the failure by a string code (Bun's ECONNREFUSED says "Failed to connect"); Deno only
  // in words, its code being the DOMException's number: "failed to connect to WebSocket: dns error", and "tcp
  // connect error" for a refused connection, its cause left out (an unreachable host reads the same, after the
  // system's wait). Refused is what it means on a machine where the service is not running yet, the common case.
  const named = typeof error?.code === 'string';
  if (error?.code === 'ECONNREFUSED' || (!named && /\bconnection refused\b/i.test(detail)))
    return retry('connection_refused', `connection refused (${detail})`, error);
  if (!named && /\btcp connect error$/i.test(detail)) {
    const message = `connection refused, or the host unreachable (${detail}: this runtime does not say which)`;
    return retry('connection_refused', message, error);
  }
  if (
    (named && HOST_NOT_FOUND.has(error?.code as string)) ||
    (!named && /\bdns error\b|failed to lookup address/i.test(detail))
  ) {
    return retry('host_not_found', `host not found (${detail})`, error);
  }
  if (detail) return retry('network_error', `the connection failed (${detail})`, error);
  return retry(
    'connection_failed',
    `the connection failed before the WebSocket upgrade completed; this runtime's WebSocket gives no reason (connection refused, host not found, TLS, or an HTTP status such as 401 from a gateway)${
      facts.sendsHeaders
        ? ''
        : '. It cannot send headers either, so the API key travels in hello, not in an Authorization header'
    }`,
  );
}

/**
 * `text` with the URL shown as {@link displayUrl} shows it, and any piece of its userinfo, query or fragment (where
 * tokens travel) that is still there replaced: a runtime's message may quote the URL as given or as it parsed it.
 */
export function withoutUrlSecrets(text: string, url: string): string {
  if (text === '') return text;
  let out = text;
  const forms = [url];
  try {
    forms.push(new URL(url).href);
  } catch {
    // not a URL the runtime would parse either
  }
  for (const form of forms) out = out.split(form).join(displayUrl(url));
  const [, , userinfo, , query, fragment] =
    /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)?([^/?#]*@)?([^?#]*)(\?[^#]*)?(#.*)?$/s.exec(url) ?? [];
  const secrets = [userinfo?.slice(0, -1), query?.slice(1), fragment?.slice(1)];
  for (const secret of secrets)
    if (secret !== undefined && secret.length >= 4) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * The service completed the upgrade without selecting `toolwire.v1`: it does not speak this protocol (see
 * {@link AttemptFailure.notTheProtocol}).
 */
export function unsupportedProtocol(url: string): AttemptFailure {
  return {
    error: new ConnectionError(
      'unsupported_protocol',
      `${displayUrl(url)}: the service did not select the subprotocol ${SUBPROTOCOL}, so it does not speak this protocol (is the URL right?)`,
    ),
    fatal: false,
    notTheProtocol: true,
  };
}

/*
 * The handshake of one socket, as text: the `hello` to write, how long to wait for `welcome`, and why an attempt
 * that did not reach a usable `welcome` failed. The {@link Link} decides when; this says what.
 */
/** An attempt that has not received `welcome` within this many milliseconds of starting is dropped. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * The `hello` as text, with the API key in it where the runtime cannot send headers; or why no `hello` can be sent
 * (fatal: retrying cannot help).
 */
export function helloText(
  hello: () => FrameOf<ClientFrame, 'hello'>,
  keyInHello: string | undefined,
  maxPayloadBytes: number,
): { text: string } | AttemptFailure {
  let text: string;
  try {
    const frame = hello();
    // Browsers cannot set headers on the upgrade request: the key travels in `hello` there.
    if (keyInHello !== undefined) frame.apiKey = keyInHello;
    text = encodeFrame(frame);
  } catch (error) {
    const message = `the hello frame could not be built: ${describeThrown(error)}`;
    return { error: new ConnectionError('invalid_hello', message, { cause: error }), fatal: true };
  }
  const size = utf8Length(text);
  if (size <= maxPayloadBytes) return { text };
  // The service would close with 1009 every time.
  const message = `the tool definitions make a hello of ${size} bytes, over the service's limit of ${maxPayloadBytes}`;
  return { error: new ConnectionError('hello_too_large', message), fatal: true };
}

/**
 * No `welcome` within `timeoutMs` ({@link HANDSHAKE_TIMEOUT_MS}, or less while draining): says whether the upgrade
 * completed. Retried.
 */
export function handshakeTimeout(
  url: string,
  opened: boolean,
  timeoutMs = HANDSHAKE_TIMEOUT_MS,
): AttemptFailure {
  const shown = displayUrl(url);
  const message = opened
    ? `${shown}: no welcome within ${timeoutMs} ms (the socket opened, but the service did not answer hello)`
    : `${shown}: the WebSocket upgrade did not complete within ${timeoutMs} ms`;
  return { error: new ConnectionError('handshake_timeout', message), fatal: false };
}

/**
 * Logs a valid `welcome` after the socket's first, which is ignored: nothing in it is adopted, not its session id
 * nor its limits (docs/protocol/lifecycle.md). A `warn` the first time on a socket (one logger per socket), `debug`
 * after.
 */
export function welcomeAgainLog(logger: Pick<Logger, 'warn' | 'debug'>): () => void {
  let said = false;
  return () => {
    const message =
      'a welcome frame after the handshake was ignored: this socket keeps the session and limits of its first welcome';
    if (said) logger.debug({ type: 'welcome' }, message);
    else logger.warn({ type: 'welcome' }, message);
    said = true;
  };
}

const INVALID_WELCOME = 'invalid welcome frame: ';

/** The frames a service may send before its `welcome` (docs/protocol/lifecycle.md). */
const MAY_COME_FIRST: ReadonlySet<string> = new Set(['welcome', 'error', 'ping']);

/** A frame received before the first `welcome`: decoded text, or a binary message. */
export type EarlyFrame = DecodeResult<ServiceFrame> | 'binary';

/**
 * Whether a frame received before the socket's first `welcome` ends the attempt (docs/protocol/lifecycle.md): anything
 * but a readable `welcome`, an `error` frame (readable or not: it keeps its meaning, and a close that follows it,
 * e.g. 4001, decides) or a `ping` (either side may ping at any time, docs/protocol/lifecycle.md; it is answered)
 * cannot be followed by anything that makes the attempt good. It ends at once, closed with 4003 (the handshake frame
 * was not valid, as the service does for `hello`), as `invalid_welcome`, retried with the normal backoff (a service
 * being deployed may answer right on the next attempt); but a frame no toolwire service sends at all (not JSON, not
 * an object, no string `type`, a type the protocol does not have, binary) says the address is not a toolwire
 * service ({@link AttemptFailure.notTheProtocol}). `undefined` for a frame that may come first. The error and the
 * close reason name fields and frame types, never the values sent.
 */
export function beforeWelcome(
  url: string,
  early: EarlyFrame,
): { failure: AttemptFailure; reason: string } | undefined {
  if (early !== 'binary' && (early.ok ? MAY_COME_FIRST.has(early.frame.type) : isRefusedErrorFrame(early)))
    return undefined;
  const code = CLOSE_CODES.helloExpected;
  const closed = `the client closed the socket (${code})`;
  const shown = displayUrl(url);
  if (early !== 'binary' && !early.ok && early.message.startsWith(INVALID_WELCOME)) {
    const { required, informative } = welcomeFaults(early.message.slice(INVALID_WELCOME.length));
    const also =
      informative.length > 0 ? `; also wrong, informative (would be dropped): ${informative.join('; ')}` : '';
    const message = `${shown}: the service's welcome cannot be read (${required.join('; ')}${also}); ${closed}`;
    // Only the required fields are why: a wrong informative field alone is dropped, the welcome used
    // (docs/protocol/errors.md).
    const fields = (early.fields ?? []).filter((field) => !isInformative(field));
    return failed(message, `invalid welcome: ${fields.join(', ')}`);
  }
  const what = earlyFrame(early);
  if (!isProtocolFrame(early)) {
    const ended = failed(
      `${shown}: the service sent ${what} where its welcome was expected, so it does not speak this protocol (is the URL right?); ${closed}`,
      `expected welcome, got ${what}`,
    );
    return { ...ended, failure: { ...ended.failure, notTheProtocol: true } };
  }
  return failed(
    `${shown}: the service sent ${what} where its welcome was expected; ${closed}`,
    `expected welcome, got ${what}`,
  );
}

function failed(message: string, reason: string): { failure: AttemptFailure; reason: string } {
  // A close reason is at most 123 bytes (RFC 6455 §5.5); field names and frame types are ASCII.
  return {
    failure: { error: new ConnectionError('invalid_welcome', message), fatal: false },
    reason: reason.slice(0, 123),
  };
}

/**
 * Whether a toolwire service could have sent the frame, if wrongly: one of the protocol's types (valid or not), or
 * too large or deep to read. Not: binary, not JSON, not a JSON object, no string `type`, an unknown type.
 */
function isProtocolFrame(early: EarlyFrame): boolean {
  if (early === 'binary') return false;
  if (early.ok) return true;
  return early.code !== 'invalid_json' && early.code !== 'unknown_type' && early.shapeless !== true;
}

/** What the frame was, in words that quote no value of it. */
function earlyFrame(early: EarlyFrame): string {
  if (early === 'binary') return 'a binary frame';
  if (early.ok) return `a ${early.frame.type} frame`;
  if (early.code === 'invalid_json') return 'a frame that is not JSON';
  if (early.code === 'unknown_type') return 'a frame of an unknown type';
  const known = /^invalid (\w+) frame: /.exec(early.message);
  if (known) return `an invalid ${known[1]} frame`;
  // The other messages are fixed texts, which quote nothing of the frame.
  for (const [pattern, words] of EARLY_WORDS)
    if (pattern.test(early.message)) return early.message.replace(pattern, words);
  return 'an unreadable frame';
}

const EARLY_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^frame must be a JSON object$/, 'a frame that is not a JSON object'],
  [/^frame has no string "type"$/, 'a frame with no string "type"'],
  [/^frame nests deeper than (\d+) levels$/, 'a frame nested deeper than $1 levels'],
  [/^frame exceeds (\d+) bytes$/, 'a frame over $1 bytes'],
];

/** The decoder's `field: problem` entries of a `welcome`, the required fields' apart from the informative ones. */
function welcomeFaults(problem: string): { required: string[]; informative: string[] } {
  const entries = problem.split('; ');
  const informative = entries.filter((entry) => isInformative(entry.slice(0, entry.indexOf(':'))));
  const required = entries.filter((entry) => !informative.includes(entry));
  return { required: required.length > 0 ? required : entries, informative };
}

function isInformative(field: string): boolean {
  const path = field.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  return informativePath(INFORMATIVE_SERVICE_FIELDS.welcome, path) !== undefined;
}

/*
 * What a {@link Link} needs from its connection, and how it tells that the link ended.
 */
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
  /** How `WebSocket` is called; `'web'` cannot send headers, so the API key goes in `hello`. */
  style: SocketStyle;
  url: string;
  apiKey: string;
  /**
   * When the attempt began (`performance.now()`), before its key was read and the WebSocket class loaded: what
   * {@link Link.handshakeWithin} counts from.
   */
  startedAt: number;
  /** The frame limit until `welcome` announces one: the last announced, else the protocol default. */
  maxPayloadBytes: number;
  /** Overrides the interval announced in `welcome`, in milliseconds. */
  heartbeatIntervalMs: number | undefined;
  heartbeatClock: HeartbeatClock | undefined;
  /**
   * The smallest frame this service closed a socket with 1009 for, in bytes (`Infinity`: none): nothing this large
   * is written again, whatever its type (a `hello`, a result, a step, a question, an event, a run).
   */
  refusedBytes: number;
  /** The service closed with 1009 (frame too big) after a frame of `bytes` bytes, within its announced limit. */
  onTooBig(bytes: number): void;
  /** Answers that can wait are held while more than this many bytes are unread (see ./backpressure.ts). */
  highWaterMarkBytes: number;
  /** Past this many unread bytes the socket is dropped (1008) and the client resumes. */
  maxBufferedBytes: number;
  logger: Logger;
  /** The `hello` to send (with `sessionId` when resuming); the link adds `apiKey` where headers are impossible. */
  hello(): FrameOf<ClientFrame, 'hello'>;
  onWelcome(welcome: Welcome): void;
  /**
   * A frame after `welcome`, and when it arrived (`performance.now()` time, read once per frame by the heartbeat;
   * `undefined` without a heartbeat or under another `heartbeatClock`: the reader reads the clock itself).
   */
  onFrame(frame: Exclude<ServiceFrame, Welcome>, heardAt: number | undefined): void;
  onError(error: ConnectionError | ProtocolError): void;
  onUnsendable(frame: ClientFrame, error: ConnectionError): void;
  /** A frame was refused (answered `error`, unless it is one) whose type and some ids are readable: end its waiter. */
  onRefused?(about: RefusedFrame, message: string): void;
  /** Called once, synchronously when the link itself drops the socket. */
  onClose(close: LinkClose): void;
}

/** Close code reported for a socket this client dropped without a close handshake (RFC 6455 §7.1.5). */
const ABNORMAL_CLOSURE = 1006;

type Verdict = AttemptFailure & { reported: boolean };

/** One socket. Opening throws only for a URL the runtime refuses outright. */
export class Link {
  readonly #options: LinkOptions;
  readonly #transport: Transport;
  readonly #sendsHeaders: boolean;
  #handshakeTimer: ReturnType<typeof setTimeout>;
  /** When the attempt began (`performance.now()`), and how long it has to reach `welcome`, in milliseconds. */
  readonly #startedAt: number;
  #handshakeMs = HANDSHAKE_TIMEOUT_MS;
  #opened = false;
  #welcomed = false;
  #closed = false;
  #verdict: Verdict | undefined;
  #heartbeat: Heartbeat | undefined;
  /** The service's frame limit: what a frame read may take (`welcome.maxPayloadBytes`, else the protocol's). */
  #maxPayloadBytes: number;
  /**
   * The largest frame written: the service's limit, or `maxBufferedBytes` when smaller. A frame over it would pass
   * the hard limit of ./backpressure.ts by itself, and be written again on every new socket for ever.
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
  /** The size of the `hello` written on this socket, in bytes (0: none yet). */
  #helloBytes = 0;

  constructor(options: LinkOptions) {
    this.#options = options;
    this.#startedAt = options.startedAt;
    this.#maxPayloadBytes = options.maxPayloadBytes;
    this.#sendLimit = sendLimit(options.maxPayloadBytes, options);
    this.#dropped = droppedFieldsLog(options.logger, 'service');
    this.#welcomeAgain = welcomeAgainLog(options.logger);
    this.#sendsHeaders = options.style !== 'web';
    const headers = this.#sendsHeaders ? { Authorization: `Bearer ${options.apiKey}` } : undefined;
    this.#transport = openTransport(
      options.WebSocket,
      options.url,
      { style: options.style, ...(headers ? { headers } : {}), maxPayloadBytes: options.maxPayloadBytes },
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
          if (code === CLOSE_CODES.tooBig && failure.error === undefined && this.#verdict === undefined) {
            if (this.#welcomed) this.#refusedBySize();
            else if (this.#helloBytes > 0) this.#verdict = this.#helloRefused();
          }
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
      // Every socket: a runtime may report its unsent bytes late, in part, or always as 0 (Bun's `ws` does, and
      // Deno's under `ws`), and `ws` in Node counts only what its socket has not yet handed to the kernel, whose
      // buffers (both ends) hold megabytes more that the service has not read.
      countsOwn: true,
      now: () => clock.now(),
      write: (text, type) => this.#write(text, type),
      transmit: (paced) => this.#transmit(paced.text, paced.type, paced.frame as ClientFrame | undefined),
      afterIo: (fn) => clock.afterIo(fn),
      overflow: (message, reason = 'the service is not reading') => {
        this.#options.logger.warn({ code: CLOSE_CODES.policyViolation }, message);
        this.#drop(undefined, reason, CLOSE_CODES.policyViolation);
      },
    });
  }

  /** Bytes written and not yet read by the service, as best known, plus answers held back (./backpressure.ts). */
  get bufferedAmount(): number {
    return this.#budget.pendingBytes;
  }

  /** Asks the service to prove it read what was written (see `Backpressure.askProof`). */
  askProof(): void {
    this.#budget.askProof();
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
      const message = `a ${frame.type} frame of ${utf8Length(text)} bytes is over ${limitName(limit, this.#maxPayloadBytes, this.#options.refusedBytes)}; not sent`;
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

  /**
   * Gives the attempt at most `timeoutMs` from its start to reach `welcome` (never more than it had): a draining
   * connection's pace. Past already, it ends at the next turn of the event loop. Nothing once welcomed or closed.
   */
  handshakeWithin(timeoutMs: number): void {
    if (this.#closed || this.#welcomed || timeoutMs >= this.#handshakeMs) return;
    this.#handshakeMs = timeoutMs;
    clearTimeout(this.#handshakeTimer);
    const left = Math.max(0, this.#startedAt + timeoutMs - performance.now());
    this.#handshakeTimer = setTimeout(() => this.#handshakeTimedOut(), left);
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
    if (this.#write(hello.text, 'hello')) this.#helloBytes = utf8Length(hello.text);
  }

  /**
   * The service closed with 1009 before `welcome`: the `hello` (its tool definitions) is over the service's real
   * limit. It would be refused on every socket, so the attempt is fatal (docs/protocol/: never re-send a frame refused
   * with 1009), and the size is remembered.
   */
  #helloRefused(): Verdict {
    const bytes = this.#helloBytes;
    this.#options.onTooBig(bytes);
    const message = `${displayUrl(this.#options.url)}: the service closed the connection with 1009 (frame too big) in answer to a hello of ${bytes} bytes (the tool definitions); it is not sent again`;
    return { error: new ConnectionError('hello_too_large', message), fatal: true, reported: false };
  }

  #onMessage(text: string): void {
    if (this.#closed) return;
    const heardAt = this.#heartbeat?.heard();
    const decoded = decodeServiceFrame(text, this.#maxPayloadBytes);
    // Once welcomed, every frame may come: not asked (one call less a frame).
    if (!this.#welcomed && this.#notWelcome(decoded)) return;
    if (!decoded.ok) {
      // A peer never answers an error frame with an error frame (docs/protocol/errors.md): only this process can be
      // told.
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
    // A welcome after the first is ignored: nothing of it is adopted (docs/protocol/lifecycle.md).
    if (frame.type === 'welcome') {
      if (this.#welcomed) this.#welcomeAgain();
      else this.#onWelcome(frame);
    } else if (frame.type === 'ping') {
      const pong = encodeFrame({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) });
      this.#budget.ping(frame.id, pong);
    } else if (frame.type === 'pong') this.#budget.ponged(frame.id);
    else this.#options.onFrame(frame, heardAt);
  }

  #onBinary(): void {
    if (this.#closed || this.#notWelcome('binary')) return;
    this.#heartbeat?.heard();
    this.#refuse('invalid_frame', 'binary frames are not part of the protocol; send JSON text frames');
  }

  /** Answers a frame the service got wrong with `error` (docs/protocol/errors.md), naming its readable ids; stays up. */
  #refuse(code: RefusalCode, message: string, about?: RefusedFrame): void {
    const answer = refusal(code, message, about);
    const text = encodeFrame(answer);
    // At most ERROR_FRAMES_PER_INTERVAL answers and log lines a second; logged but not answered while the service
    // does not read.
    const verdict = this.#budget.mayAnswerError(utf8Length(text));
    if (verdict === undefined || this.#closed) return;
    const { unanswered, send } = verdict;
    const more = unanswered > 0 ? ` (${unanswered} more invalid frames before it were not answered)` : '';
    const held = send ? '' : ' (not answered: the service has not read what was written)';
    const { type: _, message: __, ...fields } = answer;
    this.#options.logger.warn(
      { ...fields, unanswered },
      `invalid frame from the service: ${message}${held}${more}`,
    );
    if (send) this.#write(text, 'error');
  }

  /** Before the first `welcome`, ends the attempt on a frame that cannot come before it (docs/protocol/lifecycle.md). */
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
    this.#sendLimit = sendLimit(welcome.maxPayloadBytes, this.#options);
    this.#transport.setMaxPayload(welcome.maxPayloadBytes);
    const { maxFramesPerSecond } = welcome;
    if (maxFramesPerSecond !== undefined)
      this.#budget.paceTo(maxFramesPerSecond, welcome.maxFrameBurst ?? maxFramesPerSecond);
    // A client may ping more often than the service asks, never less: the service closes a socket silent for two
    // of its own intervals (4008), an idle one included.
    const asked = this.#options.heartbeatIntervalMs;
    const service = welcome.heartbeatIntervalMs;
    this.#startHeartbeat(asked === undefined ? service : Math.min(asked, service));
    this.#options.onWelcome(welcome);
  }

  #startHeartbeat(requestedMs: number): void {
    this.#heartbeat?.stop();
    this.#heartbeat = startHeartbeat(requestedMs, {
      clock: this.#options.heartbeatClock,
      logger: this.#options.logger,
      ping: () => this.#budget.heartbeatPing(),
      dead: () => this.#drop(undefined, 'heartbeat timeout', CLOSE_CODES.heartbeatTimeout),
    });
    // A proof of reading unanswered this long is a stalled service, as silence is a dead one.
    this.#budget.proofTimeout(2 * this.#heartbeat.intervalMs);
  }

  #handshakeTimedOut(): void {
    if (this.#closed || this.#welcomed) return;
    const failure = handshakeTimeout(this.#options.url, this.#opened, this.#handshakeMs);
    this.#drop({ ...failure, reported: false }, 'handshake timeout');
  }

  /**
   * Writes one frame's text, or keeps it to write in order within the service's frame rate (./backpressure.ts), in
   * which case it counts as written (`true`): a socket that closes first loses it as it would have lost it unread.
   */
  #write(text: string, type: string, frame?: ClientFrame): boolean {
    if (this.#closed) return false;
    if (this.#budget.paces(text, type, frame)) return true;
    return this.#transmit(text, type, frame);
  }

  /** Puts one frame's text on the socket. A socket that throws is dropped, after the throw is logged and reported. */
  #transmit(text: string, type: string, frame?: ClientFrame): boolean {
    if (this.#closed) return false;
    const sent = this.#transport.send(text);
    if (typeof sent === 'number') {
      if (frame !== undefined && text.length > (this.#largest?.length ?? 0))
        this.#largest = { frame, length: text.length };
      // May drop the socket (a service that does not read): the frame stays where it came from (the outbox).
      this.#budget.wrote(sent);
      return true;
    }
    const failure = sent;
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
    this.#options.onTooBig(size);
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
    // A flood of invalid frames that stopped is told here, or never: each unanswered one waits for the next log line.
    const { unanswered } = this.#budget;
    if (unanswered > 0 && !this.#budget.stopped)
      this.#options.logger.warn(
        { unanswered },
        `${unanswered} more invalid frames from the service were not answered (over ${ERROR_FRAMES_PER_INTERVAL} a second, or not read) before the socket closed`,
      );
    this.#budget.stop();
    clearTimeout(this.#handshakeTimer);
    this.#heartbeat?.stop();
    this.#heartbeat = undefined;
  }
}

/**
 * The largest frame written: the service's limit, the client's `maxBufferedBytes`, or one byte under the smallest
 * frame the service refused with 1009, whichever is smallest.
 */
function sendLimit(
  serviceLimit: number,
  options: Pick<LinkOptions, 'maxBufferedBytes' | 'refusedBytes'>,
): number {
  return Math.min(serviceLimit, options.maxBufferedBytes, options.refusedBytes - 1);
}

/** What limits a frame written: the service's limit, `maxBufferedBytes` or a frame it refused, when smaller. */
function limitName(limit: number, serviceLimit: number, refusedBytes: number): string {
  if (limit === refusedBytes - 1 && limit < serviceLimit)
    return `${limit} bytes (the service closed with 1009 for a frame of ${refusedBytes})`;
  return limit < serviceLimit ? `maxBufferedBytes (${limit})` : `the service's limit of ${limit}`;
}
