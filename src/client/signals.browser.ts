/**
 * The browser build's src/client/signals.ts (swapped in by browser-build.ts): a page has no process signals;
 * the real code (which says so in a warning, or listens where a runtime has them) loads only when
 * `handleSignals` is given.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type { Logger } from '../logger';
import type { DrainedClient, SignalHooks } from './signals';

export type { DrainedClient, SignalHooks } from './signals';

const NO_SIGNAL_HOOKS: SignalHooks = { connected() {}, closed() {} };

const real = lazy('the handleSignals code', () => import('./signals'));

/** See src/client/signals.ts. What the client says before the real code is loaded is passed on once it is. */
export function drainOnSignals(
  client: DrainedClient,
  timeoutMs: number | undefined,
  logger: Logger,
): SignalHooks {
  if (timeoutMs === undefined) return NO_SIGNAL_HOOKS;
  let hooks: SignalHooks | undefined;
  let connected = false;
  let closed = false;
  real.load().then(
    (module) => {
      hooks = module.drainOnSignals(client, timeoutMs, logger);
      if (connected) hooks.connected();
      if (closed) hooks.closed();
    },
    (error: unknown) => logger.warn({ error }, 'handleSignals: its code could not be loaded; ignored'),
  );
  return {
    connected() {
      connected = true;
      hooks?.connected();
    },
    closed() {
      closed = true;
      hooks?.closed();
    },
  };
}
