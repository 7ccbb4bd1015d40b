import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildEntries, type EntryName, OUT_DIR } from '../../bench/lib/build';
import { newCallId, newRunId } from '../../bench/lib/ids';
import { Pair } from '../../bench/lib/session';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Agent, Client, tool } from '../../src/index';

const root = fileURLToPath(new URL('../..', import.meta.url));

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

describe("the benches' ids", () => {
  /** An id with its hex digits as `x`: the stub's form, whatever the random digits. */
  const form = (id: string) => id.replace(/[0-9a-f]/g, 'x');

  it('are made as the stand-in service makes a call id and a run id', async () => {
    const work = tool({
      name: 'work',
      description: 'Works.',
      parameters: z.object({}),
      execute: () => 'done',
    });
    const service = await startStubServer({
      logger: silentLogger,
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, { text: 'done' }]),
    });
    const client = new Client({ url: service.url, apiKey: 'bench', tools: [work], reconnect: false });
    try {
      const seen: Array<{ callId: string; runId: string }> = [];
      client.on('tool_call', ({ callId, runId }) => seen.push({ callId, runId }));
      await client.connect();
      await client.run(new Agent({ name: 'Bench', instructions: 'Work.', tools: [work] }), 'work');
      expect(seen).toHaveLength(1);
      expect(form(newCallId())).toBe(form(seen[0]!.callId));
      expect(form(newRunId())).toBe(form(seen[0]!.runId));
      expect(newCallId()).not.toBe(newCallId());
    } finally {
      await client.close({ drain: false });
      await service.close();
    }
  });

  it('are the ones the benches that play the service send (no short ids of their own)', () => {
    for (const file of ['driver.ts', 'trip.ts', 'alloc.ts', 'held-arguments.ts']) {
      const text = readFileSync(join(root, 'bench', file), 'utf8');
      expect(text, file).toContain("from './lib/ids'");
      expect(text, file).not.toMatch(/callId"?\s*[:=]\s*[`"]c\$\{/);
    }
  });
});
