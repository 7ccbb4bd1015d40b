/**
 * One call once its arguments are decoded: validation, the gate (`allowedAgentNames`, then the policies:
 * src/call/gate.ts), approval, `execute`, `errorFunction`, `outputSchema`, the widget split and `toModelOutput`,
 * each under the call's time budget and signal (Assemble's sequence).
 *
 * Time: `timeoutMs` is one budget for the tool's own work in the call: argument validation, the policies, the
 * `needsApproval` predicate, `execute`, `outputSchema` validation and `toModelOutput` (the time a human takes to approve is not
 * counted). When it runs out in any of them, `ctx.signal` aborts with a `TimeoutError` and the call ends
 * `timeout` (the text names a policy or the `needsApproval` check when one of them hung). `errorFunction` then has its own bound ({@link errorFunctionTimeoutMs}). `options.signal` ends the
 * call in every phase, with or without `timeoutMs`.
 *
 * @module
 */

import { contentText, isToolContent } from '../tool/content';
import { editedInvalidText, invalidArgumentsText, outputMismatchText } from '../tool/model-text';
import type { ValidationIssue } from '../tool/schema/index';
import { serializeOutput } from '../tool/serialize';
import { type ApprovalOutcome, decideApproval } from './approval';
import { lazyFrozenCopy } from './frozen-copy';
import { type GateOutcome, passGate } from './gate';
import { executeAttempts } from './retry';
import type { Settled } from './settle';
import { cancelled, stopped, timedOut } from './stopped';
import { timed } from './timed';
import type { CallOutcome, CallState } from './types';
import { splitWidget } from './widget-split';
import { closeIterator, drainYields, iteratorOf } from './yields';

/** Runs `step`, and ends the call as a bug when it throws (a continuation may run from a promise reaction). */
function guarded(call: CallState, step: () => void): void {
  try {
    step();
  } catch (error) {
    call.fail(error);
  }
}

/**
 * `execute` returned: a value that yields preliminary results is read to its end first (under what is left of the
 * budget), then the result goes on as any other.
 */
function executed(call: CallState, value: unknown): void {
  const iterator = iteratorOf(value);
  if (iterator === undefined) {
    succeed(call, value);
    return;
  }
  timed(
    call,
    () => drainYields(call, iterator, (yielded) => preliminary(call, yielded)),
    (drained) => {
      if (drained.kind === 'value') succeed(call, drained.value);
      else {
        closeIterator(iterator);
        stopped(call, drained);
      }
    },
  );
}

/** A value yielded before the result: its widget split off, the rest written as a result would be. */
function preliminary(call: CallState, value: unknown): void {
  if (call.preliminary === undefined || call.options.onPreliminary === undefined) return;
  const { data, widget } = splitWidget(call, value);
  // Content parts of a preliminary result travel as their text.
  const output = isToolContent(data) ? contentText(data.parts) : serializeOutput(data, call.options.redactor);
  call.preliminary({ output, value, ...(widget === undefined ? {} : { widget }) });
}

/** `execute` returned: `outputSchema`, then the widget split and `toModelOutput`. */
function succeed(call: CallState, returned: unknown): void {
  const schema = call.internals.outputSchema;
  if (schema === undefined) {
    project(call, returned);
    return;
  }
  timed(
    call,
    () => schema.validate(returned),
    (checked) => {
      if (checked.kind !== 'value') stopped(call, checked);
      else if (!checked.value.ok)
        call.done({ status: 'error', output: outputMismatchText(call.tool.name, checked.value.issues) });
      else project(call, checked.value.value);
    },
  );
}

/** The result's widget split off, and the rest turned into the model's text (through `toModelOutput`). */
function project(call: CallState, value: unknown): void {
  const { data, widget } = splitWidget(call, value);
  const done = (forModel: unknown) => {
    // Content parts (only from `content()`) go beside the text every model reads.
    const parts = isToolContent(forModel) ? forModel.parts : undefined;
    const output =
      parts === undefined ? serializeOutput(forModel, call.options.redactor) : contentText(parts);
    const outcome: CallOutcome = { status: 'ok', output, value };
    if (widget !== undefined) outcome.widget = widget;
    if (parts !== undefined) outcome.content = [...parts];
    call.done(outcome);
  };
  const toModelOutput = call.internals.toModelOutput;
  if (toModelOutput === undefined) {
    done(data);
    return;
  }
  timed(
    call,
    () => toModelOutput(value, call.ctx),
    (projected) => (projected.kind === 'value' ? done(projected.value) : stopped(call, projected)),
  );
}

/**
 * The schema's issues, with toolwire's own refusals of numbers (see src/call/argument-limits.ts) in place of the
 * schema's issue at the same path (they say why: the number was rounded), and after them where it had none.
 */
function withRefusals(
  issues: readonly ValidationIssue[],
  refused: readonly ValidationIssue[],
): ValidationIssue[] {
  const rest = [...refused];
  const merged = issues.map((issue) => {
    const index = rest.findIndex((item) => item.path === issue.path);
    return index === -1 ? issue : (rest.splice(index, 1)[0] as ValidationIssue);
  });
  return [...merged, ...rest];
}

/**
 * Runs a call from its decoded arguments and ends it through `call.done`, synchronously as far as every step
 * answers synchronously. `refused` lists numbers of the arguments toolwire refuses itself: the call then ends
 * `invalid_arguments` with them and the schema's issues, whatever validation says. Never fails for anything the model or the tool does; a schema library that throws
 * while validating is a bug, given to `call.fail`.
 */
export function runCall(call: CallState, args: object, refused?: readonly ValidationIssue[]): void {
  const { tool, internals } = call;
  timed(
    call,
    () => internals.parameters.validate(args),
    (validated) => {
      if (validated.kind === 'aborted') {
        call.done(cancelled(call));
        return;
      }
      if (validated.kind === 'timeout') return timedOut(call);
      if (validated.kind === 'error') {
        call.fail(validated.error);
        return;
      }
      if (!validated.value.ok || refused !== undefined) {
        const issues = withRefusals(validated.value.ok ? [] : validated.value.issues, refused ?? []);
        const text = call.options.argumentsEdited ? editedInvalidText : invalidArgumentsText;
        call.done({ status: 'invalid_arguments', output: text(tool.name, issues) });
        return;
      }
      const input = validated.value.value;
      call.validated?.(input);
      if (call.options.argumentsEdited) call.editedArguments = args;
      gated(call, input);
    },
  );
}

/** Ends the call with a gate's or an approval's refusal. */
function refuse(call: CallState, refusal: Exclude<GateOutcome | ApprovalOutcome, { go: true }>): void {
  if (refusal.status === 'timeout') {
    timedOut(call);
    return;
  }
  const outcome: CallOutcome = { status: refusal.status, output: refusal.output };
  if (refusal.reason !== undefined) outcome.reason = refusal.reason;
  if (refusal.error !== undefined) outcome.error = refusal.error;
  call.done(outcome);
}

/**
 * A validated call: the allowlist and the policies (src/call/gate.ts), then approval, then `execute`. A call a
 * human already rejected (the service held it) skips the gate: it ends `rejected` either way. Policies, the
 * `needsApproval` predicate and the approver see one deep-frozen copy of `input` (src/call/frozen-copy.ts).
 */
function gated(call: CallState, input: unknown): void {
  const pass = call.options.approved === false ? skipGate : passGate;
  const view = lazyFrozenCopy(input);
  pass(call, view, (gate) =>
    guarded(call, () => {
      if (!gate.go) return refuse(call, gate);
      if (gate.redact.length > 0) call.redaction?.addNames(gate.redact);
      decideApproval(call, view, gate.approvalReason, (decided) =>
        guarded(call, () => {
          if (!decided.go) refuse(call, decided);
          else if (decided.edited === undefined) execute(call, input, decided.approved);
          else revalidate(call, decided.edited);
        }),
      );
    }),
  );
}

/** The gate of a call already rejected: nothing to check. */
function skipGate(_call: CallState, _view: () => unknown, done: (outcome: GateOutcome) => void): void {
  done({ go: true, approvalReason: undefined, redact: [] });
}

/**
 * Arguments an approver edited: validated again against the schema, then through the allowlist and the policies
 * again (as a call the service re-delivers with edited arguments is), then run; the model is told. A policy's
 * `block` ends the call `rejected`, its `redact` applies; its `requireApproval` is met by the approval that made
 * the edit (the approver wrote these arguments): a call is put to an approver at most once, so an edit can never
 * loop back to approval.
 */
function revalidate(call: CallState, edited: Record<string, unknown>): void {
  // What execute gets is what is redacted: the edit's values under the redacted names are secrets too (and an
  // invalid edit's issues may quote them).
  call.validated?.(edited);
  timed(
    call,
    () => call.internals.parameters.validate(edited),
    (validated) => {
      if (validated.kind === 'error') call.fail(validated.error);
      else if (validated.kind !== 'value') stopped(call, validated);
      else if (!validated.value.ok) {
        call.done({
          status: 'invalid_arguments',
          output: editedInvalidText(call.tool.name, validated.value.issues),
        });
      } else {
        const input = validated.value.value;
        call.validated?.(input);
        call.editedArguments = edited;
        passGate(call, lazyFrozenCopy(input), (gate) =>
          guarded(call, () => {
            if (!gate.go) return refuse(call, gate);
            if (gate.redact.length > 0) call.redaction?.addNames(gate.redact);
            execute(call, input, true);
          }),
        );
      }
    },
  );
}

/**
 * Runs `execute` with the input it may have: once, or in attempts under the tool's `retry` (./retry.ts). Its
 * continuation is made once ({@link afterExecute}): a held call keeps no closure of its own for it.
 */
function execute(call: CallState, input: unknown, approved: boolean): void {
  call.ctx.approved = approved;
  executeAttempts(call, input, afterExecute);
}

function afterExecute(result: Settled<unknown>, call: CallState): void {
  if (result.kind === 'value') executed(call, result.value);
  else stopped(call, result);
}
