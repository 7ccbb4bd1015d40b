import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

type Stub = Awaited<ReturnType<typeof stub>>;

/** A run with a call in flight and a nested run with a call in flight, both started by one client. */
async function nestedRuns(server: Stub) {
  const client = track(await TestClient.connect(server.url, { tools: [toolDef('wait')] }));
  client.send({ type: 'run_start', requestId: 'outer', agent: agent('a', ['wait']), input: 'go' });
  const { runId: outer } = await client.next('run_started');
  const outerCall = await client.next('tool_call');
  client.send({
    type: 'run_start',
    requestId: 'inner',
    agent: agent('a', ['wait']),
    input: 'go',
    parentRunId: outer,
  });
  const { runId: inner } = await client.next('run_started');
  const innerCall = await client.next('tool_call', (frame) => frame.runId === inner);
  const ended = {
    outer: once(server, 'run_finished', (transcript) => transcript.runId === outer),
    inner: once(server, 'run_finished', (transcript) => transcript.runId === inner),
  };
  return { client, outer, inner, outerCall, innerCall, ended };
}

describe('how a run ends', () => {
  it('at shutdown, tells the calls in flight of the run and of its nested run that the service is going away', async () => {
    const server = await stub({ model: scriptedModel([{ toolCalls: [{ name: 'wait' }] }]) });
    const { client, outerCall, innerCall, ended } = await nestedRuns(server);
    const closed = server.close();
    expect(await client.next('cancel', (frame) => frame.callId === outerCall.callId)).toEqual({
      type: 'cancel',
      callId: outerCall.callId,
      reason: 'service',
    });
    expect(await client.next('cancel', (frame) => frame.callId === innerCall.callId)).toEqual({
      type: 'cancel',
      callId: innerCall.callId,
      reason: 'service',
    });
    expect(await ended.outer).toMatchObject({
      status: 'cancelled',
      error: 'the run was cancelled: the service shut down',
    });
    expect(await ended.inner).toMatchObject({
      status: 'cancelled',
      error: 'the run was cancelled: the service shut down',
    });
    await closed;
  });

  it('treats a cancel whose reason reads like a shutdown as a cancel, not a shutdown', async () => {
    const server = await stub({ model: scriptedModel([{ toolCalls: [{ name: 'wait' }] }]) });
    const { client, outer, outerCall, innerCall, ended } = await nestedRuns(server);
    client.send({ type: 'run_cancel', runId: outer, reason: 'the service shut down' });
    expect(await ended.outer).toMatchObject({
      status: 'cancelled',
      error: 'the run was cancelled: the service shut down',
    });
    expect(await ended.inner).toMatchObject({
      status: 'cancelled',
      error: `the run was cancelled: its parent run ${outer} is cancelled`,
    });
    for (const call of [outerCall, innerCall]) {
      expect(await client.next('cancel', (frame) => frame.callId === call.callId)).toEqual({
        type: 'cancel',
        callId: call.callId,
        reason: 'run_cancelled',
      });
    }
  });
});

describe('the order of a run cancel', () => {
  it('cancels the calls not sent first, then the sent ones most recently sent first, in one write', async () => {
    const toolCalls = ['c0', 'c1', 'c2', 'c3', 'c4'].map((id) => ({ name: 'wait', arguments: { id } }));
    const server = await stub({ model: scriptedModel([{ toolCalls }]) });
    // Two running and one queued in the client; the other two wait in the service.
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('wait')], maxConcurrency: 2, maxQueue: 1 }),
    );
    const runId = server.runs.start(agent('a', ['wait']), 'go');
    const sent = [];
    for (let i = 0; i < 3; i += 1) sent.push((await client.next('tool_call')).callId);
    // The writes of the service's end of the socket (every TCP socket but the client's) while it cancels.
    const writes = countWrites((client.ws as unknown as { _socket: Socket })._socket);
    try {
      expect(server.runs.cancel(runId)).toBe(true);
    } finally {
      writes.stop();
    }
    const cancels = [];
    for (let i = 0; i < 3; i += 1) cancels.push(await client.next('cancel'));
    // A cancel that freed a slot first would let the queued call start before its own cancel is read.
    expect(cancels).toEqual(
      sent.reverse().map((callId) => ({ type: 'cancel', callId, reason: 'run_cancelled' })),
    );
    expect(writes.count).toBe(1);
    // The calls that waited in the service were never sent.
    expect(client.all('tool_call')).toHaveLength(3);
  });
});

/** Counts the writes to the TCP socket of every socket but `except` (`_write` and `_writev` of Node's streams). */
function countWrites(except: Socket): { readonly count: number; stop(): void } {
  const proto = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const original = { _write: proto._write, _writev: proto._writev };
  const counted = { count: 0, stop: () => Object.assign(proto, original) };
  for (const name of ['_write', '_writev'] as const) {
    proto[name] = function (this: Socket, ...args: unknown[]) {
      if (this !== except) counted.count += 1;
      return original[name].apply(this, args);
    };
  }
  return counted;
}
