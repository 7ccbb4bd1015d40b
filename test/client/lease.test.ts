/**
 * Long calls over the real stub (docs/protocol/lease.md): a call several times longer than the stub's per-call
 * deadline completes `ok` because the client keeps its lease alive; without the feature it times out as before;
 * a leased call whose client lost the service for good stops by itself after the session's grace period.
 */
import { describe, expect, it } from 'vitest';
import { Agent, tool } from '../../src/index';
import { client, proxyTo, stub } from '../support/long-calls';

/** A tool that works for `ms` (or until its signal aborts), telling how it ended. */
function slowExport(ms: number, ended: string[] = []) {
  return tool({
    name: 'export',
    description: 'Exports for a while.',
    execute: (_input, ctx) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => {
          ended.push('finished');
          resolve(`exported after ${ms}ms`);
        }, ms);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          ended.push(`aborted: ${String(ctx.signal.reason)}`);
          resolve('stopped');
        });
      }),
  });
}

describe('long calls', () => {
  it('completes ok a call fifteen times longer than the stub per-call deadline', async () => {
    // Deadline 100 ms; the client renews a 1 s lease every 333 ms; the call takes 1.5 s.
    const server = await stub({ callDeadlineMs: 100, leaseMs: 1_000 });
    const ended: string[] = [];
    const exporter = slowExport(1_500, ended);
    const worker = client(server.url, [exporter]);
    const refused: unknown[] = [];
    server.events.on('protocol_error', (info) => refused.push(info));
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go');
    expect(result.toolCalls).toMatchObject([{ status: 'ok', output: 'exported after 1500ms' }]);
    expect(ended).toEqual(['finished']);
    expect(refused).toEqual([]);
  });

  it('times out at the deadline against a service without the lease, as before', async () => {
    const server = await stub({ callDeadlineMs: 100, features: [] });
    const ended: string[] = [];
    const exporter = slowExport(5_000, ended);
    const worker = client(server.url, [exporter]);
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go');
    expect(result.toolCalls).toMatchObject([
      { status: 'timeout', output: 'Error running export: timed out after 100ms' },
    ]);
    await expect.poll(() => ended).toEqual(['aborted: AbortError: cancelled by the service (deadline)']);
  });

  it('keeps a leased call across a dropped connection, and stops it once the grace period passes unreconnected', async () => {
    const server = await stub({ callDeadlineMs: 100, leaseMs: 1_000, sessionGraceMs: 300 });
    const proxy = await proxyTo(server);
    const ended: string[] = [];
    const exporter = slowExport(60_000, ended);
    const worker = client(proxy.url, [exporter]);
    await worker.connect();
    const started = new Promise((resolve) => worker.once('tool_call', resolve));
    void worker.run(new Agent({ name: 'A', instructions: '', tools: [exporter] }), 'go').catch(() => {});
    await started;
    // The first drop is survived: the client resumes and the call runs on.
    const resumed = new Promise<{ resumed: boolean }>((resolve) => worker.once('connected', resolve));
    proxy.dropAll();
    expect(await resumed).toMatchObject({ resumed: true });
    expect(ended).toEqual([]);
    // Now the service cannot be reached: after the session's grace (300 ms) and a second, the call stops.
    const stopped = new Promise((resolve) => worker.once('tool_result', resolve));
    proxy.blackhole(true);
    proxy.dropAll();
    expect(await stopped).toMatchObject({ status: 'cancelled' });
    // Aborted by its own clock, not by a cancel (none can arrive); the service gives it to another worker.
    expect(ended).toEqual([
      "aborted: AbortError: the socket was down for the session's grace period: the service gives the call to another worker",
    ]);
  });
});
