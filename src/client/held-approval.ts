/**
 * The approval a run's event reports for a call the service holds for a human (`needsApproval: true` in its
 * definition): such a call never reaches this client before the decision, so the client reports it from the event.
 *
 * @module
 */
import type { ApprovalRequest } from '../call/types';
import type { RunEvent } from './runs';

/**
 * The approval request in a run's event, for a call the service holds for a human because its tool says
 * `needsApproval: true`: such a call never reaches this client before the decision, so the client reports it from
 * the event. `undefined` for any other event (predicate approvals were reported when the tool asked).
 */
export function approvalHeldByService(event: RunEvent): ApprovalRequest | undefined {
  const data = event.event.data as {
    callId?: unknown;
    toolName?: unknown;
    arguments?: unknown;
    requestedBy?: unknown;
    runId?: unknown;
    reason?: unknown;
  };
  if (
    event.event.kind !== 'approval_requested' ||
    data?.requestedBy !== 'definition' ||
    data.runId !== undefined
  ) {
    return undefined;
  }
  const request: ApprovalRequest = {
    callId: String(data.callId),
    runId: event.runId,
    toolName: String(data.toolName),
    input: data.arguments,
  };
  if (typeof data.reason === 'string') request.reason = data.reason;
  return request;
}
