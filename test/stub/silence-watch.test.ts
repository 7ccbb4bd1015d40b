import { describe, expect, it, vi } from 'vitest';
import { watchSilence } from '../../server-stub/silence-watch';

describe('watchSilence (the stub side of PROTOCOL.md §8)', () => {
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
});
