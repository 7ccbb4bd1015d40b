/**
 * The browser build's src/client/signals.ts (swapped in by browser-build.ts): a page has no process signals;
 * the real code (which says so in a warning, or listens where a runtime has them) loads only when
 * `handleSignals` is given.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type { Logger } from '../logger';
import type { DrainedClient } from './signals';

export type { DrainedClient } from './signals';

const real = lazy('the handleSignals code', () => import('./signals'));

/** See src/client/signals.ts. */
export function drainOnSignals(client: DrainedClient, timeoutMs: number | undefined, logger: Logger): void {
  if (timeoutMs === undefined) return;
  real.load().then(
    (module) => module.drainOnSignals(client, timeoutMs, logger),
    (error: unknown) => logger.warn({ error }, 'handleSignals: its code could not be loaded; ignored'),
  );
}
