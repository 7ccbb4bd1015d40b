/**
 * The gate of a validated call, before approval: the tool's agent allowlist (`allowedAgentNames`), then the
 * host's policies in order (Assemble's sequence: validate → allowlist → policies → approval → execute →
 * output schema). Arguments an approver edited pass it again (src/call/pipeline.ts). This file holds how a
 * policy's answer is read, then the gate (`passGate`).
 *
 * Policies see a deep-frozen copy of the arguments (`lazyFrozenCopy`, ./approval.ts), never `execute`'s. An empty (or
 * blank) `block` text is the default {@link policyBlockedText}; an empty `requireApproval` reason is the
 * default {@link policyApprovalReason}: a policy's decision is never lost to a missing text, and the model and
 * the approver never read an empty one. While policy `i` runs, the call's stage is `policy i` (1-based), which
 * the timeout text names.
 *
 * @module
 */
import {
  cancelledText,
  notAllowedText,
  POLICY_APPROVAL_REASON,
  policyBlockedText,
  policyFailedText,
} from '../tool/model-text';
import { type Settled, timed } from './signal';
import type { CallState, PolicyCall, PolicyDecision, RejectionReason } from './types';

/** How the gate ended: go on (with a reason to ask for approval, fields to scrub), or a result. */
export type GateOutcome =
  | { go: true; approvalReason: string | undefined; redact: string[] }
  | {
      go: false;
      status: 'rejected' | 'cancelled' | 'timeout';
      output: string;
      reason?: RejectionReason;
      error?: unknown;
    };

/** A policy's answer, read; `undefined` when it is no decision. Blank texts become the defaults. */
function readPolicy(toolName: string, answer: unknown): { decision: PolicyDecision } | undefined {
  if (answer === undefined || answer === null) return { decision: undefined };
  if (typeof answer !== 'object') return undefined;
  const given = answer as Record<string, unknown>;
  if (typeof given.block === 'string') {
    const text = given.block.trim() === '' ? policyBlockedText(toolName) : given.block;
    return { decision: { block: text } };
  }
  if (typeof given.requireApproval === 'string') {
    const reason = given.requireApproval.trim() === '' ? POLICY_APPROVAL_REASON : given.requireApproval;
    return { decision: { requireApproval: reason } };
  }
  if (Array.isArray(given.redact) && given.redact.every((field) => typeof field === 'string')) {
    return { decision: { redact: given.redact as string[] } };
  }
  return undefined;
}

/**
 * Runs the allowlist and the policies on a validated call, and ends with a {@link GateOutcome}. `view` gives
 * what the policies see of the arguments (a frozen copy, made when first asked).
 */
export function passGate(call: CallState, view: () => unknown, done: (outcome: GateOutcome) => void): void {
  const name = call.tool.name;
  const { allowedAgentNames } = call.internals;
  const { agentName } = call.options;
  if (
    allowedAgentNames !== undefined &&
    (agentName === undefined || !allowedAgentNames.includes(agentName))
  ) {
    done({ go: false, status: 'rejected', output: notAllowedText(name, agentName), reason: 'not_allowed' });
    return;
  }
  const policies = call.options.policies ?? [];
  const reasons: string[] = [];
  const redact: string[] = [];
  if (policies.length === 0) {
    done({ go: true, approvalReason: undefined, redact });
    return;
  }
  const policyCall: PolicyCall = {
    toolName: name,
    arguments: view(),
    callId: call.ctx.callId,
    runId: call.ctx.runId,
    agentName,
    context: call.ctx.context,
  };
  const next = (index: number): void => {
    const policy = policies[index];
    if (policy === undefined) {
      call.stage = undefined;
      done({ go: true, approvalReason: reasons.length === 0 ? undefined : reasons.join('; '), redact });
      return;
    }
    call.stage = `policy ${index + 1}`;
    timed(
      call,
      () => policy(policyCall),
      (settled: Settled<unknown>) => {
        if (settled.kind === 'aborted') {
          done({ go: false, status: 'cancelled', output: cancelledText(name) });
          return;
        }
        if (settled.kind === 'timeout') {
          done({ go: false, status: 'timeout', output: '' });
          return;
        }
        const read = settled.kind === 'value' ? readPolicy(name, settled.value) : undefined;
        if (read === undefined) {
          const error =
            settled.kind === 'error'
              ? settled.error
              : new TypeError(`policy ${index + 1} answered something that is not a policy decision`);
          done({ go: false, status: 'rejected', output: policyFailedText(name), reason: 'blocked', error });
          return;
        }
        const { decision } = read;
        if (decision !== undefined && 'block' in decision) {
          done({ go: false, status: 'rejected', output: decision.block, reason: 'blocked' });
          return;
        }
        if (decision !== undefined && 'requireApproval' in decision) reasons.push(decision.requireApproval);
        if (decision !== undefined && 'redact' in decision) redact.push(...decision.redact);
        next(index + 1);
      },
    );
  };
  next(0);
}
