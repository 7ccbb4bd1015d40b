/**
 * `toolwire/otel`: every tool call a `Client` runs becomes an OpenTelemetry span, `execute_tool <name>` after the
 * GenAI semantic conventions, a child of the service's span of the call. Needs `@opentelemetry/api` 1.x (an
 * optional peer dependency of toolwire) and a tracer provider registered by your OpenTelemetry setup.
 *
 * @packageDocumentation
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { CallTrace, ToolTracing, TracedCall, TracedError, TracedResult } from '../client/tracing';

import { OptionsError } from '../errors';
import { describeValue, isOptionsObject } from '../tool/check-options';
import { VERSION } from '../version';

/*
 * Reading a W3C `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header), as
 * docs/protocol/trace-context.md
 * asks: a value that cannot be parsed is ignored, never an error.
 */
/** The parent a `traceparent` names. */
export interface RemoteParent {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  spanId: string;
  /** The trace flags (bit 0: sampled). */
  traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The parent a W3C `traceparent` names, or `undefined` when it cannot be used: not a string, another shape,
 * upper case, version `ff`, all-zero ids, or version `00` with anything after the flags. A version above `00`
 * is read as `00` where it starts like one, as the recommendation asks.
 */
export function parseTraceparent(value: unknown): RemoteParent | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/*
 * `otelTracing()`: the `tracing` option of a `Client`, made of OpenTelemetry spans.
 *
 * Each call is a span named `execute_tool <tool name>` (kind `INTERNAL`) with the GenAI semantic conventions'
 * attributes (`gen_ai.operation.name` `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
 * `gen_ai.tool.type` `function`, `gen_ai.tool.description`; `error.type` and status `ERROR` when the call did
 * not end `ok`, but for a call a person declined), as the OpenAI Agents SDK and the AI SDK emit a span per tool
 * call; `gen_ai.agent.name` when the service names the run's agent. Its parent is the service's span named by
 * `tool_call.traceparent` (docs/protocol/trace-context.md), and a call of a run this process started is linked to the
 * span that called `client.run()` (and it back to the call); without a `traceparent` that span is the parent, else
 * the call starts a trace of its own (never a child of the span active at `connect()`). What happens to the call (queued, started, approval asked and decided, retries) is
 * recorded as span events.
 *
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span
 */
/** Options of {@link otelTracing}. */
export interface OtelTracingOptions {
  /**
   * The tracer the spans come from. @default trace.getTracer('toolwire', VERSION): the global tracer provider's,
   * its instrumentation scope named `toolwire` with the package's version
   */
  tracer?: Tracer | undefined;
  /**
   * Record each call's arguments as `gen_ai.tool.call.arguments` (JSON text), redacted with the client's
   * `redact` rules and its API key, the values of the call's redacted fields (`sensitiveFieldNames`, a policy's
   * `redact`) replaced whole. Set when the call ends (a policy's fields are known once it ran). Off by default:
   * arguments may hold personal data. @default false
   */
  recordArguments?: boolean | undefined;
  /**
   * Record what the model reads of each result as `gen_ai.tool.call.result`, redacted as it was sent.
   * @default false
   */
  recordOutputs?: boolean | undefined;
}

const OPTION_KEYS = new Set(['tracer', 'recordArguments', 'recordOutputs']);
/** Longest span status message, in characters. */
const MAX_STATUS_MESSAGE_CHARS = 256;

/**
 * The `tracing` option of a `Client` that makes every tool call an OpenTelemetry span.
 *
 * @example
 * ```ts
 * import { Client, tool } from 'toolwire';
 * import { otelTracing } from 'toolwire/otel';
 *
 * const ping = tool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' });
 * const client = new Client({ url: 'ws://127.0.0.1:8787', apiKey: 'dev', tools: [ping], tracing: otelTracing() });
 * ```
 * @throws OptionsError `invalid_options`, `unknown_option` or `invalid_option` for options it cannot use.
 */
export function otelTracing(options: OtelTracingOptions = {}): ToolTracing {
  checkOptions(options);
  const tracer = options.tracer ?? trace.getTracer('toolwire', VERSION);
  const recordArguments = options.recordArguments === true;
  const recordOutputs = options.recordOutputs === true;
  return {
    startCall(call: TracedCall): CallTrace {
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.toolName,
        'gen_ai.tool.call.id': call.callId,
        'gen_ai.tool.type': 'function',
        'toolwire.run.id': call.runId,
      };
      if (call.description !== undefined) attributes['gen_ai.tool.description'] = call.description;
      if (call.agentName !== undefined) attributes['gen_ai.agent.name'] = call.agentName;
      const caller = callerSpan(call.runCaller);
      const remote = remoteParent(call);
      // In the service's trace, linked to the code that called client.run() here; parented by that code when
      // the service sends no trace context, and else a trace of its own. Never the active context: a call
      // arrives on the socket, whose context is whatever was active at connect() (a startup span, ended long ago).
      const parent = remote ?? (caller === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, caller));
      const links: Link[] =
        caller !== undefined && remote !== undefined
          ? [{ context: caller.spanContext(), attributes: { 'toolwire.link': 'run.caller' } }]
          : [];
      const span = tracer.startSpan(
        `execute_tool ${call.toolName}`,
        { kind: SpanKind.INTERNAL, attributes, links },
        parent,
      );
      // And the other way: the caller's span (while it records) links to each call of its run.
      if (links.length > 0 && caller?.isRecording() === true && typeof caller.addLink === 'function')
        caller.addLink({ context: span.spanContext(), attributes: { 'toolwire.link': 'tool.call' } });
      // Recorded at the end: the fields a policy redacts are known once the policies ran.
      return spanTrace(span, parent, recordOutputs, recordArguments ? call : undefined);
    },
    // The span active where client.run() is called: the calls of that run link to it.
    runStarted: () => {
      const active = trace.getActiveSpan();
      return active !== undefined && trace.isSpanContextValid(active.spanContext()) ? active : undefined;
    },
  };
}

/** The span `runStarted` captured, if it is one. */
function callerSpan(caller: unknown): Span | undefined {
  return typeof (caller as Partial<Span> | undefined)?.spanContext === 'function'
    ? (caller as Span)
    : undefined;
}

function spanTrace(
  span: Span,
  parent: Context,
  recordOutputs: boolean,
  recordArgumentsOf: TracedCall | undefined,
): CallTrace {
  // `execute` runs in the call's span, under the call's parent: none of the socket's context.
  const within = trace.setSpan(parent, span);
  return {
    event: (name, attributes) => {
      span.addEvent(name, attributes);
    },
    run: (fn) => context.with(within, fn),
    end: (result: TracedResult) => {
      span.setAttribute('toolwire.call.status', result.status);
      if (recordArgumentsOf !== undefined)
        span.setAttribute('gen_ai.tool.call.arguments', jsonText(recordArgumentsOf.arguments()));
      if (recordOutputs) span.setAttribute('gen_ai.tool.call.result', result.output);
      if (result.reason !== undefined) span.setAttribute('toolwire.call.reason', result.reason);
      // A person declining the call is an outcome the app asked for, not an error of the call.
      if (result.status !== 'ok' && result.reason !== 'declined') {
        // Already a plain object of the thrown error's name, message, stack and code, redacted (../client/tracing.ts).
        const thrown = result.error;
        span.setAttribute('error.type', errorType(result.status, thrown));
        if (thrown !== undefined) span.recordException(thrown);
        const message = thrown?.message || result.output;
        span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, MAX_STATUS_MESSAGE_CHARS) });
      }
      span.end();
    },
  };
}

/**
 * `error.type`: the name of what `execute` threw (`TypeError`, a class of yours) for status `error`, else the
 * status itself (`invalid_arguments`, `unknown_tool`, `rejected`, `timeout`, `cancelled`): few values, as the
 * conventions ask.
 */
function errorType(status: string, thrown: TracedError | undefined): string {
  return status === 'error' && thrown !== undefined && thrown.name !== '' ? thrown.name : status;
}

/** The service's span named by the call's `traceparent`; `undefined` when there is none to use. */
function remoteParent(call: TracedCall): Context | undefined {
  const parent = parseTraceparent(call.traceparent);
  if (parent === undefined) return undefined;
  let traceState: ReturnType<typeof createTraceState> | undefined;
  if (call.tracestate !== undefined && call.tracestate !== '') {
    try {
      traceState = createTraceState(call.tracestate);
    } catch {
      traceState = undefined;
    }
  }
  return trace.setSpanContext(ROOT_CONTEXT, {
    ...parent,
    isRemote: true,
    ...(traceState ? { traceState } : {}),
  });
}

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '[Unserializable]';
  }
}

function checkOptions(options: unknown): void {
  if (!isOptionsObject(options)) {
    throw new OptionsError(
      'invalid_options',
      `otelTracing(): options must be an object, got ${describeValue(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) {
      throw new OptionsError(
        'unknown_option',
        `otelTracing(): unknown option ${JSON.stringify(key)} (known: ${[...OPTION_KEYS].join(', ')})`,
      );
    }
  }
  const { tracer, recordArguments, recordOutputs } = options as Record<string, unknown>;
  if (tracer !== undefined && typeof (tracer as Partial<Tracer> | null)?.startSpan !== 'function') {
    throw new OptionsError('invalid_option', 'otelTracing(): tracer must be an OpenTelemetry Tracer');
  }
  for (const [name, value] of [
    ['recordArguments', recordArguments],
    ['recordOutputs', recordOutputs],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') {
      throw new OptionsError('invalid_option', `otelTracing(): ${name} must be a boolean`);
    }
  }
}
