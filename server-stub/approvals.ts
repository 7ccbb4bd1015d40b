/**
 * Human approval of tool calls: a client asks (`approval_request`), or the tool's definition says
 * `needsApproval`; a human decides over the socket (`approval`) or over HTTP. A call is decided once.
 *
 * @module
 */
import type { ClientFrame, Feature, FrameOf } from '../src/wire/protocol';
import type { Call, CallDecision } from './call';
import type { Dispatcher } from './dispatcher';
import { fitsFrame, frameBytes } from './fit-frame';
import type { Run } from './run';
import type { Session } from './session';
import type { RunEventKind } from './transcript';

/**
 * Why a decision was refused: `unknown_call` (HTTP 404), `not_allowed` (HTTP 409), or `too_large` (HTTP 413: the
 * `tool_call` carrying it would be over the frame limit), with a message.
 */
export type ApprovalRefusal = { code: 'unknown_call' | 'not_allowed' | 'too_large'; message: string };

/** What approvals need from the service. */
export interface ApprovalsDeps {
  dispatcher: Dispatcher;
  /** The frame limit announced to clients: a decision whose `tool_call` would be larger is refused. */
  maxPayloadBytes: number;
  /** The run with this id (to accept a nested run's call under an ancestor's id). */
  runOf(runId: string): Run | undefined;
  emit(run: Run, kind: RunEventKind, data: unknown): void;
}

/** Runs (in the order their first `always` came, oldest forgotten first) → tool name → decision. */
const MAX_ALWAYS_RUNS = 1_000;

/** Approval handling of one stub server. */
export class Approvals {
  readonly #deps: ApprovalsDeps;
  /** `always` decisions (docs/protocol/decisions.md), per run id and tool name. */
  readonly #always = new Map<string, Map<string, { approved: boolean; reason?: string }>>();

  constructor(deps: ApprovalsDeps) {
    this.#deps = deps;
  }

  /**
   * Applies a human decision to a call held for approval. The call is then sent (again) with `approved` set; a
   * rejected call is sent with `approved: false` and the reason, and the client answers with its `rejected` text.
   *
   * @param runId - when given, the call must belong to this run or to a run nested in it (HTTP route): a UI
   *   that follows the outer run can decide a call of an agent used as a tool.
   * @returns `undefined` when applied, else why not.
   */
  decide(
    callId: string,
    decision: CallDecision,
    runId?: string,
    tenant?: { tenant: string | undefined },
  ): ApprovalRefusal | undefined {
    const call = this.#deps.dispatcher.get(callId);
    const foreign = tenant !== undefined && call?.run.tenant !== tenant.tenant;
    if (!call || foreign || (runId !== undefined && !this.#within(call.run, runId))) {
      const where = runId === undefined ? '' : ` in run ${runId}`;
      return { code: 'unknown_call', message: `no tool call ${JSON.stringify(callId)}${where}` };
    }
    const previous = call.decision;
    if (previous) {
      return {
        code: 'not_allowed',
        message: `tool call ${callId} was already ${previous.approved ? 'approved' : 'rejected'}`,
      };
    }
    if (call.state === 'done') {
      const status = call.result?.status;
      return {
        code: 'not_allowed',
        message:
          status === 'cancelled'
            ? `tool call ${callId} was cancelled; nothing will run`
            : `tool call ${callId} already finished (status ${status})`,
      };
    }
    if (call.state === 'awaiting_approval' && call.decision === undefined) {
      const tooLarge = this.#tooLarge(call, decision);
      if (tooLarge !== undefined) return tooLarge;
    }
    if (!call.decide(decision)) {
      return { code: 'not_allowed', message: `tool call ${callId} is not awaiting approval` };
    }
    this.#deps.emit(call.run, 'approval_decided', {
      callId,
      toolName: call.toolName,
      approved: decision.approved,
      by: decision.by,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      ...(decision.arguments === undefined ? {} : { arguments: decision.arguments }),
      ...(decision.always === true ? { always: true } : {}),
    });
    if (decision.always === true) this.#keepAlways(call.run.id, call.toolName, decision);
    this.#deps.dispatcher.release(call);
    return undefined;
  }

  /**
   * Why `decision` cannot be sent, or `undefined`: the `tool_call` that carries it (the reason, the edited arguments)
   * would be over the frame limit, and the client would close 1009 and get it again on every resume. Checked before
   * anything is recorded, so the call stays held for a decision that fits.
   */
  #tooLarge(call: Call, decision: CallDecision): ApprovalRefusal | undefined {
    const frame = call.widestFrame(decision);
    const limit = this.#deps.maxPayloadBytes;
    if (fitsFrame(frame, limit)) return undefined;
    return {
      code: 'too_large',
      message: `the decision makes a tool_call of ${frameBytes(frame)} bytes for tool call ${call.callId}, over the frame limit of ${limit} bytes`,
    };
  }

  /** A call just held: decided at once (`true`) when its run has an `always` decision for its tool. */
  applyAlways(call: Call): boolean {
    const kept = this.#always.get(call.run.id)?.get(call.toolName);
    return kept !== undefined && this.decide(call.callId, { ...kept, by: 'always' }) === undefined;
  }

  #keepAlways(runId: string, toolName: string, decision: CallDecision): void {
    let tools = this.#always.get(runId);
    if (tools === undefined) {
      tools = new Map();
      this.#always.set(runId, tools);
      if (this.#always.size > MAX_ALWAYS_RUNS)
        this.#always.delete(this.#always.keys().next().value as string);
    }
    tools.set(toolName, {
      approved: decision.approved,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    });
  }

  /** `true` when `run` is the run `runId` or nested (at any depth) in it. */
  #within(run: Run, runId: string): boolean {
    for (let current: Run | undefined = run; current; ) {
      if (current.id === runId) return true;
      current = current.parentRunId === undefined ? undefined : this.#deps.runOf(current.parentRunId);
    }
    return false;
  }

  /**
   * Handles `approval_request` from the client a call was sent to: the call is held (nothing runs) until a
   * decision. A repeated request (after a reconnect) changes nothing; one for a call already decided gets the
   * decision again.
   */
  request(session: Session, frame: FrameOf<ClientFrame, 'approval_request'>): ApprovalRefusal | undefined {
    const { dispatcher } = this.#deps;
    const call = dispatcher.get(frame.callId);
    if (!call || call.run.tenant !== session.tenant)
      return { code: 'unknown_call', message: `no tool call ${JSON.stringify(frame.callId)}` };
    if (call.sessionId !== session.id) {
      return { code: 'not_allowed', message: `tool call ${call.callId} is not assigned to this session` };
    }
    if (call.state === 'awaiting_approval') return undefined;
    if (call.decision) {
      dispatcher.resend(call);
      return undefined;
    }
    if (call.state !== 'dispatched') {
      return {
        code: 'not_allowed',
        message: `tool call ${call.callId} cannot be held (state ${call.state})`,
      };
    }
    dispatcher.hold(call, 'client', frame.reason);
    return undefined;
  }
}

/**
 * The decision an `approval` frame carries: with the feature `decisions` on its socket, the edited `arguments`
 * and `always` too (docs/protocol/decisions.md); without it those fields are ignored.
 */
export function socketDecision(
  frame: FrameOf<ClientFrame, 'approval'>,
  features: ReadonlySet<Feature>,
): CallDecision {
  const decision: CallDecision = { approved: frame.approved, by: 'socket' };
  if (frame.reason !== undefined) decision.reason = frame.reason;
  if (features.has('decisions')) {
    if (frame.arguments !== undefined) decision.arguments = frame.arguments;
    if (frame.always === true) decision.always = true;
  }
  return decision;
}
