/**
 * The gate of a validated call, before approval: the tool's agent allowlist (`allowedAgentNames`), then the
 * caller's policies in order (Assemble's sequence: validate → allowlist → policies → approval → execute →
 * output schema).
 *
 * @module
 */
import { cancelledText, notAllowedText, policyFailedText } from '../tool/model-text';
import type { Settled } from './settle';
import { timed } from './timed';
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

/** A policy's answer, read; `undefined` when it is no decision. */
function readPolicy(answer: unknown): { decision: PolicyDecision } | undefined {
  if (answer === undefined || answer === null) return { decision: undefined };
  if (typeof answer !== 'object') return undefined;
  const given = answer as Record<string, unknown>;
  if (typeof given.block === 'string') return { decision: { block: given.block } };
  if (typeof given.requireApproval === 'string')
    return { decision: { requireApproval: given.requireApproval } };
  if (Array.isArray(given.redact) && given.redact.every((field) => typeof field === 'string')) {
    return { decision: { redact: given.redact as string[] } };
  }
  return undefined;
}

/** Runs the allowlist and the policies on a validated call, and ends with a {@link GateOutcome}. */
export function passGate(call: CallState, input: unknown, done: (outcome: GateOutcome) => void): void {
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
  const policyCall: PolicyCall = {
    toolName: name,
    arguments: input,
    callId: call.ctx.callId,
    runId: call.ctx.runId,
    agentName,
    context: call.ctx.context,
  };
  const next = (index: number): void => {
    const policy = policies[index];
    if (policy === undefined) {
      done({ go: true, approvalReason: reasons.length === 0 ? undefined : reasons.join('; '), redact });
      return;
    }
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
        const read = settled.kind === 'value' ? readPolicy(settled.value) : undefined;
        if (read === undefined) {
          const error =
            settled.kind === 'error'
              ? settled.error
              : new TypeError(`policy ${index} answered something that is not a policy decision`);
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
