/**
 * The approval step of a call: whether a human must approve it (and why), and asking. The answer is read by
 * src/call/approval-decision.ts; `always` decisions are kept by src/call/always.ts.
 *
 * @module
 */

import { type ApprovalNeed, isApprovalPolicy, readApprovalAnswer } from '../tool/approval-policy';
import {
  approvalFailedText,
  cancelledText,
  declinedText,
  errorText,
  noApproverText,
} from '../tool/model-text';
import { thrownMessage } from '../tool/output';
import { alwaysDecision, keepAlways } from './always';
import { readDecision } from './approval-decision';
import { approvalWithoutAsking } from './fast-paths';
import { frozenCopy } from './frozen-copy';
import { settleThen } from './settle';
import { timed } from './timed';
import type { ApprovalDecision, ApprovalRequest, CallState, RejectionReason } from './types';

/** How the approval step ended: go ahead (with the approver's edited arguments, if any), or a result. */
export type ApprovalOutcome =
  | { go: true; approved: boolean; edited?: Record<string, unknown> }
  | {
      go: false;
      status: 'rejected' | 'cancelled' | 'error';
      output: string;
      reason?: RejectionReason;
      error?: unknown;
    }
  | { go: false; status: 'timeout' };

/** Two reasons for one approval (the tool's and a policy's), as one. */
function joinReasons(first: string | undefined, second: string | undefined): string | undefined {
  if (first === undefined) return second;
  return second === undefined ? first : `${first}; ${second}`;
}

/**
 * Decides whether the call may run. The predicate and the approver see `view()`: a deep-frozen copy of the
 * arguments (src/call/frozen-copy.ts), never `execute`'s. An earlier decision (`options.approved`) wins; otherwise `needsApproval`
 * is evaluated (`true`, `approvalRequired(reason)`, or a predicate answering a boolean or `{ required, reason }`)
 * under the call's time budget (`timed`; a predicate that throws ends the call with `Error running <name>:
 * <message>`, one that runs out of time ends it `timeout`). `policyReason` (a client policy's
 * `requireApproval`) asks for approval whatever the tool says. Then `options.approve` is asked, without a time
 * limit (a human may take minutes; `options.signal` ends the wait), unless it answered `always` for this tool
 * in this run before. `true` or `{ approved: true, arguments? }` approves; `false` or `{ approved: false,
 * reason? }` is the user declining. Any other answer (`undefined`, `'yes'`, `{ approved: 'true' }`) is not a
 * decision: like an approver that throws, it ends the call `rejected` with `<name> was not run: approval could
 * not be obtained (the approver returned <answer> instead of true, false or { approved: boolean }).`, the answer
 * quoted as JSON and cut to 100 characters.
 */
export function decideApproval(
  call: CallState,
  view: () => unknown,
  policyReason: string | undefined,
  done: (outcome: ApprovalOutcome) => void,
): void {
  const { internals, ctx, options } = call;
  const name = ctx.toolName;
  const quick = approvalWithoutAsking(call, policyReason);
  if (quick !== undefined) {
    done(quick);
    return;
  }
  if (options.approved === false) {
    const output = declinedText(name, options.rejectionReason);
    done({ go: false, status: 'rejected', output, reason: 'declined' });
    return;
  }
  const decided = (need: ApprovalNeed) => {
    const reason = joinReasons(need.required ? need.reason : undefined, policyReason);
    if (need.required || policyReason !== undefined) ask(call, view, reason, done);
    else done({ go: true, approved: false });
  };
  const { needsApproval } = internals;
  if (typeof needsApproval !== 'function') {
    if (isApprovalPolicy(needsApproval)) decided({ required: true, reason: needsApproval.reason });
    else decided({ required: needsApproval === true });
    return;
  }
  call.stage = 'the needsApproval check';
  timed(
    call,
    // The call id third, as the OpenAI Agents SDK's `needsApproval(runContext, input, callId)` takes it.
    () => needsApproval(ctx, view(), ctx.callId),
    (outcome) => {
      if (outcome.kind !== 'timeout') call.stage = undefined;
      if (outcome.kind === 'aborted') done({ go: false, status: 'cancelled', output: cancelledText(name) });
      else if (outcome.kind === 'timeout') done({ go: false, status: 'timeout' });
      else if (outcome.kind === 'error')
        done({
          go: false,
          status: 'error',
          output: errorText(name, thrownMessage(outcome.error, undefined, options.redactor)),
          error: outcome.error,
        });
      else decided(readApprovalAnswer(outcome.value));
    },
  );
}

/** Asks `options.approve` (or applies its earlier `always`), without a time limit; `options.signal` ends the wait. */
function ask(
  call: CallState,
  view: () => unknown,
  reason: string | undefined,
  done: (outcome: ApprovalOutcome) => void,
): void {
  const { ctx, options } = call;
  const name = ctx.toolName;
  const approve = options.approve;
  if (approve === undefined) {
    done({ go: false, status: 'rejected', output: noApproverText(name), reason: 'approval_failed' });
    return;
  }
  const earlier = alwaysDecision(approve, ctx.runId, name);
  if (earlier !== undefined) {
    if (earlier.approved) done({ go: true, approved: true });
    else
      done({ go: false, status: 'rejected', output: declinedText(name, earlier.reason), reason: 'declined' });
    return;
  }
  const { signal } = options;
  const request: ApprovalRequest = {
    callId: ctx.callId,
    runId: ctx.runId,
    toolName: name,
    // The approver sees the redacted fields as the placeholder (`[redacted]`); see `restore` below.
    input: call.redaction?.active === true ? frozenCopy(call.redaction.value(view())) : view(),
  };
  // A reason may quote the arguments (`approvalRequired(\`pay ${amount}\`)`): redacted as any text of the call.
  if (reason !== undefined)
    request.reason = call.redaction?.active === true ? call.redaction.text(reason) : reason;
  if (options.agentName !== undefined) request.agentName = options.agentName;
  settleThen<ApprovalDecision>(
    () => approve(request),
    { signal },
    (outcome) => {
      if (outcome.kind === 'aborted' || signal?.aborted) {
        done({ go: false, status: 'cancelled', output: cancelledText(name) });
        return;
      }
      if (outcome.kind === 'error') {
        const message = thrownMessage(outcome.error, 'the approver', options.redactor);
        const output = approvalFailedText(name, message);
        done({ go: false, status: 'rejected', output, reason: 'approval_failed', error: outcome.error });
        return;
      }
      const decision = readDecision(outcome.kind === 'value' ? outcome.value : undefined);
      if (typeof decision === 'string') {
        const output = approvalFailedText(name, decision);
        done({ go: false, status: 'rejected', output, reason: 'approval_failed' });
        return;
      }
      if (decision.always === true) {
        const kept = decision.reason === undefined ? {} : { reason: decision.reason };
        keepAlways(approve, ctx.runId, name, { approved: decision.approved, ...kept });
      }
      if (!decision.approved) {
        done({
          go: false,
          status: 'rejected',
          output: declinedText(name, decision.reason),
          reason: 'declined',
        });
      } else if (decision.arguments === undefined) done({ go: true, approved: true });
      else {
        // A redacted field the approver left as the placeholder keeps its value: execute never gets `[redacted]`.
        const edited = call.redaction?.restore(decision.arguments, view()) ?? decision.arguments;
        done({ go: true, approved: true, edited });
      }
    },
  );
}
