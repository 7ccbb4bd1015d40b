/**
 * The feature `key_waits` (docs/protocol/fleets.md): a client says which calls wait for their concurrency key's turn,
 * so the service counts them in no slot and sends the worker a quiet tenant's call behind another tenant's burst;
 * an older client, or a service without the feature, works as before (the burst's calls past the worker's room
 * wait on the service's side, the quiet tenant's call behind them).
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { FEATURES } from '../../src/wire/protocol';
import { afterTest } from '../support/after-test';
import { olderWebSocket } from '../support/older-websocket';
import { agent, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

/** 5 × maxConcurrency calls of tenant `a` (one at a time per tenant), then one of tenant `b`. */
const BURST = 10;
const MAX_CONCURRENCY = 2;

async function burst(options: { stubFeatures?: readonly string[]; older?: boolean }) {
  const toolCalls = [
    ...Array.from({ length: BURST }, (_, n) => ({ name: 'work', arguments: { tenant: 'a', n } })),
    { name: 'work', arguments: { tenant: 'b', n: 0 } },
  ];
  const server = await stub({
    model: scriptedModel([{ toolCalls }, { text: 'done' }]),
    ...(options.stubFeatures === undefined ? {} : { features: options.stubFeatures as never }),
  });
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  let listeners: Array<() => void> = [];
  /** Resolves at the next call that starts. */
  const nextStart = () => new Promise<void>((resolve) => listeners.push(resolve));
  const work = tool({
    name: 'work',
    description: 'Works for a tenant, one call at a time per tenant.',
    parameters: {
      type: 'object',
      properties: { tenant: { type: 'string' }, n: { type: 'integer' } },
      required: ['tenant', 'n'],
    } as const,
    concurrency: { limit: 1, key: (input) => input.tenant },
    execute: ({ tenant, n }) =>
      new Promise<string>((resolve) => {
        const id = `${tenant}${n}`;
        started.push(id);
        releases.set(id, () => resolve(id));
        const waiting = listeners;
        listeners = [];
        for (const listener of waiting) listener();
      }),
  });
  const client = new Client({
    url: server.url,
    apiKey: 'k',
    tools: [work],
    maxConcurrency: MAX_CONCURRENCY,
    ...(options.older ? { WebSocket: olderWebSocket('key_waits') as never } : {}),
  });
  afterTest(() => client.close({ drain: false }));
  await client.connect();
  const runId = server.runs.start(agent('a', ['work']), 'go');
  /** Resolves once `id` has started. */
  const startOf = async (id: string) => {
    while (!started.includes(id)) await nextStart();
  };
  /** Releases the calls of tenant `a` running now, and waits for the next call to start. */
  const releaseA = async () => {
    const next = nextStart();
    for (const id of started) {
      if (!id.startsWith('a')) continue;
      releases.get(id)?.();
      releases.delete(id);
    }
    await next;
  };
  const finish = async () => {
    const releaseAll = () => {
      for (const [id, release] of releases) {
        releases.delete(id);
        release();
      }
      if (started.length <= BURST) void nextStart().then(releaseAll);
    };
    releaseAll();
    return server.runs.waitFor(runId);
  };
  return { started, startOf, releaseA, finish, client };
}

describe('key_waits: a quiet tenant behind another tenant’s burst', () => {
  it('starts the quiet tenant’s call at once: the burst’s waiting calls hold no slot', async () => {
    const { started, startOf, finish } = await burst({});
    // Without the feature b0 would never start here: fail by the assertion below, naming what started, not by the
    // test's timeout (the wait ends as soon as b0 starts).
    await Promise.race([startOf('b0'), new Promise((resolve) => setTimeout(resolve, 3_000))]);
    // No call of the burst has ended: b0 reached the worker past the burst and took the free slot.
    expect(started).toEqual(['a0', 'b0']);
    const transcript = await finish();
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(Array(BURST + 1).fill('ok'));
  });

  it.each([
    ['with a client that does not offer the feature', { older: true }],
    [
      'against a service without the feature',
      { stubFeatures: FEATURES.filter((name) => name !== 'key_waits') },
    ],
  ] as const)('works as before %s', async (_, options) => {
    const { started, startOf, releaseA, finish } = await burst(options);
    // The service holds the rest of the burst, b0 behind it, while the worker holds 2 × maxConcurrency calls.
    const b0 = startOf('b0');
    let released = 0;
    while (!started.includes('b0')) {
      await releaseA();
      released += 1;
    }
    await b0;
    // b0 reached the worker only once the service had sent it the burst's calls before it.
    expect(started).toEqual([...Array.from({ length: BURST - 1 }, (_, n) => `a${n}`), 'b0']);
    expect(released).toBe(BURST - 1);
    const transcript = await finish();
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(Array(BURST + 1).fill('ok'));
  });
});

describe('key_waits, as the service reads it', () => {
  it('sends a worker calls while its waiting calls hold no slot, up to maxConcurrency + maxQueue, and leases none', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: Array(5).fill({ name: 'work' }) }, { text: 'done' }]),
      callDeadlineMs: 300,
      leaseMs: 5_000,
    });
    const client = track(
      await TestClient.connect(server.url, {
        tools: [toolDef('work')],
        features: ['key_waits', 'lease'],
        maxConcurrency: 1,
        maxQueue: 3,
      }),
    );
    client.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['work']), input: 'go' });
    const first = await client.next('tool_call');
    // One slot and one more round: two calls; each one said to wait for its key leaves room for another.
    for (let n = 1; n < 4; n++) {
      const call = await client.next('tool_call');
      client.send({ type: 'key_waits', waiting: [call.callId] });
    }
    // Four calls held (maxConcurrency + maxQueue): the fifth waits in the service. The waiting ones are not leased:
    // their deadline cuts them; the running one is.
    const cut = await client.next('cancel');
    expect(cut).toMatchObject({ reason: 'deadline' });
    const fifth = await client.next('tool_call');
    // The fifth came only once a cut call made room.
    const order = client.received
      .map((frame) => frame.type)
      .filter((type) => type === 'tool_call' || type === 'cancel');
    expect(order.slice(0, 5)).toEqual(['tool_call', 'tool_call', 'tool_call', 'tool_call', 'cancel']);
    // Sent behind the running call, it is not leased: its deadline cuts it too (a leased one would run on).
    expect(await client.next('cancel', (frame) => frame.callId === fifth.callId)).toMatchObject({
      reason: 'deadline',
    });
    client.result(fifth.callId, 'fifth');
    client.result(first.callId, 'first');
    const result = await client.next('run_result');
    // The fifth's answer came after its cut: the model reads its timeout.
    expect(result.toolCalls.map((call) => call.status)).toEqual([
      'ok',
      'timeout',
      'timeout',
      'timeout',
      'timeout',
    ]);
  });
});
