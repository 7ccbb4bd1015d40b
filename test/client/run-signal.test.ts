/**
 * One `AbortSignal` passed to many `client.run()` calls: one listener on it however many runs wait, none left
 * once they end, and each run ends when it aborts.
 */
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Client } from '../../src/index';
import { FAKE_URL, fakeService, fakeWebSocket } from './fake-service';

const service = fakeService();
beforeAll(() => service.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => service.server.close());

describe('a signal shared by many runs', () => {
  it('holds one listener for 30 waiting runs and leaves none once they end', async () => {
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: 'run-signal-key',
      tools: [],
      reconnect: false,
    });
    await service.connect(client);
    const controller = new AbortController();
    const agent = new Agent({ name: 'A', instructions: 'x' });
    const runs = Array.from({ length: 30 }, () =>
      client.run(agent, 'go', { signal: controller.signal }).then(
        () => 'resolved',
        (error: Error) => error.name,
      ),
    );
    // The run code loads on a client's first run() (from this entry, as in a browser): then the runs wait.
    await expect.poll(() => getEventListeners(controller.signal, 'abort').length).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await client.close({ drain: false });
    expect(await Promise.all(runs)).toEqual(Array(30).fill('ConnectionError'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
