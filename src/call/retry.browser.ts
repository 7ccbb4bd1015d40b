/**
 * The browser build's src/call/retry.ts (swapped in by browser-build.ts): a tool without `retry` runs
 * `execute` once, here; a tool with one loads the real retry code (a chunk of its own) first.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import { withModule } from './call-module';
import { runsOnce } from './fast-paths';
import type { Settled } from './settle';
import { timed } from './timed';
import type { CallState } from './types';

const real = lazy('the retry code', () => import('./retry'));

/** See src/call/retry.ts. */
export function executeAttempts(
  call: CallState,
  input: unknown,
  next: (outcome: Settled<unknown>, call: CallState) => void,
): void {
  if (runsOnce(call)) {
    timed(call, () => call.internals.execute(input, call.ctx), next);
    return;
  }
  withModule(real, call, (module) => module.executeAttempts(call, input, next));
}
