/**
 * Tracing of tool calls: the seam a tracer plugs into (`new Client({ tracing })`), and `CallTraces`, which tells
 * it what each call does. The core knows no tracing library: `toolwire/otel` implements the seam with
 * OpenTelemetry, and anything else may (README, "Tracing"). Without a `tracing` option none of this runs. This
 * file holds the seam's shapes, then `callTraces`, the call runner's side of it.
 *
 * @module
 */
import { decodeArguments } from '../call/arguments';
import { shownArguments } from '../call/redaction';
import type { ToolRegistry } from '../call/registry';
import type { ApprovalDecision, ToolCallResult } from '../call/types';
import { isError } from '../errors';
import type { Redactor } from '../logger';
import { isThenable } from '../maybe';
import { toolInternals } from '../tool/tool';
import { CallMap } from './call-map';
import type { Execution, ToolCallFrame } from './execution';
import { recordedArguments } from './held-arguments';

/*
 * The seam's shapes: what a tracer implements ({@link ToolTracing}, {@link CallTrace}), the events it is told of
 * ({@link TRACE_EVENTS}), and {@link CallTraces}, through which the call runner tells it.
 */
/** Values a trace event may carry, OpenTelemetry's attribute values. */
export type TraceAttributes = Record<string, string | number | boolean>;

/**
 * The names of the events a {@link CallTrace} is told of, with their attributes:
 *
 * - `toolwire.call.queued`: the call could not start when it arrived, and waits in line: every `maxConcurrency`
 *   slot was busy (or its `slots` did not fit), or a call that ran 50 ms or more has just ended and its result goes
 *   out first, or the results waiting for their ack have filled `maxOutboxBytes`.
 * - `toolwire.call.started`: the call took a slot and runs; `toolwire.queue.duration_ms` (whole ms), how long
 *   it waited for it (0 when it did not).
 * - `toolwire.approval.requested`: the call waits for a human's decision; `toolwire.approval.by` is `local`
 *   (the client's `onApproval`) or `service`.
 * - `toolwire.approval.decided`: the decision; `toolwire.approval.approved` (boolean), and
 *   `toolwire.approval.reason` when the decision gave one (redacted). A call the service held for a human
 *   before sending it (its tool's definition needs approval) arrives decided: this event alone, at its start.
 * - `toolwire.retry`: an attempt of the call failed and another follows; `toolwire.retry.attempt` (the attempt
 *   that failed, from 1), `toolwire.retry.delay_ms`, and `error.type` when known.
 */
export const TRACE_EVENTS = {
  queued: 'toolwire.call.queued',
  started: 'toolwire.call.started',
  approvalRequested: 'toolwire.approval.requested',
  approvalDecided: 'toolwire.approval.decided',
  retry: 'toolwire.retry',
} as const;

/** A call as a tracer sees it when it arrives (see {@link ToolTracing.startCall}). */
export interface TracedCall {
  callId: string;
  runId: string;
  toolName: string;
  /** The tool's description, `undefined` for a tool this client does not run. */
  description: string | undefined;
  /** The agent whose run made the call, when the service says (feature `call_context`). */
  agentName: string | undefined;
  /**
   * What {@link ToolTracing.runStarted} returned when this client's `client.run()` started the call's run (a
   * capture of the caller's trace, to link or parent the call's span to it); `undefined` for a run started
   * elsewhere (the service's UI or API, another process).
   */
  runCaller: unknown;
  /** The service's W3C `traceparent` for the call (docs/protocol/trace-context.md), as sent: parse it, it may be invalid. */
  traceparent: string | undefined;
  /** The service's W3C `tracestate`, with a `traceparent` only. */
  tracestate: string | undefined;
  /**
   * The arguments as the model produced them (an object, a JSON string, …), redacted with the client's `redact`
   * rules, and the values of the call's redacted fields (`sensitiveFieldNames`, a policy's `redact`) replaced
   * whole. Computed when called: call it only to record them, and at the end of the call (a policy's fields are
   * known once the policies ran).
   */
  arguments(): unknown;
}

/** How a traced call ended. */
export interface TracedResult {
  /** The result's status: `ok`, `error`, `invalid_arguments`, `unknown_tool`, `rejected`, `timeout`, `cancelled`. */
  status: ToolCallResult['status'];
  /** What the model reads, redacted, as sent. */
  output: string;
  /** From the call's start to its result, in whole milliseconds (0 for a call that never started). */
  durationMs: number;
  /**
   * What was thrown, when an `Error` was (`ToolCallResult.error`): its `name`, `message`, `stack` and `code`,
   * redacted, in a plain object of its own; `undefined` otherwise. Nothing else of the thrown error is handed on:
   * its other fields (an HTTP client's request config and its `Authorization` header, a response body) may hold
   * secrets that no rule names.
   */
  error: TracedError | undefined;
  /**
   * With status `rejected`: why. `declined` is an outcome (a person said no), not a failure; `approval_failed`,
   * `not_allowed` and the others are.
   */
  reason: ToolCallResult['reason'];
}

/**
 * An error as a trace sees it ({@link TracedResult.error}): the fields OpenTelemetry's `recordException` reads,
 * redacted. `code` only when the error's is a string or a number.
 */
export interface TracedError {
  /** The error's `name` (`'TypeError'`, a library's own class name). */
  name: string;
  /** Its `message`, redacted. */
  message: string;
  /** Its `stack` as the runtime wrote it, redacted; absent when it had none that is a string. */
  stack?: string;
  /** Its `code` (`'ECONNRESET'`, an HTTP status); absent when it had none, or one that is no string or number. */
  code?: string | number;
}

/**
 * One call's trace, made by {@link ToolTracing.startCall}. Its methods should not throw: a throw is caught, and loses
 * that event or span, never the call.
 */
export interface CallTrace {
  /** Something happened to the call: one of {@link TRACE_EVENTS}. */
  event(name: string, attributes?: TraceAttributes): void;
  /**
   * Runs `fn` (the tool's code: validation, approval predicate, `execute`) within the call's trace, so that
   * spans started inside it are children of the call's span, and returns what it returns.
   */
  run<T>(fn: () => T): T;
  /** The call has its result (it is in the outbox); nothing more happens to the trace. Called once. */
  end(result: TracedResult): void;
}

/**
 * A tracer of tool calls (`new Client({ tracing })`): `otelTracing()` from `toolwire/otel`, or your own. A client
 * with one offers the protocol feature `trace_context`, so the service sends each call's `traceparent`.
 */
export interface ToolTracing {
  /**
   * A call arrived and was accepted (a call refused as busy is not traced). Returns its trace, or `undefined` to
   * leave it untraced. Must not throw.
   */
  startCall(call: TracedCall): CallTrace | undefined;
  /**
   * `client.run()` is starting a run, in its caller's context: returns what the calls of that run get as
   * {@link TracedCall.runCaller} (e.g. the caller's active span), or `undefined`. Optional; must not throw.
   */
  runStarted?(): unknown;
}

/** Tells the client's {@link ToolTracing} what each call does. Owned by the call runner; one per client. */
export interface CallTraces {
  /**
   * A call was accepted: its trace starts (before it may start running), its parent read from `frame`, the
   * `tool_call` as received (the call keeps no trace context: ./execution.ts `READ_LATER`).
   */
  received(execution: Execution, frame: ToolCallFrame): void;
  /** Every slot was busy when the call came: it waits in line (or, keyed, for its key's turn). */
  queued(execution: Execution): void;
  /**
   * The call took its first slot: records {@link TRACE_EVENTS.started} and runs `start` (its context, then the
   * tool) within the call's trace.
   */
  start(execution: Execution, start: (execution: Execution) => void): void;
  /** A decision was asked for: records the request now and the decision when it comes; returns `decision`. */
  approval(
    execution: Execution,
    decision: ApprovalDecision | Promise<ApprovalDecision>,
  ): ApprovalDecision | Promise<ApprovalDecision>;
  /**
   * An attempt of the call failed and another follows in `delayMs` (a tool's retries): records
   * {@link TRACE_EVENTS.retry}. `attempt` counts from 1; `error` is what the attempt threw, when anything did.
   */
  retried(execution: Execution, info: { attempt: number; delayMs: number; error?: unknown }): void;
  /** The call has its result: its trace ends. `output` is what was sent (redacted). */
  finished(execution: Execution, result: ToolCallResult, output: string, durationMs: number): void;
}

/** What `tracing.runStarted()` captures of a `client.run()` caller; `undefined` when it has none or throws. */
export function runCaller(tracing: ToolTracing): unknown {
  try {
    return tracing.runStarted?.();
  } catch {
    return undefined;
  }
}

/**
 * The {@link CallTraces} of a client with `tracing`. `client`: its tools (for their descriptions) and whether
 * approvals are decided here (`onApproval`).
 */
export function callTraces(
  tracing: ToolTracing,
  redactor: Redactor,
  client: {
    registry: Pick<ToolRegistry, 'get'>;
    onApproval: unknown;
    /** This client's runs by id: a call of one gets what `runStarted` gave it. */
    runCallers?: { get(runId: string): { readonly traceCaller?: unknown } | undefined } | undefined;
  },
): CallTraces {
  // By call id, each with its call: a `CallMap` holds no call's objects past its end (./call-map.ts).
  const traces = new CallMap<{ execution: Execution; trace: CallTrace; arrived: number }>();
  const tracedOf = (execution: Execution) => {
    const traced = traces.get(execution.callId);
    return traced?.execution === execution ? traced : undefined;
  };
  const traceOf = (execution: Execution) => tracedOf(execution)?.trace;
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
          // The ids and names the service chose, redacted as an event's are.
          callId: redactor.text(frame.callId),
          runId: redactor.text(frame.runId),
          toolName: frame.toolName,
          description: client.registry.get(frame.toolName)?.description,
          agentName: frame.agentName === undefined ? undefined : redactor.text(frame.agentName),
          runCaller: client.runCallers?.get(frame.runId)?.traceCaller,
          traceparent: frame.traceparent,
          // A trace state holding a secret is dropped: cut, it would not parse.
          tracestate:
            frame.traceparent === undefined ||
            frame.tracestate === undefined ||
            redactor.text(frame.tracestate) !== frame.tracestate
              ? undefined
              : frame.tracestate,
          arguments: () => tracedArguments(execution, redactor, client.registry),
        });
      } catch {
        return;
      }
      if (trace === undefined) return;
      trace = guarded(trace);
      traces.set(execution.callId, { execution, trace, arrived: performance.now() });
      // Held by the service for a human before it was sent (a tool whose definition needs approval).
      if (frame.approved !== undefined)
        decidedEvent(trace, { approved: frame.approved, reason: frame.reason });
    },
    queued(execution) {
      traceOf(execution)?.event(TRACE_EVENTS.queued);
    },
    start(execution, start) {
      const traced = tracedOf(execution);
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
      const type = errorName(info.error);
      if (type !== undefined) attributes['error.type'] = redactor.text(type);
      traceOf(execution)?.event(TRACE_EVENTS.retry, attributes);
    },
    finished(execution, result, output, durationMs) {
      const traced = tracedOf(execution);
      if (traced === undefined) return;
      traces.delete(execution.callId);
      const error = result.error === undefined ? undefined : tracedError(redactor.error(result.error));
      traced.trace.end({ status: result.status, output, durationMs, error, reason: result.reason });
    },
  };
}

/**
 * `trace` kept from throwing, as `startCall` is: a tracer's bug (an `event`, `run` or `end` that throws) never
 * fails, stalls or rejects the call. `run` always returns (or throws) what `fn` did: when the tracer throws (or
 * returns) without calling `fn`, `fn` runs untraced; when it throws after, `fn`'s own outcome stands.
 */
function guarded(trace: CallTrace): CallTrace {
  return {
    event(name, attributes) {
      try {
        trace.event(name, attributes);
      } catch {
        // The event is lost; the call goes on.
      }
    },
    run<T>(fn: () => T): T {
      let outcome: { value: T } | { thrown: unknown } | undefined;
      const traced = () => {
        try {
          outcome = { value: fn() };
        } catch (thrown) {
          outcome = { thrown };
        }
        if ('thrown' in outcome) throw outcome.thrown;
        return outcome.value;
      };
      try {
        trace.run(traced);
      } catch {
        // The tracer's own throw, or fn's passed through: fn's outcome decides below.
      }
      if (outcome === undefined) return fn();
      if ('thrown' in outcome) throw outcome.thrown;
      return outcome.value;
    },
    end(result) {
      try {
        trace.end(result);
      } catch {
        // The span is lost; the result was sent.
      }
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
  // A call that waited holds large arguments as text in a client that traces (./held-arguments.ts).
  const raw = recordedArguments(execution.arguments);
  const decoded = decodeArguments(raw);
  const args = decoded.ok ? decoded.value : raw;
  const fields =
    execution.redaction ?? toolInternals(registry.get(execution.toolName))?.sensitiveFieldNames ?? [];
  return shownArguments(args, redactor, fields);
}

/**
 * `error`'s `name`, `message`, `stack` and `code` (those {@link Redactor.error} redacts) in a new plain object, so
 * that none of its other fields reaches a tracer; `undefined` for a value that is no `Error` or whose `name` or
 * `message` is no string. A field whose getter throws is left out; never throws.
 */
function tracedError(error: unknown): TracedError | undefined {
  if (!isError(error)) return undefined;
  const read = (key: keyof TracedError): unknown => {
    try {
      return (error as unknown as Record<string, unknown>)[key];
    } catch {
      return undefined;
    }
  };
  const name = read('name');
  const message = read('message');
  if (typeof name !== 'string' || typeof message !== 'string') return undefined;
  const fields: TracedError = { name, message };
  const stack = read('stack');
  if (typeof stack === 'string') fields.stack = stack;
  const code = read('code');
  if (typeof code === 'string' || typeof code === 'number') fields.code = code;
  return fields;
}

/** The `name` of what a tool threw when it is an `Error`; never throws (a hostile Proxy gives none). */
function errorName(thrown: unknown): string | undefined {
  if (!isError(thrown)) return undefined;
  try {
    return String(thrown.name);
  } catch {
    return undefined;
  }
}
