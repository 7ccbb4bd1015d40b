/**
 * A module of the browser build that a call loads on first use (src/browser/lazy.ts), waited for as a phase of
 * the call.
 *
 * @module
 */
import type { Lazy } from '../browser/lazy';
import { stopped } from './stopped';
import { timed } from './timed';
import type { CallState } from './types';

/**
 * Runs `use` with the module, now when it is loaded, else once it is: the wait is spent from the call's time
 * budget and ended by its cancellation as any phase of the call is (`timeout`, `cancelled`); a failed load ends
 * the call as a bug (`fail`, the `load_failed` error kept), as an exception in toolwire's own code would.
 */
export function withModule<M>(module: Lazy<M>, call: CallState, use: (loaded: M) => void): void {
  const now = module.now;
  if (now !== undefined) {
    use(now);
    return;
  }
  timed(
    call,
    () => module.load(),
    (settled) => {
      if (settled.kind === 'value') use(settled.value);
      else if (settled.kind === 'error') call.fail(settled.error);
      else stopped(call, settled);
    },
  );
}
