/**
 * The browser build's src/call/approval.ts (swapped in by browser-build.ts): a call that needs no approval
 * (`needsApproval` false or absent, no policy asking for it, not held by the service) goes on here; any other
 * loads the real approval code (a chunk of its own) first.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type { ApprovalOutcome } from './approval';
import { withModule } from './call-module';
import { approvalWithoutAsking } from './fast-paths';
import type { CallState } from './types';

export type { ApprovalOutcome } from './approval';

const real = lazy('the approval code', () => import('./approval'));

/** See src/call/approval.ts. */
export function decideApproval(
  call: CallState,
  view: () => unknown,
  policyReason: string | undefined,
  done: (outcome: ApprovalOutcome) => void,
): void {
  const outcome = approvalWithoutAsking(call, policyReason);
  if (outcome !== undefined) {
    done(outcome);
    return;
  }
  withModule(real, call, (module) => module.decideApproval(call, view, policyReason, done));
}
