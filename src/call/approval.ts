/**
 * The approval step of a call: whether a human must approve it, and asking.
 *
 * @module
 */

import {
  approvalFailedText,
  cancelledText,
  declinedText,
  errorText,
  noApproverText,
} from '../tool/model-text';
import { serializeOutput, thrownMessage } from '../tool/output';
import type { ToolContext } from '../tool/tool';
import { settleThen } from './settle';
import { timed } from './timed';
import type { ApprovalDecision, CallOptions, CallState } from './types';

/** How the approval step ended: go ahead, or a result that ends the call. */
export type ApprovalOutcome =
  | { go: true; approved: boolean }
  | { go: false; status: 'rejected' | 'cancelled' | 'error'; output: string; error?: unknown }
  | { go: false; status: 'timeout' };

/** At most this many characters of an approver's unusable answer are quoted in the model's text. */
const MAX_SHOWN_ANSWER = 100;

/** An approver's answer, or `undefined` when it is neither a boolean nor `{ approved: boolean }`. */
function normalise(decision: unknown): { approved: boolean; reason?: string } | undefined {
  if (typeof decision === 'boolean') return { approved: decision };
  if (typeof decision !== 'object' || decision === null) return undefined;
  const { approved, reason } = decision as { approved?: unknown; reason?: unknown };
  if (typeof approved !== 'boolean') return undefined;
  return typeof reason === 'string' ? { approved, reason } : { approved };
}

/** An approver's unusable answer as the model reads it: `undefined`, `"yes"`, `{"approved":"true"}`. */
function showAnswer(answer: unknown): string {
  if (answer === undefined) return 'undefined';
  if (typeof answer === 'function') return 'a function';
  if (typeof answer === 'symbol') return 'a symbol';
  const json = serializeOutput(typeof answer === 'string' ? JSON.stringify(answer) : answer);
  return json.length > MAX_SHOWN_ANSWER ? `${json.slice(0, MAX_SHOWN_ANSWER - 1)}…` : json;
}

/**
 * Decides whether the call may run. An earlier decision (`options.approved`) wins; otherwise `needsApproval`
 * is evaluated under the call's time budget (`timed`; a predicate that throws ends the call with `Error running
 * <name>: <message>`, one that runs out of time ends it `timeout`), and
 * `options.approve` is asked, without a time limit (a human may take minutes; `options.signal` ends the
 * wait). `true` or `{ approved: true }` approves; `false` or `{ approved: false, reason? }`
 * is the user declining. Any other answer (`undefined`, `'yes'`, `{ approved: 'true' }`) is not a decision: like
 * an approver that throws, it ends the call `rejected` with `<name> was not run: approval could not be obtained
 * (the approver returned <answer> instead of true, false or { approved: boolean }).`, the answer quoted as JSON
 * and cut to 100 characters.
 */
export function decideApproval(
  call: CallState,
  input: unknown,
  done: (outcome: ApprovalOutcome) => void,
): void {
  const { internals, ctx, options } = call;
  const name = ctx.toolName;
  if (options.approved === true) {
    done({ go: true, approved: true });
    return;
  }
  if (options.approved === false) {
    done({ go: false, status: 'rejected', output: declinedText(name, options.rejectionReason) });
    return;
  }

  const { needsApproval } = internals;
  if (typeof needsApproval !== 'function') {
    if (needsApproval === true) ask(ctx, input, options, done);
    else done({ go: true, approved: false });
    return;
  }
  timed(
    call,
    () => needsApproval(ctx, input),
    (outcome) => {
      if (outcome.kind === 'aborted') done({ go: false, status: 'cancelled', output: cancelledText(name) });
      else if (outcome.kind === 'timeout') done({ go: false, status: 'timeout' });
      else if (outcome.kind === 'error')
        done({
          go: false,
          status: 'error',
          output: errorText(name, thrownMessage(outcome.error, undefined, options.redactor)),
          error: outcome.error,
        });
      // Fail safe: anything truthy asks for approval.
      else if (outcome.value) ask(ctx, input, options, done);
      else done({ go: true, approved: false });
    },
  );
}

/** Asks `options.approve`, without a time limit; `options.signal` ends the wait. */
function ask(
  ctx: ToolContext,
  input: unknown,
  options: CallOptions,
  done: (outcome: ApprovalOutcome) => void,
): void {
  const name = ctx.toolName;
  const approve = options.approve;
  if (approve === undefined) {
    done({ go: false, status: 'rejected', output: noApproverText(name) });
    return;
  }
  const { signal } = options;
  const request = { callId: ctx.callId, runId: ctx.runId, toolName: name, input };
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
        done({
          go: false,
          status: 'rejected',
          output: approvalFailedText(name, message),
          error: outcome.error,
        });
        return;
      }
      const answer = outcome.kind === 'value' ? outcome.value : undefined;
      const decision = normalise(answer);
      if (decision === undefined) {
        const message = `the approver returned ${showAnswer(answer)} instead of true, false or { approved: boolean }`;
        done({ go: false, status: 'rejected', output: approvalFailedText(name, message) });
        return;
      }
      if (decision.approved) {
        done({ go: true, approved: true });
        return;
      }
      done({ go: false, status: 'rejected', output: declinedText(name, decision.reason) });
    },
  );
}
