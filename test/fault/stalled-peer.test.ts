/**
 * A service that stops reading after `welcome` (a raw `ws` service that pauses its socket) while it keeps sending:
 * the client's writes stay bounded, it drops the socket past `maxBufferedBytes` (reported 1008) and resumes, and
 * no result is lost: those still unacked are sent again on the new socket. The outbox is bounded in bytes.
 * Memory figures of the same scenarios, each in a process of its own, are in stalled-memory.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/index';
import type { ServiceFrame } from '../../src/wire/protocol';
import { client, deferred, rawService, until } from './harness';

const call = (callId: string, toolName = 'work'): Extract<ServiceFrame, { type: 'tool_call' }> => ({
  type: 'tool_call',
  callId,
  runId: 'run_stalled',
  toolName,
  arguments: {},
});

/** Sends `frames()` in batches on the stalled socket until `done()`, at most `max` batches. Returns batches sent. */
async function floodUntil(
  send: (frames: ServiceFrame[]) => void,
  frames: () => ServiceFrame[],
  done: () => boolean,
  max = 400,
): Promise<number> {
  for (let batch = 0; batch < max; batch++) {
    if (done()) return batch;
    send(frames());
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return max;
}

describe('a service that stops reading', () => {
  it('drops the socket past maxBufferedBytes under a flood of pings (1008), resumes, and re-sends every unacked result', async () => {
    const service = await rawService({ stallAfterWelcome: (n) => n === 1 });
    const work = tool({
      name: 'work',
      description: 'Answers at once.',
      execute: (_i, ctx) => `done ${ctx.callId}`,
    });
    const worker = client(service.url, {
      tools: [work],
      highWaterMarkBytes: 1_024,
      maxBufferedBytes: 65_536,
    });
    const disconnects: Array<{ code: number; reason: string }> = [];
    worker.on('disconnected', (info) => disconnects.push(info));
    await worker.connect();
    service.sendAll([call('c1'), call('c2'), call('c3')]);
    await until(() => worker.stats.unacked, 3);
    const first = service.socket();
    let pings = 0;
    await floodUntil(
      (frames) => {
        if (first.readyState === first.OPEN) for (const frame of frames) first.send(JSON.stringify(frame));
      },
      () => Array.from({ length: 10_000 }, () => ({ type: 'ping', id: String(++pings) })),
      () => disconnects.length > 0,
    );
    expect(disconnects[0]).toEqual({ code: 1008, reason: 'the service is not reading' });
    // The second connection reads: it resumes the session and gets the three results again (the service may
    // have read them from the first socket as it closed: results are delivered at least once, acked once).
    const hellos = () => service.frames.filter((frame) => frame.type === 'hello');
    await until(() => hellos().map((hello) => hello.sessionId), [undefined, 'raw-session']);
    const resent = () =>
      service.frames
        .slice(service.frames.indexOf(hellos()[1] as (typeof service.frames)[number]))
        .filter((frame) => frame.type === 'tool_result')
        .map((frame) => frame.output)
        .sort();
    await until(resent, ['done c1', 'done c2', 'done c3']);
    await until(() => worker.stats.unacked, 0);
    expect(worker.state).toBe('open');
    console.info(
      `[stalled] pings until the client dropped the stalled socket: ${pings.toLocaleString('en')}`,
    );
  });

  it('answers calls past capacity "busy" within the budget, then drops the stalled socket and resumes', async () => {
    const service = await rawService({ stallAfterWelcome: (n) => n === 1 });
    const gate = deferred();
    const work = tool({
      name: 'work',
      description: 'Waits.',
      execute: () => gate.promise.then(() => 'done'),
    });
    const worker = client(service.url, {
      tools: [work],
      maxConcurrency: 1,
      maxQueue: 0,
      highWaterMarkBytes: 1_024,
      maxBufferedBytes: 65_536,
    });
    const disconnects: number[] = [];
    worker.on('disconnected', ({ code }) => disconnects.push(code));
    await worker.connect();
    const first = service.socket();
    let calls = 0;
    await floodUntil(
      (frames) => {
        if (first.readyState === first.OPEN) for (const frame of frames) first.send(JSON.stringify(frame));
      },
      () => Array.from({ length: 2_000 }, () => call(`c${++calls}`)),
      () => disconnects.length > 0,
    );
    expect(disconnects).toEqual([1008]);
    await until(() => service.connections(), 2);
    gate.resolve();
    // The call that was running finishes, and its result reaches the new socket.
    await until(
      () =>
        service
          .results()
          .filter((result) => result.retryable !== true)
          .map((r) => r.callId),
      ['c1'],
    );
  });
});

describe('the outbox, bounded in bytes', () => {
  it('answers new calls busy and keeps queued calls waiting while unacked results take maxOutboxBytes', async () => {
    const service = await rawService({ ack: false });
    const gate = deferred();
    const big = tool({
      name: 'work',
      description: 'A 10 kB result, once the test opens the gate.',
      execute: async (_i, ctx) => {
        await gate.promise;
        return `${ctx.callId}:${'x'.repeat(10_000)}`;
      },
    });
    const worker = client(service.url, {
      tools: [big],
      maxConcurrency: 1,
      maxQueue: 20,
      maxOutboxBytes: 50_000,
    });
    await worker.connect();
    service.sendAll(Array.from({ length: 10 }, (_, index) => call(`c${index}`)));
    await until(() => worker.stats, { running: 1, queued: 9, waiting: 0, unacked: 0 });
    gate.resolve();
    // Five results of ~10,1 kB pass 50,000 bytes: the five calls still queued wait, none is refused.
    await until(() => worker.stats, { running: 0, queued: 5, waiting: 0, unacked: 5 });
    service.send(call('late'));
    await until(() => service.results().find((result) => result.callId === 'late')?.retryable, true);
    expect(service.results().filter((result) => result.retryable !== true)).toHaveLength(5);
    // One ack makes room: one more queued call runs, and the outbox is full again.
    service.send({ type: 'ack', callId: 'c0' });
    await until(() => worker.stats, { running: 0, queued: 4, waiting: 0, unacked: 5 });
    // The stats change when c5's result is written; wait for the service to have read it.
    const finished = () =>
      service
        .results()
        .filter((result) => result.retryable !== true)
        .map((r) => r.callId);
    await until(() => finished().length, 6);
    expect(finished()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
  });
});
