import { afterAll, vi } from 'vitest';
import { WebSocket } from 'ws';
// The optional parts, registered as the Node entry (src/node.ts) registers them, for the test files that import
// the source directly rather than through `toolwire`.
import '../src/zod3';
import '../src/valibot';
import '../src/json-schema';

// msw's WebSocket interceptor patches the global WebSocket; Node 20 has none, so install `ws` first.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

// What a file changed of the shared globals (fake timers, spies, stubbed globals and env) is put back when it
// ends, so that a file run after it in the same module graph (`isolate: false`) starts as in a fresh worker.
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
