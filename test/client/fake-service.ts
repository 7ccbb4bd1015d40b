/**
 * A scripted service on msw's WebSocket mocking, for unit tests of the client's state machine. Each connection
 * is recorded with the frames it received; the test decides what the service answers.
 */
import { ws } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Client } from '../../src/index';
import type { ClientFrame, ServiceFrame } from '../../src/wire/protocol';
import type { WebSocketConstructor } from '../../src/wire/transport';

export const FAKE_URL = 'ws://toolwire.test/v1/ws';

/**
 * The WebSocket msw intercepts (the global it patches once listening): clients of the fake service pass it as their
 * `WebSocket` option, since a client made in Node otherwise opens its sockets with `ws`, which msw does not see.
 */
export function fakeWebSocket(): WebSocketConstructor {
  return globalThis.WebSocket as unknown as WebSocketConstructor;
}

export interface FakeConnection {
  frames: ClientFrame[];
  send(frame: ServiceFrame | Record<string, unknown>): void;
  sendRaw(text: string): void;
  close(code: number, reason: string): void;
  /** Resolves with the next frame of `type` received on this connection. */
  next<T extends ClientFrame['type']>(type: T): Promise<Extract<ClientFrame, { type: T }>>;
}

export function fakeService() {
  const link = ws.link(FAKE_URL);
  const server = setupServer();
  const connections: FakeConnection[] = [];
  const waiting: Array<(connection: FakeConnection) => void> = [];
  server.use(
    link.addEventListener('connection', ({ client }) => {
      const listeners: Array<(frame: ClientFrame) => boolean> = [];
      const connection: FakeConnection = {
        frames: [],
        send: (frame) => client.send(JSON.stringify(frame)),
        sendRaw: (text) => client.send(text),
        close: (code, reason) => client.close(code, reason),
        next(type) {
          return new Promise((resolve) => {
            listeners.push((frame) => {
              if (frame.type !== type) return false;
              resolve(frame as never);
              return true;
            });
          });
        },
      };
      client.addEventListener('message', (event) => {
        const frame = JSON.parse(String(event.data)) as ClientFrame;
        connection.frames.push(frame);
        const index = listeners.findIndex((listener) => listener(frame));
        if (index >= 0) listeners.splice(index, 1);
      });
      connections.push(connection);
      waiting.shift()?.(connection);
    }),
  );
  return {
    server,
    connections,
    /** Resolves with the next connection the client opens (or the latest, if one is already waiting unclaimed). */
    nextConnection(): Promise<FakeConnection> {
      return new Promise((resolve) => waiting.push(resolve));
    },
    /** Connects `client` the usual way: its `hello` read, a {@link welcome} sent, `connect()` resolved. */
    async connect(client: { connect(): Promise<unknown> }): Promise<FakeConnection> {
      const opened = new Promise<FakeConnection>((resolve) => waiting.push(resolve));
      const connecting = client.connect();
      const connection = await opened;
      await connection.next('hello');
      connection.send(welcome());
      await connecting;
      return connection;
    },
  };
}

export function welcome(sessionId = 's1', extra: Record<string, unknown> = {}) {
  return {
    type: 'welcome',
    sessionId,
    resumed: false,
    heartbeatIntervalMs: 60_000,
    maxPayloadBytes: 65_536,
    ...extra,
  };
}

/**
 * A fake service for the whole test file (listening from before the first test to after the last) and the list
 * of clients its tests make: each one pushed to `clients` is closed, without draining, after its test.
 */
export function useFakeService(): { service: ReturnType<typeof fakeService>; clients: Client[] } {
  const service = fakeService();
  beforeAll(() => service.server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => service.server.close());
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close({ drain: false })));
  });
  return { service, clients };
}
