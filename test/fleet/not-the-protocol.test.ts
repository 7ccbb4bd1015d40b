/**
 * Breaker finding: client.md ("Connecting") says "a service that does not speak the protocol rejects `connect()`
 * at once". A WebSocket server that accepts the upgrade and answers with a frame that is not JSON (an echo
 * server, another service's endpoint) is retried instead: an `error` event (`invalid_welcome`) per attempt, about
 * one a second, and `connect()` rejects only at `connectTimeoutMs` (30 s), as `connect_timeout`. Same on Node 20,
 * Bun 1.x and Deno 2.
 */
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { Client, tool } from '../../src/index';
import { onCleanup } from '../fault/harness';

describe('connect() to a WebSocket server that does not speak the protocol', () => {
  it.fails('rejects at the first attempt, not after retrying', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (socket) => socket.send('hello, I am an echo server'));
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const work = tool({ name: 'work', description: 'Works.', execute: () => 'ok' });
    const client = new Client({ url: `ws://127.0.0.1:${port}`, apiKey: 'k', tools: [work] });
    onCleanup(() => client.close({ drain: false }));
    const errors: string[] = [];
    const secondAttempt = new Promise<'retried'>((resolve) =>
      client.on('error', (error) => {
        errors.push((error as { code?: string }).code ?? '');
        if (errors.length === 2) resolve('retried');
      }),
    );
    const outcome = await Promise.race([
      client.connect().then(
        () => 'connected',
        () => 'rejected',
      ),
      secondAttempt,
    ]);
    expect(errors[0]).toBe('invalid_welcome');
    expect(outcome).toBe('rejected');
  });
});
