/**
 * One `AbortSignal` passed to many `client.run()` calls: one listener on it however many runs wait, none left
 * once they end, and each run ends when it aborts.
 */
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Client } from '../../src/index';
import { recordingLogger } from '../support/recording-logger';
import { FAKE_URL, fakeService, fakeWebSocket } from './fake-service';

const service = fakeService();
beforeAll(() => service.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => service.server.close());

describe('a signal shared by many runs', () => {
  it('holds one listener for 30 waiting runs and leaves none once they end', async () => {
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: 'run-signal-key',
      tools: [],
      reconnect: false,
    });
    await service.connect(client);
    const controller = new AbortController();
    const agent = new Agent({ name: 'A', instructions: 'x' });
    const runs = Array.from({ length: 30 }, () =>
      client.run(agent, 'go', { signal: controller.signal }).then(
        () => 'resolved',
        (error: Error) => error.name,
      ),
    );
    // The run code loads on a client's first run() (from this entry, as in a browser): then the runs wait.
    await expect.poll(() => getEventListeners(controller.signal, 'abort').length).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await client.close({ drain: false });
    expect(await Promise.all(runs)).toEqual(Array(30).fill('ConnectionError'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe("a run's abort racing its end", () => {
  it('emits no error event when the service answers the run_cancel that the run already completed', async () => {
    const { logger, lines } = recordingLogger();
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: 'run-race-key',
      tools: [],
      reconnect: false,
      logger,
    });
    const errors: string[] = [];
    client.on('error', (error) =>
      errors.push(`${(error as Error & { code?: string }).code}: ${error.message}`),
    );
    const connection = await service.connect(client);
    const controller = new AbortController();
    const started = connection.next('run_start');
    const running = client.run(new Agent({ name: 'A', instructions: 'x' }), 'go', {
      signal: controller.signal,
    });
    const { requestId } = await started;
    connection.send({ type: 'run_started', requestId, runId: 'r1' });
    // The client reads run_started before its caller aborts: the run_cancel names the run.
    await new Promise((resolve) => setImmediate(resolve));
    const cancelled = connection.next('run_cancel');
    controller.abort();
    expect(await cancelled).toMatchObject({ type: 'run_cancel', runId: 'r1' });
    // The service completed the run before it read the run_cancel, and says so.
    connection.send({
      type: 'run_result',
      runId: 'r1',
      status: 'completed',
      finalOutput: 'done',
      toolCalls: [],
      turns: 1,
    });
    connection.send({
      type: 'error',
      code: 'not_allowed',
      message: 'run r1 is already completed',
      runId: 'r1',
    });
    // An error about a run this client never had is still reported.
    connection.send({
      type: 'error',
      code: 'not_allowed',
      message: 'run r9 is already completed',
      runId: 'r9',
    });
    await expect.poll(() => errors.length).toBe(1);
    expect(errors).toEqual(['service_not_allowed: the service reported: run r9 is already completed']);
    await expect(running).rejects.toMatchObject({ name: 'AbortError', code: 'aborted' });
    expect(lines.filter((line) => line.object.runId === 'r1' && line.object.code === 'not_allowed')).toEqual([
      {
        level: 'debug',
        object: { runId: 'r1', code: 'not_allowed' },
        message: 'run_cancel answered for a run that already ended',
      },
    ]);
    await client.close({ drain: false });
  });
});

describe('the reason a run was aborted with', () => {
  async function abortedRun(reason: unknown, before: boolean): Promise<Error & { cause?: unknown }> {
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: 'run-reason-key',
      tools: [],
      reconnect: false,
      redact: ['tok-secret-1'],
    });
    const connection = await service.connect(client);
    const controller = new AbortController();
    if (before) controller.abort(reason);
    const started = connection.next('run_start');
    const running = client.run(new Agent({ name: 'A', instructions: 'x' }), 'go', {
      signal: controller.signal,
    });
    if (!before) {
      const { requestId } = await started;
      connection.send({ type: 'run_started', requestId, runId: 'r1' });
      await new Promise((resolve) => setImmediate(resolve));
      controller.abort(reason);
    }
    const error = (await running.catch((caught: unknown) => caught)) as Error;
    await client.close({ drain: false });
    return error;
  }

  it.each([true, false])(
    'is the cause itself when it holds no secret (aborted before the start: %s)',
    async (before) => {
      const reason = { why: 'user gave up' };
      const error = await abortedRun(reason, before);
      expect(error).toMatchObject({ name: 'AbortError', code: 'aborted' });
      expect(error.cause).toBe(reason);
    },
  );

  it.each([true, false])(
    'is never rewritten; the cause is a redacted copy when it holds a secret (before: %s)',
    async (before) => {
      const reason = new Error('token tok-secret-1 expired');
      const plain = { why: 'token tok-secret-1 expired' };
      const error = await abortedRun(reason, before);
      expect(reason.message).toBe('token tok-secret-1 expired');
      expect(reason.stack).toContain('tok-secret-1');
      expect(error.cause).toBeInstanceOf(Error);
      expect((error.cause as Error).message).toBe('token [redacted] expired');
      const second = await abortedRun(plain, before);
      expect(plain).toEqual({ why: 'token tok-secret-1 expired' });
      expect(second.cause).toEqual({ why: 'token [redacted] expired' });
    },
  );
});
