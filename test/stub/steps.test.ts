/**
 * Durable steps (docs/protocol/steps.md) and the call's scope (docs/protocol/call-context.md) on the stub, with the
 * protocol-level test
 * client:
 * which `step_result`s it keeps, the steps and scope it sends with a `tool_call`, and nothing of either to a
 * session without the features.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { STEP_LIMITS } from '../../src/wire/protocol';
import { agent, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

async function started(
  features: string[],
  stubFeatures?: NonNullable<Parameters<typeof stub>[0]>['features'],
  maxPayloadBytes?: number,
) {
  const server = await stub({
    ...(stubFeatures === undefined ? {} : { features: stubFeatures }),
    ...(maxPayloadBytes === undefined ? {} : { maxPayloadBytes }),
    model: scriptedModel([{ toolCalls: [{ name: 'provision', arguments: {} }] }, { text: 'done' }]),
  });
  const client = track(await TestClient.connect(server.url, { tools: [toolDef('provision')], features }));
  client.send({ type: 'run_start', requestId: 'q1', agent: agent('Onboarding', ['provision']), input: 'go' });
  const { runId } = await client.next('run_started');
  const call = await client.next('tool_call');
  return { server, client, runId, call };
}

/** Resolves once the stub has handled every frame `client` sent before. */
async function settled(client: TestClient): Promise<void> {
  client.send({ type: 'ping', id: 'sync' });
  await client.next('pong', (frame) => frame.id === 'sync');
}

describe('steps and the call scope on the stub', () => {
  it('sends the session that started the run and its agent with the call (feature call_context)', async () => {
    const { client, call } = await started(['call_context', 'steps']);
    expect(call).toMatchObject({ sessionId: client.welcome?.sessionId, agentName: 'Onboarding' });
    expect(call.steps).toBeUndefined();
  });

  it('gives an older client that offers only the retired agent_name the whole call_context, and names it back', async () => {
    const { client, call } = await started(['agent_name']);
    expect(client.welcome?.features).toEqual(['agent_name']);
    expect(call).toMatchObject({ sessionId: client.welcome?.sessionId, agentName: 'Onboarding' });
  });

  it('reads the retired agent_name in its features option as call_context', async () => {
    const { client, call } = await started(['call_context'], ['agent_name']);
    expect(client.welcome?.features).toEqual(['call_context']);
    expect(call).toMatchObject({ sessionId: client.welcome?.sessionId, agentName: 'Onboarding' });
  });

  it('names back each offered name whose feature it uses, retired ones too', async () => {
    const { client } = await started(['call_context', 'agent_name', 'telepathy']);
    expect(client.welcome?.features).toEqual(['call_context', 'agent_name']);
  });

  it('sends neither scope nor steps to a session without the features', async () => {
    const { call } = await started([]);
    // Decoded frames have every field of their type (src/wire/codec.ts): one not sent is `undefined`.
    expect(call.sessionId).toBeUndefined();
    expect(call.agentName).toBeUndefined();
    expect(call.steps).toBeUndefined();
  });

  it('keeps the first result of each key within the limits, and sends the steps with the call again', async () => {
    const { server, client, runId, call } = await started(['steps']);
    const step = (key: string, result: unknown) =>
      client.send({ type: 'step_result', callId: call.callId, key, result });
    step('reserve', { accountId: 'acct_1' });
    step('reserve', { accountId: 'acct_2' }); // a repeat: the first result stays
    step('huge', 'x'.repeat(STEP_LIMITS.maxResultBytes)); // over the limit once written as JSON: ignored
    step('welcome', 'sent');
    client.send({ type: 'step_result', callId: 'call_unknown', key: 'reserve', result: 1 });
    await settled(client);
    const kept = { reserve: { accountId: 'acct_1' }, welcome: 'sent' };
    expect(server.runs.get(runId)?.toolCalls[0]?.steps).toEqual(kept);
    // A resumed session gets the calls it owes results for again, now with their steps.
    await client.reconnect();
    const again = await client.next('tool_call', (frame) => frame.steps !== undefined);
    expect(again).toMatchObject({ callId: call.callId, steps: kept });
  });

  it('keeps no step_result from a session the call is not dispatched to, and tells it to stop the call', async () => {
    const { server, client, runId, call } = await started(['steps']);
    const other = track(
      await TestClient.connect(server.url, { tools: [toolDef('provision')], features: ['steps'] }),
    );
    other.send({ type: 'step_result', callId: call.callId, key: 'reserve', result: 'not mine' });
    await settled(other);
    await settled(client);
    expect(server.runs.get(runId)?.toolCalls[0]?.steps).toBeUndefined();
    expect(other.all('cancel')).toEqual([{ type: 'cancel', callId: call.callId, reason: 'not_dispatched' }]);
    expect(client.all('cancel')).toEqual([]);
  });

  it('does not keep a step whose result would take the call over the frame limit, so the call can be sent again', async () => {
    const { server, client, runId, call } = await started(['steps'], undefined, 1_024);
    const step = (key: string, result: unknown) =>
      client.send({ type: 'step_result', callId: call.callId, key, result });
    step('first', 'a'.repeat(200));
    step('second', 'b'.repeat(200));
    step('third', 'c'.repeat(200));
    await settled(client);
    const kept = { first: 'a'.repeat(200), second: 'b'.repeat(200) };
    expect(server.runs.get(runId)?.toolCalls[0]?.steps).toEqual(kept);
    await client.reconnect();
    expect(await client.next('tool_call', (frame) => frame.steps !== undefined)).toMatchObject({
      callId: call.callId,
      steps: kept,
    });
  });
});
