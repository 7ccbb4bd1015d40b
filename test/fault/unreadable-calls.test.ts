/**
 * `tool_call` frames the client cannot read (refused `invalid_frame`, docs/protocol/errors.md) are answered, never run:
 * their error results wait for the ack like any result, so they take a place within maxConcurrency + maxQueue and
 * maxOutboxBytes. Past that the service is told the client is busy, as for a call that would run.
 */
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/index';
import { client, onCleanup, until } from './harness';
import { startRawService } from './raw-service';

const echo = tool({ name: 'echo', description: 'Answers ok.', execute: () => 'ok' });
/** A tool_call with a deadline the protocol refuses (a negative number): unreadable, yet it names its call. */
const unreadable = (i: number) => ({
  type: 'tool_call',
  callId: `x${i}`,
  runId: 'r',
  toolName: 'echo',
  deadlineMs: -1,
});

describe('unreadable tool_call frames, never acked', () => {
  it('hold at most maxConcurrency + maxQueue results; the rest are answered busy', async () => {
    const service = await startRawService({ ack: false });
    onCleanup(() => service.close());
    const worker = client(service.url, { tools: [echo], maxConcurrency: 2, maxQueue: 3 });
    await worker.connect();
    for (let i = 0; i < 20; i++) service.socket().send(JSON.stringify(unreadable(i)));
    await until(() => service.results().length, 20);
    const results = service.results();
    expect(results.filter((result) => result.retryable !== true).map((result) => result.callId)).toEqual([
      'x0',
      'x1',
      'x2',
      'x3',
      'x4',
    ]);
    expect(results[0]?.status).toBe('error');
    expect(results[5]).toEqual({
      type: 'tool_result',
      callId: 'x5',
      status: 'error',
      output: 'Error running echo: the client is busy; try again later',
      retryable: true,
    });
    expect(results.filter((result) => result.retryable === true)).toHaveLength(15);
    expect(worker.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 5 });
  });

  it('are answered busy while unacked results take maxOutboxBytes', async () => {
    const service = await startRawService({ ack: false });
    onCleanup(() => service.close());
    const worker = client(service.url, { tools: [echo], maxOutboxBytes: 1 });
    await worker.connect();
    for (let i = 0; i < 3; i++) service.socket().send(JSON.stringify(unreadable(i)));
    await until(() => service.results().length, 3);
    expect(service.results().map((result) => `${result.callId}:${result.retryable === true}`)).toEqual([
      'x0:false',
      'x1:true',
      'x2:true',
    ]);
    expect(worker.stats.unacked).toBe(1);
  });
});
