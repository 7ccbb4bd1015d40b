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
import { FEATURES } from '../../src/wire/protocol';
import { spawnGcChild } from './gc-child';
import { onCleanup, until } from './harness';
import { startRawService } from './raw-service';

const CHILD = fileURLToPath(new URL('./fixtures/held-client.ts', import.meta.url));
const HELD = 10_000;
const WARM_UP = 5_000;
/**
 * Bytes per held call allowed, by kind of frame (see {@link FrameKind}): about 6% over what is measured here on
 * Node 20 — about 1,041 for stub frames and 1,052 for plain ones (1,113 and 1,110 while a call that waits kept its
 * own `{}` of arguments, a field pointing at itself for its signal, and its id in an array beside the calls held;
 * about 1,258 while a client's call and the call its tool runs were two objects and every call made a `ctx`; 2,600
 * before issue 20's work). Run from source through tsx, whose kept function names make a named closure per call
 * cost more than in the bench's bundle, where the same client holds about 850 of either kind. A regression guard,
 * not the target: a closure, a map entry or a copy per call more trips it. V8's object sizes differ a little
 * between Node versions.
 */
const BOUNDS: Record<FrameKind, number> = { stub: 1_110, plain: 1_110 };

/**
 * What each `tool_call` carries. `stub`: what the stub sends a client of default options (server-stub/call.ts
 * `frame`): every feature the client offers but `trace_context` taken in `welcome`, with the stub's lease terms,
 * and on each call its deadline, `depth: 0`, the run's `agentName` and the `sessionId` of the session that
 * started the run (issue 20's target is for these). `plain`: no features, nothing but ids, tool and arguments.
 */
type FrameKind = 'stub' | 'plain';
const STUB_WELCOME = {
  features: FEATURES.filter((name) => name !== 'trace_context'),
  leaseMs: 45_000,
  maxCallDurationMs: 86_400_000,
};

const call = (kind: FrameKind, callId: string, toolName: string): ServiceFrame =>
  kind === 'plain'
    ? { type: 'tool_call', callId, runId: 'run_held', toolName, arguments: {} }
    : {
        type: 'tool_call',
        callId,
        runId: 'run_held',
        toolName,
        arguments: {},
        deadlineMs: 600_000,
        depth: 0,
        agentName: 'Assistant',
        sessionId: 'sess_4f1c2a9e7b3d',
      };

async function heldBytesPerCall(kind: FrameKind): Promise<number> {
  const service = await startRawService(kind === 'stub' ? { welcome: STUB_WELCOME } : {});
  onCleanup(() => service.close());
  const child = spawnGcChild(CHILD, { TOOLWIRE_URL: service.url, HELD_CALLS: String(HELD) });
  const line = (test: (text: string) => boolean) => child.line(test);

  await line((text) => text === 'ready');
  service.sendAll(Array.from({ length: WARM_UP }, (_, n) => call(kind, `w${n}`, 'add')));
  await until(() => service.results().length, WARM_UP, 120_000);
  child.write('mark');
  await line((text) => text === 'marked');
  service.sendAll(Array.from({ length: HELD }, (_, n) => call(kind, `h${n}`, 'hold')));
  const perCall = Number((await line((text) => text.startsWith('held '))).slice(5));
  console.info(
    `[held-memory] ${HELD.toLocaleString('en')} calls held (${kind} frames): ${Math.round(perCall)} B of heap each`,
  );
  child.write('release');
  await until(() => service.results().length, WARM_UP + HELD, 120_000);
  expect(service.results().every((result) => result.status === 'ok')).toBe(true);
  return perCall;
}

describe('calls held in flight: heap per call, in a process of its own', { timeout: 180_000 }, () => {
  for (const [kind, bound] of Object.entries(BOUNDS) as Array<[FrameKind, number]>) {
    it(`${HELD.toLocaleString('en')} held calls (${kind} frames) cost at most ${bound} bytes of heap each (regression guard)`, async () => {
      const perCall = await heldBytesPerCall(kind);
      expect(perCall).toBeGreaterThan(0);
      expect(perCall).toBeLessThanOrEqual(bound);
    });
  }
});
