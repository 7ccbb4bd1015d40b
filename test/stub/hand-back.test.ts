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
import { agent, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

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

describe('hand_back, as the service sends it', () => {
  /** Worker a holds `held` calls of a server-started run: the first runs, the rest wait for their key; b connects. */
  async function holderAndTaker(held = 4) {
    const server = await stub({
      model: scriptedModel([{ toolCalls: Array(held).fill({ name: 'work' }) }, { text: 'done' }]),
    });
    const features = ['key_waits', 'hand_back'];
    const a = track(
      await TestClient.connect(server.url, {
        tools: [toolDef('work')],
        features,
        maxConcurrency: 2,
        maxQueue: held - 2,
      }),
    );
    server.runs.start(agent('a', ['work']), 'go');
    const calls = [];
    for (let n = 0; n < held; n++) {
      const call = await a.next('tool_call');
      calls.push(call);
      // Said to wait, it holds no slot: the service sends more, up to maxConcurrency + maxQueue.
      if (n > 0) a.send({ type: 'key_waits', waiting: [call.callId] });
    }
    // The stub has read the key_waits once it answers a ping sent after it.
    a.send({ type: 'ping', id: 'p1' });
    await a.next('pong');
    const b = track(
      await TestClient.connect(server.url, { tools: [toolDef('work')], features, maxConcurrency: 2 }),
    );
    return { server, a, b, calls };
  }

  it('asks again after a resume when the ask was lost, and the call goes to the worker it was asked for', async () => {
    const { a, b, calls } = await holderAndTaker();
    // Of 3 waiting against none: 1, the call sent last.
    const asked = await a.next('hand_back');
    expect(asked.callIds).toEqual([calls[3]?.callId]);
    // The socket drops before a answers: on the resume the stub sends a's calls again and forgets the ask. Until a
    // says again which calls wait for their key, each holds its slot: the two past a's 2 slots are queued there by
    // the stub's count, and are asked back for b at once (a client hands back a call queued for a slot too).
    await a.reconnect();
    for (let n = 0; n < 4; n++) await a.next('tool_call');
    a.send({ type: 'key_waits', waiting: calls.slice(1).map((call) => call.callId) });
    const again = await a.next('hand_back');
    expect(again.callIds).toEqual([calls[3]?.callId, calls[2]?.callId]);
    a.result(again.callIds[0] as string, 'busy', { status: 'error', retryable: true });
    const moved = await b.next('tool_call');
    expect(moved.callId).toBe(calls[3]?.callId);
  });

  it('asks a call back once: waiting again on its new worker, it stays there (for handBackAgainMs)', async () => {
    const { server, a, b, calls } = await holderAndTaker(6);
    // Of 5 waiting against none: 2, the calls sent last.
    const asked = await a.next('hand_back');
    expect(asked.callIds).toEqual([calls[5]?.callId, calls[4]?.callId]);
    for (const callId of asked.callIds) a.result(callId, 'busy', { status: 'error', retryable: true });
    const moved = [await b.next('tool_call'), await b.next('tool_call')];
    // Both wait there (b runs another call of the key elsewhere, say): b has its 2 slots free again, and 2 waiting
    // against a's 3 asks nothing. Then a ends all its calls, and has room with nothing waiting.
    b.send({ type: 'key_waits', waiting: moved.map((call) => call.callId) });
    for (const client of [b, a]) {
      client.send({ type: 'ping', id: 'sync' });
      await client.next('pong');
    }
    for (const call of calls.slice(0, 4)) a.result(call.callId, 'ok');
    for (const client of [a, b]) {
      client.send({ type: 'ping', id: 'sync' });
      await client.next('pong');
    }
    // c joins with room: b's 2 waiting calls would be shared with it, but they moved once already.
    const c = track(
      await TestClient.connect(server.url, {
        tools: [toolDef('work')],
        features: ['key_waits', 'hand_back'],
        maxConcurrency: 2,
      }),
    );
    for (const client of [c, b]) {
      client.send({ type: 'ping', id: 'sync' });
      await client.next('pong');
    }
    expect(b.all('hand_back')).toEqual([]);
    expect(c.all('tool_call')).toEqual([]);
    expect(a.all('hand_back')).toHaveLength(1);
  });
});

describe('hand_back, one ask of a tenant at a time', () => {
  it("asks nothing more of a tenant while one of its asks is unanswered; another tenant's go on", async () => {
    const four = (name: string) => [{ toolCalls: Array(4).fill({ name }) }, { text: 'done' }];
    const server = await stub({
      apiKeys: ['k1', 'k2'],
      model: scriptedModel({ w: four('work'), o: four('other') }),
    });
    const features = ['key_waits', 'hand_back'];
    const open = async (apiKey: string, tools: string[], maxQueue = 0) =>
      track(
        await TestClient.connect(server.url, {
          apiKey,
          tools: tools.map((name) => toolDef(name)),
          features,
          maxConcurrency: 2,
          maxQueue,
        }),
      );
    const sync = async (...clients: TestClient[]) => {
      for (const client of clients) {
        client.send({ type: 'ping', id: 'sync' });
        await client.next('pong');
      }
    };
    /** `holder` takes a run's 4 calls: one runs, 3 wait for their key. */
    const hold = async (holder: TestClient, apiKey: string, name: 'w' | 'o', tool: string) => {
      server.runs.start(agent(name, [tool]), 'go', { apiKey });
      const calls = [];
      for (let n = 0; n < 4; n++) calls.push(await holder.next('tool_call'));
      holder.send({ type: 'key_waits', waiting: calls.slice(1).map((call) => call.callId) });
      await sync(holder);
      return calls;
    };
    // Tenant 1: a1 holds `work` calls, d1 `other` calls (neither can take the other's); tenant 2: a2, `work`.
    const a1 = await open('k1', ['work'], 2);
    await hold(a1, 'k1', 'w', 'work');
    const d1 = await open('k1', ['other'], 2);
    await hold(d1, 'k1', 'o', 'other');
    const a2 = await open('k2', ['work'], 2);
    await hold(a2, 'k2', 'w', 'work');
    // c1 joins with room: a1 is asked for one call; it does not answer yet.
    const c1 = await open('k1', ['work', 'other']);
    const asked = await a1.next('hand_back');
    expect(asked.callIds).toHaveLength(1);
    // e1 joins with room too: d1 could share with it, but tenant 1 has an ask unanswered.
    const e1 = await open('k1', ['work', 'other']);
    await sync(e1, d1, a1);
    expect(d1.all('hand_back')).toEqual([]);
    // Tenant 2 is not held up by tenant 1's ask.
    await open('k2', ['work']);
    expect((await a2.next('hand_back')).callIds).toHaveLength(1);
    // a1 answers: the call moves to c1, and tenant 1's sharing goes on (d1 is asked now).
    a1.result(asked.callIds[0] as string, 'busy', { status: 'error', retryable: true });
    expect((await c1.next('tool_call')).callId).toBe(asked.callIds[0]);
    expect((await d1.next('hand_back')).callIds).toHaveLength(1);
  });
});
