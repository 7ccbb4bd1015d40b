/**
 * Trace context on `tool_call` (docs/protocol/trace-context.md): sent only with the feature `trace_context`, one trace
 * per
 * top-level run, continued by a nested run, the same `traceparent` on every re-send of a call.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, dropAndWait, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
const traceOf = (traceparent: string | undefined) => TRACEPARENT.exec(traceparent ?? '')?.slice(1) ?? [];

async function started(features: string[] | undefined, calls = 1) {
  const toolCalls = Array.from({ length: calls }, () => ({ name: 'lookup', arguments: {} }));
  const server = await stub({ model: scriptedModel([{ toolCalls }, { text: 'done' }]) });
  const client = track(
    await TestClient.connect(server.url, { tools: [toolDef('lookup')], ...(features ? { features } : {}) }),
  );
  client.send({ type: 'run_start', requestId: 'q1', agent: agent('finder', ['lookup']), input: 'go' });
  await client.next('run_started');
  return { server, client };
}

describe('tool_call.traceparent', () => {
  it('names the run’s trace and a span of the call’s own, with the feature trace_context', async () => {
    const { client } = await started(['trace_context'], 2);
    expect(client.welcome?.features).toEqual(['trace_context']);
    const first = await client.next('tool_call');
    const second = await client.next('tool_call');
    const [traceA, spanA] = traceOf(first.traceparent);
    const [traceB, spanB] = traceOf(second.traceparent);
    expect(traceA).toMatch(/^[0-9a-f]{32}$/);
    expect(traceB).toBe(traceA);
    expect(spanA).toMatch(/^[0-9a-f]{16}$/);
    expect(spanB).not.toBe(spanA);
  });

  it('is not sent to a client that did not offer the feature', async () => {
    const { client } = await started(['progress']);
    const call = await client.next('tool_call');
    // Decoded frames have every field of their type (src/wire/codec.ts): one not sent is `undefined`.
    expect(call.traceparent).toBeUndefined();
    expect(call.tracestate).toBeUndefined();
  });

  it('is the same when the call is sent again after a reconnect', async () => {
    const { server, client } = await started(['trace_context']);
    const call = await client.next('tool_call');
    await dropAndWait(server, client);
    const again = track(
      await TestClient.connect(server.url, {
        tools: [toolDef('lookup')],
        sessionId: client.welcome?.sessionId,
        features: ['trace_context'],
      }),
    );
    const resent = await again.next('tool_call');
    expect(resent.callId).toBe(call.callId);
    expect(resent.traceparent).toBe(call.traceparent);
  });

  it('gives a new trace to each top-level run', async () => {
    const { client } = await started(['trace_context']);
    const first = await client.next('tool_call');
    client.send({ type: 'run_start', requestId: 'q2', agent: agent('finder', ['lookup']), input: 'again' });
    await client.next('run_started');
    const second = await client.next('tool_call');
    expect(traceOf(second.traceparent)[0]).not.toBe(traceOf(first.traceparent)[0]);
  });

  it('continues the trace of the calling run in a nested run', async () => {
    const server = await stub({
      model: scriptedModel({
        outer: [{ toolCalls: [{ name: 'ask_inner', arguments: {} }] }, { text: 'done' }],
        inner: [{ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'found' }],
      }),
    });
    const client = track(
      await TestClient.connect(server.url, {
        tools: [toolDef('ask_inner'), toolDef('lookup')],
        features: ['trace_context'],
      }),
    );
    client.send({ type: 'run_start', requestId: 'q1', agent: agent('outer', ['ask_inner']), input: 'go' });
    const outer = await client.next('run_started');
    const call = await client.next('tool_call');
    client.send({
      type: 'run_start',
      requestId: 'q2',
      agent: agent('inner', ['lookup']),
      input: 'look',
      parentRunId: outer.runId,
      parentCallId: call.callId,
    });
    await client.next('run_started');
    const nested = await client.next('tool_call');
    expect(nested.toolName).toBe('lookup');
    expect(traceOf(nested.traceparent)[0]).toBe(traceOf(call.traceparent)[0]);
  });
});
