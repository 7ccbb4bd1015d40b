/** Reconnecting through a link that keeps dropping: the client never gives up on a service it keeps reaching. */
import { describe, expect, it } from 'vitest';
import { client, nextEvent, proxyTo, stub } from './harness';

describe('reconnect on a flapping link', () => {
  it('does not count connections that reached welcome toward maxAttempts', async () => {
    const server = await stub();
    const proxy = await proxyTo(server);
    const worker = client(proxy.url, { reconnect: { initialDelayMs: 1, maxDelayMs: 5, maxAttempts: 2 } });
    const closed: unknown[] = [];
    worker.on('closed', (error) => closed.push(error));
    await worker.connect();
    const sessionId = worker.sessionId;
    // Each connection is welcomed, then dropped well before it counts as stable (5 s).
    for (let drop = 1; drop <= 5; drop++) {
      const resumed = nextEvent<{ resumed: boolean; sessionId: string }>(worker, 'connected');
      proxy.dropAll();
      expect(await resumed).toEqual({ resumed: true, sessionId });
    }
    expect(closed).toEqual([]);
    expect(worker.state).toBe('open');
  });

  it('still gives up after maxAttempts attempts that never reach the service', async () => {
    const server = await stub();
    const proxy = await proxyTo(server);
    const worker = client(proxy.url, { reconnect: { initialDelayMs: 1, maxDelayMs: 5, maxAttempts: 2 } });
    await worker.connect();
    const closed = nextEvent<{ code: string; message: string } | undefined>(worker, 'closed');
    await proxy.close();
    const error = await closed;
    expect(error?.code).toBe('unreachable');
    expect(error?.message).toMatch(
      /gave up after 2 attempts; nothing accepts connections there: start the service \(the stand-in: npx toolwire-stub\) or check the url$/,
    );
    expect(worker.state).toBe('closed');
  });
});
