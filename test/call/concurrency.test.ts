/**
 * Keyed concurrency (`tool({ concurrency: { limit, key } })`, src/call/concurrency.ts) through `invokeTool`,
 * which shares a tool's gate as every client of the process does: each key has its own permits, so a key with
 * many waiting calls never delays another key's call; within a key calls go in the order they came; a waiting call
 * that is cancelled is skipped. Deterministic: every `execute` waits for the test to release it.
 */
import { describe, expect, it, vi } from 'vitest';
import { invokeTool, tool } from '../../src/index';
import { keyedTool } from '../support/keyed-tool';

/** Lets every pending callback run (the gate grants through promise callbacks). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}

describe('tool({ concurrency: { limit, key } })', () => {
  it('runs one tenant’s single call at once while another has 100 waiting', async () => {
    const { work, started, stats, release } = keyedTool(2);
    const busy = Array.from({ length: 100 }, (_, n) => invokeTool(work, { tenant: 'a', n }));
    await settle();
    expect(started).toEqual(['a0', 'a1']);
    expect(stats()).toEqual({ running: 2, waiting: 98 });
    const quiet = invokeTool(work, { tenant: 'b', n: 0 });
    await settle();
    expect(started).toEqual(['a0', 'a1', 'b0']);
    expect(stats()).toEqual({ running: 3, waiting: 98 });
    release('b0');
    expect(await quiet).toMatchObject({ status: 'ok', output: 'b0' });
    // Tenant a's calls go in the order they came, two at a time.
    for (let n = 0; n < 100; n++) {
      release(`a${n}`);
      await settle();
    }
    expect(started.filter((id) => id.startsWith('a'))).toEqual(
      Array.from({ length: 100 }, (_, n) => `a${n}`),
    );
    expect((await Promise.all(busy)).every((result) => result.status === 'ok')).toBe(true);
    expect(stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('gives a freed permit to the next live call of its key, skipping one cancelled while it waited', async () => {
    const { work, started, stats, release } = keyedTool(1);
    const controller = new AbortController();
    const first = invokeTool(work, { tenant: 'a', n: 0 });
    const cancelled = invokeTool(work, { tenant: 'a', n: 1 }, { signal: controller.signal });
    const third = invokeTool(work, { tenant: 'a', n: 2 });
    await settle();
    expect(stats()).toEqual({ running: 1, waiting: 2 });
    controller.abort('no longer needed');
    expect(await cancelled).toMatchObject({ status: 'cancelled' });
    expect(stats()).toEqual({ running: 1, waiting: 1 });
    release('a0');
    await first;
    await settle();
    expect(started).toEqual(['a0', 'a2']);
    release('a2');
    expect(await third).toMatchObject({ status: 'ok', output: 'a2' });
    expect(stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('stops counting a call as waiting once it ends there, while its key stays busy', async () => {
    // The timeout's timer fires when the test says (on a loaded machine a real 1 ms timer fired within settle()).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { work, stats, release } = keyedTool(1);
      const first = invokeTool(work, { tenant: 'a', n: 0 });
      const controller = new AbortController();
      const cancelled = [1, 2, 3].map((n) =>
        invokeTool(work, { tenant: 'a', n }, { signal: controller.signal }),
      );
      const timedOut = invokeTool(work, { tenant: 'a', n: 4 }, { timeoutMs: 1 });
      const last = invokeTool(work, { tenant: 'a', n: 5 });
      await settle();
      expect(stats()).toEqual({ running: 1, waiting: 5 });
      controller.abort('no longer needed');
      expect((await Promise.all(cancelled)).map((result) => result.status)).toEqual([
        'cancelled',
        'cancelled',
        'cancelled',
      ]);
      expect(stats()).toEqual({ running: 1, waiting: 2 });
      await vi.advanceTimersByTimeAsync(1);
      expect(await timedOut).toMatchObject({ status: 'timeout' });
      expect(stats()).toEqual({ running: 1, waiting: 1 });
      release('a0');
      await first;
      await settle();
      expect(stats()).toEqual({ running: 1, waiting: 0 });
      release('a5');
      expect(await last).toMatchObject({ status: 'ok', output: 'a5' });
      expect(stats()).toEqual({ running: 0, waiting: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the permit of a call cancelled while its tool runs until the tool returns', async () => {
    // keyedTool's execute ignores ctx.signal: it returns only when the test releases it.
    const { work, started, stats, release } = keyedTool(1);
    const controller = new AbortController();
    const first = invokeTool(work, { tenant: 'a', n: 0 }, { signal: controller.signal });
    const second = invokeTool(work, { tenant: 'a', n: 1 });
    await settle();
    controller.abort('no longer needed');
    expect(await first).toMatchObject({ status: 'cancelled' });
    await settle();
    // a0's execute still runs: a1 waits for its key's permit.
    expect([started, stats()]).toEqual([['a0'], { running: 1, waiting: 1 }]);
    release('a0');
    await settle();
    expect([started, stats()]).toEqual([['a0', 'a1'], { running: 1, waiting: 0 }]);
    release('a1');
    expect(await second).toMatchObject({ status: 'ok', output: 'a1' });
    expect(stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('counts keys apart: a key that frees a permit gives it to no other key', async () => {
    const { work, started, stats, release } = keyedTool(1);
    const calls = ['a0', 'a1', 'b0', 'b1', 'c0'].map((id) =>
      invokeTool(work, { tenant: id[0] as string, n: Number(id[1]) }),
    );
    await settle();
    expect(started).toEqual(['a0', 'b0', 'c0']);
    expect(stats()).toEqual({ running: 3, waiting: 2 });
    release('c0');
    await settle();
    expect(started).toEqual(['a0', 'b0', 'c0']);
    release('b0');
    await settle();
    expect(started).toEqual(['a0', 'b0', 'c0', 'b1']);
    release('a0');
    release('b1');
    await settle();
    release('a1');
    expect((await Promise.all(calls)).map((result) => result.output)).toEqual(['a0', 'a1', 'b0', 'b1', 'c0']);
  });

  it('ends a call whose key is not a string of 1 to 256 characters, saying what it got', async () => {
    const outputs: string[] = [];
    for (const key of [async () => 'a', () => 7, () => 'k'.repeat(257)]) {
      const work = tool({
        name: 'work',
        description: 'Work.',
        concurrency: { limit: 1, key: key as () => string },
        execute: () => 'done',
      });
      const result = await invokeTool(work, {});
      expect(result.status).toBe('error');
      outputs.push(result.output);
    }
    expect(outputs).toEqual([
      'Error running work: concurrency.key must return a string of 1 to 256 characters, got a promise (the key is read synchronously)',
      'Error running work: concurrency.key must return a string of 1 to 256 characters, got number',
      'Error running work: concurrency.key must return a string of 1 to 256 characters, got a string of 257 characters',
    ]);
  });

  it('ends a call whose key throws a Proxy that cannot be read, saying so', async () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf(): never {
          throw new Error('no prototype');
        },
      },
    );
    const work = tool({
      name: 'work',
      description: 'Work.',
      concurrency: {
        limit: 1,
        key: () => {
          throw hostile;
        },
      },
      execute: () => 'done',
    });
    expect(await invokeTool(work, {})).toMatchObject({
      status: 'error',
      output: 'Error running work: concurrency.key threw: "[Unserializable Object: no prototype]"',
    });
  });
});
