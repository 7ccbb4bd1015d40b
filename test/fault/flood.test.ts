/**
 * A service that sends calls faster than the tools finish: the queue limit holds, each call past it gets one
 * retryable busy result (nothing is dropped silently), memory stays bounded, and the concurrency limit holds
 * when queued calls are cancelled.
 *
 * `TOOLWIRE_FLOOD_CALLS` sets the size of the raw flood (default 5,000; `npm run test:soak` sends 100,000).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { tool } from '../../src/index';
import type { ServiceFrame } from '../../src/wire/protocol';
import { spawnGcChild } from './gc-child';
import { client, rawService, stub, until } from './harness';

const FLOOD_CALLS = Number(process.env.TOOLWIRE_FLOOD_CALLS ?? 5_000);

const call = (callId: string, toolName = 'hold'): Extract<ServiceFrame, { type: 'tool_call' }> => ({
  type: 'tool_call',
  callId,
  runId: 'run_flood',
  toolName,
  arguments: {},
});

const FLOOD_CLIENT = fileURLToPath(new URL('./fixtures/flood-client.ts', import.meta.url));

/** The flood client (test/fault/fixtures/flood-client.ts) in its own process, with line-based stdio. */
function spawnFloodClient(env: Record<string, string>) {
  const child = spawnGcChild(FLOOD_CLIENT, env);
  return {
    write: child.write,
    /** The first stdout line starting with `prefix`. */
    line: (prefix: string) => child.line((line) => line.startsWith(prefix)),
  };
}

describe('a flood of calls', () => {
  it(`holds maxQueue under ${FLOOD_CALLS.toLocaleString('en')} calls sent at once: one busy result per call past the limit, nothing dropped, memory bounded`, async () => {
    const service = await rawService();
    // The client runs in its own process, so that its memory is measured alone.
    const flooded = spawnFloodClient({ TOOLWIRE_URL: service.url, MAX_CONCURRENCY: '4', MAX_QUEUE: '100' });
    await flooded.line('ready');
    service.sendAll(Array.from({ length: FLOOD_CALLS }, (_, index) => call(`c${index}`)));
    await until(() => service.results().length, FLOOD_CALLS - 104, 60_000);
    const busy = service.results();
    expect(busy.every((result) => result.retryable === true && result.status === 'error')).toBe(true);
    expect(busy[0]?.output).toBe('Error running hold: the client is busy; try again later');
    // The first 104 calls were taken (4 running, 100 queued); every later one was answered busy, once.
    expect(busy.map((result) => result.callId)).toEqual(
      Array.from({ length: FLOOD_CALLS - 104 }, (_, index) => `c${index + 104}`),
    );
    flooded.write('release');
    await until(() => service.results().length, FLOOD_CALLS, 60_000);
    const done = service.results().slice(FLOOD_CALLS - 104);
    expect(done.map((result) => result.output).sort()).toEqual(
      Array.from({ length: 104 }, (_, index) => `done c${index}`).sort(),
    );
    expect(new Set(service.results().map((result) => result.callId)).size).toBe(FLOOD_CALLS);
    await until(() => service.frames.filter((frame) => frame.type === 'tool_result').length, FLOOD_CALLS);
    flooded.write('report');
    const report = JSON.parse(await flooded.line('{')) as {
      baseRssMiB: number;
      peakRssMiB: number;
      baseHeapMiB: number;
      heapAfterGcMiB: number;
      peakStats: { running: number; queued: number; unacked: number };
      stats: { running: number; queued: number; waiting: number; unacked: number };
      peakConcurrent: number;
      executed: number;
      executedTwice: number;
    };
    expect(report).toMatchObject({
      peakStats: { running: 4, queued: 100, unacked: 0 },
      stats: { running: 0, queued: 0, waiting: 0, unacked: 0 },
      peakConcurrent: 4,
      executed: 104,
      executedTwice: 0,
    });
    console.info(
      `[flood] ${FLOOD_CALLS} calls at once, maxConcurrency 4, maxQueue 100: ${FLOOD_CALLS - 104} busy, 104 run; client process RSS ${report.baseRssMiB} → peak ${report.peakRssMiB} MiB, heap ${report.baseHeapMiB} MiB before → ${report.heapAfterGcMiB} MiB after (GC)`,
    );
  });

  it('counts results waiting for their ack against the limit, so a service that never acks cannot grow the outbox', async () => {
    const service = await rawService({ ack: false });
    const instant = tool({
      name: 'hold',
      description: 'Answers at once.',
      execute: (_input, ctx) => ctx.callId,
    });
    const worker = client(service.url, { tools: [instant], maxConcurrency: 2, maxQueue: 3 });
    await worker.connect();
    service.sendAll(Array.from({ length: 50 }, (_, index) => call(`c${index}`)));
    await until(() => service.results().length, 50);
    const results = service.results();
    expect(results.filter((result) => result.retryable !== true).map((result) => result.output)).toHaveLength(
      5,
    );
    expect(results.filter((result) => result.retryable === true)).toHaveLength(45);
    expect(worker.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 5 });
    // Once the service acks, the client takes calls again.
    for (const result of results.filter((item) => item.retryable !== true)) {
      service.send({ type: 'ack', callId: result.callId });
    }
    await until(() => worker.stats.unacked, 0);
    service.send(call('after'));
    await until(() => service.results().at(-1), {
      type: 'tool_result',
      callId: 'after',
      status: 'ok',
      output: 'after',
      durationMs: expect.any(Number),
    });
  });

  it('counts the events and step results kept with unacked results against maxOutboxBytes', async () => {
    const service = await rawService({ ack: false, welcome: { features: ['events', 'steps'] } });
    // Records 10 events and 4 steps of ~10 KB each, kept until its result's ack (for a resend), then answers.
    const chatty = tool({
      name: 'hold',
      description: 'Records a lot.',
      execute: async (_input, ctx) => {
        for (let i = 0; i < 10; i++) ctx.emit('rows.exported', { rows: 'r'.repeat(10_000) + i });
        for (let i = 0; i < 4; i++) await ctx.step(`page-${i}`, () => 'p'.repeat(10_000) + i);
        return 'ok';
      },
    });
    const worker = client(service.url, { tools: [chatty], maxOutboxBytes: 100_000 });
    await worker.connect();
    for (let i = 0; i < 3; i++) {
      service.send(call(`c${i}`));
      await until(() => service.results().length, i + 1);
    }
    // The first result is 2 bytes of output, with ~140 KB kept beside it: the outbox is full, the rest are busy.
    expect(service.results().map((result) => `${result.callId}:${result.retryable === true}`)).toEqual([
      'c0:false',
      'c1:true',
      'c2:true',
    ]);
    expect(worker.stats.unacked).toBe(1);
    // Its ack frees the room: the next call runs.
    service.send({ type: 'ack', callId: 'c0' });
    service.send(call('c3'));
    await until(() => service.results().length, 4);
    expect(service.results().at(-1)).toMatchObject({ callId: 'c3', status: 'ok', output: 'ok' });
  });

  it('keeps maxConcurrency when a queued call is cancelled', async () => {
    const service = await rawService();
    const releases = new Map<string, () => void>();
    let concurrent = 0;
    let peakConcurrent = 0;
    const hold = tool({
      name: 'hold',
      description: 'Waits until the test releases it.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => {
          concurrent += 1;
          peakConcurrent = Math.max(peakConcurrent, concurrent);
          releases.set(ctx.callId, () => {
            concurrent -= 1;
            resolve(ctx.callId);
          });
        }),
    });
    const worker = client(service.url, { tools: [hold], maxConcurrency: 1 });
    await worker.connect();
    service.sendAll([call('c1'), call('c2'), call('c3')]);
    await until(() => worker.stats, { running: 1, queued: 2, waiting: 0, unacked: 0 });
    service.send({ type: 'cancel', callId: 'c2', reason: 'deadline' });
    await until(
      () => service.results().map((result) => [result.callId, result.status]),
      [['c2', 'cancelled']],
    );
    // The service's ack of c2 may still be on its way.
    await until(() => worker.stats, { running: 1, queued: 1, waiting: 0, unacked: 0 });
    expect([...releases.keys()]).toEqual(['c1']);
    releases.get('c1')?.();
    await until(() => [...releases.keys()], ['c1', 'c3']);
    releases.get('c3')?.();
    await until(() => service.results().length, 3);
    expect(service.results().map((result) => [result.callId, result.status])).toEqual([
      ['c2', 'cancelled'],
      ['c1', 'ok'],
      ['c3', 'ok'],
    ]);
    expect(peakConcurrent).toBe(1);
  });

  it('runs every call of a 2,000-call turn exactly once through the stub, busy answers and all', async () => {
    const calls = 2_000;
    const server = await stub({
      busyRetryMs: 20,
      model: scriptedModel([
        {
          toolCalls: Array.from({ length: calls }, (_, index) => ({ name: 'work', arguments: { n: index } })),
        },
        ({ messages }) => ({ text: String(messages.filter((message) => message.role === 'tool').length) }),
      ]),
    });
    const executed = new Map<string, number>();
    const work = tool({
      name: 'work',
      description: 'Takes a moment.',
      execute: async (_input, ctx) => {
        executed.set(ctx.callId, (executed.get(ctx.callId) ?? 0) + 1);
        await new Promise((resolve) => setImmediate(resolve));
        return 'ok';
      },
    });
    const worker = client(server.url, { tools: [work], maxConcurrency: 4, maxQueue: 16 });
    const disconnects: number[] = [];
    worker.on('disconnected', ({ code }) => disconnects.push(code));
    await worker.connect();
    const runId = server.runs.start({ name: 'flood', instructions: '', tools: ['work'] }, 'go');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.status).toBe('completed');
    expect(transcript.finalOutput).toBe(String(calls));
    expect(transcript.toolCalls.filter((entry) => entry.status === 'ok')).toHaveLength(calls);
    expect(executed.size).toBe(calls);
    expect([...executed.values()].every((count) => count === 1)).toBe(true);
    expect(disconnects).toEqual([]);
  });
});
