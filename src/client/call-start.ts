/**
 * Running a call that took its first slot: its context first (`contextFor`), then its tool (`startByName`). A
 * context that fails fails the call: without it a tool could run unscoped (a query for every tenant).
 *
 * @module
 */
import { startByName, type ToolRegistry } from '../call/registry';
import { settleThen } from '../call/settle';
import type { ToolCallResult } from '../call/types';
import { contextFailedText } from '../tool/model-text';
import { thrownMessage } from '../tool/output';
import type { callOptionsClass } from './call-options';
import type { CallInfo } from './client-options';
import type { CallEvents, Execution } from './execution';
import type { Leases } from './leases';

/** What {@link callStarter} needs from its call runner. */
export interface CallStartOptions {
  registry: ToolRegistry;
  /** `ctx.context` for a call; may return a promise, and may throw (the call then fails without running). */
  contextFor(call: CallInfo): unknown;
  events: CallEvents;
  leases: Leases;
  /** The options of each call (./call-options.ts). */
  CallOptions: ReturnType<typeof callOptionsClass>;
  /** A call has its result. */
  finished(execution: Execution, result: ToolCallResult): void;
}

/** The function that runs a call that took its first slot: its context first, then the tool. */
export function callStarter(options: CallStartOptions): (execution: Execution) => void {
  const { registry, events, leases, CallOptions } = options;

  const contextFailed = (execution: Execution, error: unknown): void => {
    options.finished(execution, {
      status: 'error',
      output: contextFailedText(execution.toolName, thrownMessage(error)),
      durationMs: 0,
      error,
    });
  };

  const invoke = (execution: Execution, context: unknown): void => {
    // Cancelled while its context came: the call layer ends it at once, and there is nothing to lease.
    if (execution.state !== 'finished') leases.started(execution);
    // A call whose steps are all synchronous (zod validation, a plain `execute`) ends here, in this turn.
    startByName(
      registry,
      execution.toolName,
      execution.arguments,
      new CallOptions(execution, context),
      execution,
    );
  };

  return (execution: Execution): void => {
    execution.started = Math.round(performance.now());
    const { callId, runId, toolName } = execution;
    events.toolCall({ callId, runId, toolName });
    // A cancel, the deadline or close() while the context is awaited ends the wait (the call layer then ends the
    // call as any aborted call, running nothing): a context that never comes cannot hold the call or its slot.
    settleThen(
      () => options.contextFor(execution),
      { signal: execution },
      (outcome) => {
        if (outcome.kind === 'error') contextFailed(execution, outcome.error);
        else invoke(execution, outcome.kind === 'value' ? outcome.value : undefined);
      },
    );
  };
}
