/**
 * The transport seam: the few socket operations a {@link Connection} needs, over any WebSocket implementation
 * (`ws` in Node, the global `WebSocket` in browsers, Deno, Bun, or a test double).
 *
 * @module
 */
import { SUBPROTOCOL } from './protocol';

/** A WebSocket-like constructor: the WHATWG `WebSocket`, `ws`'s class, or anything with the same shape. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  // `ws` takes a third options argument (used for the Authorization header); browsers ignore it.
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

/** One open (or opening) socket, as the connection sees it. */
export interface Transport {
  /** Bytes queued in the socket but not yet sent. */
  readonly bufferedAmount: number;
  send(text: string): void;
  /** Closes politely (close handshake). */
  close(code: number, reason: string): void;
  /** Drops the socket at once, without waiting for the peer (dead peer). */
  terminate(): void;
}

/** Callbacks a transport reports to. Each is called at most for the socket it was given to. */
export interface TransportHandlers {
  onOpen(): void;
  onMessage(text: string): void;
  onClose(code: number, reason: string): void;
}

/**
 * Looks up the WebSocket constructor when connecting, never at module load (so msw and other interceptors that
 * patch `globalThis.WebSocket` are seen): the `explicit` option, else the global `WebSocket`, else `ws`.
 */
export async function resolveWebSocket(explicit?: WebSocketConstructor): Promise<WebSocketConstructor> {
  if (explicit) return explicit;
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return global;
  const module = (await import('ws')) as unknown as { WebSocket: WebSocketConstructor };
  return module.WebSocket;
}

/** The part of Node's `net.Socket` used to gather several frames into one write. */
interface Corkable {
  cork(): void;
  uncork(): void;
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

/** `ws` can send headers on the upgrade request; the WHATWG WebSocket cannot. `ws` instances have `terminate`. */
export function canSendHeaders(ctor: WebSocketConstructor): boolean {
  return typeof (ctor.prototype as { terminate?: unknown } | undefined)?.terminate === 'function';
}

/**
 * Opens a socket with the `toolwire.v1` subprotocol. Where headers can be sent, `headers` go on the upgrade
 * request (the API key as `Authorization: Bearer`).
 */
export function openTransport(
  ctor: WebSocketConstructor,
  url: string,
  headers: Record<string, string> | undefined,
  handlers: TransportHandlers,
): Transport {
  const Ctor = ctor as unknown as new (url: string, protocols: string[], options?: unknown) => WebSocketLike;
  const socket =
    headers && canSendHeaders(ctor)
      ? new Ctor(url, [SUBPROTOCOL], { headers })
      : new Ctor(url, [SUBPROTOCOL]);
  let done = false;
  const finish = (code: number, reason: string) => {
    if (done) return;
    done = true;
    socket.onopen = socket.onmessage = socket.onclose = null;
    // Keep swallowing errors: `ws` emits one on the next tick when a socket is terminated mid-handshake, and an
    // EventEmitter 'error' with no listener would crash the process.
    socket.onerror = () => {};
    handlers.onClose(code, reason);
  };
  socket.onopen = () => handlers.onOpen();
  socket.onmessage = (event) => {
    if (done) return;
    const data = event.data;
    if (typeof data === 'string') handlers.onMessage(data);
    else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
      handlers.onMessage(new TextDecoder().decode(data as ArrayBuffer));
    } else handlers.onMessage(String(data));
  };
  // An error is always followed by a close in both `ws` and browsers; the close carries the code, and the
  // error's message (e.g. `connect ECONNREFUSED`, where the runtime gives one) stands in for an empty reason.
  let lastError = '';
  socket.onerror = (event) => {
    const message = (event as { message?: unknown } | null)?.message;
    if (typeof message === 'string') lastError = message;
  };
  socket.onclose = (event) => finish(event.code, event.reason || lastError);
  let corked: Corkable | undefined;
  const uncork = () => {
    corked?.uncork();
    corked = undefined;
  };
  return {
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    send(text) {
      if (done || socket.readyState !== 1) return;
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
      socket.send(text);
    },
    close(code, reason) {
      try {
        socket.close(code, reason);
      } catch {
        // Already closing, or a code the implementation refuses: the socket is going away either way.
      }
    },
    terminate() {
      const terminate = (socket as { terminate?: () => void }).terminate;
      try {
        if (typeof terminate === 'function') terminate.call(socket);
        else socket.close(4008, 'heartbeat timeout');
      } catch {
        // Nothing more to do with a socket that is already gone.
      }
      finish(4008, 'heartbeat timeout');
    },
  };
}
