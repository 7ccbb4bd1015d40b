import { describe, expect, it, vi } from 'vitest';
import { watchSilence } from '../../server-stub/silence-watch';
import { MAX_TIMEOUT_MS } from '../../src/limits';

describe('watchSilence (the stub side of docs/protocol/lifecycle.md)', () => {
  it('closes exactly two intervals after the last frame, whenever that frame came', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      let lastSeen = Date.now();
      const silent: Array<[number, number]> = [];
      const start = Date.now();
      const watch = watchSilence(
        1_000,
        () => lastSeen,
        (silentMs) => silent.push([Date.now() - start, silentMs]),
      );
      vi.advanceTimersByTime(1_300);
      lastSeen = Date.now(); // a frame at 1,300 ms
      vi.advanceTimersByTime(3_299 - 1_300);
      expect(silent).toEqual([]);
      vi.advanceTimersByTime(1);
      // 2,000 ms after the frame, not at the next multiple of the interval (4,000 ms).
      expect(silent).toEqual([[3_300, 2_000]]);
      vi.advanceTimersByTime(10_000);
      expect(silent).toHaveLength(1);
      watch.stop();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops without firing', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const silent: number[] = [];
      const watch = watchSilence(
        100,
        () => Date.now(),
        (silentMs) => silent.push(silentMs),
      );
      vi.advanceTimersByTime(150);
      watch.stop();
      vi.advanceTimersByTime(1_000);
      expect(silent).toEqual([]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never sets a timer past 2,147,483,647 ms: an interval of 2,000,000,000 ms (a silence limit twice that) waits, then closes', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    try {
      vi.setSystemTime(0);
      const silent: number[] = [];
      const watch = watchSilence(
        2_000_000_000,
        () => 0,
        (silentMs) => silent.push(silentMs),
      );
      vi.advanceTimersByTime(60_000);
      expect(silent).toEqual([]);
      expect(timeouts.mock.calls.map((args) => args[1])).toEqual([MAX_TIMEOUT_MS]);
      vi.advanceTimersByTime(4_000_000_000);
      expect(silent).toHaveLength(1);
      expect(timeouts.mock.calls.every((args) => (args[1] ?? 0) <= MAX_TIMEOUT_MS)).toBe(true);
      watch.stop();
    } finally {
      // restoreAllMocks, not mockRestore: vitest would restore the spy again at the file's end, putting the fake
      // setTimeout it was taken from back on globalThis.
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
  });
});
