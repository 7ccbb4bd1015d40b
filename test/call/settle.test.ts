import { describe, expect, it, vi } from 'vitest';
import { type Settled, type SettleOptions, settleThen } from '../../src/call/signal';

/** settleThen's outcome as a value when it comes at once, else as a promise of it. */
function settle<T>(fn: () => T | PromiseLike<T>, options: SettleOptions = {}) {
  let now: Settled<Awaited<T>> | undefined;
  let later: ((outcome: Settled<Awaited<T>>) => void) | undefined;
  settleThen(fn, options, (outcome) => {
    if (later) later(outcome);
    else now = outcome;
  });
  return now ?? new Promise<Settled<Awaited<T>>>((resolve) => (later = resolve));
}

describe('settleThen', () => {
  it('handles the rejection of a promise it stopped waiting for because fn aborted the signal', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const controller = new AbortController();
    const outcome = await settle(
      () => {
        controller.abort('stop');
        return new Promise((_resolve, reject) => setTimeout(() => reject(new Error('late')), 5));
      },
      { signal: controller.signal },
    );
    expect(outcome).toEqual({ kind: 'aborted' });
    await new Promise((resolve) => setTimeout(resolve, 20)); // the promise has rejected by now
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  });

  it('answers at once, without a promise, for a plain value, a throw or an aborted signal', () => {
    expect(settle(() => 1)).toEqual({ kind: 'value', value: 1 });
    expect(
      settle(() => {
        throw new Error('x');
      }),
    ).toMatchObject({ kind: 'error' });
    expect(settle(() => 1, { signal: AbortSignal.abort() })).toEqual({ kind: 'aborted' });
    expect(settle(async () => 1)).toBeInstanceOf(Promise);
  });

  it('resolves with the value of a sync or async callback', async () => {
    expect(await settle(() => 1)).toEqual({ kind: 'value', value: 1 });
    expect(await settle(async () => 2)).toEqual({ kind: 'value', value: 2 });
  });

  it('turns a synchronous throw and a rejection into an error outcome', async () => {
    const error = new Error('x');
    expect(
      await settle(() => {
        throw error;
      }),
    ).toEqual({ kind: 'error', error });
    expect(await settle(() => Promise.reject(error))).toEqual({ kind: 'error', error });
  });

  it('does not call the callback when the signal is already aborted', async () => {
    const fn = vi.fn(() => 1);
    expect(await settle(fn, { signal: AbortSignal.abort() })).toEqual({ kind: 'aborted' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('ends with timeout after timeoutMs, calling onTimeout once', async () => {
    const onTimeout = vi.fn();
    expect(await settle(() => new Promise(() => {}), { timeoutMs: 5, onTimeout })).toEqual({
      kind: 'timeout',
    });
    expect(onTimeout).toHaveBeenCalledTimes(1);
  });

  it('ends with aborted when the signal aborts first', async () => {
    const controller = new AbortController();
    const pending = settle(() => new Promise(() => {}), { signal: controller.signal, timeoutMs: 10_000 });
    controller.abort();
    expect(await pending).toEqual({ kind: 'aborted' });
  });

  it('adds no abort listener and starts no timer for a synchronous result', async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const add = vi.spyOn(controller.signal, 'addEventListener');
      const outcome = settle(() => 3, { signal: controller.signal, timeoutMs: 1_000 });
      expect(vi.getTimerCount()).toBe(0);
      expect(add).not.toHaveBeenCalled();
      expect(await outcome).toEqual({ kind: 'value', value: 3 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends with aborted when a synchronous callback aborts the signal itself, then returns or throws', async () => {
    const first = new AbortController();
    const returned = settle(
      () => {
        first.abort();
        return 1;
      },
      { signal: first.signal },
    );
    const second = new AbortController();
    const thrown = settle(
      () => {
        second.abort();
        throw new Error('x');
      },
      { signal: second.signal },
    );
    expect(await returned).toEqual({ kind: 'aborted' });
    expect(await thrown).toEqual({ kind: 'aborted' });
  });

  it('turns a thenable whose then throws into an error outcome', async () => {
    const error = new Error('bad then');
    const throwing = {
      // biome-ignore lint/suspicious/noThenProperty: a broken thenable is the point of this test.
      then() {
        throw error;
      },
    };
    const getter = Object.defineProperty({}, 'then', {
      get() {
        throw error;
      },
    });
    expect(await settle(() => throwing)).toEqual({ kind: 'error', error });
    expect(await settle(() => getter)).toEqual({ kind: 'error', error });
  });
});
