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
