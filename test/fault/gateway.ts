/**
 * What a client may meet before any toolwire service answers, on 127.0.0.1: a gateway that answers the WebSocket
 * upgrade with an HTTP status (401, 403, 503, a 302 redirect…), a WebSocket server that selects no subprotocol,
 * a port nothing listens on, a host that resolves nowhere, and a runtime's WebSocket that (like a browser's)
 * cannot send headers and says nothing about why a connection failed.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { WebSocketServer, WebSocket as WsWebSocket } from 'ws';
import type { Logger } from '../../src/index';
import type { WebSocketConstructor, WebSocketLike } from '../../src/wire/transport';
import { onCleanup } from './harness';

export interface Gateway {
  readonly url: string;
  /** Upgrade requests received, with their headers. */
  readonly requests: IncomingMessage[];
}

/** An HTTP server that answers every WebSocket upgrade with `status` (and `headers`) instead of 101. */
export async function refusingGateway(
  status: number,
  headers: Record<string, string> = {},
): Promise<Gateway> {
  const requests: IncomingMessage[] = [];
  const server = createServer((_request, response) => response.writeHead(404).end());
  server.on('upgrade', (request, socket) => {
    requests.push(request);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(
      `HTTP/1.1 ${status} Refused\r\n${lines.join('')}Connection: close\r\nContent-Length: 0\r\n\r\n`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/**
 * A WebSocket server that completes the upgrade but selects no subprotocol (it does not speak toolwire.v1), or
 * `selects` another one.
 */
export async function noSubprotocolServer(selects: string | false = false): Promise<Gateway> {
  const requests: IncomingMessage[] = [];
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => selects });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket, request) => {
    requests.push(request);
    socket.on('error', () => {});
  });
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => resolve());
      }),
  );
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, requests };
}

/** How {@link switchableService} answers an upgrade: as a toolwire service, or not. */
export type SwitchableAnswer = 'toolwire' | 'no subprotocol' | 'not JSON' | 4002 | 404;

/**
 * One address that answers as a bare toolwire service (a `welcome` to each `hello`, session `s1`, resumed when
 * asked), or, after `answer()`, as something else: an HTTP status, no subprotocol, a page where `welcome`
 * belongs, a close 4002 after `hello`; as a deploy may, for a moment. `dropAll()` ends the sockets open now.
 */
export async function switchableService(): Promise<{
  url: string;
  answer(answer: SwitchableAnswer): void;
  dropAll(): void;
}> {
  let answer: SwitchableAnswer = 'toolwire';
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) =>
      answer !== 'no subprotocol' && protocols.has('toolwire.v1') ? 'toolwire.v1' : false,
  });
  const server = createServer((_request, response) => response.writeHead(404).end());
  server.on('upgrade', (request, socket, head) => {
    if (typeof answer === 'number' && answer < 1000) {
      socket.end(`HTTP/1.1 ${answer} Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', () => {});
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { type: string; sessionId?: string };
        if (frame.type !== 'hello') return;
        if (answer === 'not JSON') ws.send('<html>Down for maintenance</html>');
        else if (answer === 4002) ws.close(4002, 'unsupported protocol version');
        else
          ws.send(
            JSON.stringify({
              type: 'welcome',
              sessionId: 's1',
              resumed: frame.sessionId === 's1',
              heartbeatIntervalMs: 60_000,
              maxPayloadBytes: 1_048_576,
            }),
          );
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dropAll = () => {
    for (const ws of wss.clients) ws.terminate();
  };
  onCleanup(() => {
    dropAll();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (next) => {
      answer = next;
    },
    dropAll,
  };
}

/** A TCP server that is not an HTTP server: it answers `reply` to whatever comes, or resets the connection. */
export async function notHttpServer(reply: string | 'reset'): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    if (reply === 'reset') socket.resetAndDestroy();
    else socket.end(reply);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A 127.0.0.1 URL whose port nothing listens on (bound, then released). */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `ws://127.0.0.1:${port}`;
}

/** `ws`, with name resolution that fails as it does for a host that does not exist (no DNS query is made). */
export const UnresolvableWebSocket = class extends WsWebSocket {
  constructor(url: string, protocols?: string | string[], options: Record<string, unknown> = {}) {
    super(url, protocols, {
      ...options,
      lookup: (hostname: string, _options: unknown, callback: (error: Error, address: string) => void) => {
        const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: 'ENOTFOUND',
          hostname,
        });
        process.nextTick(callback, error, '');
      },
    });
  }
} as unknown as WebSocketConstructor;

/**
 * A WHATWG-shaped WebSocket over `ws`, as browsers, Deno and Node 22's global one are: no way to send headers
 * (no `terminate`), and an `error` event that carries no reason at all.
 */
export class OpaqueWebSocket implements WebSocketLike {
  readonly #socket: WsWebSocket;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

  constructor(url: string, protocols?: string | string[]) {
    this.#socket = new WsWebSocket(url, protocols);
    this.#socket.on('open', () => this.onopen?.({ type: 'open' }));
    this.#socket.on('message', (data, isBinary) =>
      this.onmessage?.({ data: isBinary ? data : String(data) }),
    );
    this.#socket.on('error', () => this.onerror?.({ type: 'error' }));
    this.#socket.on('close', (code, reason) => this.onclose?.({ code, reason: String(reason) }));
  }
  get readyState(): number {
    return this.#socket.readyState;
  }
  get bufferedAmount(): number {
    return this.#socket.bufferedAmount;
  }
  get protocol(): string {
    return this.#socket.protocol;
  }
  send(data: string): void {
    this.#socket.send(data);
  }
  close(code?: number, reason?: string): void {
    this.#socket.close(code, reason);
  }
}

/** A logger that keeps every line, for assertions on what was logged. */
export function recordingLogger(): Logger & {
  lines: Array<{ level: string; object: Record<string, unknown>; message: string }>;
} {
  const lines: Array<{ level: string; object: Record<string, unknown>; message: string }> = [];
  const at = (level: string) => (object: Record<string, unknown>, message: string) =>
    lines.push({ level, object, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
