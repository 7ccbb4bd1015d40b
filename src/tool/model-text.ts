/**
 * Every text toolwire itself writes for the model, in one place. These strings are part of the contract
 * (tests pin them): change them only with a CHANGELOG entry.
 *
 * @module
 */
import { utf8Length } from '../utf8';
import type { ValidationIssue } from './schema';
import { cut } from './schema/adapter';

/** At most this many validation issues are listed; the rest are counted (`; and 3 more`, `; and over 90 more`). */
export const MAX_LISTED_ISSUES = 10;

/**
 * Longest issue line (`<path>: <message>`), in characters, cut with `…`: a library's own message (a refinement's)
 * is shown as the library wrote it, up to this.
 */
export const MAX_ISSUE_LINE = 400;

/**
 * `<path>: <message>; …`, at most {@link MAX_LISTED_ISSUES} of them, each at most {@link MAX_ISSUE_LINE} characters,
 * then `; and <n> more`, or `; and over <n> more` when the list was cut short (an issue of it is marked `more`).
 */
export function listIssues(issues: readonly ValidationIssue[]): string {
  const listed = issues
    .slice(0, MAX_LISTED_ISSUES)
    .map((issue) => cut(`${issue.path}: ${issue.message}`, MAX_ISSUE_LINE));
  const rest = issues.length - listed.length;
  if (issues.some((issue) => issue.more === true)) return `${listed.join('; ')}; and over ${rest} more`;
  return rest > 0 ? `${listed.join('; ')}; and ${rest} more` : listed.join('; ');
}

/**
 * `Invalid arguments for <name>: <path>: <message>; <path>: <message>` (paths like `items[0].sku`, `(root)`),
 * each message `expected <what>, received <what>` as ./schema/explain.ts words it for every kind of schema.
 */
export function invalidArgumentsText(toolName: string, issues: readonly ValidationIssue[]): string {
  return `Invalid arguments for ${toolName}: ${listIssues(issues)}`;
}

/** `Invalid arguments for <name>: the arguments are not valid JSON (<why: src/json.ts jsonSyntaxError>)`. */
export function notJsonText(toolName: string, why: string): string {
  return `Invalid arguments for ${toolName}: the arguments are not valid JSON (${why})`;
}

/** `Invalid arguments for <name>: expected a JSON object, got <array|number|string|boolean>`. */
export function notObjectText(toolName: string, type: string): string {
  return `Invalid arguments for ${toolName}: expected a JSON object, got ${type}`;
}

/** `Invalid arguments for <name>: the arguments nest deeper than <n> levels`. */
export function tooDeepText(toolName: string, maxDepth: number): string {
  return `Invalid arguments for ${toolName}: the arguments nest deeper than ${maxDepth} levels`;
}

/**
 * `Error running <name>: <message>`, the default text when `execute` throws; `<message>` is the thrown value's
 * message by `thrownMessage` (`the tool threw undefined`, `… null`, `… a symbol`, `… an empty string` for
 * values without one).
 */
export function errorText(toolName: string, message: string): string {
  return `Error running ${toolName}: ${message}`;
}

/**
 * `Error running <name>: <hook> threw: <message>`: a function of the tool other than `execute` threw or rejected:
 * its `needsApproval` predicate (before `execute`, which did not run) or its `toModelOutput` (after `execute`
 * returned); `<message>` by `thrownMessage` (`it threw undefined` for a value without one). Named, as a hung
 * predicate's timeout is, so that the model and the log never read it as `execute`'s error.
 */
export function hookFailedText(
  toolName: string,
  hook: 'needsApproval' | 'toModelOutput',
  message: string,
): string {
  return errorText(toolName, `${hook} threw: ${message}`);
}

/**
 * `Error running <name>: timed out after <n>ms`, or, when the time ran out before `execute` (in a policy or the
 * `needsApproval` check), `Error running <name>: timed out after <n>ms in policy 2` (the stage that hung).
 */
export function timeoutText(toolName: string, timeoutMs: number, stage?: string): string {
  return `Error running ${toolName}: timed out after ${timeoutMs}ms${inStage(stage)}`;
}

/** ` in <stage>` (e.g. ` in policy 2`), or `''` without a stage: where a call's time ran out. */
export function inStage(stage: string | undefined): string {
  return stage === undefined ? '' : ` in ${stage}`;
}

/** `Error running <name>: the call was cancelled`. */
export function cancelledText(toolName: string): string {
  return `Error running ${toolName}: the call was cancelled`;
}

/** `<name> was not run: the user declined.`, plus ` Reason: <reason>` when one was given. */
export function declinedText(toolName: string, reason?: string): string {
  const text = `${toolName} was not run: the user declined.`;
  return reason === undefined || reason.trim() === '' ? text : `${text} Reason: ${reason}`;
}

/** `<name> was not run: it needs a human's approval, and no approver is available.` */
export function noApproverText(toolName: string): string {
  return `${toolName} was not run: it needs a human's approval, and no approver is available.`;
}

/**
 * `<name> was not run: approval could not be obtained (<message>).` when asking for approval failed: the
 * approver threw (`<message>` is what it threw, e.g. `the approver threw undefined`) or gave an answer that is
 * not a decision (`the approver returned "yes" instead of true, false or { approved: boolean }`).
 */
export function approvalFailedText(toolName: string, message: string): string {
  return `${toolName} was not run: approval could not be obtained (${message}).`;
}

/** `Error running <name>: the result does not match the output schema: <path>: <message>; …`. */
export function outputMismatchText(toolName: string, issues: readonly ValidationIssue[]): string {
  return `Error running ${toolName}: the result does not match the output schema: ${listIssues(issues)}`;
}

/** `Tool "<name>" not found. Available tools: a, b` (or `No tools are available.`). */
export function unknownToolText(toolName: string, available: readonly string[]): string {
  // A model-controlled name: keep the text short, and never cut a surrogate pair in half.
  const cut = /[\uD800-\uDBFF]/.test(toolName.charAt(99)) ? 99 : 100;
  const shown = toolName.length > 100 ? `${toolName.slice(0, cut)}…` : toolName;
  const tail = available.length > 0 ? `Available tools: ${available.join(', ')}` : 'No tools are available.';
  return `Tool "${shown}" not found. ${tail}`;
}

/** `Error running <name>: the client is busy; try again later`: every slot and queue place is taken (retryable). */
export function busyText(toolName: string): string {
  return `Error running ${toolName}: the client is busy; try again later`;
}

/** `Error running <name>: the client is shutting down; try again later`: `close()` was called (retryable). */
export function shuttingDownText(toolName: string): string {
  return `Error running ${toolName}: the client is shutting down; try again later`;
}

/**
 * `<name> was stopped here: the socket was down for the session's grace period, and the service gives the call to
 * another worker`: a leased call's end that is no result (a `tool_result` event's output, never sent).
 */
export function lostCallText(toolName: string): string {
  return `${toolName} was stopped here: the socket was down for the session's grace period, and the service gives the call to another worker`;
}

/**
 * What a call's `tool_result` event reads when the service said it no longer holds the call here
 * (`cancel { reason: 'not_dispatched' }`: it ended, or went to another worker, while the socket was down).
 */
export function disownedCallText(toolName: string): string {
  return `${toolName} was stopped here: the service no longer holds the call for this worker (it ended, or went to another worker, while the socket was down)`;
}

/**
 * `Error running <name>: the client could not provide its context (<message>)`: the client's `context` function
 * threw or rejected, and the tool did not run.
 */
export function contextFailedText(toolName: string, message: string): string {
  return `Error running ${toolName}: the client could not provide its context (${message})`;
}

/**
 * `<name> was not run: the service sent a tool call this client cannot read (<problem>).` for a `tool_call`
 * refused as invalid (docs/protocol/errors.md) that names its call: `<problem>` names the fields, never their values.
 */
export function unreadableCallText(toolName: string, problem: string): string {
  return `${toolName} was not run: the service sent a tool call this client cannot read (${problem}).`;
}

/**
 * `Error running <name>: the arguments were too large for this worker: the tool call would be <n> bytes, over its
 * frame limit of <m> bytes` (the service ends a call it cannot send, docs/protocol/limits.md). Sizes in UTF-8
 * bytes; the arguments themselves are never quoted.
 */
export function argumentsTooLargeText(toolName: string, bytes: number, maxPayloadBytes: number): string {
  return `Error running ${toolName}: the arguments were too large for this worker: the tool call would be ${bytes.toLocaleString('en-US')} bytes, over its frame limit of ${maxPayloadBytes.toLocaleString('en-US')} bytes`;
}

/**
 * Why a result could not be delivered, by the `ConnectionError` code of the failure: fixed texts, so nothing of
 * the output (or of what a socket threw) reaches the model.
 */
const UNDELIVERABLE_REASONS: Readonly<Record<string, string>> = {
  frame_too_large: 'it was larger than the service accepts',
  send_failed: 'the connection failed while sending it',
  unencodable_frame: 'it could not be encoded as JSON',
};

/** `The result of <name> could not be delivered: <reason>.` (sent in place of a result that never gets through). */
export function undeliverableText(toolName: string, code: string): string {
  const reason = UNDELIVERABLE_REASONS[code] ?? 'it could not be sent';
  return `The result of ${toolName} could not be delivered: ${reason}.`;
}

/**
 * `<name> was not run: the agent "<agent>" is not allowed to call it.` (the tool's `allowedAgentNames` does not
 * list it), or `<name> was not run: the calling agent is unknown, and only some agents may call it.` when the
 * service did not say (docs/protocol/call-context.md).
 */
export function notAllowedText(toolName: string, agentName: string | undefined): string {
  return agentName === undefined
    ? `${toolName} was not run: the calling agent is unknown, and only some agents may call it.`
    : `${toolName} was not run: the agent ${JSON.stringify(agentName)} is not allowed to call it.`;
}

/** `<name> was not run: a policy blocked it.` (a client policy answered `{ block: '' }`, with no text). */
export function policyBlockedText(toolName: string): string {
  return `${toolName} was not run: a policy blocked it.`;
}

/** The approval reason of a client policy that answered `{ requireApproval: '' }`, with no reason. */
export const POLICY_APPROVAL_REASON = 'a policy requires approval';

/** `<name> was not run: a policy failed while checking the call.` (a client policy threw). */
export function policyFailedText(toolName: string): string {
  return `${toolName} was not run: a policy failed while checking the call.`;
}

/** `<name> was not run: the arguments the approver edited are invalid: <path>: <message>; …`. */
export function editedInvalidText(toolName: string, issues: readonly ValidationIssue[]): string {
  return `${toolName} was not run: the arguments the approver edited are invalid: ${listIssues(issues)}`;
}

/** Longest JSON of edited arguments the model reads in full in the note, in UTF-8 bytes. */
export const EDITED_NOTE_MAX_JSON_BYTES = 512;

/** Most field names the note lists when the edited arguments are too long to show. */
const EDITED_NOTE_MAX_FIELDS = 8;

/** Longest field name the note lists, in characters (longer ones are cut, with `…`). */
const EDITED_NOTE_MAX_FIELD_CHARS = 40;

/**
 * The line put before the result the model reads when an approver edited the arguments, bounded so that it never
 * pushes the tool's own output out of what the model reads: `The approver edited the arguments of <name> to
 * <JSON>.` when the JSON is at most {@link EDITED_NOTE_MAX_JSON_BYTES} bytes, else `The approver edited the
 * arguments of <name> (fields "a", "b"; <n> bytes of JSON, too long to show).`, naming at most 8 top-level
 * fields (each cut to 40 characters), then `and <k> more`. At most about 600 bytes beside the tool's name.
 */
export function editedNoteText(toolName: string, argumentsJson: string, fields: readonly string[]): string {
  const bytes = utf8Length(argumentsJson);
  if (bytes <= EDITED_NOTE_MAX_JSON_BYTES)
    return `The approver edited the arguments of ${toolName} to ${argumentsJson}.`;
  const shown = fields.slice(0, EDITED_NOTE_MAX_FIELDS).map((field) => {
    const cut =
      field.length > EDITED_NOTE_MAX_FIELD_CHARS
        ? `${field.slice(0, EDITED_NOTE_MAX_FIELD_CHARS - 1)}…`
        : field;
    return JSON.stringify(cut);
  });
  const more = fields.length - shown.length;
  const list =
    shown.length === 0
      ? 'no fields'
      : `field${fields.length === 1 ? '' : 's'} ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  const size = bytes.toLocaleString('en-US');
  return `The approver edited the arguments of ${toolName} (${list}; ${size} bytes of JSON, too long to show).`;
}

/** `Calls <name>.`: the description announced for a bare function given in a `tools` record. */
export function bareFunctionDescription(name: string): string {
  return `Calls ${name}.`;
}
