/**
 * Progress end to end: a tool's `ctx.progress()` through the client and the real stub to `client.run()`'s
 * events and the transcript, coalesced, across a dropped connection, and against a service without the feature.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type RunEvent, tool } from '../../src/index';
import { client, dataOf, deferred, proxyTo, stub } from '../support/long-calls';
import { stopClock } from '../support/still-clock';

const progressOf = (events: RunEvent[]) =>
  dataOf<{ progress: number; total?: number; message?: string }>(events, 'tool_progress');

describe('progress over the stub', () => {
  it('reaches run() events and the transcript coalesced, the first and the last always', async () => {
    // Which progress is coalesced depends on the clock (PROGRESS_INTERVAL_MS): a loop the machine's load slowed
    // must not send more (test/support/still-clock.ts).
    stopClock();
    const exporter = tool({
      name: 'export',
      description: 'Exports tables.',
      execute: async (_input, ctx) => {
        for (let table = 1; table <= 50; table++)
          ctx.progress({ progress: table, total: 50, message: `table ${table}` });
        return 'exported 50 tables';
      },
    });
    const server = await stub();
    const worker = client(server.url, [exporter]);
    await worker.connect();
    const events: RunEvent[] = [];
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go', {
      onEvent: (event) => events.push(event),
    });
    expect(result.finalOutput).toBe('exported 50 tables');
    expect(progressOf(events)).toEqual([
      { callId: result.toolCalls[0]?.callId, toolName: 'export', progress: 1, total: 50, message: 'table 1' },
      {
        callId: result.toolCalls[0]?.callId,
        toolName: 'export',
        progress: 50,
        total: 50,
        message: 'table 50',
      },
    ]);
    const transcript = server.runs.get(result.runId);
    expect(transcript?.toolCalls[0]?.progress).toMatchObject({
      progress: 50,
      total: 50,
      message: 'table 50',
    });
    // The run event order: the call, its progress, then its result.
    expect(events.map((event) => event.kind).filter((kind) => kind.startsWith('tool_'))).toEqual([
      'tool_call',
      'tool_progress',
      'tool_progress',
      'tool_result',
    ]);
  });

  it('sends a waiting progress before the call’s next event, so the service reads them in order', async () => {
    // Which progress is coalesced depends on the clock (PROGRESS_INTERVAL_MS): a loop the machine's load slowed
    // must not send more (test/support/still-clock.ts).
    stopClock();
    const exporter = tool({
      name: 'export',
      description: 'Exports tables.',
      execute: async (_input, ctx) => {
        for (let table = 1; table <= 5; table++) {
          ctx.progress({ progress: table, total: 5 });
          if (table === 3) ctx.emit('checkpoint', { table });
        }
        return 'exported 5 tables';
      },
    });
    const server = await stub();
    const worker = client(server.url, [exporter]);
    await worker.connect();
    const events: RunEvent[] = [];
    await worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go', {
      onEvent: (event) => events.push(event),
    });
    const order = events.flatMap((event) =>
      event.kind === 'tool_progress'
        ? [`progress ${event.progress}`]
        : event.kind === 'tool_event'
          ? [`event ${event.event}`]
          : [],
    );
    // 2 and 4 were replaced while waiting; 3 went before the event, 5 before the result.
    expect(order).toEqual(['progress 1', 'progress 3', 'event checkpoint', 'progress 5']);
  });

  it('delivers the last progress once after a dropped connection: nothing lost, nothing twice', async () => {
    const server = await stub();
    const proxy = await proxyTo(server);
    const steps = [deferred(), deferred(), deferred()];
    const reached = [deferred(), deferred(), deferred()];
    const exporter = tool({
      name: 'export',
      description: 'Exports tables.',
      execute: async (_input, ctx) => {
        for (let table = 1; table <= 3; table++) {
          ctx.progress({ progress: table, total: 3 });
          reached[table - 1]?.resolve();
          await steps[table - 1]?.promise;
        }
        return 'done';
      },
    });
    const worker = client(proxy.url, [exporter]);
    await worker.connect();
    const events: RunEvent[] = [];
    worker.on('run_event', (event) => events.push(event));
    const recorded: number[] = [];
    const seen = (value: number) =>
      new Promise<void>((resolve) =>
        server.events.on('run_event', (info) => {
          if (info.kind !== 'tool_progress') return;
          const { progress } = info.data as { progress: number };
          if (!recorded.includes(progress) || progress !== value) recorded.push(progress);
          if (progress === value) resolve();
        }),
      );
    const first = seen(1);
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go');
    await reached[0]?.promise;
    await first;
    // From now on what the client writes is lost with the socket: progress 2 and 3 go into the void.
    proxy.blackhole(true, 'up');
    steps[0]?.resolve();
    await reached[1]?.promise;
    steps[1]?.resolve();
    await reached[2]?.promise;
    const third = seen(3);
    const reconnected = new Promise<{ resumed: boolean }>((resolve) => worker.once('connected', resolve));
    proxy.dropAll();
    proxy.blackhole(false, 'up');
    expect(await reconnected).toMatchObject({ resumed: true });
    await third;
    steps[2]?.resolve();
    const result = await running;
    expect(result.finalOutput).toBe('done');
    const stubProgress = server.runs
      .get(result.runId)
      ?.events.filter((event) => event.kind === 'tool_progress');
    expect(stubProgress?.map((event) => (event.data as { progress: number }).progress)).toEqual([1, 3]);
    expect(progressOf(events).map((p) => p.progress)).toEqual([1, 3]);
  });

  it('reports nothing to a service without the feature, and the call runs as before', async () => {
    const server = await stub({ features: [] });
    const exporter = tool({
      name: 'export',
      description: 'Exports tables.',
      execute: (_input, ctx) => {
        ctx.progress({ progress: 1 });
        return 'done';
      },
    });
    const worker = client(server.url, [exporter]);
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go');
    expect(result.toolCalls).toMatchObject([{ status: 'ok', output: 'done' }]);
    expect(server.runs.get(result.runId)?.events.map((event) => event.kind)).not.toContain('tool_progress');
    expect(errors).toEqual([]);
  });
});
