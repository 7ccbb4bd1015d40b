/** The stub's fleet-wide limits (docs/protocol/fleet-limits.md), on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { FleetLimiter } from '../../server-stub/fleet';

function limiter() {
  let now = 0;
  const fleet = new FleetLimiter(() => now);
  return {
    fleet,
    at(ms: number) {
      now = ms;
    },
  };
}

/** Starts calls as soon as the limiter lets them, every millisecond up to `untilMs`; the start times. */
function greedy(perSecond: number, untilMs: number): number[] {
  const { fleet, at } = limiter();
  const limits = { perSecond };
  const starts: number[] = [];
  for (let ms = 0; ms <= untilMs; ms++) {
    at(ms);
    while (fleet.waitFor('t', 'work', limits) === 0) {
      fleet.started(`c${starts.length}`, 't', 'work', limits, 's');
      fleet.release(`c${starts.length}`);
      starts.push(ms);
    }
  }
  return starts;
}

function mostInAnyWindow(starts: number[], windowMs: number): number {
  let most = 0;
  for (const [index, start] of starts.entries()) {
    most = Math.max(most, starts.slice(index).filter((other) => other < start + windowMs).length);
  }
  return most;
}

describe('FleetLimiter perSecond', () => {
  it('allows at most perSecond starts in any 1,000 ms window, from the first second on', () => {
    const starts = greedy(5, 3_000);
    expect(starts.filter((ms) => ms < 1_000)).toEqual([0, 0, 0, 0, 0]);
    expect(mostInAnyWindow(starts, 1_000)).toBe(5);
    expect(starts).toHaveLength(20);
  });

  it('says how long until the next start may be tried', () => {
    const { fleet, at } = limiter();
    const limits = { perSecond: 2 };
    fleet.started('a', 't', 'work', limits, 's');
    at(300);
    fleet.started('b', 't', 'work', limits, 's');
    at(400);
    expect(fleet.waitFor('t', 'work', limits)).toBe(600);
    at(1_000);
    expect(fleet.waitFor('t', 'work', limits)).toBe(0);
    fleet.started('c', 't', 'work', limits, 's');
    expect(fleet.waitFor('t', 'work', limits)).toBe(300);
  });

  it('spaces starts by 1 / perSecond seconds under 1 a second', () => {
    expect(greedy(0.5, 5_000)).toEqual([0, 2_000, 4_000]);
  });

  it('counts another tenant apart', () => {
    const { fleet } = limiter();
    const limits = { perSecond: 1 };
    fleet.started('a', 't1', 'work', limits, 's');
    expect(fleet.waitFor('t1', 'work', limits)).toBe(1_000);
    expect(fleet.waitFor('t2', 'work', limits)).toBe(0);
  });
});

describe('FleetLimiter concurrency', () => {
  it('counts a call until its own session releases it, or that session ends', () => {
    const { fleet } = limiter();
    const limits = { concurrency: 2 };
    fleet.started('a', 't', 'work', limits, 's1');
    fleet.started('b', 't', 'work', limits, 's1');
    expect(fleet.waitFor('t', 'work', limits)).toBe(Number.POSITIVE_INFINITY);
    expect(fleet.release('a', 's2')).toBe(false);
    expect(fleet.release('a', 's1')).toBe(true);
    expect(fleet.inFlight('t', 'work')).toBe(1);
    expect(fleet.releaseSession('s1')).toBe(1);
    expect(fleet.inFlight('t', 'work')).toBe(0);
  });
});

describe('FleetLimiter merge', () => {
  it("counts a merged tenant's calls with the tenant it merged into, until each is released", () => {
    const { fleet, at } = limiter();
    const limits = { concurrency: 2, perSecond: 2 };
    fleet.started('a1', 'acme', 'work', limits, 's1');
    at(100);
    fleet.started('k1', 'key-1', 'work', limits, 's2');
    fleet.merge('key-1', 'acme');
    expect([fleet.inFlight('acme', 'work'), fleet.inFlight('key-1', 'work')]).toEqual([2, 0]);
    expect(fleet.waitFor('acme', 'work', limits)).toBe(Number.POSITIVE_INFINITY);
    // Released under its old session, it frees the slot of the tenant it counts with now.
    expect(fleet.release('k1', 's2')).toBe(true);
    expect(fleet.inFlight('acme', 'work')).toBe(1);
    // Both starts count in acme's window: the next may start 1,000 ms after the first.
    expect(fleet.waitFor('acme', 'work', limits)).toBe(900);
  });
});
