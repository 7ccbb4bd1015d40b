/**
 * One attempt of a call whose tool has `retry`: a `ctx` of its own, with a signal of its own (an attempt that
 * runs out of time aborts only its own), and every other member the same as the call's first `ctx`.
 *
 * @module
 */
import type { ToolContext } from '../tool/tool';
import { type CallChannel, type ContextCall, contextClassFor } from './call-context';
import { CallSignal } from './call-signal';
import type { Attempt, CallOptions } from './types';

/** What an attempt is made from: the call (`CallRun`). */
export interface AttemptSource extends CallChannel {
  readonly options: CallOptions;
  readonly tool: { readonly name: string };
  readonly ctx: ToolContext;
}

/** The `ctx` of attempt `number` (2, 3, …, or 1 for a retrying tool's first), and the control of its signal. */
export function newAttempt(call: AttemptSource, number: number): Attempt {
  const signal = new CallSignal(call.options.signal, call.tool.name);
  const channel: ContextCall = {
    get signal() {
      return signal.signal;
    },
    progress: (update) => call.progress(update),
    emit: (type, data) => call.emit(type, data),
    askQuestion: (question, options) => call.askQuestion(question, options),
    step: (key, fn) => call.step(key, fn),
    loggerFor: (attempt) => call.loggerFor(attempt),
  };
  const first = call.ctx;
  const Context = contextClassFor(call.options.extend);
  const ctx = new Context(channel, first.context, first.callId, first.runId, first.toolName, first.depth, {
    attempt: number,
    sessionId: first.sessionId,
    agentName: first.agentName,
  }) as unknown as ToolContext;
  ctx.approved = first.approved;
  return { ctx, abort: (reason) => signal.abort(reason), end: () => signal.end() };
}
