/** ctx.emit() end to end over the real stub (docs/protocol/updates.md): to run() events and the transcript, redacted, across a drop. */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Agent, type RunEvent, tool } from '../../src/index';
import { client, dataOf, deferred, proxyTo, stub } from '../support/long-calls';

/** A stub whose model calls `export`, then says `done`. */
const exportStub = () =>
  stub({ model: scriptedModel([{ toolCalls: [{ name: 'export' }] }, { text: 'done' }]) });

const eventsOf = (events: RunEvent[]) => dataOf<{ event: string; data?: unknown }>(events, 'tool_event');

describe('tool events over the stub', () => {
  it('reach run() events and the transcript, each once, redacted, at most 256 per call', async () => {
    const refused: string[] = [];
    const exporter = tool({
      name: 'export',
      description: 'Exports.',
      execute: (_input, ctx) => {
        ctx.emit('export.started', { token: 's3cret' });
        for (let n = 1; n <= 300; n++) {
          try {
            ctx.emit('row', n);
          } catch (error) {
            refused.push((error as { code: string }).code);
          }
        }
        return 'ok';
      },
    });
    const server = await exportStub();
    const worker = client(server.url, [exporter], { redact: ['s3cret'] });
    await worker.connect();
    const events: RunEvent[] = [];
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go', {
      onEvent: (event) => events.push(event),
    });
    const seen = eventsOf(events);
    expect(seen[0]).toMatchObject({ event: 'export.started', data: { token: '[redacted]' } });
    expect(seen).toHaveLength(256);
    expect(seen.at(-1)).toMatchObject({ event: 'row', data: 255 });
    const recorded = server.runs.get(result.runId)?.events.filter((e) => e.kind === 'tool_event') ?? [];
    expect(recorded).toHaveLength(256);
    expect(refused).toEqual(Array(45).fill('too_many_events'));
    expect(result.toolCalls[0]?.status).toBe('ok');
  });

  it('sends the events lost with a dropped socket again after the reconnect, none twice', async () => {
    const server = await exportStub();
    const proxy = await proxyTo(server);
    const emitted = deferred();
    const release = deferred();
    const exporter = tool({
      name: 'export',
      description: 'Exports.',
      execute: async (_input, ctx) => {
        ctx.emit('one');
        await new Promise((resolve) => setTimeout(resolve, 20));
        proxy.blackhole(true, 'up');
        ctx.emit('two');
        ctx.emit('three');
        emitted.resolve();
        await release.promise;
        ctx.emit('four');
        return 'ok';
      },
    });
    const worker = client(proxy.url, [exporter], { redact: ['s3cret'] });
    await worker.connect();
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go');
    await emitted.promise;
    const resumed = new Promise((resolve) => worker.once('connected', resolve));
    proxy.dropAll();
    proxy.blackhole(false, 'up');
    await resumed;
    release.resolve();
    const result = await running;
    const recorded = server.runs.get(result.runId)?.events.filter((e) => e.kind === 'tool_event') ?? [];
    expect(recorded.map((e) => (e.data as { event: string }).event)).toEqual(['one', 'two', 'three', 'four']);
  });
});
