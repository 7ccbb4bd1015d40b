/**
 * Keyed concurrency in a client: a key at its limit holds no slot of `maxConcurrency`, so another key's call
 * starts at once however many calls of the first wait; calls waiting for a first slot start in the order they
 * came, whatever their key (src/client/slots.ts).
 */
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/index';
import { keyedTool } from '../support/keyed-tool';
import { FAKE_URL, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();

/** Lets the frames sent and every pending callback run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

async function keyedClient(maxConcurrency: number, limit: number) {
  const { work, started, release } = keyedTool(limit);
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: 'keyed-test-key',
    tools: [work],
    maxConcurrency,
    reconnect: false,
  });
  clients.push(client);
  const connection = await service.connect(client);
  const send = (tenant: string, n: number) =>
    connection.send({
      type: 'tool_call',
      callId: `${tenant}${n}`,
      runId: 'r1',
      toolName: 'work',
      arguments: { tenant, n },
    });
  return { client, started, release, send };
}

describe('a client running a keyed tool', () => {
  it('starts a quiet tenant’s call at once while a busy one has 100 waiting, holding no slot', async () => {
    const { client, started, send } = await keyedClient(4, 2);
    for (let n = 0; n < 100; n++) send('a', n);
    send('b', 0);
    await settle();
    expect(started).toEqual(['a0', 'a1', 'b0']);
    expect(client.stats.running).toBe(3);
    expect(client.stats.tools).toEqual({ work: { running: 3, waiting: 98 } });
  });

  it('starts calls waiting for a first slot in the order they came, when running calls hold every slot', async () => {
    // limit ≥ maxConcurrency: the busy tenant's calls run, not wait at the gate, and hold both slots.
    const { started, release, send } = await keyedClient(2, 2);
    for (let n = 0; n < 5; n++) send('a', n);
    send('b', 0);
    await settle();
    expect(started).toEqual(['a0', 'a1']);
    for (let round = 0; round < 4; round++) {
      release(`a${round}`);
      await settle();
    }
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0']);
  });
});
