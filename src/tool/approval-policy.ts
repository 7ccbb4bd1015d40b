/**
 * Approval policies: what `needsApproval` accepts besides a boolean. `approvalRequired(reason, sideEffect?)`
 * (Assembly Line's name) builds an "always ask, saying why" policy; a predicate may answer
 * `{ required, reason }`. The reason reaches the approver (PROTOCOL.md §18.8).
 *
 * @module
 */
import { MAX_APPROVAL_REASON_CHARS } from '../wire/protocol';
import { anArrayOf, aString, type Rule } from './check-options';
import type { SideEffect } from './side-effect';

// `Symbol.for`, so that a policy made by one copy of toolwire (ESM and CJS both loaded) works in the other.
const POLICY = Symbol.for('toolwire.approvalRequired.v1');

/** A policy made by {@link approvalRequired}: every call needs a human's approval, for `reason`. */
export interface ApprovalPolicy {
  /** Why a human must approve, shown to the approver (at most 1,000 characters). */
  readonly reason: string;
  /** The side-effect class it was declared with. @default 'external' */
  readonly sideEffect: SideEffect;
}

/** What a `needsApproval` predicate may answer: a boolean, or whether approval is required and why. */
export type ApprovalAnswer = boolean | { required: boolean; reason?: string };

/**
 * Every call of the tool needs a human's approval, and the approver is told `reason`. Announced as
 * `needsApproval: true` with `approvalReason` (PROTOCOL.md §18.8), so the service holds the calls itself when
 * the client has no `onApproval`. Assembly Line's `approvalRequired(reason, sideEffect?)`, its `sideEffect`
 * defaulting to `'external'` as there; toolwire records it on the policy only (`tool({ sideEffect })` is the
 * tool's own class).
 *
 * @param reason - a non-empty string of at most 1,000 characters (`tool()` refuses another with
 *   `ToolDefinitionError` `invalid_option`).
 * @example
 * ```ts
 * const note = tool({
 *   name: 'record_note',
 *   description: 'Records a durable note.',
 *   needsApproval: approvalRequired('Recording a note is a durable side effect.', 'idempotent'),
 *   execute: () => ({ recorded: true }),
 * });
 * ```
 */
export function approvalRequired(reason: string, sideEffect: SideEffect = 'external'): ApprovalPolicy {
  const policy = { reason, sideEffect };
  Object.defineProperty(policy, POLICY, { value: true });
  return Object.freeze(policy);
}

/** `true` for a policy made by {@link approvalRequired}. */
export function isApprovalPolicy(value: unknown): value is ApprovalPolicy {
  return typeof value === 'object' && value !== null && (value as { [POLICY]?: unknown })[POLICY] === true;
}

/** The rule of `needsApproval`: a boolean, a predicate, or an {@link approvalRequired} policy with a usable reason. */
export const aNeedsApproval: Rule = {
  expected: `a boolean, a function or approvalRequired(reason, sideEffect?) (a reason of 1 to ${MAX_APPROVAL_REASON_CHARS} characters; none, idempotent or external)`,
  test: (value) =>
    typeof value === 'boolean' ||
    typeof value === 'function' ||
    (isApprovalPolicy(value) &&
      typeof value.reason === 'string' &&
      value.reason.trim() !== '' &&
      value.reason.length <= MAX_APPROVAL_REASON_CHARS &&
      ['none', 'idempotent', 'external'].includes(value.sideEffect)),
};

/** Whether a call needs approval, and why when known. */
export interface ApprovalNeed {
  required: boolean;
  reason?: string;
}

/**
 * A predicate's answer as an {@link ApprovalNeed}. Fail safe: anything truthy that is not `{ required }` asks
 * for approval (a predicate that returns `'yes'` or `1` was meant to); `{ required }` is read as a boolean. A
 * reason that is not a string, or is empty, is dropped; a long one is cut to 1,000 characters.
 */
export function readApprovalAnswer(answer: unknown): ApprovalNeed {
  if (typeof answer !== 'object' || answer === null) return { required: Boolean(answer) };
  if (!('required' in answer)) return { required: true };
  const { required, reason } = answer as { required: unknown; reason?: unknown };
  if (!required) return { required: false };
  return typeof reason === 'string' && reason.trim() !== ''
    ? { required: true, reason: reason.slice(0, MAX_APPROVAL_REASON_CHARS) }
    : { required: true };
}

const agentNames = anArrayOf(aString('a non-empty string', { minLength: 1 }));

/**
 * The rule of `tool({ allowedAgentNames })`: a non-empty array of agent names. An empty list is refused: it would
 * let no agent call the tool, which is almost surely a list that was meant to be filled (leave the option out to
 * let every agent call it).
 */
export const anAgentNameList: Rule = {
  ...agentNames,
  expected:
    'a non-empty array of agent names (an empty list would let no agent call the tool; leave allowedAgentNames out to let every agent call it)',
  test: (value) => Array.isArray(value) && value.length > 0,
};
