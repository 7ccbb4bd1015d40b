import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { openTransport, type WebSocketConstructor } from '../../src/wire/transport';

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
});
