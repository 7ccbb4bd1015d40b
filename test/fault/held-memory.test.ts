/**
 * A regression guard for the heap a call held in flight costs (issue 20's memory target, measured by
 * `npm run bench:held` and `npm run bench`): a client in a process of its own (run with --expose-gc) holds
 * 10,000 calls of a tool awaiting a promise; its heap + external after a full GC, against the same after a
 * warm-up, divided by the calls held, must stay within a generous bound. Bytes after a full GC, never time: it
 * is deterministic up to V8's own allocation steps (hash tables grow by doubling), which the bound leaves room
 * for. It prints its figure as `[held-memory] …`.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ServiceFrame } from '../../src/wire/protocol';
import { spawnGcChild } from './gc-child';
import { onCleanup, until } from './harness';
import { startRawService } from './raw-service';

const CHILD = fileURLToPath(new URL('./fixtures/held-client.ts', import.meta.url));
const HELD = 10_000;
const WARM_UP = 5_000;
/**
 * Bytes per held call allowed (1.4 KB): about 1,345 measured here on Node 20 (2,600 before issue 20's work, 1,550
 * before its second pass; run from source through tsx, whose kept function names make a named closure per call
 * cost more than in the bench's bundle, where the same client holds about 1,115), the target being 1,228
 * (1.2 KB) in the bench. A regression guard, not the target: a closure, a map entry or a copy per call more
 * trips it. V8's object sizes differ a little between Node versions.
 */
const BOUND = 1_430;

const call = (callId: string, toolName: string): ServiceFrame => ({
  type: 'tool_call',
  callId,
  runId: 'run_held',
  toolName,
  arguments: {},
});

describe('calls held in flight: heap per call, in a process of its own', { timeout: 180_000 }, () => {
  it(`${HELD.toLocaleString('en')} held calls cost at most ${BOUND} bytes of heap each (regression guard)`, async () => {
    const service = await startRawService();
    onCleanup(() => service.close());
    const child = spawnGcChild(CHILD, { TOOLWIRE_URL: service.url, HELD_CALLS: String(HELD) });
    const line = (test: (text: string) => boolean) => child.line(test);

    await line((text) => text === 'ready');
    service.sendAll(Array.from({ length: WARM_UP }, (_, n) => call(`w${n}`, 'add')));
    await until(() => service.results().length, WARM_UP, 120_000);
    child.write('mark');
    await line((text) => text === 'marked');
    service.sendAll(Array.from({ length: HELD }, (_, n) => call(`h${n}`, 'hold')));
    const perCall = Number((await line((text) => text.startsWith('held '))).slice(5));
    console.info(
      `[held-memory] ${HELD.toLocaleString('en')} calls held: ${Math.round(perCall)} B of heap each`,
    );
    child.write('release');
    await until(() => service.results().length, WARM_UP + HELD, 120_000);
    expect(service.results().every((result) => result.status === 'ok')).toBe(true);
    expect(perCall).toBeGreaterThan(0);
    expect(perCall).toBeLessThanOrEqual(BOUND);
  });
});
