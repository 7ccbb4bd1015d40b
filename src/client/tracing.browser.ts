/**
 * The browser build's src/client/tracing.ts (swapped in by browser-build.ts): a client with a `tracing` option
 * starts loading the real code (a chunk of its own) when it is made, and `client.connect()` waits for it
 * (`CallTraces.ready`, src/wire/connection-options.ts `ready`: the wait counts toward `connectTimeoutMs` and
 * `close()` ends it), so every call is traced as in Node; a client without one never downloads it. A failed load
 * rejects that `connect()` with `ConnectionError` `load_failed`; the next one tries again.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import { ConnectionError } from '../errors';
import type { CallTraces } from './trace-types';
import type * as Real from './tracing';

const real = lazy('the tracing code', () => import('./tracing'), ConnectionError);

/** See src/client/tracing.ts: the real `CallTraces`, made once its module has loaded. */
export function callTraces(...args: Parameters<typeof Real.callTraces>): CallTraces {
  let traces: CallTraces | undefined;
  const now = () => {
    const module = real.now;
    if (traces === undefined && module !== undefined) traces = module.callTraces(...args);
    return traces;
  };
  real.load().catch(() => {}); // a failed load is reported by connect(), which waits for it
  return {
    ready: () => (now() === undefined ? real.load().then(() => {}) : undefined),
    received: (execution, frame) => now()?.received(execution, frame),
    admitted: (execution) => now()?.admitted(execution),
    start: (execution, start) => {
      const loaded = now();
      return loaded === undefined ? start(execution) : loaded.start(execution, start);
    },
    approval: (execution, decision) => {
      const loaded = now();
      return loaded === undefined ? decision : loaded.approval(execution, decision);
    },
    retried: (execution, info) => now()?.retried(execution, info),
    finished: (execution, result, output, durationMs) =>
      now()?.finished(execution, result, output, durationMs),
  };
}
