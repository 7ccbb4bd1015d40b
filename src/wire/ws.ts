/**
 * `ws`'s WebSocket class, loaded when the first client connects: the Node entry (src/node.ts) registers
 * {@link loadWs} as the WebSocket of clients made in Node. The core (src/index.ts, what browsers get) never names
 * `ws`.
 *
 * @module
 */
import { ConnectionError } from '../errors';
import type { WebSocketConstructor } from './transport';

/**
 * `ws`'s WebSocket: through Node's `require` where it can (see {@link requireWs}), else `import('ws')`. Where `ws`
 * gives none, the runtime's global `WebSocket`: a test environment that resolves the `browser` condition in Node
 * (Jest's jsdom environment) gets `ws`'s browser stub, and jsdom's own WebSocket is there.
 * @throws ConnectionError `no_websocket` when `ws` was bundled into an ES module, whose bundler gave it no
 *   `require` for Node's own modules (esbuild: `Dynamic require of "events" is not supported`), saying what to do;
 *   or when `ws` gives no WebSocket and the runtime has no global one; else whatever loading `ws` throws (it is not
 *   installed).
 */
export async function loadWs(): Promise<WebSocketConstructor> {
  let module: { WebSocket?: unknown } | undefined;
  try {
    module = (requireWs() ?? (await import('ws'))) as { WebSocket?: unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!reason.includes('Dynamic require of')) throw error;
    throw new ConnectionError(
      'no_websocket',
      `no WebSocket implementation found: \`ws\` was bundled into an ES module, where its require() of Node's own modules fails (${reason}); bundle the program as CommonJS, keep \`ws\` out of the bundle and install it, or give the bundle a \`require\` (docs/guide/workers.md, "One file per worker")`,
      { cause: error },
    );
  }
  if (typeof module?.WebSocket === 'function') return module.WebSocket as WebSocketConstructor;
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof global === 'function') return global as WebSocketConstructor;
  throw new ConnectionError(
    'no_websocket',
    "no WebSocket implementation found: `ws` resolved to a module without one (its browser stub, where the `browser` condition is resolved in Node) and the runtime has no global WebSocket; pass `WebSocket` (the test environment's own, or `ws`'s from a file that resolves it for Node)",
  );
}

/**
 * `ws` through Node's `require`, resolved from this file as `import('ws')` resolves it, in an ES module where the
 * runtime has `process.getBuiltinModule` (Node ≥ 20.16); `undefined` elsewhere, where `import('ws')` loads it:
 * older Node, a bundle without `ws` on disk, and CommonJS (dist/node.cjs), whose `import('ws')` the build already
 * turns into `require('ws')` (so a test runner's module mocks still apply there). Node's `import()` of a CommonJS
 * package (`ws` is one) runs each of its files through the ESM loader's CommonJS translator, which scans them for
 * their exports: about three times the CPU of `require` (~65 ms against ~25 ms on the bench machine), paid by the
 * first connect of a process. Both give the same module: Node keeps one cache.
 */
function requireWs(): unknown {
  // `undefined` in the CommonJS build (tsup.config.ts).
  const from: unknown = import.meta.url;
  if (typeof from !== 'string') return undefined;
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof node?.getBuiltinModule !== 'function') return undefined;
  const module = node.getBuiltinModule('node:module') as
    | { createRequire?: (from: string) => (id: string) => unknown }
    | undefined;
  if (typeof module?.createRequire !== 'function') return undefined;
  try {
    return module.createRequire(from)('ws');
  } catch {
    return undefined;
  }
}
