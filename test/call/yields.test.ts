import { describe, expect, it, vi } from 'vitest';
import type { PreliminaryResult } from '../../src/call/types';
import { invokeTool } from '../../src/index';
import { tool } from '../../src/tool/tool';

const collect = () => {
  const seen: Array<Pick<PreliminaryResult, 'output' | 'widget'>> = [];
  return {
    seen,
    onPreliminary: (result: PreliminaryResult) =>
      seen.push({ output: result.output, ...(result.widget ? { widget: result.widget } : {}) }),
  };
};

describe('preliminary results', () => {
  it('gives each yield of an async generator as a preliminary result, and its return value as the result', async () => {
    const { seen, onPreliminary } = collect();
    const count = tool({
      name: 'count',
      description: 'Counts rows.',
      async *execute() {
        yield 'counting';
        yield { rows: 10, widget: { type: 'Badge', label: '10 rows', color: 'info' } };
        return { rows: 20 };
      },
    });
    const result = await invokeTool(count, {}, { onPreliminary });
    expect(result).toMatchObject({ status: 'ok', output: '{"rows":20}', value: { rows: 20 } });
    expect(seen).toEqual([
      { output: 'counting' },
      { output: '{"rows":10}', widget: { type: 'Badge', label: '10 rows', color: 'info' } },
    ]);
  });

  it('makes the last yield the result when the generator returns nothing (the AI SDK rule), and reads async iterables', async () => {
    const { seen, onPreliminary } = collect();
    const snapshots = tool({
      name: 'snapshots',
      description: 'Streams snapshots.',
      async *execute() {
        yield { step: 1 };
        yield { step: 2 };
      },
    });
    expect(await invokeTool(snapshots, {}, { onPreliminary })).toMatchObject({
      status: 'ok',
      output: '{"step":2}',
    });
    expect(seen.map((s) => s.output)).toEqual(['{"step":1}', '{"step":2}']);
    const iterable = tool({
      name: 'iterable',
      description: 'Returns an async iterable.',
      execute: () => ({
        async *[Symbol.asyncIterator]() {
          yield 'a';
          yield 'b';
        },
      }),
    });
    expect(await invokeTool(iterable, {})).toMatchObject({ status: 'ok', output: 'b' });
  });

  it('reads a synchronous generator too, and leaves arrays and plain objects alone', async () => {
    const sync = tool({
      name: 'sync',
      description: 'A sync generator.',
      *execute() {
        yield 1;
        return 'two';
      },
    });
    expect(await invokeTool(sync, {})).toMatchObject({ status: 'ok', output: 'two' });
    const array = tool({ name: 'array', description: 'An array.', execute: () => [1, 2] });
    expect(await invokeTool(array, {})).toMatchObject({ status: 'ok', output: '[1,2]' });
  });

  it('ends the generator on a timeout (its finally runs), and drops a late yield', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { seen, onPreliminary } = collect();
      let finalized = false;
      let release!: () => void;
      const slow = tool({
        name: 'slow',
        description: 'Yields slowly.',
        timeoutMs: 100,
        async *execute() {
          try {
            yield 'first';
            await new Promise<void>((resolve) => {
              release = resolve;
            });
            yield 'late';
            yield 'never';
          } finally {
            finalized = true;
          }
        },
      });
      const running = invokeTool(slow, {}, { onPreliminary });
      await vi.advanceTimersByTimeAsync(100);
      expect(await running).toMatchObject({
        status: 'timeout',
        output: 'Error running slow: timed out after 100ms',
      });
      release();
      await vi.advanceTimersByTimeAsync(0);
      expect(seen.map((s) => s.output)).toEqual(['first']);
      expect(finalized).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends the generator on a cancel, and a generator that throws ends the call as an error', async () => {
    const controller = new AbortController();
    let finalized = false;
    const cancellable = tool({
      name: 'cancellable',
      description: 'Yields until cancelled.',
      async *execute() {
        try {
          for (let i = 0; ; i++) {
            yield i;
            if (i === 2) controller.abort();
            await Promise.resolve();
          }
        } finally {
          finalized = true;
        }
      },
    });
    const { seen, onPreliminary } = collect();
    expect(await invokeTool(cancellable, {}, { signal: controller.signal, onPreliminary })).toMatchObject({
      status: 'cancelled',
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(finalized).toBe(true);
    expect(seen.map((s) => s.output)).toEqual(['0', '1', '2']);
    const failing = tool({
      name: 'failing',
      description: 'Throws mid-way.',
      async *execute() {
        yield 'ok so far';
        throw new Error('disk full');
      },
    });
    expect(await invokeTool(failing, {})).toMatchObject({
      status: 'error',
      output: 'Error running failing: disk full',
    });
  });

  it('drops an invalid widget of a preliminary result and keeps its data', async () => {
    const { seen, onPreliminary } = collect();
    const dropped: string[] = [];
    const bad = tool({
      name: 'bad',
      description: 'Yields a bad widget.',
      async *execute() {
        yield { n: 1, widget: { type: 'Gauge' } };
        return 'done';
      },
    });
    await invokeTool(bad, {}, { onPreliminary, onWidgetInvalid: (info) => dropped.push(info.path) });
    expect(seen).toEqual([{ output: '{"n":1}' }]);
    expect(dropped).toEqual(['type']);
  });
});
