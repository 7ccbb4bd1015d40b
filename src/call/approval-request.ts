/**
 * The request an approver is given (`ApprovalRequest`), and its `signal`: an own, read-only, non-enumerable property
 * whose getter makes the signal at its first read (`CallSignal`, ./signal.ts: an `AbortController` costs
 * microseconds and hundreds of bytes, and most approvers never read it). One getter for every request, its state
 * found by the request: no closure per request. Used by the call's approval phase (./approval.ts, loaded on first
 * use) and by the client for the calls the service holds (src/client/approvals.ts, in every client): kept apart
 * from ./approval.ts so that a client does not carry that phase's code before one of its tools needs approval.
 *
 * @module
 */
import type { CallAbortState } from './signal';
import type { ApprovalRequest } from './types';

/** The abort state of each approval request's `signal`, by request. */
const requestSignals = new WeakMap<object, CallAbortState>();

/** The getter of `ApprovalRequest.signal`. */
function requestSignal(this: object): AbortSignal {
  // A getter taken off its request and called on another object: a signal that never aborts.
  return requestSignals.get(this)?.signal ?? new AbortController().signal;
}

/**
 * Gives `request` its `signal`, the one of `state`: whoever made the request aborts or ends `state` (its owner:
 * the call's approval phase, or the client for a call the service holds, src/client/approvals.ts).
 */
export function withSignal(request: Omit<ApprovalRequest, 'signal'>, state: CallAbortState): ApprovalRequest {
  requestSignals.set(request, state);
  // Not enumerable: code that copies the request (`JSON.stringify` in a logger, a spread, `structuredClone`, which
  // Bun refuses for an `AbortSignal`) neither carries it nor reads it, and so does not count as an approver that
  // read it (asked again when its call comes back, src/client/approvals.ts).
  Object.defineProperty(request, 'signal', { get: requestSignal, enumerable: false });
  return request as ApprovalRequest;
}

/**
 * The abort state of `request.signal` ({@link withSignal}): the client ends it when the decision arrives before
 * the call's wait is over (an approved call waits for a slot to go on), and asks whether it was read.
 */
export function signalState(request: ApprovalRequest): CallAbortState | undefined {
  return requestSignals.get(request);
}
