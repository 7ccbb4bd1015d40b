/**
 * `client.decide(callId, decision)`: a human's decision sent over the client's socket as an `approval` frame
 * (docs/protocol/decisions.md). With the feature `decisions` the frame carries a `requestId`, edited `arguments`
 * and `always`, and the service answers it: `approval_applied`, or an `error` naming the request. Without it, the
 * decision is sent plain and the promise resolves once it is written. `decide()`'s arguments are read before they
 * come here (`readDecideArguments`, src/call/decision.ts); what is checked here are the limits (depth, frame
 * size) and what depends on the client (its secrets, the service's features).
 *
 * A browser page loads this file with `import()` at its first `client.decide()` (./client.ts routes the service's
 * frames to it once it is there: before, no decision can be waiting for an answer); the Node entry registers it
 * up front (src/node.ts).
 *
 * @module
 */
import type { Decision } from '../call/decision';
import { ApprovalError, ConnectionError } from '../errors';
import { nestsDeeperThan } from '../json';
import { DECISION_ANSWER_TIMEOUT_MS, MAX_ARGUMENT_DEPTH } from '../limits';
import { notJson } from '../not-json';
import type { Redactor } from '../redact';
import { encodeFrame } from '../wire/codec';
import { type ClientFrame, type FrameOf, type ServiceFrame, utf8Length } from '../wire/protocol';
import { serviceCode, serviceMessage } from './service-words';

type Approval = FrameOf<ClientFrame, 'approval'>;

/** What the client keeps of the approvals it reported (`ReportedApprovals`, ./approvals.ts), told of decisions. */
export interface DecisionHooks {
  /** Edited arguments given back what the approver left as it was shown redacted (a call the service holds). */
  restore?(callId: string, edited: Record<string, unknown>): Record<string, unknown>;
  /** The service applied `decision` about `callId` (its `always` covers the tool's later calls in the run). */
  applied?(callId: string, decision: Decision): void;
}

/** Decisions sent by one client and not answered yet, by request id. */
export class Decisions {
  /** Sends a frame; `false` when the socket is not open. */
  readonly #send: (frame: Approval) => boolean;
  /** The service's frame limit, in bytes (`welcome.maxPayloadBytes`). */
  readonly #maxPayloadBytes: () => number;
  /** Whether the current socket negotiated the feature `decisions`. */
  #negotiated = false;
  readonly #pending = new Map<
    string,
    { resolve: () => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }
  >();
  #next = 0;
  /** The client's redactor: a reason is sent redacted, edited arguments holding a secret are refused. */
  readonly #redactor: () => Redactor | undefined;
  /** What the client keeps of the approvals it reported (`ReportedApprovals`, ./approvals.ts). */
  readonly #reported: DecisionHooks;

  constructor(
    send: (frame: Approval) => boolean,
    maxPayloadBytes: () => number,
    redactor: () => Redactor | undefined = () => undefined,
    reported: DecisionHooks = {},
  ) {
    this.#send = send;
    this.#maxPayloadBytes = maxPayloadBytes;
    this.#redactor = redactor;
    this.#reported = reported;
  }

  /** `welcome` arrived: the features of the new socket. */
  welcomed(features: readonly string[] | undefined): void {
    this.#negotiated = features?.includes('decisions') === true;
  }

  /**
   * Sends `decision` (read from `client.decide()`'s arguments by `readDecideArguments`, src/call/decision.ts) about
   * call `callId`, waiting at most `timeoutMs` for the service's answer; see `Client.decide`.
   */
  decide(callId: string, decision: Decision, timeoutMs = DECISION_ANSWER_TIMEOUT_MS): Promise<void> {
    const redactor = this.#redactor();
    if (decision.arguments !== undefined) {
      // Before the depth: a cycle is not JSON, however deep it seems.
      const why = notJson(decision.arguments, MAX_ARGUMENT_DEPTH, 'arguments');
      if (why !== undefined) {
        // A key in the path is the approver's: redacted as any message of the client.
        const message = `decide(): the decision is not JSON: ${why}`;
        return Promise.reject(
          new ApprovalError('invalid_decision', redactor === undefined ? message : redactor.text(message)),
        );
      }
      if (nestsDeeperThan(decision.arguments, MAX_ARGUMENT_DEPTH)) {
        const message = `decide(): the edited arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays, the most a call's arguments may`;
        return Promise.reject(new ApprovalError('too_deep', message));
      }
    }
    const frame: Approval = { type: 'approval', callId, approved: decision.approved };
    if (decision.reason !== undefined)
      frame.reason = redactor === undefined ? decision.reason : redactor.text(decision.reason);
    if (
      decision.arguments !== undefined &&
      redactor !== undefined &&
      holdsSecret(decision.arguments, redactor)
    ) {
      // Redacting them would run the call with arguments nobody chose: refused, and not quoted.
      return Promise.reject(
        new ApprovalError(
          'invalid_decision',
          "decide(): the edited arguments hold a secret (the client's API key or a match of its redact rules); they are not sent",
        ),
      );
    }
    if (!this.#negotiated) {
      if (decision.arguments !== undefined || decision.always === true) {
        return Promise.reject(
          new ApprovalError(
            'unsupported',
            'decide(): the service does not take edited arguments or always (feature decisions)',
          ),
        );
      }
      const refused = this.#unsendable(frame);
      if (refused !== undefined) return Promise.reject(refused);
      return this.#send(frame) ? Promise.resolve() : Promise.reject(notConnected());
    }
    // Checked for secrets as the approver wrote them; what it left as it was shown goes back as it was (the
    // model's arguments, from the service).
    if (decision.arguments !== undefined)
      frame.arguments = this.#reported.restore?.(callId, decision.arguments) ?? decision.arguments;
    if (decision.always === true) frame.always = true;
    const requestId = `d${this.#next + 1}`;
    frame.requestId = requestId;
    const refused = this.#unsendable(frame);
    if (refused !== undefined) return Promise.reject(refused);
    this.#next += 1;
    return new Promise<void>((resolve, reject) => {
      if (!this.#send(frame)) {
        reject(notConnected());
        return;
      }
      // A service that keeps the socket open but never answers must not hold the caller for ever. The message
      // names the bound of the whole decide(), of which a browser may have spent some loading this code.
      const timer = setTimeout(() => {
        if (!this.#pending.delete(requestId)) return;
        reject(
          new ApprovalError(
            'timeout',
            `decide(): the service did not answer within ${DECISION_ANSWER_TIMEOUT_MS} ms, so whether the decision was applied is unknown`,
          ),
        );
      }, timeoutMs);
      const applied = () => {
        this.#reported.applied?.(callId, decision);
        resolve();
      };
      this.#pending.set(requestId, { resolve: applied, reject, timer });
    });
  }

  /**
   * Why `frame` can never be sent, or `undefined`: not JSON (`invalid_decision`: a `BigInt`, a function…), or over
   * the service's frame limit (`too_large`, naming the size and the limit in bytes). Such a decision would
   * otherwise fail as if the socket were closed.
   */
  #unsendable(frame: Approval): ApprovalError | undefined {
    let size: number;
    try {
      size = utf8Length(encodeFrame(frame));
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return new ApprovalError('invalid_decision', `decide(): the decision is not JSON: ${detail}`, {
        cause: error,
      });
    }
    const limit = this.#maxPayloadBytes();
    if (size <= limit) return undefined;
    return new ApprovalError(
      'too_large',
      `decide(): the decision makes an approval frame of ${size} bytes, over the service's limit of ${limit} bytes`,
    );
  }

  /** Handles `approval_applied` and an `error` naming a pending decision; `false` for any other frame. */
  handle(frame: ServiceFrame): boolean {
    if (frame.type !== 'approval_applied' && frame.type !== 'error') return false;
    const requestId = frame.requestId;
    const pending = requestId === undefined ? undefined : this.#pending.get(requestId);
    if (pending === undefined || requestId === undefined) return frame.type === 'approval_applied';
    this.#pending.delete(requestId);
    clearTimeout(pending.timer);
    if (frame.type === 'approval_applied') pending.resolve();
    else {
      const redactor = this.#redactor();
      pending.reject(refusedBy(serviceCode(frame.code, redactor), serviceMessage(frame.message, redactor)));
    }
    return true;
  }

  /**
   * The service's answer to a decision could not be read (an `approval_applied` or `error` refused with
   * `error invalid_frame`, docs/protocol/errors.md) but names the decision's `requestId`: no other answer will come, so
   * the decision fails now (`ApprovalError` `invalid_frame`) rather than wait for ever. `false` when it names none.
   */
  refused(about: { type?: string; requestId?: string }, message: string): boolean {
    if (about.type !== 'approval_applied' && about.type !== 'error') return false;
    const pending = about.requestId === undefined ? undefined : this.#pending.get(about.requestId);
    if (pending === undefined || about.requestId === undefined) return false;
    this.#pending.delete(about.requestId);
    clearTimeout(pending.timer);
    pending.reject(
      new ApprovalError(
        'invalid_frame',
        `decide(): the service's answer (${about.type}) could not be read, so whether the decision was applied is unknown: ${message}`,
      ),
    );
    return true;
  }

  /**
   * The socket dropped (`ConnectionError` `disconnected`) or the client closed (`closed`): no answer will come for
   * what was sent on it. Whether the service applied such a decision is unknown; after a drop the caller may
   * decide again (a second decision is refused `not_pending`).
   */
  disconnected(why: 'dropped' | 'closed' = 'dropped'): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    const error =
      why === 'closed'
        ? new ConnectionError(
            'closed',
            'decide(): the client was closed before the service answered, so whether the decision was applied is unknown',
          )
        : new ConnectionError('disconnected', 'decide(): the socket dropped before the answer');
    for (const { reject, timer } of pending) {
      clearTimeout(timer);
      reject(error);
    }
  }
}

/**
 * The service's `error` for a decision: `unknown_call` and `too_large` (the `tool_call` carrying the decision would
 * be over the frame limit) as they are, `not_allowed` (already decided, cancelled, not held) as `not_pending`, any
 * other code (`internal`, one added later) kept as the service's, quoted.
 */
function refusedBy(code: string, message: string): ApprovalError {
  if (code === 'unknown_call' || code === 'too_large') return new ApprovalError(code, `decide(): ${message}`);
  if (code === 'not_allowed') return new ApprovalError('not_pending', `decide(): ${message}`);
  return new ApprovalError(code, `decide(): the service refused the decision with ${code}: ${message}`);
}

function notConnected(): ConnectionError {
  return new ConnectionError('not_connected', 'decide(): the client is not connected');
}

/** `true` when `value`, written as JSON, holds a secret `redactor` finds (in a string, a key or a number). */
function holdsSecret(value: unknown, redactor: Redactor): boolean {
  if (redactor.empty) return false;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return false; // not JSON: refused as such by the size check
  }
  if (json === undefined) return false;
  return redactor.text(json) !== json || JSON.stringify(redactor.value(value)) !== json;
}
