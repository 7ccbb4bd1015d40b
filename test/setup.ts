// msw's WebSocket interceptor patches the global WebSocket; Node 20 has none, so install `ws` first.
import { WebSocket } from 'ws';
// The optional parts, registered as the Node entry (src/node.ts) registers them, for the test files that import
// the source directly rather than through `toolwire`.
import '../src/zod3';
import '../src/valibot';
import '../src/json-schema';

globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;
