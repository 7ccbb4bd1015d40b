/**
 * Keyed concurrency in a client: a key at its limit holds no slot of `maxConcurrency`, so another key's call
 * starts at once however many calls of the first wait; calls waiting for a slot are served by key in turn (round
 * robin), calls of tools without `concurrency` taking one turn together (src/client/slots.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DEADLINE_GRACE_MS } from '../../src/client/deadlines';
import { Client, tool } from '../../src/index';
import { keyedTool } from '../support/keyed-tool';
import { nextTask, recording } from './call-runner-harness';
import { FAKE_URL, type FakeConnection, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();

/** Lets the frames sent and every pending callback run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** The result frame sent for `callId`, if any. */
function resultOf(connection: FakeConnection, callId: string) {
  return connection.frames.find((frame) => frame.type === 'tool_result' && frame.callId === callId);
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
  return { client, started, release, send, connection };
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

  it('counts the calls waiting for their key in stats.queued: the backlog shows', async () => {
    const { client, started, release, send } = await keyedClient(4, 1);
    for (let n = 0; n < 12; n++) send('a', n);
    await settle();
    expect(started).toEqual(['a0']);
    expect(client.stats).toMatchObject({
      running: 1,
      queued: 11,
      tools: { work: { running: 1, waiting: 11 } },
    });
    release('a0');
    await settle();
    expect(client.stats).toMatchObject({ running: 1, queued: 10 });
  });

  it('counts a call granted its key and waiting for a slot once in stats.queued', async () => {
    const { client, started, release, send } = await keyedClient(1, 1);
    send('a', 0);
    send('b', 0);
    send('a', 1);
    await settle();
    expect(started).toEqual(['a0']);
    // b0 holds its key's permit and waits in its lane for the slot; a1 waits for its key.
    expect(client.stats).toMatchObject({ running: 1, queued: 2 });
    release('a0');
    await settle();
    expect(started).toEqual(['a0', 'b0']);
    expect(client.stats).toMatchObject({ running: 1, queued: 1 });
  });

  it('serves keys in turn when running calls hold every slot, however many calls a key sent first', async () => {
    // limit ≥ maxConcurrency: no key waits at its limit; the busy tenant's calls hold both slots.
    const { client, started, release, send } = await keyedClient(2, 10);
    for (let n = 0; n < 5; n++) send('a', n);
    send('b', 0);
    send('b', 1);
    send('c', 0);
    await settle();
    expect(started).toEqual(['a0', 'a1']);
    expect(client.stats.queued).toBe(6);
    for (const id of ['a0', 'a1', 'a2', 'b0', 'c0', 'a3', 'b1']) {
      release(id);
      await settle();
    }
    expect(started).toEqual(['a0', 'a1', 'a2', 'b0', 'c0', 'a3', 'b1', 'a4']);
    expect(client.stats).toMatchObject({ running: 1, queued: 0 });
  });

  it('gives the calls of tools without concurrency one turn together', async () => {
    const { work, started, release } = keyedTool(10);
    const plainStarted: string[] = [];
    const plainReleases = new Map<string, () => void>();
    const plain = tool({
      name: 'plain',
      description: 'Plain work.',
      parameters: z.object({ n: z.number().int() }),
      execute: ({ n }) =>
        new Promise<string>((resolve) => {
          started.push(`p${n}`);
          plainStarted.push(`p${n}`);
          plainReleases.set(`p${n}`, () => resolve(`p${n}`));
        }),
    });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: 'keyed-test-key',
      tools: [work, plain],
      maxConcurrency: 1,
      reconnect: false,
    });
    clients.push(client);
    const connection = await service.connect(client);
    const call = (callId: string, toolName: string, args: object) =>
      connection.send({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: args });
    call('p0', 'plain', { n: 0 });
    call('p1', 'plain', { n: 1 });
    call('p2', 'plain', { n: 2 });
    call('a0', 'work', { tenant: 'a', n: 0 });
    call('a1', 'work', { tenant: 'a', n: 1 });
    await settle();
    expect(started).toEqual(['p0']);
    for (const id of ['p0', 'p1', 'a0', 'p2']) {
      const plainRelease = plainReleases.get(id);
      if (plainRelease) plainRelease();
      else release(id);
      await settle();
    }
    expect(started).toEqual(['p0', 'p1', 'a0', 'p2', 'a1']);
  });

  it('ends a call cancelled while it waits in its key’s lane, and serves the next in turn', async () => {
    const { client, started, release, send, connection } = await keyedClient(1, 10);
    send('a', 0);
    send('a', 1);
    send('b', 0);
    send('b', 1);
    await settle();
    expect(client.stats.queued).toBe(3);
    connection.send({ type: 'cancel', callId: 'b0', reason: 'user' });
    await settle();
    expect(client.stats.queued).toBe(2);
    expect(resultOf(connection, 'b0')).toMatchObject({ status: 'cancelled' });
    release('a0');
    await settle();
    release('a1');
    await settle();
    expect(started).toEqual(['a0', 'a1', 'b1']);
    expect(client.stats).toMatchObject({
      running: 1,
      queued: 0,
      tools: { work: { running: 1, waiting: 0 } },
    });
  });

  it('fails a call whose key throws without a slot, and keeps counting slots right', async () => {
    const { work, started, release } = keyedTool(10);
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: 'keyed-test-key',
      tools: [work],
      maxConcurrency: 1,
      reconnect: false,
    });
    clients.push(client);
    const connection = await service.connect(client);
    connection.send({
      type: 'tool_call',
      callId: 'a0',
      runId: 'r1',
      toolName: 'work',
      arguments: { tenant: 'a', n: 0 },
    });
    connection.send({
      type: 'tool_call',
      callId: 'x0',
      runId: 'r1',
      toolName: 'work',
      arguments: { tenant: '', n: 0 },
    });
    connection.send({
      type: 'tool_call',
      callId: 'a1',
      runId: 'r1',
      toolName: 'work',
      arguments: { tenant: 'a', n: 1 },
    });
    await settle();
    expect(resultOf(connection, 'x0')).toMatchObject({
      status: 'error',
      output:
        'Error running work: concurrency.key must return a string of 1 to 256 characters, got a string of 0 characters',
    });
    expect(client.stats).toMatchObject({ running: 1, queued: 1 });
    release('a0');
    await settle();
    expect(started).toEqual(['a0', 'a1']);
    expect(client.stats).toMatchObject({ running: 1, queued: 0 });
  });
});

/** The service cancels the calls `a1`–`a3` with `reason`. */
function cancelAll(calls: ReturnType<typeof recording>['calls'], reason: string): void {
  for (const callId of ['a1', 'a2', 'a3']) calls.cancel(callId, reason);
}

/** How the calls `a1`–`a3` (run `C`), waiting for their key, stop waiting. */
const endings: Array<[string, (calls: ReturnType<typeof recording>['calls']) => void]> = [
  ['the service cancels their run', (calls) => cancelAll(calls, 'run_cancelled')],
  ['the service cancels them', (calls) => cancelAll(calls, 'user')],
  ['the service no longer holds them', (calls) => cancelAll(calls, 'not_dispatched')],
  [
    'a resume does not list them as owed',
    (calls) => {
      calls.disconnected();
      calls.welcomed({
        resumed: true,
        features: ['owed_calls'],
        owed: ['a0', 'a4'],
        heartbeatIntervalMs: 60_000,
      });
    },
  ],
  [
    'the service asks for them back',
    (calls) => calls.handle({ type: 'hand_back', callIds: ['a1', 'a2', 'a3'] }),
  ],
  ['their deadline passes', () => vi.advanceTimersByTime(DEADLINE_GRACE_MS)],
  ['their run’s caller aborts it', (calls) => calls.cancelRun('C', new Error('stop'))],
];

describe('a client’s counts of a keyed tool’s calls that stop waiting for their key', () => {
  it.each(endings)('drops them from stats at once when %s, its key still busy', async (_how, end) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { work, started, release } = keyedTool(1);
      const { calls } = recording([work], { maxConcurrency: 8 });
      calls.welcomed({ features: ['owed_calls', 'hand_back', 'key_waits'], heartbeatIntervalMs: 60_000 });
      const send = (n: number, runId: string, deadlineMs?: number) =>
        calls.receive({
          type: 'tool_call',
          callId: `a${n}`,
          runId,
          toolName: 'work',
          arguments: { tenant: 'a', n },
          ...(deadlineMs === undefined ? {} : { deadlineMs }),
        });
      send(0, 'K');
      for (const n of [1, 2, 3]) send(n, 'C', 0);
      send(4, 'K2');
      await nextTask();
      expect(started).toEqual(['a0']);
      expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 4 } });
      expect(calls.queued).toBe(4);
      end(calls);
      await nextTask();
      expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 1 } });
      expect([calls.running, calls.queued, calls.waiting]).toEqual([1, 1, 0]);
      release('a0');
      await nextTask();
      expect(started).toEqual(['a0', 'a4']);
      expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 0 } });
      expect([calls.running, calls.queued, calls.waiting]).toEqual([1, 0, 0]);
      calls.abortAll('test over');
      calls.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['the client stops taking calls (a drain)', false],
    ['the client closes', true],
  ])('drops them from stats at once when %s', async (_how, closes) => {
    const { work, started } = keyedTool(1);
    const { calls } = recording([work], { maxConcurrency: 8 });
    for (const n of [0, 1, 2, 3])
      calls.receive({
        type: 'tool_call',
        callId: `a${n}`,
        runId: 'r1',
        toolName: 'work',
        arguments: { tenant: 'a', n },
      });
    await nextTask();
    expect(started).toEqual(['a0']);
    if (closes) calls.abortAll('closing');
    else calls.stopAccepting();
    await nextTask();
    // Closing ends the running call too, but its tool ignores ctx.signal: it keeps its permit, as its slot, until
    // it returns.
    expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 0 } });
    expect(calls.running).toBe(1);
    expect(calls.queued).toBe(0);
    calls.abortAll('test over');
    calls.dispose();
  });
});
