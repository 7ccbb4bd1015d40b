/**
 * The common call's fast paths, shared by the real gate, approval and retry code and their browser stand-ins
 * (`*.browser.ts`), so that the two cannot drift apart: what the stand-in settles without loading a chunk is
 * exactly what the real module settles the same way.
 *
 * @module
 */
import type { CallState } from './types';

/**
 * The approval outcome of a call that needs no one asked: approved already by the service (`approved: true`),
 * or nothing asking for it (`needsApproval` false or absent, no policy reason, not held by the service).
 * `undefined` when the approval code must decide (a decline, a predicate, a policy, an approver).
 */
export function approvalWithoutAsking(
  call: CallState,
  policyReason: string | undefined,
): { go: true; approved: boolean } | undefined {
  const { approved } = call.options;
  if (approved === true) return { go: true, approved: true };
  if (
    approved === undefined &&
    policyReason === undefined &&
    (call.internals.needsApproval ?? false) === false
  )
    return { go: true, approved: false };
  return undefined;
}

/** Whether `execute` runs once, without the retry code: no `retry`, `maxAttempts` 1, or no way to make a new attempt. */
export function runsOnce(call: CallState): boolean {
  const { retry } = call.internals;
  return retry === undefined || retry.maxAttempts <= 1 || call.newAttempt === undefined;
}

/** Whether the gate has nothing to check: the tool names no `allowedAgentNames` and the client has no `policies`. */
export function gateIsOpen(call: CallState): boolean {
  return call.internals.allowedAgentNames === undefined && (call.options.policies ?? []).length === 0;
}
