/**
 * The approval step of a call: whether a human must approve it, and asking.
 *
 * @module
 */
import type { ApprovalDecision, InvokeOptions } from './invoke';
import { approvalFailedText, cancelledText, declinedText, errorText, noApproverText } from './model-text';
import { thrownMessage } from './output';
import { settle } from './settle';
import type { ToolContext, ToolInternals } from './tool';

/** How the approval step ended: go ahead, or a result that ends the call. */
export type ApprovalOutcome =
  | { go: true; approved: boolean }
  | { go: false; status: 'rejected' | 'cancelled' | 'error'; output: string };

function normalise(decision: unknown): { approved: boolean; reason?: string } {
  if (typeof decision === 'boolean') return { approved: decision };
  if (typeof decision === 'object' && decision !== null) {
    const { approved, reason } = decision as { approved?: unknown; reason?: unknown };
    return typeof reason === 'string'
      ? { approved: approved === true, reason }
      : { approved: approved === true };
  }
  return { approved: false };
}

/**
 * Decides whether the call may run. An earlier decision (`options.approved`) wins; otherwise `needsApproval`
 * is evaluated (a predicate that throws ends the call with `Error running <name>: <message>`), and
 * `options.approve` is asked. Anything but an explicit approval (`true` or `{ approved: true }`) rejects.
 */
export async function decideApproval(
  internals: ToolInternals,
  ctx: ToolContext,
  input: unknown,
  options: InvokeOptions,
): Promise<ApprovalOutcome> {
  const name = ctx.toolName;
  const signal = options.signal;
  const cancelled = { go: false, status: 'cancelled', output: cancelledText(name) } as const;
  if (options.approved === true) return { go: true, approved: true };
  if (options.approved === false)
    return { go: false, status: 'rejected', output: declinedText(name, options.rejectionReason) };

  const { needsApproval } = internals;
  let needed = needsApproval === true;
  if (typeof needsApproval === 'function') {
    const outcome = await settle(() => needsApproval(ctx, input), { signal });
    if (outcome.kind === 'aborted') return cancelled;
    if (outcome.kind === 'error')
      return { go: false, status: 'error', output: errorText(name, thrownMessage(outcome.error)) };
    // Fail safe: anything truthy asks for approval.
    needed = outcome.kind === 'value' && Boolean(outcome.value);
  }
  if (!needed) return { go: true, approved: false };
  const approve = options.approve;
  if (approve === undefined) return { go: false, status: 'rejected', output: noApproverText(name) };

  const request = { callId: ctx.callId, runId: ctx.runId, toolName: name, input };
  const outcome = await settle<ApprovalDecision>(() => approve(request), { signal });
  if (outcome.kind === 'aborted' || signal?.aborted) return cancelled;
  if (outcome.kind === 'error') {
    return { go: false, status: 'rejected', output: approvalFailedText(name, thrownMessage(outcome.error)) };
  }
  const decision = normalise(outcome.kind === 'value' ? outcome.value : false);
  if (decision.approved) return { go: true, approved: true };
  return { go: false, status: 'rejected', output: declinedText(name, decision.reason) };
}
