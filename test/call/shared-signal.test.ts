/**
 * One `AbortSignal` shared by many `invokeTool` calls (a request's signal, a shutdown signal): one listener on
 * it however many calls wait, none left once they end, no `MaxListenersExceededWarning`, and each call ends
 * `cancelled` when it aborts.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/call/invoke';
import { tool } from '../../src/tool/tool';

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
process.on('warning', onWarning);
afterEach(() => {
  warnings.length = 0;
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('a signal shared by many calls', () => {
  it('holds one listener for 200 waiting calls, ends each cancelled, and leaves none', async () => {
    const waits = tool({ name: 'waits', description: 'd', execute: () => new Promise(() => {}) });
    const readsSignal = tool({
      name: 'reads_signal',
      description: 'd',
      execute: (_input, ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const controller = new AbortController();
    const calls = Array.from({ length: 200 }, (_, i) =>
      invokeTool(i % 2 === 0 ? waits : readsSignal, {}, { signal: controller.signal }),
    );
    await settled();
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    const results = await Promise.all(calls);
    expect(new Set(results.map((result) => result.status))).toEqual(new Set(['cancelled']));
    expect(listeners(controller.signal)).toBe(0);
    await settled();
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('leaves no listener behind calls that finish, one after another or all at once', async () => {
    const slow = tool({
      name: 'slow',
      description: 'd',
      execute: async (_input, ctx) => {
        await settled();
        return ctx.signal.aborted ? 'aborted' : 'done';
      },
    });
    const controller = new AbortController();
    for (let i = 0; i < 50; i++) await invokeTool(slow, {}, { signal: controller.signal });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => invokeTool(slow, {}, { signal: controller.signal })),
    );
    expect(results.every((result) => result.output === 'done')).toBe(true);
    expect(listeners(controller.signal)).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('ends calls that start after the abort at once, adding no listener', async () => {
    const controller = new AbortController();
    controller.abort();
    const waits = tool({ name: 'waits', description: 'd', execute: () => new Promise(() => {}) });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => invokeTool(waits, {}, { signal: controller.signal })),
    );
    expect(results.map((result) => result.status)).toEqual(Array(20).fill('cancelled'));
    expect(listeners(controller.signal)).toBe(0);
  });
});
