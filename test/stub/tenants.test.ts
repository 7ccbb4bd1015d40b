/**
 * The stub is multi-tenant per API key (server-stub/tenants.ts): a run's calls go only to sessions of its key;
 * another key's runs, transcripts, approvals, questions and calls read as unknown, over HTTP and over the socket.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, http, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const K1 = 'tenant-one-key-0001';
const K2 = 'tenant-two-key-0002';

async function twoTenants() {
  const server = await stub({
    apiKeys: [K1, K2],
    agents: [agent('Clerk', ['lookup'])],
    model: scriptedModel([
      { toolCalls: [{ name: 'lookup', arguments: { q: 'secret of one' } }] },
      { text: 'done' },
    ]),
  });
  // Tenant two connects first and is idle: without tenants it would get tenant one's calls (oldest, fewest).
  const two = track(await TestClient.connect(server.url, { apiKey: K2, tools: [toolDef('lookup')] }));
  const one = track(await TestClient.connect(server.url, { apiKey: K1, tools: [toolDef('lookup')] }));
  return { server, one, two };
}

describe('a stub with several API keys', () => {
  it('gives a run calls only to sessions of its own key, and counts only them in /v1/agents', async () => {
    const { server, one, two } = await twoTenants();
    const started = await http(server, 'POST', '/v1/runs', { agent: 'Clerk', input: 'go' }, K1);
    expect(started.status).toBe(201);
    const call = await one.next('tool_call');
    expect(call.arguments).toEqual({ q: 'secret of one' });
    expect(two.all('tool_call')).toEqual([]);
    const agents = (await http(server, 'GET', '/v1/agents', undefined, K2)).body as { clients: number };
    expect(agents.clients).toBe(1);
    one.result(call.callId, 'found');
    await one.next('ack');
  });

  it('shows another key nothing of a run: list, transcript, events, cancel, approvals and answers are unknown', async () => {
    const { server, one } = await twoTenants();
    const { runId } = (await http(server, 'POST', '/v1/runs', { agent: 'Clerk', input: 'go' }, K1)).body as {
      runId: string;
    };
    const call = await one.next('tool_call');
    expect(((await http(server, 'GET', '/v1/runs', undefined, K2)).body as { runs: unknown[] }).runs).toEqual(
      [],
    );
    expect(
      ((await http(server, 'GET', '/v1/runs', undefined, K1)).body as { runs: unknown[] }).runs,
    ).toHaveLength(1);
    const unknownRun = { error: { code: 'unknown_run', message: `no run ${JSON.stringify(runId)}` } };
    for (const [method, path, body] of [
      ['GET', `/v1/runs/${runId}`, undefined],
      ['GET', `/v1/runs/${runId}/events`, undefined],
      ['POST', `/v1/runs/${runId}/cancel`, {}],
      ['POST', `/v1/runs/${runId}/approvals/${call.callId}`, { approved: true }],
      ['POST', `/v1/runs/${runId}/calls/${call.callId}/questions/q1`, { answer: 'x' }],
    ] as const) {
      expect(await http(server, method, path, body, K2)).toMatchObject({ status: 404, body: unknownRun });
    }
    expect((await http(server, 'GET', `/v1/runs/${runId}`, undefined, K1)).status).toBe(200);
    one.result(call.callId, 'found');
    await one.next('ack');
  });

  it('refuses over the socket, as unknown, a result, an approval or a nested run_start for another key', async () => {
    const { server, one, two } = await twoTenants();
    const { runId } = (await http(server, 'POST', '/v1/runs', { agent: 'Clerk', input: 'go' }, K1)).body as {
      runId: string;
    };
    const call = await one.next('tool_call');
    two.send({ type: 'tool_result', callId: call.callId, status: 'ok', output: 'forged by two' });
    expect(await two.next('error')).toMatchObject({ code: 'unknown_call', callId: call.callId });
    two.send({ type: 'approval', callId: call.callId, approved: false });
    expect(await two.next('error')).toMatchObject({ code: 'unknown_call', callId: call.callId });
    two.send({ type: 'approval_request', callId: call.callId });
    expect(await two.next('error')).toMatchObject({ code: 'unknown_call', callId: call.callId });
    two.send({ type: 'run_cancel', runId });
    expect(await two.next('error')).toMatchObject({ code: 'unknown_run', runId });
    two.send({
      type: 'run_start',
      requestId: 'q1',
      agent: agent('Clerk', ['lookup']),
      input: 'x',
      parentRunId: runId,
    });
    expect(await two.next('error')).toMatchObject({ code: 'unknown_run', requestId: 'q1' });
    one.result(call.callId, 'the real result');
    await one.next('ack');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls).toMatchObject([
      { callId: call.callId, status: 'ok', output: 'the real result' },
    ]);
  });

  it('without apiKeys, every key is the one tenant (a local dev stub)', async () => {
    const server = await stub({
      agents: [agent('Clerk', ['lookup'])],
      model: scriptedModel([{ toolCalls: [{ name: 'lookup' }] }, { text: 'done' }]),
    });
    const worker = track(
      await TestClient.connect(server.url, { apiKey: 'any-key-at-all', tools: [toolDef('lookup')] }),
    );
    await http(server, 'POST', '/v1/runs', { agent: 'Clerk', input: 'go' });
    const call = await worker.next('tool_call');
    expect(((await http(server, 'GET', '/v1/runs')).body as { runs: unknown[] }).runs).toHaveLength(1);
    worker.result(call.callId, 'ok');
    await worker.next('ack');
  });
});
