/**
 * A call queued on a busy worker (the "one more round queued behind" its slots, docs/protocol/routing.md) never waits
 * behind that worker's long call while another worker that serves the tool has room: the service asks for it back
 * (`hand_back`), or, for a worker that cannot hand a call back, keeps it on its own side. Found on Node 20/22
 * workers against `toolwire-stub --call-deadline-ms 5000`: of a run's calls [8 s, 100 ms, 100 ms, 100 ms] over two
 * workers of maxConcurrency 1, one 100 ms call ended "timed out after 5000ms" while the other worker had been idle
 * since +1 s; with a hung tool, once per run.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { until } from '../fault/harness';
import { agent, stub } from '../stub/helpers';
import { afterTest } from '../support/after-test';
import { olderWebSocket } from '../support/older-websocket';

/**
 * A stub whose runs make `calls` calls of `work` at once, and workers of `maxConcurrency` 1: call 0 of each run
 * is long (held until the test releases it; `hung`: it ignores its signal too), the others end at once.
 */
async function fleet(calls: number, options: { hung?: boolean; runs?: number } = {}) {
  const server = await stub({
    model: scriptedModel([
      { toolCalls: Array.from({ length: calls }, (_, n) => ({ name: 'work', arguments: { n } })) },
      { text: 'done' },
    ]),
  });
  let release = () => {};
  const longCalls = new Promise<void>((resolve) => {
    release = resolve;
  });
  afterTest(release);
  const shortDone: string[] = [];
  const ran: string[] = [];
  const work = (worker: string) =>
    tool({
      name: 'work',
      description: 'Call 0 is long (held until the test releases it); the others are short.',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } as const,
      sideEffect: 'none',
      execute: async ({ n }, ctx) => {
        ran.push(`${worker}:${n}`);
        if (n === 0) {
          // A hung tool: deaf to its signal, it returns only when released.
          if (options.hung === true) await longCalls;
          else
            await Promise.race([
              longCalls,
              new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
            ]);
        } else shortDone.push(`${worker}:${n}`);
        return `done ${n}`;
      },
    });
  const worker = (name: string, older = false) => {
    const client = new Client({
      url: server.url,
      apiKey: 'k',
      tools: [work(name)],
      maxConcurrency: 1,
      ...(older ? { WebSocket: olderWebSocket('hand_back') as never } : {}),
    });
    afterTest(() => client.close({ drain: false }));
    return client;
  };
  const start = () =>
    Array.from({ length: options.runs ?? 1 }, () => server.runs.start(agent('a', ['work']), 'go'));
  /** Every run ends with each call `ok`. */
  const allOk = async (runIds: string[]) => {
    release();
    for (const runId of runIds) {
      const transcript = await server.runs.waitFor(runId);
      expect(transcript.toolCalls.map((call) => call.status)).toEqual(Array(calls).fill('ok'));
    }
  };
  return { server, worker, start, shortDone, ran, allOk };
}

describe('a call queued behind a long call on one worker, another worker idle', () => {
  it('runs on the idle worker instead of waiting for the long call (or its deadline)', async () => {
    const { worker, start, shortDone, allOk } = await fleet(4);
    const [a, b] = [worker('a'), worker('b')];
    await a.connect();
    await b.connect();
    const runIds = start();
    // Every short call runs while the long one is still held: two workers, three short calls of ~0 ms.
    await until(() => shortDone.length, 3, 3_000);
    await allOk(runIds);
  });

  it('runs every short call of two runs, each with a hung call, while the hung calls hold their workers', async () => {
    const { worker, start, shortDone, ran, allOk } = await fleet(4, { hung: true, runs: 2 });
    const workers = [worker('a'), worker('b'), worker('c')];
    for (const client of workers) await client.connect();
    const runIds = start();
    // 2 hung calls take 2 of the 3 workers; the 6 short calls all run, none left behind a hung one.
    await until(() => shortDone.length, 6, 3_000);
    expect(ran.filter((name) => name.endsWith(':0'))).toHaveLength(2);
    await allOk(runIds);
  });

  it('spreads them over three workers, none left behind the long call', async () => {
    const { worker, start, shortDone, ran, allOk } = await fleet(6);
    const workers = [worker('a'), worker('b'), worker('c')];
    for (const client of workers) await client.connect();
    const runIds = start();
    await until(() => shortDone.length, 5, 3_000);
    // The long call's worker ran nothing else meanwhile, and every call ran once.
    const long = ran.find((name) => name.endsWith(':0'))?.split(':')[0];
    expect(shortDone.filter((name) => name.startsWith(`${long}:`))).toEqual([]);
    await allOk(runIds);
    expect(ran).toHaveLength(6);
  });

  it('leaves a single worker its round queued behind the long call, as before: no other worker has room', async () => {
    const { server, worker, start, shortDone, allOk } = await fleet(3);
    const a = worker('a');
    await a.connect();
    const runIds = start();
    // One slot and one more round: the long call runs, one short call waits in the worker, one in the service.
    await until(() => [a.stats.running, a.stats.queued], [1, 1]);
    expect(server.sessions().map((session) => session.inFlight)).toEqual([2]);
    expect(shortDone).toEqual([]);
    await allOk(runIds);
    expect(shortDone).toHaveLength(2);
  });

  it('gives a worker that joins the calls waiting in the service and the one queued behind the long call', async () => {
    const { server, worker, start, shortDone, ran, allOk } = await fleet(4);
    const a = worker('a');
    await a.connect();
    const runIds = start();
    await until(() => [a.stats.running, a.stats.queued], [1, 1]);
    expect(server.sessions().map((session) => session.inFlight)).toEqual([2]);
    // b joins (autoscaling): it takes the two calls waiting in the service, then the one a holds queued.
    const b = worker('b');
    await b.connect();
    await until(() => shortDone.length, 3, 3_000);
    expect(shortDone.every((name) => name.startsWith('b:'))).toBe(true);
    await allOk(runIds);
    // None ran twice: the queued call a handed back had not begun there.
    expect(ran.sort()).toEqual(['a:0', 'b:1', 'b:2', 'b:3']);
  });

  it('keeps calls on its own side for workers that cannot hand a call back (an older client)', async () => {
    const { worker, start, shortDone, allOk } = await fleet(4);
    const [a, b] = [worker('a', true), worker('b', true)];
    await a.connect();
    await b.connect();
    const runIds = start();
    // Sent calls for their free slots only: the short calls wait in the service, not behind the long call.
    await until(() => shortDone.length, 3, 3_000);
    await allOk(runIds);
  });
});
