/**
 * Tracing of tool calls: `CallTraces`, which tells the tracer plugged into the seam of src/client/trace-types.ts
 * (`new Client({ tracing })`) what each call does. The core knows no tracing library: `toolwire/otel` implements
 * the seam with OpenTelemetry, and anything else may (README, "Tracing"). Without a `tracing` option none of this
 * runs.
 *
 * @module
 */
import { decodeArguments } from '../call/arguments';
import { CallRedaction } from '../call/call-redaction';
import type { ToolRegistry } from '../call/registry';
import type { ApprovalDecision } from '../call/types';
import type { Redactor } from '../logger';
import { isThenable } from '../maybe';
import { toolInternals } from '../tool/tool';
import type { Execution } from './execution';
import {
  type CallTrace,
  type CallTraces,
  type ToolTracing,
  TRACE_EVENTS,
  type TraceAttributes,
} from './trace-types';

/**
 * The {@link CallTraces} of a client with `tracing`. `client`: its tools (for their descriptions) and whether
 * approvals are decided here (`onApproval`).
 */
export function callTraces(
  tracing: ToolTracing,
  redactor: Redactor,
  client: { registry: Pick<ToolRegistry, 'get'>; onApproval: unknown },
): CallTraces {
  const traces = new Map<Execution, { trace: CallTrace; arrived: number }>();
  const traceOf = (execution: Execution) => traces.get(execution)?.trace;
  const decidedEvent = (
    trace: CallTrace,
    value: ApprovalDecision | { approved: boolean; reason?: string | undefined },
  ) => {
    const detailed = typeof value === 'object' && value !== null;
    const attributes: TraceAttributes = {
      'toolwire.approval.approved': value === true || (detailed && value.approved === true),
    };
    const reason = detailed ? value.reason : undefined;
    if (typeof reason === 'string' && reason !== '')
      attributes['toolwire.approval.reason'] = redactor.text(reason);
    trace.event(TRACE_EVENTS.approvalDecided, attributes);
  };
  return {
    received(execution, frame) {
      let trace: CallTrace | undefined;
      // A tracer that throws leaves the call untraced; it never fails the call or the socket's handler.
      try {
        trace = tracing.startCall({
          callId: frame.callId,
          runId: frame.runId,
          toolName: frame.toolName,
          description: client.registry.get(frame.toolName)?.description,
          traceparent: frame.traceparent,
          tracestate: frame.traceparent === undefined ? undefined : frame.tracestate,
          arguments: () => tracedArguments(execution, redactor, client.registry),
        });
      } catch {
        return;
      }
      if (trace === undefined) return;
      traces.set(execution, { trace, arrived: performance.now() });
      // Held by the service for a human before it was sent (a tool whose definition needs approval).
      if (frame.approved !== undefined)
        decidedEvent(trace, { approved: frame.approved, reason: frame.reason });
    },
    admitted(execution) {
      if (execution.state === 'queued') traceOf(execution)?.event(TRACE_EVENTS.queued);
    },
    start(execution, start) {
      const traced = traces.get(execution);
      if (traced === undefined) return start(execution);
      traced.trace.event(TRACE_EVENTS.started, {
        'toolwire.queue.duration_ms': Math.max(0, Math.round(performance.now() - traced.arrived)),
      });
      traced.trace.run(() => start(execution));
    },
    approval(execution, decision) {
      const trace = traceOf(execution);
      if (trace === undefined) return decision;
      trace.event(TRACE_EVENTS.approvalRequested, {
        'toolwire.approval.by': client.onApproval === undefined ? 'service' : 'local',
      });
      const decided = (value: ApprovalDecision): ApprovalDecision => {
        decidedEvent(trace, value);
        return value;
      };
      // A throw or a rejection is no decision: the call ends `rejected`, and its span says so.
      return isThenable(decision) ? Promise.resolve(decision).then(decided) : decided(decision);
    },
    retried(execution, info) {
      const attributes: TraceAttributes = {
        'toolwire.retry.attempt': info.attempt,
        'toolwire.retry.delay_ms': Math.max(0, Math.round(info.delayMs)),
      };
      if (info.error instanceof Error) attributes['error.type'] = info.error.name;
      traceOf(execution)?.event(TRACE_EVENTS.retry, attributes);
    },
    ready: () => undefined,
    finished(execution, result, output, durationMs) {
      const traced = traces.get(execution);
      if (traced === undefined) return;
      traces.delete(execution);
      const error = result.error === undefined ? undefined : redactor.error(result.error);
      traced.trace.end({ status: result.status, output, durationMs, error });
    },
  };
}

/**
 * A call's arguments for its trace: decoded when they are JSON text, with the call's redacted fields replaced
 * (the tool's `sensitiveFieldNames` when the call has not started) and the client's rules applied.
 */
function tracedArguments(
  execution: Execution,
  redactor: Redactor,
  registry: Pick<ToolRegistry, 'get'>,
): unknown {
  const raw = execution.arguments;
  const decoded = decodeArguments(raw);
  const args = decoded.ok ? decoded.value : raw;
  let redaction = execution.redaction;
  if (redaction === undefined) {
    const names = toolInternals(registry.get(execution.toolName))?.sensitiveFieldNames ?? [];
    redaction = new CallRedaction(redactor, names, () => {});
    redaction.addInputs(args);
  }
  return redactor.value(typeof args === 'string' ? redaction.text(args) : redaction.value(args));
}
