/**
 * Shared set-up of the fault suites: a stub on 127.0.0.1 port 0, clients and proxies closed after each test, a
 * WebSocket that records every frame a client sends and receives, and small waiting helpers.
 */
import { expect } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import {
  type StubServer,
  type StubServerOptions,
  silentLogger,
  startStubServer,
} from '../../server-stub/index';
import { Client, type ClientOptions } from '../../src/index';
import type { WebSocketConstructor } from '../../src/wire/transport';
import { afterTest } from '../support/after-test';
import { type ProxyOptions, startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { type RawServiceOptions, startRawService } from './raw-service';

export const API_KEY = 'sk-live-Q7ZP-FAULT-9X4W';

/** Runs `cleanup` after the current test, in reverse order of registration. */
export function onCleanup(cleanup: () => Promise<void> | void): void {
  afterTest(cleanup);
}

export async function stub(options: StubServerOptions = {}): Promise<StubServer> {
  const server = await startStubServer({ apiKeys: [API_KEY], logger: silentLogger, ...options });
  onCleanup(() => server.close());
  return server;
}

export async function proxyTo(server: StubServer, options: Partial<ProxyOptions> = {}): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ targetPort: server.port, ...options });
  onCleanup(() => proxy.close());
  return proxy;
}

export function client<C = unknown>(url: string, options: Partial<ClientOptions<C>> = {}): Client<C> {
  const created = new Client<C>({
    url,
    apiKey: API_KEY,
    tools: [],
    reconnect: { initialDelayMs: 5, maxDelayMs: 50 },
    ...options,
  });
  onCleanup(() => created.close({ drain: false }));
  return created;
}

/** A `ws` WebSocket that keeps every text frame it sends (`sent`) and receives (`received`), decoded. */
export function recordingWebSocket(): {
  WebSocket: WebSocketConstructor;
  sent: Array<Record<string, unknown> & { type: string }>;
  sentRaw: string[];
  received: Array<Record<string, unknown> & { type: string }>;
} {
  const sent: Array<Record<string, unknown> & { type: string }> = [];
  const sentRaw: string[] = [];
  const received: Array<Record<string, unknown> & { type: string }> = [];
  class RecordingWebSocket extends WsWebSocket {
    constructor(...args: ConstructorParameters<typeof WsWebSocket>) {
      super(...args);
      this.on('message', (data) => received.push(JSON.parse(String(data))));
    }
    override send(data: unknown, ...rest: unknown[]): void {
      sentRaw.push(String(data));
      sent.push(JSON.parse(String(data)));
      (super.send as (...args: unknown[]) => void)(data, ...rest);
    }
  }
  return { WebSocket: RecordingWebSocket as unknown as WebSocketConstructor, sent, sentRaw, received };
}

/** A deferred promise, for tools that wait for the test. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Waits until `read()` deeply equals `expected`; fails after `timeoutMs` (a failure bound, not a timing test). */
export async function until(read: () => unknown, expected: unknown, timeoutMs = 10_000): Promise<void> {
  await expect.poll(read, { timeout: timeoutMs, interval: 5 }).toEqual(expected);
}

/** Anything with eventemitter-style `on` and `off` (a `Client`, `server.events`). */
interface Listenable {
  on(event: never, listener: never): unknown;
  off(event: never, listener: never): unknown;
}

/** Resolves on the next `event` of `emitter` whose payload matches `where`. */
export function nextEvent<T>(
  emitter: Listenable,
  event: string,
  where: (value: T) => boolean = () => true,
): Promise<T> {
  type Subscribe = (event: string, listener: (value: T) => void) => unknown;
  return new Promise((resolve) => {
    const listener = (value: T) => {
      if (!where(value)) return;
      (emitter.off as Subscribe).call(emitter, event, listener);
      resolve(value);
    };
    (emitter.on as Subscribe).call(emitter, event, listener);
  });
}

/** A raw `ws` service (./raw-service.ts) on 127.0.0.1, closed after the test. */
export async function rawService(options: RawServiceOptions = {}) {
  const service = await startRawService(options);
  onCleanup(() => service.close());
  return service;
}
