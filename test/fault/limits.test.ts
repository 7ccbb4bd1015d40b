/**
 * Durations past what a timer can hold (2,147,483,647 ms, about 24.8 days). Node runs a longer `setTimeout`
 * after 1 ms instead, so such a value, from the service or from an option, must never reach a timer as is.
 */
import { describe, expect, it } from 'vitest';
import { startStubServer } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { client, onCleanup, rawService, until } from './harness';

const BEYOND = 3_000_000_000;

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('durations beyond the timer range', () => {
  it('does not ping every few milliseconds when the service announces a heartbeat past the range', async () => {
    // The client checks four times per interval: a quarter of this is still past the range.
    const service = await rawService({ heartbeatIntervalMs: 10_000_000_000 });
    const worker = client(service.url);
    await worker.connect();
    await nextTurn();
    expect(service.frames.filter((frame) => frame.type === 'ping')).toEqual([]);
    expect(worker.state).toBe('open');
  });

  it('does not cancel a call at once when its deadlineMs is past the range', async () => {
    const service = await rawService();
    const slowish = tool({
      name: 'slowish',
      description: 'Takes a moment.',
      execute: async () => {
        await nextTurn();
        return 'finished';
      },
    });
    const worker = client(service.url, { tools: [slowish] });
    await worker.connect();
    service.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'slowish', deadlineMs: BEYOND });
    await until(
      () => service.results().map((result) => [result.status, result.output]),
      [['ok', 'finished']],
    );
  });

  it('refuses client durations past the range when the client is built', () => {
    const make = (options: Record<string, unknown>) => () =>
      new Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [], ...options });
    expect(make({ connectTimeoutMs: BEYOND })).toThrowError(
      'new Client(options): connectTimeoutMs must be a positive integer of milliseconds up to 2147483647 (the longest timer), got 3000000000',
    );
    expect(make({ heartbeatIntervalMs: BEYOND })).toThrowError(
      'new Client(options): heartbeatIntervalMs must be a positive integer of milliseconds up to 2147483647 (the longest timer), got 3000000000',
    );
    expect(make({ reconnect: { maxDelayMs: BEYOND } })).toThrowError(
      'new Client(options): reconnect.maxDelayMs must be a non-negative integer of milliseconds up to 2147483647 (the longest timer), got 3000000000',
    );
  });

  it('refuses stub durations past the range when the stub starts', async () => {
    for (const key of [
      'callDeadlineMs',
      'sessionGraceMs',
      'heartbeatIntervalMs',
      'helloTimeoutMs',
      'busyRetryMs',
    ]) {
      const started = startStubServer({ [key]: BEYOND });
      started.then((server) => onCleanup(() => server.close())).catch(() => {});
      await expect(started).rejects.toThrowError(
        `startStubServer: ${key} must be at most 2147483647 (the longest timer), got 3000000000`,
      );
    }
  });

  it('refuses a stub heartbeat below the minimum (100 ms), which the client would not honour', async () => {
    const started = startStubServer({ heartbeatIntervalMs: 99 });
    started.then((server) => onCleanup(() => server.close())).catch(() => {});
    await expect(started).rejects.toThrowError(
      'startStubServer: heartbeatIntervalMs must be an integer ≥ 100, got 99',
    );
  });
});
