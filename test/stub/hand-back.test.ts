/**
 * The feature `hand_back` (docs/protocol/fleets.md): calls a worker holds waiting for their key's turn are asked
 * back when another worker has room, so a worker that joins after a burst takes its share; nothing runs twice. An
 * older client, which does not offer the feature, keeps the calls it was sent.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { until } from '../fault/harness';
import { afterTest } from '../support/after-test';
import { olderWebSocket } from '../support/older-websocket';
import { agent, stub } from './helpers';

const BURST = 8;

/** A burst of one tenant's calls to worker `a` (one at a time per tenant), then worker `b` joins. */
async function burstThenJoin(older: boolean) {
  const server = await stub({
    model: scriptedModel([
      {
        toolCalls: Array.from({ length: BURST }, (_, n) => ({ name: 'work', arguments: { tenant: 't', n } })),
      },
      { text: 'done' },
    ]),
  });
  const executed: string[] = [];
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const work = (worker: string) =>
    tool({
      name: 'work',
      description: 'Works for a tenant, one call at a time per tenant in each worker.',
      parameters: {
        type: 'object',
        properties: { tenant: { type: 'string' }, n: { type: 'integer' } },
        required: ['tenant', 'n'],
      } as const,
      concurrency: { limit: 1, key: (input) => input.tenant },
      execute: async ({ n }) => {
        executed.push(`${worker}:${n}`);
        await gate;
        return `${worker}:${n}`;
      },
    });
  const worker = (name: string) => {
    const client = new Client({
      url: server.url,
      apiKey: 'k',
      tools: [work(name)],
      maxConcurrency: 4,
      ...(older ? { WebSocket: olderWebSocket('hand_back') as never } : {}),
    });
    afterTest(() => client.close({ drain: false }));
    return client;
  };
  const a = worker('a');
  const handedBack: string[] = [];
  a.on('tool_result', ({ callId, status }) => {
    if (status === 'error') handedBack.push(callId);
  });
  await a.connect();
  const runId = server.runs.start(agent('a', ['work']), 'go');
  // One call runs on a; the rest of the burst waits there for the tenant's turn.
  await until(() => [a.stats.running, a.stats.queued], [1, BURST - 1]);
  const b = worker('b');
  await b.connect();
  return { server, runId, a, b, executed, handedBack, open };
}

describe('hand_back: a worker that joins after a burst', () => {
  it('takes its share of the calls waiting for their key on the other worker; none runs twice', async () => {
    const { server, runId, b, executed, handedBack, open } = await burstThenJoin(false);
    // b runs one call of the tenant, and holds its share waiting: half the difference at each step.
    await until(() => b.stats.running, 1);
    await until(() => b.stats.queued >= 2, true);
    expect(executed.filter((name) => name.startsWith('b:'))).toHaveLength(1);
    open();
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(Array(BURST).fill('ok'));
    const ran = executed.map((name) => name.split(':')[1]);
    expect(new Set(ran).size).toBe(BURST);
    expect(ran).toHaveLength(BURST);
    const onB = executed.filter((name) => name.startsWith('b:')).length;
    expect(onB).toBeGreaterThanOrEqual(3);
    // Each call b ran was handed back by a, unstarted (its tool_result event: the busy answer).
    expect(handedBack).toHaveLength(onB);
    // Evened out, not moved back and forth: a asked fewer than the burst.
    expect(handedBack.length).toBeLessThan(BURST - 1);
  });

  it('leaves the calls where they are with a client that does not offer the feature', async () => {
    const { server, runId, executed, handedBack, open } = await burstThenJoin(true);
    open();
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(Array(BURST).fill('ok'));
    expect(executed.every((name) => name.startsWith('a:'))).toBe(true);
    expect(handedBack).toEqual([]);
  });
});
