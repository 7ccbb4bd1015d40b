/**
 * An approver's answer read as a decision: `true`/`false`, or `{ approved, reason?, arguments?, always? }` (OpenAI
 * Agents' `alwaysApprove` / `alwaysReject` accepted for `always`), and how an unusable answer is shown. Apart from
 * ./approval.ts, which loads only for tools that ask for approval (./parts.ts): `client.decide()` reads its
 * decisions too.
 *
 * @module
 */
import { isPlainObject } from '../json';
import { serializeOutput } from '../tool/output';

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
 * An approver's answer, or a string saying why it is no decision: not a boolean nor `{ approved: boolean }`,
 * `arguments` that is not a plain object, or given with `approved: false`.
 */
export function readDecision(answer: unknown): Decision | string {
  const expected = 'instead of true, false or { approved: boolean }';
  if (typeof answer === 'boolean') return { approved: answer };
  if (typeof answer !== 'object' || answer === null)
    return `the approver returned ${showAnswer(answer)} ${expected}`;
  const given = answer as Record<string, unknown>;
  if (typeof given.approved !== 'boolean') return `the approver returned ${showAnswer(answer)} ${expected}`;
  const decision: Decision = { approved: given.approved };
  if (typeof given.reason === 'string') decision.reason = given.reason;
  if (given.arguments !== undefined) {
    if (!given.approved) return 'the approver edited the arguments of a call it rejected';
    if (!isPlainObject(given.arguments)) {
      return `the approver returned arguments ${showAnswer(given.arguments)} instead of an object`;
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
