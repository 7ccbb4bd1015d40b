/**
 * An in-memory socket pair, as the MCP SDK's `InMemoryTransport.createLinkedPair()` gives one: `WebSocket` is a
 * constructor for the client's `WebSocket` option, and each socket the client makes with it is linked to a
 * {@link MemoryPeer}, the service's end, which reads the client's frames and sends its own. No network, no port:
 * for tests where a real socket proves nothing. Every delivery is a microtask, so fake timers drive it
 * (`vi.advanceTimersByTimeAsync`) and nothing waits on a real clock.
 */
import type { WebSocketConstructor, WebSocketLike } from '../../src/wire/transport';

/** The service's end of one socket. */
export interface MemoryPeer {
  /** The URL and subprotocols the client opened the socket with. */
  readonly url: string;
  readonly protocols: string | string[] | undefined;
  /** Every frame the client sent on this socket, as text, in order. */
  readonly received: string[];
  /** Told of each frame the client sends (after it is added to {@link received}). */
  onMessage: ((text: string) => void) | undefined;
  /** Told when the client closes the socket (`close()`), or drops it (`terminate()`: code 1006). */
  onClose: ((code: number, reason: string) => void) | undefined;
  /** Completes the upgrade (done on its own unless the pair was made with `open: 'manual'`). */
  open(protocol?: string): void;
  /** Sends a frame to the client: an object is sent as its JSON. */
  send(frame: string | object): void;
  /** Closes the socket from the service's side with this code and reason. */
  close(code?: number, reason?: string): void;
  /** Fails the socket as a runtime does when the connection breaks: an error, then a close with code 1006. */
  fail(error?: unknown): void;
  /** What the client's socket reports as `bufferedAmount` (0 unless a test sets it). */
  bufferedAmount: number;
}

export interface MemorySocketPair {
  /** The constructor to give the client as its `WebSocket` option. */
  WebSocket: WebSocketConstructor;
  /** Every socket the client opened, oldest first. */
  peers: MemoryPeer[];
  /** Resolves with the next socket the client opens (or one already opened that no call has taken yet). */
  nextPeer(): Promise<MemoryPeer>;
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 3;

/**
 * Makes a socket pair factory.
 * @param options.open `auto` (default): each socket opens on the next microtask, with subprotocol `toolwire.v1`;
 *   `manual`: it stays connecting until the peer's `open()`.
 * @param options.onConnection called with each new peer before the client's socket opens, to set its handlers.
 */
export function memorySocketPair(
  options: { open?: 'auto' | 'manual'; onConnection?: (peer: MemoryPeer) => void } = {},
): MemorySocketPair {
  const peers: MemoryPeer[] = [];
  let taken = 0;
  const waiting: Array<(peer: MemoryPeer) => void> = [];

  class MemorySocket implements WebSocketLike {
    readyState = CONNECTING;
    protocol = '';
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    readonly #peer: MemoryPeer;

    constructor(url: string, protocols?: string | string[]) {
      const socket = this;
      const ended = (code: number, reason: string) => {
        if (socket.readyState === CLOSED) return false;
        socket.readyState = CLOSED;
        queueMicrotask(() => socket.onclose?.({ code, reason }));
        return true;
      };
      this.#peer = {
        url,
        protocols,
        received: [],
        onMessage: undefined,
        onClose: undefined,
        bufferedAmount: 0,
        open(protocol = 'toolwire.v1') {
          if (socket.readyState !== CONNECTING) return;
          socket.readyState = OPEN;
          socket.protocol = protocol;
          socket.onopen?.({});
        },
        send(frame) {
          if (socket.readyState !== OPEN) return;
          const data = typeof frame === 'string' ? frame : JSON.stringify(frame);
          queueMicrotask(() => {
            if (socket.readyState === OPEN) socket.onmessage?.({ data });
          });
        },
        close(code = 1000, reason = '') {
          ended(code, reason);
        },
        fail(error = new Error('connection reset')) {
          if (socket.readyState === CLOSED) return;
          queueMicrotask(() => socket.onerror?.({ error }));
          ended(1006, '');
        },
      };
      peers.push(this.#peer);
      options.onConnection?.(this.#peer);
      if (options.open !== 'manual') queueMicrotask(() => this.#peer.open());
      const resolve = waiting.shift();
      if (resolve) {
        taken += 1;
        resolve(this.#peer);
      }
    }

    get bufferedAmount(): number {
      return this.#peer.bufferedAmount;
    }

    send(data: string): void {
      if (this.readyState !== OPEN) return;
      this.#peer.received.push(data);
      this.#peer.onMessage?.(data);
    }

    close(code = 1000, reason = ''): void {
      if (this.readyState === CLOSED) return;
      this.readyState = CLOSED;
      this.#peer.onClose?.(code, reason);
      queueMicrotask(() => this.onclose?.({ code, reason }));
    }

    /** As `ws` drops a socket without a closing handshake. */
    terminate(): void {
      this.close(1006, '');
    }
  }

  return {
    WebSocket: MemorySocket as unknown as WebSocketConstructor,
    peers,
    nextPeer() {
      if (taken < peers.length) {
        const peer = peers[taken] as MemoryPeer;
        taken += 1;
        return Promise.resolve(peer);
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/**
 * The `welcome` a service sends a client's `hello` in tests, with `extra` fields (`features`, …) added: session
 * `s1`, not resumed, a heartbeat every 15 s, frames up to 1 MiB.
 */
export function welcomeFrame(extra?: object): object {
  return {
    type: 'welcome',
    sessionId: 's1',
    resumed: false,
    heartbeatIntervalMs: 15_000,
    maxPayloadBytes: 1_048_576,
    ...extra,
  };
}
