import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

describe('the floor subject', () => {
  it("sends toolwire's result frame byte for byte, but for the call id (result_parts welcomed)", async () => {
    const results = await Promise.all(
      (['floor', 'toolwire'] as const).map(async (name) => {
        const pair = await Pair.start(name, { entries, cores: undefined }, { validate: true });
        try {
          expect(await pair.load({ tool: 'add', inFlight: 1, calls: 20 })).toMatchObject({
            errors: 0,
            faults: [],
          });
          return await pair.lastResult();
        } finally {
          await pair.close();
        }
      }),
    );
    // The call id is the driver's, and `durationMs` the time the call took (a whole number of ms; 0 once warm).
    const [floor, toolwire] = results.map((text) =>
      text.replace(/"call_[0-9a-f-]{36}"/, '"<id>"').replace(/"durationMs":\d+,/, '"durationMs":<ms>,'),
    );
    expect(toolwire).toBe(
      '{"type":"tool_result","callId":"<id>","status":"ok","output":"21","durationMs":<ms>,"result":{"type":"json"}}',
    );
    expect(floor).toBe(toolwire);
  });

  /** The modules `file` imports statically, and those its relative imports do, transitively. */
  function staticImports(file: string, seen = new Set<string>()): string[] {
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/^import\s[^'"]*?["']([^"']+)["'];?$/gm)].map((match) => match[1]!);
    return specifiers.flatMap((specifier) => {
      if (!specifier.startsWith('.')) return [specifier];
      const next = join(dirname(file), specifier);
      return seen.has(next) ? [] : staticImports(next, seen);
    });
  }

  it('starts on Node alone: the packages of the tool definitions (toolwire) load only with --tools', async () => {
    expect(staticImports(entries.floor).filter((specifier) => !specifier.startsWith('node:'))).toEqual([]);
    const plain = await Pair.start('floor', { entries, cores: undefined });
    const withTools = await Pair.start(
      'floor',
      { entries, cores: undefined },
      { subjectArgs: ['--tools', '2'] },
    );
    try {
      expect(withTools.helloBytes).toBeGreaterThan(plain.helloBytes + 200);
      const run = await withTools.load({ tool: 'add', inFlight: 4, calls: 20 });
      expect(run).toMatchObject({ completed: 20, errors: 0, faults: [] });
    } finally {
      await Promise.all([plain.close(), withTools.close()]);
    }
  });
});
