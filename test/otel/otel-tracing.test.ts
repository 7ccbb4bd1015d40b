/**
 * `toolwire/otel` over the real stub: every call an `execute_tool <name>` span with the GenAI attributes, the
 * stub's `traceparent` as its parent (end to end), error spans, approval and queue events, redacted arguments
 * and outputs only when asked, spans of the tool's own work as children, and nothing without `tracing`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Agent, OptionsError, tool } from 'toolwire';
import { otelTracing, parseTraceparent } from 'toolwire/otel';
import { TRACE_EVENTS, type TracedResult } from 'toolwire/tracing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../server-stub/index';
import { VERSION } from '../../src/version';
import { API_KEY, client, recordingWebSocket, stub } from '../fault/harness';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
afterEach(() => {
  exporter.reset();
});

const lookup = tool({
  name: 'lookup',
  description: 'Looks an order up.',
  parameters: z.object({ id: z.string() }),
  execute: ({ id }) => `order ${id}: shipped`,
});

/**
 * Everything in `value` as text: its own properties, enumerable or not, at any depth (an `Error`'s and a
 * function's included), each object written once.
 */
function everything(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, function replacer(_key, item: unknown) {
    if (typeof item === 'function') return `[function ${item.name}]`;
    if (typeof item !== 'object' || item === null) return item;
    if (seen.has(item)) return '[seen]';
    seen.add(item);
    const out: Record<string, unknown> = {};
    for (const key of Reflect.ownKeys(item)) out[String(key)] = (item as Record<PropertyKey, unknown>)[key];
    return out;
  });
}

const toolSpans = () => exporter.getFinishedSpans().filter((span) => span.name.startsWith('execute_tool '));
const eventNames = (span: ReadableSpan) => span.events.map((event) => event.name);
const eventOf = (span: ReadableSpan, name: string) => span.events.find((event) => event.name === name);

async function setup(
  turns: Parameters<typeof scriptedModel>[0],
  options: Partial<Parameters<typeof client>[1]> = {},
) {
  const server = await stub({ model: scriptedModel(turns) });
  const socket = recordingWebSocket();
  const tools = options.tools ?? [lookup];
  const traced = client(server.url, { tools, WebSocket: socket.WebSocket, ...options });
  await traced.connect();
  const agent = new Agent({ name: 'Support', instructions: 'help', tools });
  return { server, socket, client: traced, run: (input = 'go') => traced.run(agent, input) };
}

describe('otelTracing() over the stub', () => {
  it('makes each call an execute_tool span, the child of the stub’s span named by tool_call.traceparent', async () => {
    const { socket, run } = await setup(
      [
        {
          toolCalls: [
            { name: 'lookup', arguments: { id: 'A1' } },
            { name: 'lookup', arguments: { id: 'B2' } },
          ],
        },
        { text: 'both shipped' },
      ],
      { tracing: otelTracing({ tracer }) },
    );
    await run();
    const welcome = socket.received.find((frame) => frame.type === 'welcome');
    expect(welcome?.features).toContain('trace_context');
    const calls = socket.received.filter((frame) => frame.type === 'tool_call');
    expect(calls).toHaveLength(2);
    const spans = toolSpans();
    expect(spans).toHaveLength(2);
    for (const call of calls) {
      const span = spans.find((item) => item.attributes['gen_ai.tool.call.id'] === call.callId);
      const parent = parseTraceparent(call.traceparent);
      expect(parent).toBeDefined();
      expect(span?.name).toBe('execute_tool lookup');
      expect(span?.kind).toBe(SpanKind.INTERNAL);
      expect(span?.spanContext().traceId).toBe(parent?.traceId);
      expect(span?.parentSpanContext?.spanId).toBe(parent?.spanId);
      expect(span?.parentSpanContext?.isRemote).toBe(true);
      expect(span?.attributes).toEqual({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.id': call.callId,
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.description': 'Looks an order up.',
        'gen_ai.agent.name': 'Support',
        'toolwire.run.id': call.runId,
        'toolwire.call.status': 'ok',
      });
      expect(span?.status.code).toBe(SpanStatusCode.UNSET);
      expect(eventNames(span as ReadableSpan)).toEqual([TRACE_EVENTS.started]);
    }
    // One run, one trace.
    expect(spans[0]?.spanContext().traceId).toBe(spans[1]?.spanContext().traceId);
  });

  it('makes the spans the tool starts children of the call’s span', async () => {
    const traced = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      execute: async () => {
        await Promise.resolve();
        return tracer.startActiveSpan('db.query', (span) => {
          span.end();
          return 'found';
        });
      },
    });
    const { run } = await setup([{ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'ok' }], {
      tools: [traced],
      tracing: otelTracing({ tracer }),
    });
    await run();
    const [span] = toolSpans();
    const child = exporter.getFinishedSpans().find((item) => item.name === 'db.query');
    expect(child?.parentSpanContext?.spanId).toBe(span?.spanContext().spanId);
    expect(child?.spanContext().traceId).toBe(span?.spanContext().traceId);
  });

  it('ends a failed call’s span with status ERROR, error.type and the exception (redacted)', async () => {
    const failing = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      parameters: z.object({ id: z.string() }),
      execute: () => {
        throw new TypeError('database password hunter2-secret rejected');
      },
    });
    const { run } = await setup(
      [
        {
          toolCalls: [
            { name: 'lookup', arguments: { id: 'A1' } },
            { name: 'lookup', arguments: { id: 42 } },
          ],
        },
        { text: 'sorry' },
      ],
      { tools: [failing], tracing: otelTracing({ tracer }), redact: ['hunter2-secret'] },
    );
    await run();
    const spans = toolSpans();
    const thrown = spans.find((span) => span.attributes['toolwire.call.status'] === 'error');
    const invalid = spans.find((span) => span.attributes['toolwire.call.status'] === 'invalid_arguments');
    expect(thrown?.attributes['error.type']).toBe('TypeError');
    expect(thrown?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'database password [redacted] rejected',
    });
    const exception = eventOf(thrown as ReadableSpan, 'exception');
    expect(exception?.attributes?.['exception.type']).toBe('TypeError');
    expect(exception?.attributes?.['exception.message']).toBe('database password [redacted] rejected');
    const recorded = { attributes: thrown?.attributes, status: thrown?.status, events: thrown?.events };
    expect(JSON.stringify(recorded)).not.toContain('hunter2-secret');
    expect(invalid?.attributes['error.type']).toBe('invalid_arguments');
    expect(invalid?.status.code).toBe(SpanStatusCode.ERROR);
    expect(invalid?.status.message).toMatch(/^Invalid arguments for lookup: id: /);
  });

  it('redacts an error class name that quotes a secret, in error.type and the exception, retries included', async () => {
    class HttpError extends Error {
      override name = 'HttpError(GET /orders?key=hunter2-secret)';
    }
    let attempts = 0;
    const fetching = tool({
      name: 'fetch_order',
      description: 'Fetches an order.',
      sideEffect: 'none',
      retry: { maxAttempts: 2, initialDelayMs: 0, maxDelayMs: 0 },
      execute: () => {
        attempts += 1;
        throw new HttpError(`attempt ${attempts} failed`);
      },
    });
    const { run } = await setup(
      [{ toolCalls: [{ name: 'fetch_order', arguments: {} }] }, { text: 'sorry' }],
      {
        tools: [fetching],
        tracing: otelTracing({ tracer }),
        redact: ['hunter2-secret'],
      },
    );
    await run();
    const [span] = toolSpans();
    expect(span?.attributes['error.type']).toBe('HttpError(GET /orders?key=[redacted])');
    expect(JSON.stringify({ attributes: span?.attributes, events: span?.events })).not.toContain('hunter2');
    expect(eventNames(span as ReadableSpan)).toContain(TRACE_EVENTS.retry);
  });

  it('hands no span API any field of a tool’s error but name, message, stack and code', async () => {
    /** An axios-style failure: a message with no secret, the API key in the request config it carries. */
    class AxiosLikeError extends Error {
      override name = 'AxiosError';
      code = 'ERR_BAD_REQUEST';
      config = { url: '/orders', headers: { Authorization: `Bearer ${API_KEY}` } };
      response = { status: 401, data: { echoed: { authorization: `Bearer ${API_KEY}` } } };
    }
    const thrown = new AxiosLikeError('Request failed with status code 401');
    const failing = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      execute: () => {
        throw thrown;
      },
    });
    // Every call made on the tracer and its spans, with the values handed in, as a span processor would get them.
    const calls: { method: string; args: unknown[] }[] = [];
    const spanContext = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    };
    const span: Record<string, unknown> = new Proxy(
      {},
      {
        get: (_target, method) => {
          if (method === 'spanContext') return () => spanContext;
          if (method === 'isRecording') return () => true;
          if (typeof method !== 'string' || method === 'then') return undefined;
          return (...args: unknown[]) => {
            calls.push({ method, args });
            return span;
          };
        },
      },
    );
    const fakeTracer = {
      startSpan: (...args: unknown[]) => {
        calls.push({ method: 'startSpan', args });
        return span;
      },
      startActiveSpan: () => {
        throw new Error('not used');
      },
    } as unknown as Tracer;
    const { run } = await setup([{ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'sorry' }], {
      tools: [failing],
      tracing: otelTracing({ tracer: fakeTracer }),
    });
    await run();
    expect(everything(calls)).not.toContain(API_KEY);
    const recorded = calls.filter((call) => call.method === 'recordException');
    expect(recorded).toHaveLength(1);
    const exception = recorded[0]?.args[0];
    expect(exception).not.toBe(thrown);
    expect(Object.getPrototypeOf(exception)).toBe(Object.prototype);
    expect(exception).toEqual({
      name: 'AxiosError',
      message: 'Request failed with status code 401',
      stack: thrown.stack,
      code: 'ERR_BAD_REQUEST',
    });
    expect(calls.map((call) => call.method)).toContain('setStatus');
  });

  it('hands a tracing of your own no field of a tool’s error but name, message, stack and code', async () => {
    const thrown = Object.assign(new Error('Request failed with status code 401'), {
      code: 401,
      config: { headers: { Authorization: `Bearer ${API_KEY}` } },
    });
    const failing = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      execute: () => {
        throw thrown;
      },
    });
    const handed: unknown[] = [];
    const { run } = await setup([{ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'sorry' }], {
      tools: [failing],
      tracing: {
        startCall: (call) => {
          handed.push(call);
          return {
            event: (...args) => handed.push(args),
            run: (fn) => fn(),
            end: (result) => handed.push(result),
          };
        },
      },
    });
    await run();
    expect(everything(handed)).not.toContain(API_KEY);
    const ended = handed.at(-1) as TracedResult;
    expect(ended.status).toBe('error');
    expect(ended.error).toEqual({
      name: 'Error',
      message: 'Request failed with status code 401',
      stack: thrown.stack,
      code: 401,
    });
  });

  it('records the approval asked of the local approver and its decision as events', async () => {
    const refund = tool({
      name: 'refund',
      description: 'Refunds an order.',
      needsApproval: true,
      execute: () => 'refunded',
    });
    const { run } = await setup([{ toolCalls: [{ name: 'refund', arguments: {} }] }, { text: 'no' }], {
      tools: [refund],
      tracing: otelTracing({ tracer }),
      onApproval: async () => ({ approved: false, reason: 'over the limit' }),
    });
    await run();
    const [span] = toolSpans();
    expect(eventNames(span as ReadableSpan)).toEqual([
      TRACE_EVENTS.started,
      TRACE_EVENTS.approvalRequested,
      TRACE_EVENTS.approvalDecided,
    ]);
    expect(eventOf(span as ReadableSpan, TRACE_EVENTS.approvalRequested)?.attributes).toEqual({
      'toolwire.approval.by': 'local',
    });
    expect(eventOf(span as ReadableSpan, TRACE_EVENTS.approvalDecided)?.attributes).toEqual({
      'toolwire.approval.approved': false,
      'toolwire.approval.reason': 'over the limit',
    });
    // A person declining is an outcome, not an error of the call.
    expect(span?.attributes['error.type']).toBeUndefined();
    expect(span?.attributes['toolwire.call.status']).toBe('rejected');
    expect(span?.attributes['toolwire.call.reason']).toBe('declined');
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('keeps status ERROR for an approval that failed (the approver threw)', async () => {
    const refund = tool({ name: 'refund', description: 'Refunds.', needsApproval: true, execute: () => 'x' });
    const { run } = await setup([{ toolCalls: [{ name: 'refund', arguments: {} }] }, { text: 'no' }], {
      tools: [refund],
      tracing: otelTracing({ tracer }),
      onApproval: () => {
        throw new Error('approver down');
      },
    });
    await run();
    const [span] = toolSpans();
    expect(span?.attributes['toolwire.call.reason']).toBe('approval_failed');
    expect(span?.attributes['error.type']).toBe('rejected');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('records each retry of a tool with retry as a toolwire.retry event', async () => {
    let attempts = 0;
    const flaky = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      sideEffect: 'none',
      retry: { maxAttempts: 3, initialDelayMs: 0, maxDelayMs: 0 },
      execute: () => {
        attempts += 1;
        if (attempts < 3) throw new RangeError(`flake ${attempts}`);
        return 'found';
      },
    });
    const { run } = await setup([{ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'ok' }], {
      tools: [flaky],
      tracing: otelTracing({ tracer }),
    });
    await run();
    const [span] = toolSpans();
    expect(eventNames(span as ReadableSpan)).toEqual([
      TRACE_EVENTS.started,
      TRACE_EVENTS.retry,
      TRACE_EVENTS.retry,
    ]);
    const retries = (span as ReadableSpan).events.filter((event) => event.name === TRACE_EVENTS.retry);
    expect(retries.map((event) => event.attributes)).toEqual([
      { 'toolwire.retry.attempt': 1, 'toolwire.retry.delay_ms': 0, 'error.type': 'RangeError' },
      { 'toolwire.retry.attempt': 2, 'toolwire.retry.delay_ms': 0, 'error.type': 'RangeError' },
    ]);
    expect(span?.attributes['toolwire.call.status']).toBe('ok');
  });

  it('links each call to the span that called client.run(), and that span back to each call', async () => {
    const { socket, run } = await setup(
      [
        {
          toolCalls: [
            { name: 'lookup', arguments: { id: 'A1' } },
            { name: 'lookup', arguments: { id: 'B2' } },
          ],
        },
        { text: 'both shipped' },
      ],
      { tracing: otelTracing({ tracer }) },
    );
    await tracer.startActiveSpan('POST /support', async (request) => {
      await run();
      request.end();
    });
    const caller = exporter.getFinishedSpans().find((span) => span.name === 'POST /support') as ReadableSpan;
    const spans = toolSpans();
    expect(spans).toHaveLength(2);
    const calls = socket.received.filter((frame) => frame.type === 'tool_call');
    for (const span of spans) {
      // Still in the service's trace, under the service's span of the call …
      const frame = calls.find((call) => call.callId === span.attributes['gen_ai.tool.call.id']);
      expect(span.parentSpanContext?.spanId).toBe(parseTraceparent(frame?.traceparent)?.spanId);
      expect(span.spanContext().traceId).not.toBe(caller.spanContext().traceId);
      // … and linked to the code that started the run.
      expect(span.links.map((link) => [link.context.spanId, link.attributes])).toEqual([
        [caller.spanContext().spanId, { 'toolwire.link': 'run.caller' }],
      ]);
    }
    expect(caller.links.map((link) => link.context.spanId).sort()).toEqual(
      spans.map((span) => span.spanContext().spanId).sort(),
    );
  });

  /** A client whose tracing is given no trace context: as against a service that sends no traceparent. */
  const untracedClient = (url: string) => {
    const tracing = otelTracing({ tracer });
    return client(url, {
      tools: [lookup],
      tracing: {
        startCall: (call) => tracing.startCall({ ...call, traceparent: undefined, tracestate: undefined }),
        runStarted: tracing.runStarted,
      },
    });
  };

  it('makes the call a child of the span that called client.run() when the service sends no trace context', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { id: 'A1' } }] }, { text: 'ok' }]),
    });
    const untraced = untracedClient(server.url);
    await untraced.connect();
    const agent = new Agent({ name: 'Support', instructions: 'help', tools: [lookup] });
    await tracer.startActiveSpan('job', async (job) => {
      await untraced.run(agent, 'go');
      job.end();
    });
    const job = exporter.getFinishedSpans().find((span) => span.name === 'job') as ReadableSpan;
    const [span] = toolSpans();
    expect(span?.spanContext().traceId).toBe(job.spanContext().traceId);
    expect(span?.parentSpanContext?.spanId).toBe(job.spanContext().spanId);
    expect(span?.links).toEqual([]);
  });

  it('starts a trace of its own for a call with no trace context, whatever span was active at connect()', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'lookup', arguments: { id: 'A1' } }] }, { text: 'ok' }]),
    });
    const untraced = untracedClient(server.url);
    // A traced startup routine connects; calls come in long after its span ended.
    await tracer.startActiveSpan('startup', async (startup) => {
      await untraced.connect();
      startup.end();
    });
    const agent = new Agent({ name: 'Support', instructions: 'help', tools: [lookup] });
    await untraced.run(agent, 'go');
    const startup = exporter.getFinishedSpans().find((span) => span.name === 'startup') as ReadableSpan;
    const [span] = toolSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(startup.spanContext().traceId);
  });

  it("names the default tracer's instrumentation scope toolwire, with the package's version", async () => {
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      const { run } = await setup(
        [{ toolCalls: [{ name: 'lookup', arguments: { id: 'A1' } }] }, { text: 'ok' }],
        {
          tracing: otelTracing(),
        },
      );
      await run();
      const [span] = toolSpans();
      expect(span?.instrumentationScope).toEqual({
        name: 'toolwire',
        version: VERSION,
        schemaUrl: undefined,
      });
    } finally {
      trace.disable();
    }
  });

  /** Runs one `refund` call whose approval the service's human gives (over HTTP); returns its span. */
  async function approvedByServiceHuman(needsApproval: boolean | (() => boolean)) {
    const refund = tool({
      name: 'refund',
      description: 'Refunds an order.',
      needsApproval,
      execute: () => 'refunded',
    });
    const {
      server,
      run,
      client: traced,
    } = await setup([{ toolCalls: [{ name: 'refund', arguments: {} }] }, { text: 'done' }], {
      tools: [refund],
      tracing: otelTracing({ tracer }),
    });
    traced.on('approval_requested', (request) => {
      void fetch(`${server.httpUrl}/v1/runs/${request.runId}/approvals/${request.callId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      });
    });
    await run();
    return toolSpans()[0];
  }

  it('records an approval the service’s human decides', async () => {
    const span = await approvedByServiceHuman(() => true);
    expect(eventOf(span as ReadableSpan, TRACE_EVENTS.approvalRequested)?.attributes).toEqual({
      'toolwire.approval.by': 'service',
    });
    expect(eventOf(span as ReadableSpan, TRACE_EVENTS.approvalDecided)?.attributes).toEqual({
      'toolwire.approval.approved': true,
    });
    expect(span?.attributes['toolwire.call.status']).toBe('ok');
  });

  it('records the decision of a call the service held for a human before sending it', async () => {
    const span = await approvedByServiceHuman(true);
    expect(span?.events.map(({ name, attributes }) => ({ name, attributes }))).toEqual([
      { name: TRACE_EVENTS.approvalDecided, attributes: { 'toolwire.approval.approved': true } },
      { name: TRACE_EVENTS.started, attributes: { 'toolwire.queue.duration_ms': expect.any(Number) } },
    ]);
  });

  it('records the wait of a call queued behind maxConcurrency', async () => {
    let received: ReadonlyArray<{ type: string }> = [];
    const twoCalls = async () => {
      while (received.filter((frame) => frame.type === 'tool_call').length < 2) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setImmediate(resolve));
    };
    // The first call keeps the only slot until the second has arrived (and queued).
    const slow = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      execute: async () => {
        await twoCalls();
        return 'ok';
      },
    });
    const { socket, run } = await setup(
      [
        {
          toolCalls: [
            { name: 'lookup', arguments: { id: 'A1' } },
            { name: 'lookup', arguments: { id: 'B2' } },
          ],
        },
        { text: 'ok' },
      ],
      { tools: [slow], tracing: otelTracing({ tracer }), maxConcurrency: 1 },
    );
    received = socket.received;
    await run();
    const [first, second] = socket.received
      .filter((frame) => frame.type === 'tool_call')
      .map((call) => toolSpans().find((span) => span.attributes['gen_ai.tool.call.id'] === call.callId));
    expect(eventNames(first as ReadableSpan)).toEqual([TRACE_EVENTS.started]);
    expect(eventOf(first as ReadableSpan, TRACE_EVENTS.started)?.attributes).toEqual({
      'toolwire.queue.duration_ms': expect.any(Number),
    });
    expect(eventNames(second as ReadableSpan)).toEqual([TRACE_EVENTS.queued, TRACE_EVENTS.started]);
  });

  it('records arguments and outputs only when asked, redacted', async () => {
    const turns = [{ toolCalls: [{ name: 'lookup', arguments: { id: 'tok-12345678' } }] }, { text: 'ok' }];
    const plain = await setup(turns, { tracing: otelTracing({ tracer }), redact: ['tok-12345678'] });
    await plain.run();
    const [quiet] = toolSpans();
    expect(quiet?.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(quiet?.attributes['gen_ai.tool.call.result']).toBeUndefined();
    exporter.reset();
    const asked = await setup(turns, {
      tracing: otelTracing({ tracer, recordArguments: true, recordOutputs: true }),
      redact: ['tok-12345678'],
    });
    await asked.run();
    const [span] = toolSpans();
    expect(span?.attributes['gen_ai.tool.call.arguments']).toBe('{"id":"[redacted]"}');
    expect(span?.attributes['gen_ai.tool.call.result']).toBe('order [redacted]: shipped');
  });

  it('records arguments with the fields of sensitiveFieldNames and of a policy redact replaced whole', async () => {
    const login = tool({
      name: 'login',
      description: 'Logs in.',
      parameters: z.object({ user: z.string(), pin: z.string(), code: z.number() }),
      sensitiveFieldNames: ['pin'],
      execute: ({ user }) => `hello ${user}`,
    });
    const turns = [
      { toolCalls: [{ name: 'login', arguments: { user: 'ada', pin: 'pin-55667788', code: 7 } }] },
      { text: 'ok' },
    ];
    const { run } = await setup(turns, {
      tools: [login],
      policies: [() => ({ redact: ['code'] })],
      tracing: otelTracing({ tracer, recordArguments: true }),
    });
    await run();
    const [span] = toolSpans();
    expect(span?.attributes['gen_ai.tool.call.arguments']).toBe(
      '{"user":"ada","pin":"[redacted]","code":"[redacted]"}',
    );
  });

  it('uses the global tracer provider by default', async () => {
    trace.setGlobalTracerProvider(provider);
    try {
      const { run } = await setup(
        [{ toolCalls: [{ name: 'lookup', arguments: { id: 'A1' } }] }, { text: 'ok' }],
        {
          tracing: otelTracing(),
        },
      );
      await run();
      expect(toolSpans().map((span) => span.instrumentationScope.name)).toEqual(['toolwire']);
    } finally {
      trace.disable();
    }
  });

  it('runs the calls untraced when a tracing of your own throws', async () => {
    const { run } = await setup(
      [{ toolCalls: [{ name: 'lookup', arguments: { id: 'A1' } }] }, { text: 'ok' }],
      {
        tracing: {
          startCall() {
            throw new Error('tracer down');
          },
        },
      },
    );
    const result = await run();
    expect(result.toolCalls.map(({ status, output }) => ({ status, output }))).toEqual([
      { status: 'ok', output: 'order A1: shipped' },
    ]);
  });

  it('runs every call once, approvals included, when a trace of your own throws or misuses run', async () => {
    let refunds = 0;
    const refund = tool({
      name: 'refund',
      description: 'Refunds.',
      needsApproval: true,
      execute: () => `refunded ${++refunds}`,
    });
    const fault = () => {
      throw new Error('tracer bug');
    };
    const fine = { event() {}, run: <T>(fn: () => T) => fn(), end() {} };
    const traces = {
      event: { ...fine, event: fault },
      run: { ...fine, run: fault },
      end: { ...fine, end: fault },
      // run() that never calls fn, or calls it twice.
      skipped: { ...fine, run: () => undefined as never },
      twice: {
        ...fine,
        run: <T>(fn: () => T) => {
          fn();
          return fn();
        },
      },
    };
    for (const [broken, throwing] of Object.entries(traces)) {
      refunds = 0;
      const { run, client: traced } = await setup(
        [
          {
            toolCalls: [
              { name: 'lookup', arguments: { id: 'A1' } },
              { name: 'refund', arguments: {} },
            ],
          },
          { text: 'ok' },
        ],
        { tools: [lookup, refund], onApproval: () => true, tracing: { startCall: () => throwing } },
      );
      const result = await run();
      expect([broken, result.toolCalls.map(({ status, output }) => ({ status, output }))]).toEqual([
        broken,
        [
          { status: 'ok', output: 'order A1: shipped' },
          { status: 'ok', output: 'refunded 1' },
        ],
      ]);
      await traced.close();
    }
  });

  it('sends no trace context and makes no span without the tracing option', async () => {
    const { socket, run } = await setup([
      { toolCalls: [{ name: 'lookup', arguments: { id: 'A1' } }] },
      { text: 'ok' },
    ]);
    await run();
    const hello = socket.sent.find((frame) => frame.type === 'hello');
    expect(hello?.features).not.toContain('trace_context');
    const call = socket.received.find((frame) => frame.type === 'tool_call');
    expect(call && 'traceparent' in call).toBe(false);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('otelTracing() options', () => {
  it('refuses options it cannot use', () => {
    expect(() => otelTracing({ recordInputs: true } as never)).toThrow(
      new OptionsError(
        'unknown_option',
        'otelTracing(): unknown option "recordInputs" (known: tracer, recordArguments, recordOutputs)',
      ),
    );
    expect(() => otelTracing({ tracer: {} as never })).toThrow(
      'otelTracing(): tracer must be an OpenTelemetry Tracer',
    );
    expect(() => otelTracing({ recordOutputs: 'yes' as never })).toThrow(
      'otelTracing(): recordOutputs must be a boolean',
    );
  });
});

describe('parseTraceparent', () => {
  it('reads a version 00 traceparent', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
    });
  });

  it('reads a later version as far as it looks like 00', () => {
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-more')?.traceFlags).toBe(
      0,
    );
  });

  it.each([
    ['not a string', 42],
    ['upper case', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['a zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['a zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['00 with more after the flags', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x'],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
  ])('ignores %s', (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe('the core without OpenTelemetry', () => {
  it('imports @opentelemetry/api only in src/otel', () => {
    const root = fileURLToPath(new URL('../../src', import.meta.url));
    const offenders = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.startsWith('otel'))
      .filter((file) => readFileSync(join(root, file), 'utf8').includes('@opentelemetry'));
    expect(offenders).toEqual([]);
  });
});
