/**
 * The browser build's src/call/number-refusals.ts (swapped in by browser-build.ts): a call whose arguments hold no
 * unusual number never gets here; one that does loads the real code (a chunk of its own) first, as a phase of the
 * call (src/call/call-module.ts: its timeout and cancellation end the wait; a failed load ends it as a bug,
 * `load_failed`).
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type { ValidationIssue } from '../tool/schema/index';
import { withModule } from './call-module';
import type { CallState } from './types';

const real = lazy('the refusal of unusual numbers in arguments', () => import('./number-refusals'));

/** See src/call/number-refusals.ts. */
export function refuseNumbers(
  call: CallState,
  args: object,
  schema: unknown,
  next: (refused: ValidationIssue[] | undefined) => void,
): void {
  withModule(real, call, (module) => module.refuseNumbers(call, args, schema, next));
}
