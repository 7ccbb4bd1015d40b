/**
 * The soak scenario (test/fault/soak.ts) for a bounded time. `npm test` runs a short one;
 * `npm run test:soak` a long one. `TOOLWIRE_SOAK_MS` sets how long runs are started (default 4,000 ms here,
 * 45,000 ms under test:soak) and `TOOLWIRE_SOAK_SEED` the seed (default 1).
 */
import { describe, expect, it } from 'vitest';
import { runSoak } from './soak';

const durationMs = Number(process.env.TOOLWIRE_SOAK_MS ?? 4_000);
const seed = Number(process.env.TOOLWIRE_SOAK_SEED ?? 1);

describe('soak', () => {
  it(
    `loses no result and runs no call twice while connections drop every few hundred ms (${durationMs} ms, seed ${seed})`,
    async () => {
      const report = await runSoak(
        { durationMs, seed },
        // Long enough that no session expires between drops; a lost result shows up as a timeout. Long calls
        // (LONG_CALL_MS and more) outlive the 3 s deadline only through their lease.
        { sessionGraceMs: 30_000, callDeadlineMs: 3_000, leaseMs: 1_000, busyRetryMs: 20 },
      );
      console.info(`[soak] ${JSON.stringify(report)}`);
      expect(report.resultsLost).toEqual([]);
      expect(report.duplicates).toEqual([]);
      expect(report.mismatched).toEqual([]);
      expect(report.unackedAtEnd).toEqual([0, 0, 0]);
      // The scenario did what it says: calls of every kind, and connections dropped and cut.
      expect(report.calls.ok).toBeGreaterThan(0);
      expect(report.calls.rejected).toBeGreaterThan(0);
      expect(report.calls.error).toBeGreaterThan(0);
      expect(report.calls.long).toBeGreaterThan(0);
      expect(report.calls.questions).toBeGreaterThan(0);
      expect(report.connections.dropped).toBeGreaterThan(0);
      expect(report.connections.cutMidFrame).toBeGreaterThan(0);
    },
    durationMs + 60_000,
  );
});
