/**
 * client.md ("Connecting"): "a service that does not speak the protocol rejects `connect()` at once". A WebSocket
 * server that accepts the upgrade and answers with a frame that is not JSON (an echo server, another service's
 * endpoint) rejects the first `connect()` at its first attempt, with the error its `error` event carried. (It was
 * retried: an `invalid_welcome` per attempt, about one a second, and `connect()` rejected only at
 * `connectTimeoutMs`, 30 s, as `connect_timeout`, on Node 20, Bun 1.x and Deno 2.)
 */
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { Client, type ConnectionError, tool } from '../../src/index';
import { onCleanup } from '../fault/harness';

describe('connect() to a WebSocket server that does not speak the protocol', () => {
  it('rejects at the first attempt, not after retrying', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    let connections = 0;
    server.on('connection', (socket) => {
      connections += 1;
      socket.send('hello, I am an echo server');
    });
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const url = `ws://127.0.0.1:${port}`;
    const work = tool({ name: 'work', description: 'Works.', execute: () => 'ok' });
    const client = new Client({ url, apiKey: 'k', tools: [work] });
    onCleanup(() => client.close({ drain: false }));
    const errors: ConnectionError[] = [];
    client.on('error', (error) => errors.push(error as ConnectionError));
    const rejected = (await client.connect().catch((error: unknown) => error)) as ConnectionError;
    expect(rejected).toMatchObject({
      name: 'ConnectionError',
      code: 'invalid_welcome',
      message: `${url}: the service sent a frame that is not JSON where its welcome was expected, so it does not speak this protocol (is the URL right?); the client closed the socket (4003)`,
    });
    expect(errors).toEqual([rejected]);
    expect(connections).toBe(1);
    expect(client.state).toBe('closed');
  });
});
