/**
 * An approver's answer read as a decision: `true`/`false`, or `{ approved, reason?, arguments?, always? }` (OpenAI
 * Agents' `alwaysApprove` / `alwaysReject` accepted for `always`), and how an unusable answer is shown. Apart from
 * ./approval.ts, which loads only for tools that ask for approval (./parts.ts): `client.decide()` reads its
 * arguments here too ({@link readDecideArguments}), in the core, so that a browser refuses bad ones before it
 * loads the code that sends a decision (src/client/decisions.ts).
 *
 * @module
 */
import { ApprovalError } from '../errors';
import { isPlainObject } from '../json';
import {
  aBoolean,
  anything,
  checkOptions,
  isOptionsObject,
  type OptionsOwner,
  type OptionsSpec,
} from '../tool/check-options';
import { serializeOutput } from '../tool/output';
import type { ApprovalDecision } from './types';

/** A decision, read. `arguments` only when approving; `always` applies it to the tool's later calls in the run. */
export interface Decision {
  approved: boolean;
  reason?: string;
  arguments?: Record<string, unknown>;
  always?: boolean;
}

/** At most this many characters of an approver's unusable answer are quoted in the model's text. */
const MAX_SHOWN_ANSWER = 100;

/**
 * Who gave a decision, as the text saying why it is none names them: an approver (`onApproval`, `invokeTool`'s
 * `approve`) returned it; `client.decide()` was passed it, so nothing "returned" it.
 */
interface DecisionWording {
  /** Before the value shown: `the approver returned "yes"`. */
  answer: string;
  /** Edited arguments given with a rejection. */
  editedRejected: string;
  /** Before edited arguments that are not an object. */
  arguments: string;
}

const APPROVER_WORDING: DecisionWording = {
  answer: 'the approver returned',
  editedRejected: 'the approver edited the arguments of a call it rejected',
  arguments: 'the approver returned arguments',
};

/** `client.decide(callId, decision)`: the caller passed the decision. */
const DECIDE_WORDING: DecisionWording = {
  answer: 'the decision is',
  editedRejected: 'the decision edits the arguments of a call it rejects (approved: false)',
  arguments: "the decision's arguments are",
};

/**
 * An approver's answer, or a string saying why it is no decision: not a boolean nor `{ approved: boolean }`, a
 * field a decision does not have (with "did you mean"), a `reason` that is not a string, an `always` (or
 * `alwaysApprove` / `alwaysReject`) that is not a boolean, `arguments` that is not a plain object, or given with
 * `approved: false`. The one reading of a decision on every path: `onApproval`, `invokeTool`'s `approve` and
 * `client.decide()` ({@link readDecideArguments}, which words the faults as its own with `wording`).
 */
export function readDecision(
  answer: unknown,
  wording: DecisionWording = APPROVER_WORDING,
): Decision | string {
  const expected = 'instead of true, false or { approved: boolean }';
  if (typeof answer === 'boolean') return { approved: answer };
  if (!isOptionsObject(answer)) return `${wording.answer} ${showAnswer(answer)} ${expected}`;
  const given = answer;
  const fault = decisionFieldsFault(given);
  if (fault !== undefined) return `${wording.answer} ${showAnswer(answer)}: ${fault}`;
  if (typeof given.approved !== 'boolean') return `${wording.answer} ${showAnswer(answer)} ${expected}`;
  const decision: Decision = { approved: given.approved };
  if (typeof given.reason === 'string') decision.reason = given.reason;
  if (given.arguments !== undefined) {
    if (!given.approved) return wording.editedRejected;
    if (!isPlainObject(given.arguments)) {
      return `${wording.arguments} ${showAnswer(given.arguments)} instead of an object`;
    }
    decision.arguments = given.arguments;
  }
  const always = given.always ?? (given.approved ? given.alwaysApprove : given.alwaysReject);
  if (always === true) decision.always = true;
  return decision;
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
 * The fields of a decision object `decide()` takes: a misspelt one is refused with "did you mean" rather than
 * ignored (a `reasn` would send a rejection without its reason). `approved` and `arguments` are read by
 * {@link readDecision}, which says what is wrong with them.
 */
const DECISION_FIELDS: OptionsSpec<Exclude<ApprovalDecision, boolean>> = {
  rules: {
    approved: anything,
    reason: { expected: 'a string', test: (value) => typeof value === 'string' },
    arguments: anything,
    always: aBoolean,
    alwaysApprove: aBoolean,
    alwaysReject: aBoolean,
  },
  aliases: {
    allowed: 'approved',
    message: 'reason',
    feedback: 'reason',
    args: 'arguments',
    input: 'arguments',
    editedArguments: 'arguments',
    remember: 'always',
  },
};
const DECISION_OWNER: OptionsOwner = {
  name: 'decision',
  error: ApprovalError,
  invalidCode: 'invalid_decision',
  unknownCode: 'invalid_decision',
};

/**
 * What is wrong with the fields of decision object `given` (`unknown option "reasn" (did you mean "reason"?)`,
 * `reason must be a string, got 5`), or `undefined`: {@link DECISION_FIELDS}, the same for every path.
 */
function decisionFieldsFault(given: Record<string, unknown>): string | undefined {
  try {
    checkOptions(given, DECISION_FIELDS, DECISION_OWNER);
    return undefined;
  } catch (error) {
    return (error as Error).message.slice(`${DECISION_OWNER.name}: `.length);
  }
}

/**
 * `client.decide(callId, given)`'s arguments read as a decision, or the error that refuses them, before anything
 * is loaded or sent: ApprovalError `invalid_decision` (a `callId` that is not a non-empty string; a field a
 * decision object does not have, with "did you mean"; a `reason` that is not a string, an `always` that is not a
 * boolean; no decision, as {@link readDecision} says). The limits (edited arguments too deep, a frame too large)
 * and what depends on the client (its secrets, the service's features) are checked where the decision is sent.
 */
export function readDecideArguments(callId: unknown, given: unknown): Decision | ApprovalError {
  if (typeof callId !== 'string' || callId === '') {
    return new ApprovalError('invalid_decision', 'decide(): callId must be a non-empty string');
  }
  const fault = isOptionsObject(given) ? decisionFieldsFault(given) : undefined;
  if (fault !== undefined) return new ApprovalError('invalid_decision', `decide(): ${fault}`);
  const decision = readDecision(given, DECIDE_WORDING);
  if (typeof decision === 'string') return new ApprovalError('invalid_decision', `decide(): ${decision}`);
  return decision;
}
