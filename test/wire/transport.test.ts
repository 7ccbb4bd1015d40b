import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { openTransport, resolveWebSocket, type WebSocketConstructor } from '../../src/wire/transport';

/** A WebSocket double that records sends and, like `ws`, has a TCP socket (`_socket`) once open. */
function fakeSocketClass(log: string[], withTcp: boolean) {
  return class FakeSocket {
    readyState = 1;
    bufferedAmount = 0;
    protocol = 'toolwire.v1';
    onopen = null;
    onmessage = null;
    onclose = null;
    onerror = null;
    _socket = withTcp ? { cork: () => log.push('cork'), uncork: () => log.push('uncork') } : null;
    send(text: string) {
      log.push(`send ${text}`);
    }
    close() {}
  } as unknown as WebSocketConstructor;
}

const handlers = { onOpen() {}, onMessage() {}, onBinary() {}, onClose() {} };
const LIMITS = { maxPayloadBytes: 1_048_576 };

describe('openTransport', () => {
  it('gathers the frames sent in one task into one corked write', async () => {
    const log: string[] = [];
    const transport = openTransport(fakeSocketClass(log, true), 'ws://127.0.0.1:1', LIMITS, handlers);
    transport.send('a');
    transport.send('b');
    expect(log).toEqual(['cork', 'send a', 'send b']);
    await Promise.resolve();
    expect(log).toEqual(['cork', 'send a', 'send b', 'uncork']);
    transport.send('c');
    await Promise.resolve();
    expect(log.slice(4)).toEqual(['cork', 'send c', 'uncork']);
  });

  it('sends directly on a WebSocket without a TCP socket of its own (browsers)', async () => {
    const log: string[] = [];
    const transport = openTransport(fakeSocketClass(log, false), 'ws://127.0.0.1:1', LIMITS, handlers);
    transport.send('a');
    transport.send('b');
    await Promise.resolve();
    expect(log).toEqual(['send a', 'send b']);
  });

  it('with a real ws socket, frames sent in one task reach the peer in one TCP write', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const chunks: number[] = [];
    const messages: string[] = [];
    server.on('connection', (peer) => {
      (peer as unknown as { _socket: NodeJS.EventEmitter })._socket.on('data', (chunk: Buffer) =>
        chunks.push(chunk.length),
      );
      peer.on('message', (data) => messages.push(String(data)));
    });
    const { port } = server.address() as AddressInfo;
    const opened = new Promise<void>((resolve) => {
      const transport = openTransport(
        WebSocket as unknown as WebSocketConstructor,
        `ws://127.0.0.1:${port}`,
        LIMITS,
        {
          ...handlers,
          onOpen: () => {
            transport.send('first');
            transport.send('second');
            resolve();
          },
        },
      );
    });
    try {
      await opened;
      await expect.poll(() => messages).toEqual(['first', 'second']);
      expect(chunks).toHaveLength(1); // one write (ws's private `_socket` was found and corked)
    } finally {
      for (const client of server.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('never throws: what a socket throws from send or its getters comes back as a value', () => {
    const boom = new Error('boom');
    const Hostile = class {
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      get readyState(): number {
        throw boom;
      }
      get bufferedAmount(): number {
        throw boom;
      }
      get protocol(): string {
        throw boom;
      }
      send() {
        throw boom;
      }
      close() {
        throw boom;
      }
    } as unknown as WebSocketConstructor;
    const transport = openTransport(Hostile, 'ws://127.0.0.1:1', LIMITS, handlers);
    expect(transport.send('a')).toEqual({ thrown: boom });
    expect(transport.bufferedAmount).toBe(0);
    expect(transport.protocol).toBeUndefined();
    expect(() => transport.close(1000, 'bye')).not.toThrow();
    expect(() => transport.terminate(4008, 'heartbeat timeout')).not.toThrow();
  });

  it('hands binary messages over as binary, never decoded as text', () => {
    const seen: string[] = [];
    let socket: { onmessage: ((event: { data: unknown }) => void) | null } | undefined;
    const Capture = class {
      readyState = 1;
      bufferedAmount = 0;
      protocol = 'toolwire.v1';
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      constructor() {
        socket = this;
      }
      send() {}
      close() {}
    } as unknown as WebSocketConstructor;
    openTransport(Capture, 'ws://127.0.0.1:1', LIMITS, {
      ...handlers,
      onMessage: (text) => seen.push(`text ${text}`),
      onBinary: (bytes) => seen.push(`binary ${bytes}`),
    });
    socket?.onmessage?.({ data: '{"type":"ping"}' });
    socket?.onmessage?.({ data: new TextEncoder().encode('{"type":"ping"}') });
    socket?.onmessage?.({ data: new ArrayBuffer(3) });
    expect(seen).toEqual(['text {"type":"ping"}', 'binary 15', 'binary 3']);
  });
});

describe('resolveWebSocket', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('takes the WebSocket option first, then the global WebSocket', async () => {
    const Explicit = fakeSocketClass([], false);
    const Global = fakeSocketClass([], false);
    vi.stubGlobal('WebSocket', Global);
    expect(await resolveWebSocket(Explicit)).toBe(Explicit);
    expect(await resolveWebSocket()).toBe(Global);
  });

  it("without either, is ws's WebSocket: the class `import('ws')` gives", async () => {
    vi.stubGlobal('WebSocket', undefined);
    expect(await resolveWebSocket()).toBe((await import('ws')).WebSocket);
    expect(await resolveWebSocket()).toBe(WebSocket);
  });

  it("loads ws by import('ws') where the runtime has no process.getBuiltinModule", async () => {
    vi.stubGlobal('WebSocket', undefined);
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    expect(await resolveWebSocket()).toBe(WebSocket);
  });
});
