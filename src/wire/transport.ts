/**
 * The transport seam: the few socket operations a {@link Connection} needs, over any WebSocket implementation
 * (`ws` in Node, the global `WebSocket` in browsers, Deno, Bun, or a test double). Nothing a socket throws
 * escapes it, and it reports what the runtime says about a failure, so the connection can tell the user.
 *
 * @module
 */
import { utf8Length } from '../utf8';
import { SUBPROTOCOL } from './protocol';

/** What was thrown, as text; never throws itself (a socket may throw anything, even an object with no `toString`). */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    return typeof error === 'string' ? error : String(error);
  } catch {
    return 'a value that cannot be shown as text';
  }
}

/** A WebSocket-like constructor: the WHATWG `WebSocket`, `ws`'s class, or anything with the same shape. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  // `ws` takes a third options argument (used for the Authorization header and maxPayload); browsers ignore it.
  ...rest: never[]
) => WebSocketLike;

/** The subset of the WHATWG WebSocket interface toolwire uses. */
export interface WebSocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  readonly protocol: string;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** What the runtime said about a socket that failed; each field only where the runtime gives it. */
export interface SocketFailure {
  /** The runtime's error (`ws`: an `Error` whose `code` is e.g. `ECONNREFUSED`, `ENOTFOUND`). Browsers give none. */
  error?: unknown;
  /** The HTTP status of an upgrade answered with something other than 101 (`ws` only). */
  status?: number;
  /** The `Location` header of that answer, for a redirect. */
  location?: string;
  /** The subprotocol the service selected on a completed upgrade, `''` for none (`ws` only). */
  selectedProtocol?: string;
}

/** A frame the socket refused by throwing from `send`. */
export interface SendFailure {
  thrown: unknown;
}

/** One open (or opening) socket, as the connection sees it. */
export interface Transport {
  /** Bytes queued in the socket but not yet sent. */
  readonly bufferedAmount: number;
  /** The subprotocol the service selected once open (`''` for none); `undefined` if the runtime does not say. */
  readonly protocol: string | undefined;
  /**
   * Sends one text frame. Returns its size in UTF-8 bytes when the frame was handed to the socket (or the socket is
   * already closing: its close follows), or what the socket threw. Never throws.
   */
  send(text: string): number | SendFailure;
  /**
   * Sets the largest frame accepted from now on, in bytes. `ws` then closes the socket with 1009 before reading a
   * larger frame; other runtimes have no such limit (the frame decoder checks the size on receipt).
   */
  setMaxPayload(bytes: number): void;
  /** Closes politely (close handshake). */
  close(code: number, reason: string): void;
  /** Drops the socket at once, without waiting for the peer; `onClose` reports `code` and `reason`. */
  terminate(code: number, reason: string): void;
}

/** Callbacks a transport reports to. Each is called at most for the socket it was given to. */
export interface TransportHandlers {
  onOpen(): void;
  onMessage(text: string): void;
  /** A binary message arrived (not part of the protocol), of `bytes` bytes. */
  onBinary(bytes: number): void;
  /** Called once. `failure` holds what the runtime said when the socket failed rather than closed. */
  onClose(code: number, reason: string, failure: SocketFailure): void;
}

/** How to open a socket. */
export interface TransportOptions {
  /** How the constructor is called (see {@link SocketStyle}). */
  style: SocketStyle;
  /** Sent on the upgrade request where the style can (`ws`, `options`): the API key as `Authorization: Bearer`. */
  headers?: Record<string, string>;
  /** The largest frame accepted until {@link Transport.setMaxPayload} says otherwise, in bytes. */
  maxPayloadBytes: number;
}

/**
 * How a WebSocket constructor is called, which decides where the API key travels:
 * - `'ws'`: `new WebSocket(url, protocols, { headers, maxPayload })`, the `ws` package (Node, or Bun's `ws`): the key
 *   in an `Authorization` header, the upgrade's HTTP status and the frame limit enforced by the socket;
 * - `'options'`: `new WebSocket(url, { protocols, headers })`, Bun's and Deno's own WebSocket, which take headers
 *   in a non-standard options object and name a refused upgrade's status only in the error's message;
 * - `'web'`: `new WebSocket(url, protocols)`, the WHATWG constructor (browsers, workers, test doubles): no headers,
 *   so the key travels in `hello`.
 */
export type SocketStyle = 'ws' | 'options' | 'web';

/** The runtime, as far as opening a socket is concerned. */
export type SocketRuntime = 'node' | 'bun' | 'deno' | 'other';

/** Which runtime this is: Bun and Deno set `process.versions.node` too, so they are asked first. */
export function socketRuntime(): SocketRuntime {
  const scope = globalThis as { Bun?: unknown; Deno?: unknown; process?: { versions?: { node?: unknown } } };
  if (scope.Bun !== undefined) return 'bun';
  if (scope.Deno !== undefined) return 'deno';
  return typeof scope.process?.versions?.node === 'string' ? 'node' : 'other';
}

/** Loads `ws`'s WebSocket class; set by the Node entry (src/node.ts), absent from the core that browsers get. */
let nodeWebSocket: (() => Promise<WebSocketConstructor>) | undefined;

/**
 * Makes `load` the WebSocket of every client made in Node without a `WebSocket` option, whether or not the runtime
 * has a global `WebSocket` (Node 22 and later do): `ws` sends the key as a header, reports a refused upgrade's
 * status, and its `bufferedAmount` is the same on every Node version. Called once by the Node entry. Returns the
 * loader it replaces, so that a test can put it back (a client reads the loader when it is made).
 */
export function registerNodeWebSocket(
  load: (() => Promise<WebSocketConstructor>) | undefined,
): (() => Promise<WebSocketConstructor>) | undefined {
  const previous = nodeWebSocket;
  nodeWebSocket = load;
  return previous;
}

/** The WebSocket a client opens its sockets with, and how it calls it. */
export interface WebSocketChoice {
  WebSocket: WebSocketConstructor;
  style: SocketStyle;
}

/**
 * Chooses the WebSocket of a client, for the runtime it was made in; the constructor itself is looked up when
 * connecting (an interceptor may patch the global after the client is made). The `explicit` option first; in
 * Node, `ws` once the Node entry registered it; else the global `WebSocket`. A `ws` class is called as `ws`,
 * Bun's and Deno's own WebSocket with their options object (headers), anything else as the WHATWG constructor.
 * @throws (from the returned function) when there is no WebSocket to use.
 */
export function chooseWebSocket(
  explicit?: WebSocketConstructor,
  runtime: SocketRuntime = socketRuntime(),
): () => Promise<WebSocketChoice> {
  const load = nodeWebSocket;
  const found =
    explicit !== undefined
      ? async () => explicit
      : runtime === 'node' && load !== undefined
        ? load
        : async () => {
            const global = globalWebSocket();
            if (global === undefined) throw new Error('this runtime has no global WebSocket');
            return global;
          };
  const headersInOptions = runtime === 'bun' || runtime === 'deno';
  return async () => {
    const WebSocket = await found();
    // Bun's own WebSocket has a `terminate` method too: the runtime's global is asked about first.
    const style: SocketStyle =
      headersInOptions && WebSocket === globalWebSocket()
        ? 'options'
        : canSendHeaders(WebSocket)
          ? 'ws'
          : 'web';
    return { WebSocket, style };
  };
}

function globalWebSocket(): WebSocketConstructor | undefined {
  return (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
}

/** `ws`'s `Sender` state while nothing waits (`DEFAULT`: no compression or Blob underway). */
export const WS_SENDER_IDLE = 0;

/** `ws`'s `Sender` (ws 8): the framing of a socket's frames and their writing. */
export interface WsSender {
  /** {@link WS_SENDER_IDLE} while nothing waits: a frame is written at once. */
  _state: unknown;
  _generateMask?: unknown;
  _maskBuffer?: unknown;
  sendFrame(list: Uint8Array[]): void;
}

/** The `Sender` class: its static `frame` makes a frame's header and masked payload. */
export interface WsSenderClass {
  frame(data: string | Uint8Array, options: object): Uint8Array[];
}

/**
 * How a `ws` socket's frames are written here: its sender, the options of a client's text frame, and Node's
 * `Buffer` (a text is handed to `frame` as its UTF-8); `send`, the socket's `send` (`ws`'s own) when it was made:
 * once the socket's `send` is another (a spy put on later), frames go through that.
 */
export interface WsWriter {
  send: unknown;
  sender: WsSender;
  Sender: WsSenderClass;
  options: object;
  Buffer: { from(text: string): Uint8Array };
}

/**
 * How a `ws` socket's frames are written without its `send` (./ws.ts `wsWriter`, registered by the Node entry:
 * browsers never load it); `undefined`: by `send`.
 */
let wsWriterOf: ((socket: WebSocketLike) => WsWriter | null) | undefined;

/** Makes `of` the way frames are written on `ws` sockets (see {@link WsWriter}). Returns the one it replaces. */
export function registerWsWriter(
  of: ((socket: WebSocketLike) => WsWriter | null) | undefined,
): ((socket: WebSocketLike) => WsWriter | null) | undefined {
  const previous = wsWriterOf;
  wsWriterOf = of;
  return previous;
}

/** The part of Node's `net.Socket` used to gather several frames into one write. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The `ws` events that say why an upgrade failed (`ws` is an EventEmitter; WHATWG sockets are not). */
interface WsEvents {
  on(event: 'unexpected-response', listener: (request: unknown, response: HttpResponse) => void): void;
  on(event: 'upgrade', listener: (response: HttpResponse) => void): void;
  on(
    event: 'message',
    listener: (data: { toString(): string; length: number }, isBinary: boolean) => void,
  ): void;
}
interface HttpResponse {
  statusCode?: number;
  headers: Record<string, string | string[] | undefined>;
  resume?(): void;
}

/**
 * The TCP socket under a `ws` WebSocket (`_socket`), when there is one that can be corked; `undefined` for
 * browsers' WebSockets and anything else. Corking is counted in Node, so `ws` corking around each frame
 * inside ours is harmless.
 */
function corkable(socket: WebSocketLike): Corkable | undefined {
  const raw = (socket as { _socket?: Partial<Corkable> | null })._socket;
  return typeof raw?.cork === 'function' && typeof raw.uncork === 'function' ? (raw as Corkable) : undefined;
}

/**
 * `ws` can send headers on the upgrade request; the WHATWG WebSocket cannot. `ws` instances have `terminate` and
 * are EventEmitters (`on`). Bun's global WebSocket has `terminate` too, but it is an EventTarget and ignores the
 * options argument that carries the headers: over it the key must travel in `hello`.
 */
export function canSendHeaders(ctor: WebSocketConstructor): boolean {
  const prototype = ctor.prototype as { terminate?: unknown; on?: unknown } | undefined;
  return typeof prototype?.terminate === 'function' && typeof prototype.on === 'function';
}

/**
 * The largest frame read, in bytes, whatever the service announces: a text frame becomes one string, which V8
 * makes of at most 2^29 − 24 UTF-16 units (a UTF-8 byte gives at most one): a longer frame would throw
 * `ERR_STRING_TOO_LONG` where nothing catches it. Over it, the frame is refused with 1009 as any frame over the limit.
 * (`ws` reads `maxPayload` with `| 0` besides: past 2^31 − 1 it would wrap around.)
 */
export const MAX_WS_PAYLOAD = 536_870_888;

/**
 * Local close codes for the errors `ws` fails a connection with (RFC 6455 §7.4.1), with a reason a person can
 * read; `ws` itself reports 1006 for them, having read no close frame.
 */
function wsFailure(error: unknown, limit: number): { code: number; reason: string } | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
    return { code: 1009, reason: `a frame over ${limit} bytes (maxPayloadBytes)` };
  }
  if (code === 'WS_ERR_INVALID_UTF8') return { code: 1007, reason: 'invalid UTF-8 in a text frame' };
  if (typeof code === 'string' && code.startsWith('WS_ERR_')) {
    return { code: 1002, reason: `protocol error: ${String(message)}` };
  }
  return undefined;
}

/**
 * A text frame of invalid UTF-8, as the other runtimes' WebSockets name it only in words (Deno: `Invalid UTF-8`;
 * Bun: `Server sent invalid UTF8`; Node 22's global WebSocket: `Received invalid UTF-8 in text frame.`), each
 * closing with 1006 or 0: reported with the 1007 `ws` reports (RFC 6455 §8.1). Node 24's global WebSocket gives no
 * words (an error event without a message): its 1006 stays.
 */
const INVALID_UTF8 = /\binvalid utf-?8\b/i;

/** Close code reported where a socket ended without one (RFC 6455 §7.1.5); Deno reports 0 there. */
const ABNORMAL_CLOSURE = 1006;

/**
 * The close code the runtime gave, or 1006 where it gave none a peer can send or RFC 6455 §7.4.1 reserves for
 * reporting (`0`: Deno, for a reset, an end of stream or invalid UTF-8; `undefined` from a test double).
 */
function reportedCode(code: unknown): number {
  return typeof code === 'number' && Number.isInteger(code) && code >= 1000 && code <= 4999
    ? code
    : ABNORMAL_CLOSURE;
}

/**
 * Opens a socket with the `toolwire.v1` subprotocol. Where the runtime allows (`ws`), `headers` go on the upgrade
 * request and `maxPayloadBytes` bounds every frame read.
 */
export function openTransport(
  ctor: WebSocketConstructor,
  url: string,
  options: TransportOptions,
  handlers: TransportHandlers,
): Transport {
  const Ctor = ctor as unknown as new (
    url: string,
    protocols: string[] | { protocols: string[]; headers?: Record<string, string> },
    options?: unknown,
  ) => WebSocketLike;
  const { style, headers } = options;
  const isWs = style === 'ws';
  let limit = Math.min(options.maxPayloadBytes, MAX_WS_PAYLOAD);
  const socket =
    style === 'ws'
      ? new Ctor(url, [SUBPROTOCOL], { ...(headers ? { headers } : {}), maxPayload: limit })
      : style === 'options'
        ? new Ctor(url, { protocols: [SUBPROTOCOL], ...(headers ? { headers } : {}) })
        : new Ctor(url, [SUBPROTOCOL]);
  const failure: SocketFailure = {};
  /** The message of the socket's error event, where the runtime gives one (Deno's and Bun's `ErrorEvent`). */
  let errorEventMessage = '';
  let done = false;
  const finish = (code: number, reason: string) => {
    if (done) return;
    done = true;
    socket.onopen = socket.onmessage = socket.onclose = null;
    // Keep swallowing errors: `ws` emits one on the next tick when a socket is terminated mid-handshake, and an
    // EventEmitter 'error' with no listener would crash the process.
    socket.onerror = () => {};
    handlers.onClose(code, reason, failure);
  };
  const events =
    isWs && typeof (socket as Partial<WsEvents>).on === 'function'
      ? (socket as unknown as WsEvents)
      : undefined;
  if (events !== undefined) {
    // With a listener here `ws` leaves the failed upgrade to us: keep what it says, then end the attempt.
    events.on('unexpected-response', (_request, response) => {
      failure.status = response.statusCode;
      const location = response.headers.location;
      if (typeof location === 'string') failure.location = location;
      response.resume?.();
      dropSocket();
    });
    events.on('upgrade', (response) => {
      const selected = response.headers['sec-websocket-protocol'];
      failure.selectedProtocol = typeof selected === 'string' ? selected : '';
    });
  }
  socket.onopen = () => {
    if (!done) handlers.onOpen();
  };
  const isWsSocket = events !== undefined && (socket as { binaryType?: unknown }).binaryType === 'nodebuffer';
  /** How frames are written on a `ws` socket; `null`: by `send`; `undefined` until the first frame. */
  let writer: WsWriter | null | undefined;
  if (isWsSocket) {
    // `ws`'s own event: its `onmessage` wraps each message in a `MessageEvent` (an object and two calls more per
    // frame). With Buffers (the default) a text message is a Buffer of UTF-8 that `ws` has checked.
    events.on('message', (data, isBinary) => {
      if (done) return;
      if (isBinary) handlers.onBinary(data.length);
      else handlers.onMessage(data.toString());
    });
  } else
    socket.onmessage = (event) => {
      if (done) return;
      const data = event.data;
      // Text messages arrive as strings in every runtime (`ws` converts them too); anything else is binary.
      if (typeof data === 'string') handlers.onMessage(data);
      else handlers.onBinary(byteSize(data));
    };
  // An error is always followed by a close in both `ws` and browsers; the close carries the code, and the
  // error (e.g. `connect ECONNREFUSED`, where the runtime gives one) says why.
  socket.onerror = (event) => {
    const error = (event as { error?: unknown } | null)?.error;
    if (error !== undefined) failure.error = error;
    const message = (event as { message?: unknown } | null)?.message;
    if (typeof message === 'string') errorEventMessage = message;
    // Bun and Deno name a refused upgrade's status only in the message ("Expected 101 status code: 403",
    // "Invalid status code: 403"); without it a 403 would read as a network failure, and be retried.
    if (style === 'options' && failure.status === undefined) {
      const status = upgradeStatus(message);
      if (status !== undefined) failure.status = status;
    }
    // Bun refuses an upgrade without our subprotocol in its own words ("Mismatch client protocol", "Missing
    // client protocol"): the service does not speak the protocol, which retrying cannot change.
    if (typeof message === 'string' && /\b(?:mismatch|missing) client protocol\b/i.test(message))
      failure.selectedProtocol = '';
  };
  // Every runtime reports the same event with the same code: `ws`'s errors by their string code, the others'
  // invalid UTF-8 by their words, and a close without a code (Deno's 0) as 1006.
  socket.onclose = (event) => {
    const local = wsFailure(failure.error, limit);
    if (local) finish(local.code, local.reason);
    else if (INVALID_UTF8.test(errorMessage(failure.error)) || INVALID_UTF8.test(errorEventMessage))
      finish(1007, 'invalid UTF-8 in a text frame');
    else finish(reportedCode(event?.code), event?.reason || errorMessage(failure.error));
  };
  let corked: Corkable | undefined;
  const uncork = () => {
    try {
      corked?.uncork();
    } catch {
      // The TCP socket is gone; its close is on the way.
    }
    corked = undefined;
  };
  function dropSocket(): void {
    const terminate = (socket as { terminate?: () => void }).terminate;
    try {
      if (typeof terminate === 'function') terminate.call(socket);
      else socket.close();
    } catch {
      // Nothing more to do with a socket that is already gone.
    }
  }
  // The accessors are defined apart: V8 keeps an object literal with accessors as a dictionary, and then every read
  // of the transport (its `send`, its `bufferedAmount` twice per result written) is a generic lookup.
  const transport: Omit<Transport, 'bufferedAmount' | 'protocol'> = {
    send(text) {
      if (done) return utf8Length(text);
      try {
        if (socket.readyState !== 1) return utf8Length(text);
        // Known once open: `ws`'s own framing, where it can be used (see `wsWriter`).
        if (writer === undefined) writer = isWsSocket ? (wsWriterOf?.(socket) ?? null) : null;
        // Frames sent in one task (the results of the calls one read brought in) leave in one write: the TCP
        // socket is corked at the first and uncorked when the task's synchronous work is done.
        if (corked === undefined) {
          // Looked up here: `ws` attaches its TCP socket only once the upgrade is done.
          corked = corkable(socket);
          if (corked !== undefined) {
            corked.cork();
            // Not queueMicrotask: in Node it makes an AsyncResource per call, which costs more than the write saved.
            void Promise.resolve().then(uncork);
          }
        }
        // `ws`'s sender while nothing waits (no compression or Blob underway) and `send` is still `ws`'s own: the
        // frame is written at once.
        if (writer !== null && socket.send === writer.send && writer.sender._state === WS_SENDER_IDLE) {
          // Its UTF-8 made here, not by `frame` (see ./ws.ts `wsWriter`): the frame's header, then that, masked.
          const data = writer.Buffer.from(text);
          writer.sender.sendFrame(writer.Sender.frame(data, writer.options));
          return data.length;
        }
        socket.send(text);
        return utf8Length(text);
      } catch (thrown) {
        return { thrown };
      }
    },
    setMaxPayload(bytes) {
      limit = Math.min(bytes, MAX_WS_PAYLOAD);
      // `ws` fixes maxPayload when the socket is made; its receiver (created on upgrade) holds the live value.
      const receiver = (socket as { _receiver?: { _maxPayload?: unknown } | null })._receiver;
      if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = limit;
    },
    close(code, reason) {
      try {
        socket.close(code, reason);
      } catch {
        // Already closing, or a code the implementation refuses: the socket is going away either way.
      }
    },
    terminate(code, reason) {
      const terminate = (socket as { terminate?: () => void }).terminate;
      try {
        if (typeof terminate === 'function') terminate.call(socket);
        // Browsers accept only 1000 and 3000–4999 from the application.
        else if (code === 1000 || (code >= 3000 && code <= 4999)) socket.close(code, reason);
        else socket.close();
      } catch {
        // Nothing more to do with a socket that is already gone.
      }
      finish(code, reason);
    },
  };
  return Object.defineProperties(transport, {
    // Read twice per result written: without the closure `read` would take.
    bufferedAmount: {
      get(): number {
        try {
          const amount = socket.bufferedAmount;
          return typeof amount === 'number' ? amount : 0;
        } catch {
          // A getter that throws (a polyfill, a proxy) reports nothing unsent.
          return 0;
        }
      },
      enumerable: true,
    },
    protocol: {
      get(): string | undefined {
        const protocol = read(() => socket.protocol);
        return typeof protocol === 'string' ? protocol : undefined;
      },
      enumerable: true,
    },
  }) as Transport;
}

/** Reads a property of a socket that might throw from a getter (a polyfill, a proxy). */
function read<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}

/** The HTTP status a runtime's error message names for an upgrade not answered with 101. */
export function upgradeStatus(message: unknown): number | undefined {
  if (typeof message !== 'string') return undefined;
  const found = /status code:? (\d{3})\b/i.exec(message);
  return found ? Number(found[1]) : undefined;
}

function byteSize(data: unknown): number {
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  const size = (data as { size?: unknown } | null)?.size; // a Blob
  return typeof size === 'number' ? size : 0;
}

function errorMessage(error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : '';
}
