/**
 * Approval, a phase of one call: whether a human must approve it (and why), and asking. `decideApproval` is the
 * phase (the call's earlier decision, the tool's `needsApproval`, a policy's reason, then the approver); below it
 * (an approver's answer is read by ./decision.ts), the `always` decisions an approver gives for a tool's later calls
 * in a run, and the deep-frozen copy of the arguments that the predicate, policies and approvers see.
 *
 * @module
 */
import { frozenCopy } from '../json';
import {
  approvalFailedText,
  cancelledText,
  declinedText,
  hookFailedText,
  noApproverText,
} from '../tool/model-text';
import { thrownMessage } from '../tool/output';
import { DEFAULT_SIDE_EFFECT, isApprovalPolicy } from '../tool/tool';
import { cutChars } from '../utf8';
import { MAX_APPROVAL_REASON_CHARS } from '../wire/protocol';
import { withSignal } from './approval-request';
import { readDecision } from './decision';
import { restoreShown, shownArguments } from './redaction';
import { CallSignal, settleThen, timed } from './signal';
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

/**
 * Decides whether the call may run. The predicate and the approver see `view()`: a deep-frozen copy of the
 * arguments ({@link lazyFrozenCopy}), never `execute`'s. An earlier decision (`options.approved`) wins; otherwise `needsApproval`
 * is evaluated (`true`, `approvalRequired(reason)`, or a predicate answering a boolean or `{ required, reason }`)
 * under the call's time budget (`timed`; a predicate that throws ends the call `error` with `Error running <name>:
 * needsApproval threw: <message>`, one that runs out of time ends it `timeout` `… in the needsApproval check`). `policyReason` (a client policy's
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
    // A predicate's reason is cut to MAX_APPROVAL_REASON_CHARS once redacted: a cut first could keep the start of
    // a secret that the rules no longer match.
    const own =
      need.required && need.reason !== undefined
        ? cutChars(redactedReason(call, need.reason), MAX_APPROVAL_REASON_CHARS)
        : undefined;
    const reason = joinReasons(own, policyReason);
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
          output: hookFailedText(name, 'needsApproval', thrownMessage(outcome.error, 'it', options.redactor)),
          error: outcome.error,
        });
      else decided(readApprovalAnswer(outcome.value));
    },
  );
}

/**
 * The approval outcome of a call that needs no one asked: approved already by the service (`approved: true`),
 * or nothing asking for it (`needsApproval` false or absent, no policy reason, not held by the service).
 * `undefined` when the approval code must decide (a decline, a predicate, a policy, an approver).
 */
function approvalWithoutAsking(
  call: CallState,
  policyReason: string | undefined,
): { go: true; approved: boolean } | undefined {
  const { approved } = call.options;
  if (approved === true) return { go: true, approved: true };
  if (
    approved === undefined &&
    policyReason === undefined &&
    (call.internals.needsApproval ?? false) === false
  )
    return { go: true, approved: false };
  return undefined;
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
  // Its `signal` follows the call's cancellation until the decision arrives (made only if read: see `withSignal`).
  const asking = new CallSignal(signal, name);
  const request = withSignal(
    {
      callId: ctx.callId,
      runId: ctx.runId,
      toolName: name,
      // The approver sees what the service's approver would: the redacted fields as the placeholder
      // (`[redacted]`), the client's rules applied; see `restoreShown` below.
      input: shownInput(call, view()),
    } as ApprovalRequest,
    asking,
  );
  // A reason may quote the arguments (`approvalRequired(\`pay ${amount}\`)`) or anything else: redacted as any
  // text of the call, then with the client's rules (its API key, `redact`), as the frame to the service is, so that
  // the approver, `approval_requested` listeners, logs and spans see what the service sees.
  if (reason !== undefined) request.reason = redactedReason(call, reason);
  if (options.agentName !== undefined) request.agentName = options.agentName;
  request.sideEffect = call.tool.definition.sideEffect ?? DEFAULT_SIDE_EFFECT;
  settleThen<ApprovalDecision>(
    () => approve(request),
    { signal },
    (outcome) => {
      // The wait is over: an abort of the call from now on is not the approver's to hear (one until now is).
      asking.end();
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
        // What the approver left as it was shown redacted (a field's placeholder, a text with a secret replaced)
        // keeps its value: execute never gets `[redacted]`.
        const edited = restoreShown(decision.arguments, view(), request.input);
        done({ go: true, approved: true, edited });
      }
    },
  );
}

/** `shownArguments` of the call's arguments, deep-frozen: `view` itself when nothing in it needs redacting. */
function shownInput(call: CallState, view: unknown): unknown {
  const shown = shownArguments(view, call.options.redactor, call.redaction);
  return shown === view ? view : frozenCopy(shown);
}

/** A reason redacted as any text of the call (its sensitive fields), then with the client's rules. */
function redactedReason(call: CallState, reason: string): string {
  const fielded = call.redaction?.active === true ? call.redaction.text(reason) : reason;
  const { redactor } = call.options;
  return redactor === undefined || redactor.empty ? fielded : redactor.text(fielded);
}

/** Two reasons for one approval (the tool's and a policy's), as one. */
function joinReasons(first: string | undefined, second: string | undefined): string | undefined {
  if (first === undefined) return second;
  return second === undefined ? first : `${first}; ${second}`;
}

/*
 * `always` decisions (OpenAI Agents' `alwaysApprove` / `alwaysReject`): an approver that answers `always: true`
 * is not asked again about the same tool in the same run. Kept per approver function (a client's, or the one
 * given to `invokeTool`), for at most {@link MAX_ALWAYS_RUNS} runs, the oldest forgotten first.
 */
/** Most runs whose `always` decisions one approver keeps. */
const MAX_ALWAYS_RUNS = 1_000;

/** A remembered decision. */
interface AlwaysDecision {
  approved: boolean;
  reason?: string;
}

type Approver = (...args: never[]) => unknown;

/** Runs (oldest first, as a `Map` keeps insertion order) → tool name → decision, per approver. */
const kept = new WeakMap<Approver, Map<string, Map<string, AlwaysDecision>>>();

/** The `always` decision `approver` gave for `toolName` in `runId`, if any. */
function alwaysDecision(approver: Approver, runId: string, toolName: string): AlwaysDecision | undefined {
  return kept.get(approver)?.get(runId)?.get(toolName);
}

/** Remembers `decision` for `toolName`'s later calls in `runId`. */
function keepAlways(approver: Approver, runId: string, toolName: string, decision: AlwaysDecision): void {
  let runs = kept.get(approver);
  if (runs === undefined) {
    runs = new Map();
    kept.set(approver, runs);
  }
  let tools = runs.get(runId);
  if (tools === undefined) {
    tools = new Map();
    runs.set(runId, tools);
    if (runs.size > MAX_ALWAYS_RUNS) runs.delete(runs.keys().next().value as string);
  }
  tools.set(toolName, decision);
}

/*
 * What a call's observers (policies, the `needsApproval` predicate, approvers and `approval_requested`
 * listeners) see of the validated arguments: a deep-frozen copy, made once per call and only when one of them
 * looks, so that nothing they do reaches the arguments `execute` gets (an edit goes through a decision's
 * `arguments`, validated again).
 *
 * Plain objects and arrays are copied and frozen (writing to them throws a `TypeError` in strict-mode code,
 * which is every ES module); strings and other primitives are immutable and shared. Any other object a schema
 * transform made (a `Date`, a `Map`, a class instance) is shared as it is: copying would lose its prototype, and
 * freezing would freeze `execute`'s own. Measured on 1 MB of arguments (Node 20, a shared 2-core machine): one
 * 1 MB string under 0.001 ms (`structuredClone` 1.0 ms: it copies the string); 10,000 small objects 3.6 ms
 * (`structuredClone` 11.8 ms, `structuredClone` then a deep freeze 20.7 ms; under load all three were 2 to 3
 * times slower, in the same order).
 */
/** `frozenCopy(value)`, made at the first call of the returned function and kept. */
export function lazyFrozenCopy<T>(value: T): () => T {
  let made = false;
  let copy: T;
  return () => {
    if (!made) {
      copy = frozenCopy(value);
      made = true;
    }
    return copy;
  };
}

/** Whether a call needs approval, and why when known. */
export interface ApprovalNeed {
  required: boolean;
  reason?: string;
}

/**
 * A predicate's answer as an {@link ApprovalNeed}. Fail safe: anything truthy that is not `{ required }` asks
 * for approval (a predicate that returns `'yes'` or `1` was meant to); `{ required }` is read as a boolean. A
 * reason that is not a string, or is empty, is dropped; a long one is cut to 1,000 characters once redacted, by the
 * approval phase ({@link decideApproval}, above).
 */
export function readApprovalAnswer(answer: unknown): ApprovalNeed {
  if (typeof answer !== 'object' || answer === null) return { required: Boolean(answer) };
  if (!('required' in answer)) return { required: true };
  const { required, reason } = answer as { required: unknown; reason?: unknown };
  if (!required) return { required: false };
  return typeof reason === 'string' && reason.trim() !== '' ? { required: true, reason } : { required: true };
}
