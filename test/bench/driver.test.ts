import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEntries, type EntryName, OUT_DIR } from '../../bench/lib/build';
import { Pair } from '../../bench/lib/session';

// Proves the benchmark's code works (driver, subjects, IPC); it measures nothing and asserts no speed.
const outDir = `${OUT_DIR}/test-${process.pid}`;
let entries: Record<EntryName, string>;

beforeAll(async () => {
  entries = await buildEntries(outDir);
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('benchmark driver', () => {
  it.each(['floor', 'toolwire'] as const)(
    'runs %s through protocol v1: every add answered right and acked, held calls released',
    async (name) => {
      const pair = await Pair.start(name, { entries, cores: undefined }, { validate: true });
      try {
        const run = await pair.load({ tool: 'add', inFlight: 8, calls: 300 });
        expect(run).toMatchObject({ completed: 300, errors: 0, faults: [] });
        expect(run.latency.count).toBe(300);
        expect(run.cpuUsPerCall).toBeGreaterThan(0);

        const held = await pair.hold(12, () => pair.mark(false));
        expect(held).toMatchObject({ completed: 12, errors: 0, faults: [] });
        expect(held.measured.rss).toBeGreaterThan(0);
      } finally {
        await pair.close();
      }
    },
  );
});
