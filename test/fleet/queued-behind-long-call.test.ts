/**
 * Breaker finding: a call the service queued on a busy worker (the "one more round queued behind" its slots,
 * docs/guide/workers.md) stays there behind a long call while another worker sits idle, and ends `timeout` at
 * its deadline without having run. workers.md: "keeps the backlog on its side, where whichever worker has room
 * first takes it". Seen on Node 20/22 workers against `toolwire-stub --call-deadline-ms 5000`: of a run's
 * calls [8 s, 100 ms, 100 ms, 100 ms] over two workers of maxConcurrency 1, one 100 ms call ended
 * "timed out after 5000ms" while the other worker had been idle since +1 s.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { until } from '../fault/harness';
import { agent, stub } from '../stub/helpers';
import { afterTest } from '../support/after-test';

describe('a call queued behind a long call on one worker, another worker idle', () => {
  it.fails('runs on the idle worker instead of waiting for the long call (or its deadline)', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [0, 1, 2, 3].map((n) => ({ name: 'work', arguments: { n } })) },
        { text: 'done' },
      ]),
    });
    let release = () => {};
    const longCall = new Promise<void>((resolve) => {
      release = resolve;
    });
    const shortDone: number[] = [];
    const work = tool({
      name: 'work',
      description: 'Call 0 is long (held until the test releases it); the others are short.',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } as const,
      sideEffect: 'none',
      execute: async ({ n }) => {
        if (n === 0) await longCall;
        else shortDone.push(n);
        return `done ${n}`;
      },
    });
    const worker = () => {
      const client = new Client({ url: server.url, apiKey: 'k', tools: [work], maxConcurrency: 1 });
      afterTest(() => client.close({ drain: false }));
      return client;
    };
    const a = worker();
    const b = worker();
    await a.connect();
    await b.connect();
    const runId = server.runs.start(agent('a', ['work']), 'go');
    try {
      // Every short call runs while the long one is still held: two workers, three short calls of ~0 ms.
      await until(() => shortDone.length, 3, 3_000);
    } finally {
      release();
    }
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
  });
});
