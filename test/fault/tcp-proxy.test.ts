/** The fault-injection proxy's own behaviour: what it forwards, drops, cuts, holds back and swallows. */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { seededRandom, startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TCP server on loopback that echoes every byte back and keeps what it received. */
async function echoServer(): Promise<{ port: number; received: () => string; sockets: Socket[] }> {
  const chunks: Buffer[] = [];
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    received: () => Buffer.concat(chunks).toString('latin1'),
    sockets,
  };
}

async function proxyTo(port: number, record = false): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ targetPort: port, record });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A raw TCP client of the proxy that keeps what comes back. */
async function rawClient(proxy: TcpProxy) {
  const socket = connect(proxy.port, '127.0.0.1');
  socket.on('error', () => {});
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  cleanups.push(() => {
    socket.destroy();
  });
  return { socket, closed, text: () => Buffer.concat(chunks).toString('latin1') };
}

/** Waits until `read()` returns `expected` (a failure bound, not a timing assertion). */
async function until(read: () => unknown, expected: unknown): Promise<void> {
  await expect.poll(read, { timeout: 5_000, interval: 5 }).toEqual(expected);
}

describe('TCP proxy', () => {
  it('forwards bytes both ways unchanged and records them per direction', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo.port, true);
    const client = await rawClient(proxy);
    client.socket.write('hello, ');
    client.socket.write(Buffer.from([0, 255, 10]));
    await until(client.text, `hello, \u0000\u00ff\n`);
    expect(echo.received()).toBe(`hello, \u0000\u00ff\n`);
    expect(proxy.recorded('up')).toBe(`hello, \u0000\u00ff\n`);
    expect(proxy.recorded('down')).toBe(`hello, \u0000\u00ff\n`);
    expect(proxy.stats.bytes).toEqual({ up: 10, down: 10 });
    expect(proxy.accepted).toBe(1);
  });

  it('drops every connection on both sides with dropAll, and accepts new ones after', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo.port);
    const first = await rawClient(proxy);
    const second = await rawClient(proxy);
    await until(() => proxy.open, 2);
    expect(proxy.dropAll()).toBe(2);
    await Promise.all([first.closed, second.closed]);
    await until(
      () => echo.sockets.map((socket) => socket.destroyed || socket.readyState === 'closed'),
      [true, true],
    );
    expect(proxy.open).toBe(0);
    expect(proxy.stats.dropped).toBe(2);
    const third = await rawClient(proxy);
    third.socket.write('again');
    await until(third.text, 'again');
  });

  it('swallows bytes while blackholed without closing, and forwards new bytes once lifted', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo.port);
    const client = await rawClient(proxy);
    client.socket.write('before|');
    await until(client.text, 'before|');
    proxy.blackhole(true);
    client.socket.write('lost|');
    // Both ends stay open: a write in the other direction is swallowed too.
    echo.sockets[0]?.write('also lost|');
    await until(() => proxy.stats.swallowed, 'lost|'.length + 'also lost|'.length);
    proxy.blackhole(false);
    client.socket.write('after');
    await until(client.text, 'before|after');
    expect(echo.received()).toBe('before|after');
    expect(proxy.open).toBe(1);
    expect(client.socket.destroyed).toBe(false);
  });

  it('blackholes one direction only when asked', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo.port);
    const client = await rawClient(proxy);
    proxy.blackhole(true, 'down');
    client.socket.write('up only');
    await until(echo.received, 'up only');
    await until(() => proxy.stats.swallowed, 'up only'.length);
    expect(client.text()).toBe('');
    proxy.blackhole(false, 'down');
    client.socket.write('|both');
    await until(client.text, '|both');
  });

  it('keeps the order of chunks while delaying them', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo.port);
    const client = await rawClient(proxy);
    proxy.delay(30);
    for (const part of ['a', 'b', 'c', 'd']) client.socket.write(part);
    proxy.delay(0);
    client.socket.write('e');
    await until(client.text, 'abcde');
    expect(echo.received()).toBe('abcde');
  });

  it('throttles to slices of bytesPerSecond / 50, in order, nothing lost', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo.port);
    const client = await rawClient(proxy);
    const payload = Buffer.alloc(2_000, 'x');
    payload.write('START', 0);
    payload.write('END', 1_997);
    proxy.throttle(50_000); // 1,000-byte slices
    client.socket.write(payload);
    await until(client.text, payload.toString('latin1'));
    // 2,000 bytes up in 2 slices, then 2,000 back down in 2 more: however TCP groups the chunks.
    expect(proxy.stats.throttledWrites).toBeGreaterThanOrEqual(4);
    expect(echo.received()).toBe(payload.toString('latin1'));
  });

  it('cuts a WebSocket frame in the middle: the receiver never gets the message and sees 1006', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const port = (wss.address() as { port: number }).port;
    const proxy = await proxyTo(port, true);
    const client = new WebSocket(proxy.url);
    const messages: string[] = [];
    client.on('message', (data) => messages.push(String(data)));
    client.on('error', () => {});
    const closed = new Promise<number>((resolve) => client.on('close', (code) => resolve(code)));
    await new Promise((resolve) => client.once('open', resolve));
    const peer = await serverSide;
    peer.on('error', () => {});
    peer.send('first');
    await until(() => messages, ['first']);
    const downBefore = proxy.stats.bytes.down;
    const cut = proxy.cutMidFrame('down');
    peer.send('x'.repeat(1_000));
    // A 1,000-byte text frame from a server: 4 bytes of header (126 + 16-bit length) + payload; one is held back.
    expect(await cut).toBe(1_003);
    expect(await closed).toBe(1006);
    expect(messages).toEqual(['first']);
    expect(proxy.stats.bytes.down - downBefore).toBe(1_003);
    expect(proxy.stats.cut).toBe(1);
    expect(proxy.open).toBe(0);
  });

  it('replays the same chaos schedule from the same seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const first = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(first);
    expect(Array.from({ length: 5 }, c)).not.toEqual(first);
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
  });

  it('drops connections at random points under chaos until stopped', async () => {
    const echo = await echoServer();
    const proxy = await proxyTo(echo.port);
    const client = await rawClient(proxy);
    const stop = proxy.chaos({ seed: 7, everyMs: [5, 20] });
    await client.closed;
    stop();
    expect(proxy.stats.dropped).toBe(1);
    const after = await rawClient(proxy);
    after.socket.write('still works');
    await until(after.text, 'still works');
  });
});
