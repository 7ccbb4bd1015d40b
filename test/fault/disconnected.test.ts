/**
 * Calls and runs while the socket is down: the client's own clock and the caller's signal still hold.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Agent, tool } from '../../src/index';
import { client, deferred, nextEvent, onCleanup, proxyTo, stub, until } from './harness';
import { type RawService, startRawService } from './raw-service';

async function rawService(options: Parameters<typeof startRawService>[0] = {}): Promise<RawService> {
  const service = await startRawService(options);
  onCleanup(() => service.close());
  return service;
}

describe('a deadline while disconnected', () => {
  it('aborts the call by the client clock when the service cancel was lost with the socket; the late value is not sent as ok', async () => {
    // The service drops the socket right after the call and refuses to welcome again until released.
    let refuse = false;
    const service = await rawService({
      onConnection: (ws) => {
        if (refuse) ws.terminate();
      },
    });
    const reasons: unknown[] = [];
    const ran = deferred();
    const slow = tool({
      name: 'slow',
      description: 'Ignores its signal for a while.',
      execute: async (_input, ctx) => {
        ctx.signal.addEventListener('abort', () => reasons.push(ctx.signal.reason));
        ran.resolve();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return 'done';
      },
    });
    const worker = client(service.url, { tools: [slow], reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
    await worker.connect();
    service.send({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'slow',
      arguments: {},
      deadlineMs: 50,
    });
    await ran.promise;
    refuse = true;
    service.socket().terminate();
    await until(() => reasons.length, 1);
    const reason = reasons[0] as DOMException;
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason.name).toBe('TimeoutError');
    refuse = false;
    await nextEvent(worker, 'connected');
    await until(() => service.results().map((r) => [r.callId, r.status]), [['c1', 'cancelled']]);
  });
});

describe('a run aborted by its caller', () => {
  it('while the socket is down: its tool calls abort at once and run() rejects with an AbortError, before any reconnect', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'wait' }] }, { text: 'never' }]),
    });
    const proxy = await proxyTo(server);
    const started = deferred();
    const reasons: unknown[] = [];
    const wait = tool({
      name: 'wait',
      description: 'Waits until aborted.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => {
          started.resolve();
          ctx.signal.addEventListener('abort', () => {
            reasons.push(ctx.signal.reason);
            resolve('stopped');
          });
        }),
    });
    const worker = client(proxy.url, { tools: [wait] });
    await worker.connect();
    const controller = new AbortController();
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [wait] }), 'go', {
      signal: controller.signal,
    });
    await started.promise;
    const down = nextEvent(worker, 'disconnected');
    proxy.blackhole(true);
    proxy.dropAll();
    await down;
    let connectedAgain = false;
    worker.on('connected', () => {
      connectedAgain = true;
    });
    controller.abort();
    const error = (await running.catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ name: 'AbortError', code: 'aborted' });
    expect(error.cause).toBe(controller.signal.reason);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(DOMException);
    expect(reasons[0]).toMatchObject({ name: 'AbortError' });
    expect((reasons[0] as { cause?: unknown }).cause).toBe(controller.signal.reason);
    expect(connectedAgain).toBe(false);
    // Back online: the service hears run_cancel and ends the run; the call's result is `cancelled`.
    proxy.blackhole(false);
    await until(() => server.runs.list().map((run) => run.status), ['cancelled']);
  });

  it('when the service never answers run_cancel: run() rejects with an AbortError at once, and run_cancel was sent', async () => {
    const service = await rawService();
    const worker = client(service.url, { tools: [] });
    await worker.connect();
    const controller = new AbortController();
    const running = worker.run(new Agent({ name: 'A', instructions: '' }), 'go', {
      signal: controller.signal,
    });
    await until(() => service.frames.filter((frame) => frame.type === 'run_start').length, 1);
    const start = service.frames.find((frame) => frame.type === 'run_start') as { requestId: string };
    service.send({ type: 'run_started', requestId: start.requestId, runId: 'r9' });
    await until(() => worker.stats.running, 0);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user gave up'));
    const error = (await running.catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ name: 'AbortError', code: 'aborted', message: 'run r9 was aborted' });
    expect(error.cause).toBe(controller.signal.reason);
    await until(
      () => service.frames.filter((frame) => frame.type === 'run_cancel'),
      [{ type: 'run_cancel', runId: 'r9' }],
    );
    // A call of the aborted run that the service sends before it heard the cancel never runs.
    service.send({ type: 'tool_call', callId: 'late', runId: 'r9', toolName: 'nothing', arguments: {} });
    await until(
      () => service.results().map((result) => [result.callId, result.status]),
      [['late', 'cancelled']],
    );
  });
});
