/**
 * Preliminary results end to end: an async generator tool through the client and the real stub to `run()`'s
 * events and the transcript, never to the model, and across a dropped connection.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Agent, type RunEvent, tool } from '../../src/index';
import { client, dataOf, deferred, proxyTo, stub } from '../support/long-calls';

/** A stub whose model calls `report`, then says what it read. */
const reportStub = () =>
  stub({
    model: scriptedModel([
      { toolCalls: [{ name: 'report' }] },
      ({ messages }) => ({ text: `the model read: ${messages.at(-1)?.content ?? ''}` }),
    ]),
  });

const preliminaries = (events: RunEvent[]) =>
  dataOf<{ output: string }>(events, 'tool_preliminary').map((data) => data.output);

describe('preliminary results over the stub', () => {
  it('reach run() events and the transcript, the first and the last of a burst, and never the model', async () => {
    const report = tool({
      name: 'report',
      description: 'Builds a report.',
      async *execute() {
        yield 'draft 1';
        yield 'draft 2';
        yield { draft: 3, widget: { type: 'Badge', label: 'almost there', color: 'info' } };
        return 'final report';
      },
    });
    const server = await reportStub();
    const worker = client(server.url, [report]);
    await worker.connect();
    const events: RunEvent[] = [];
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [report] }), 'go', {
      onEvent: (event) => events.push(event),
    });
    expect(result.finalOutput).toBe('the model read: final report');
    const seen = preliminaries(events);
    // Snapshots are coalesced: the first goes at once, the last always (before the result), none twice.
    expect(seen[0]).toBe('draft 1');
    expect(seen.at(-1)).toBe('{"draft":3}');
    expect(new Set(seen).size).toBe(seen.length);
    const last = events.filter((event) => event.kind === 'tool_preliminary').at(-1);
    expect(last).toMatchObject({
      widget: { type: 'Badge', label: 'almost there', color: 'info' },
    });
    const transcript = server.runs.get(result.runId);
    expect(transcript?.toolCalls[0]?.preliminary).toMatchObject({
      output: '{"draft":3}',
      widget: { type: 'Badge', label: 'almost there', color: 'info' },
      count: seen.length,
    });
    expect(transcript?.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'final report',
    ]);
  });

  it('delivers a preliminary result lost with the socket after the reconnect, once, to the stub and to run() events', async () => {
    const server = await reportStub();
    const proxy = await proxyTo(server);
    const gates = [deferred(), deferred()];
    const yielded = [deferred(), deferred()];
    const report = tool({
      name: 'report',
      description: 'Builds a report.',
      async *execute() {
        yield 'draft 1';
        yielded[0]?.resolve();
        await gates[0]?.promise;
        yield 'draft 2';
        yielded[1]?.resolve();
        await gates[1]?.promise;
        return 'final';
      },
    });
    const worker = client(proxy.url, [report]);
    await worker.connect();
    const seen: RunEvent[] = [];
    worker.on('run_event', (event) => seen.push(event));
    const recorded = (output: string) =>
      new Promise<void>((resolve) =>
        server.events.on('run_event', (info) => {
          if (info.kind === 'tool_preliminary' && (info.data as { output: string }).output === output)
            resolve();
        }),
      );
    const first = recorded('draft 1');
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [report] }), 'go');
    await yielded[0]?.promise;
    await first;
    proxy.blackhole(true, 'up');
    gates[0]?.resolve();
    await yielded[1]?.promise;
    const second = recorded('draft 2');
    const reconnected = new Promise<{ resumed: boolean }>((resolve) => worker.once('connected', resolve));
    proxy.dropAll();
    proxy.blackhole(false, 'up');
    expect(await reconnected).toMatchObject({ resumed: true });
    await second;
    gates[1]?.resolve();
    const result = await running;
    const events = server.runs.get(result.runId)?.events ?? [];
    expect(
      preliminaries(
        events.map((event) => ({
          kind: event.kind,
          runId: result.runId,
          ...(event.data as object),
        })) as RunEvent[],
      ),
    ).toEqual(['draft 1', 'draft 2']);
    expect(server.runs.get(result.runId)?.toolCalls[0]).toMatchObject({ status: 'ok', output: 'final' });
    // And the client that started the run got each one once (those of the drop's window came again, deduplicated).
    expect(preliminaries(seen)).toEqual(['draft 1', 'draft 2']);
  });
});
