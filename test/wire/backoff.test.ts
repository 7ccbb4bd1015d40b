import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/backoff';

const options = { initialDelayMs: 100, maxDelayMs: 1_000 };

describe('backoffDelay', () => {
  it('doubles the ceiling with each attempt', () => {
    const top = () => 0.999_999_9;
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, options, top))).toEqual([100, 200, 400, 800]);
  });

  it('never exceeds maxDelayMs, however many attempts', () => {
    expect(backoffDelay(50, options, () => 0.999_999_9)).toBe(1_000);
    expect(backoffDelay(10_000, options, () => 0.999_999_9)).toBe(1_000);
  });

  it('spreads delays over the whole range (full jitter)', () => {
    expect(backoffDelay(3, options, () => 0)).toBe(0);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
  });
});
