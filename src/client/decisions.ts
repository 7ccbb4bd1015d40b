/**
 * `Decisions`: `client.decide(callId, decision)`, a human's decision sent over the client's socket as an
 * `approval` frame (PROTOCOL.md §7). With the feature `decisions` (PROTOCOL.md §18.8) the frame carries a
 * `requestId`, edited `arguments` and `always`, and the service answers it: `approval_applied`, or an `error`
 * naming the request. Without it, the decision is sent plain and the promise resolves once it is written.
 *
 * @module
 */
import { readDecision } from '../call/approval-decision';
import type { ApprovalDecision } from '../call/types';
import { ApprovalError, ConnectionError } from '../errors';
import type { ClientFrame, FrameOf, ServiceFrame } from '../wire/protocol';

type Approval = FrameOf<ClientFrame, 'approval'>;

/** Decisions sent by one client and not answered yet, by request id. */
export class Decisions {
  /** Sends a frame; `false` when the socket is not open. */
  readonly #send: (frame: Approval) => boolean;
  /** Whether the current socket negotiated the feature `decisions`. */
  #negotiated = false;
  readonly #pending = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  #next = 0;

  constructor(send: (frame: Approval) => boolean) {
    this.#send = send;
  }

  /** `welcome` arrived: the features of the new socket. */
  welcomed(features: readonly string[] | undefined): void {
    this.#negotiated = features?.includes('decisions') === true;
  }

  /** Sends a decision; see `Client.decide`. */
  decide(callId: string, given: ApprovalDecision): Promise<void> {
    if (typeof callId !== 'string' || callId === '') {
      return Promise.reject(
        new ApprovalError('invalid_decision', 'decide(): callId must be a non-empty string'),
      );
    }
    const decision = readDecision(given);
    if (typeof decision === 'string') {
      const message = decision.replace('the approver', 'the decision');
      return Promise.reject(new ApprovalError('invalid_decision', `decide(): ${message}`));
    }
    const frame: Approval = { type: 'approval', callId, approved: decision.approved };
    if (decision.reason !== undefined) frame.reason = decision.reason;
    if (!this.#negotiated) {
      if (decision.arguments !== undefined || decision.always === true) {
        return Promise.reject(
          new ApprovalError(
            'unsupported',
            'decide(): the service does not take edited arguments or always (feature decisions)',
          ),
        );
      }
      return this.#send(frame) ? Promise.resolve() : Promise.reject(notConnected());
    }
    if (decision.arguments !== undefined) frame.arguments = decision.arguments;
    if (decision.always === true) frame.always = true;
    this.#next += 1;
    const requestId = `d${this.#next}`;
    frame.requestId = requestId;
    return new Promise<void>((resolve, reject) => {
      if (!this.#send(frame)) {
        reject(notConnected());
        return;
      }
      this.#pending.set(requestId, { resolve, reject });
    });
  }

  /** Handles `approval_applied` and an `error` naming a pending decision; `false` for any other frame. */
  handle(frame: ServiceFrame): boolean {
    if (frame.type !== 'approval_applied' && frame.type !== 'error') return false;
    const requestId = frame.requestId;
    const pending = requestId === undefined ? undefined : this.#pending.get(requestId);
    if (pending === undefined || requestId === undefined) return frame.type === 'approval_applied';
    this.#pending.delete(requestId);
    if (frame.type === 'approval_applied') pending.resolve();
    else {
      const code = frame.code === 'unknown_call' ? 'unknown_call' : 'not_pending';
      pending.reject(new ApprovalError(code, `decide(): ${frame.message}`));
    }
    return true;
  }

  /**
   * The socket dropped or the client closed: no answer will come for what was sent on it. Whether the service
   * applied such a decision is unknown; the caller may decide again (a second decision is refused `not_pending`).
   */
  disconnected(): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    const error = new ConnectionError('disconnected', 'decide(): the socket dropped before the answer');
    for (const { reject } of pending) reject(error);
  }
}

function notConnected(): ConnectionError {
  return new ConnectionError('not_connected', 'decide(): the client is not connected');
}
