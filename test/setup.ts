import { afterAll, afterEach, beforeEach, inject, vi } from 'vitest';
import { WebSocket } from 'ws';
import { runAfterTest } from './support/after-test';
import { realClock, stopClock } from './support/still-clock';
// The optional parts, registered as the Node entry (src/node.ts) registers them, for the test files that import
// the source directly rather than through `toolwire`.
import '../src/zod3';
import '../src/valibot';
import '../src/json-schema';
import '../src/strict';
import { registerAllCallParts } from '../src/call/all-parts';
import * as approvals from '../src/client/approvals';
import { registerSocketQuestions } from '../src/client/call-updates';
import { registerApprovals } from '../src/client/calls';
import { registerDecisions, registerTracing } from '../src/client/client';
import { Decisions } from '../src/client/decisions';
import * as socketQuestions from '../src/client/socket-questions';
import * as tracing from '../src/client/tracing';

// The optional call code (src/call/parts.ts), tracing, decisions, socket questions and approvals, registered up front as the
// Node entry does.
registerAllCallParts();
registerTracing(tracing);
registerDecisions(Decisions);
registerSocketQuestions(socketQuestions);
registerApprovals(approvals);

// msw's WebSocket interceptor patches the global WebSocket; Node 20 has none, so install `ws` first.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

/** The globals a file may fake, spy on or stub, as they were before it ran. */
const GUARDED = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'queueMicrotask',
  'performance',
  'Date',
  'AbortController',
  'AbortSignal',
  'WebSocket',
  'fetch',
] as const;
const before = new Map(GUARDED.map((name) => [name, globalThis[name] as unknown]));

// In the unit tier, `performance.now()` stands still in a test unless the test moves it or asks for the real clock
// (test/support/still-clock.ts): how long a call took, and so which task the calls after it start in, does not
// depend on the machine's load.
const stillClock = inject('stillClock');
if (stillClock) beforeEach(stopClock);

// What the shared helpers opened for a test (test/support/after-test.ts) is closed when it ends; then the real clock
// is back (a `vi.useRealTimers()` among those puts back the still clock it found).
afterEach(async () => {
  try {
    await runAfterTest();
  } finally {
    realClock();
  }
});

// What a file changed of the shared globals (fake timers, spies, stubbed globals and env) is put back when it
// ends, so that a file run after it in the same module graph (`isolate: false`) starts as in a fresh worker.
// Spies first: `vi.restoreAllMocks()` runs the restore of every spy made, even one restored already, and puts
// back what the global was when spied on. A spy on a faked `setTimeout` would otherwise put the fake back after
// `vi.useRealTimers()`, and every timer of the files after it would never fire.
afterAll(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  realClock();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  const changed = GUARDED.filter((name) => globalThis[name] !== before.get(name));
  if (changed.length > 0) {
    for (const name of changed) Object.assign(globalThis, { [name]: before.get(name) });
    throw new Error(`this test file left globalThis.${changed.join(', ')} changed; put it back when done`);
  }
});
