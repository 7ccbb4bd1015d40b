/** Approvals across dropped connections: a decided call is never asked about again, nothing runs twice. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../server-stub/index';
import { tool } from '../../src/index';
import { API_KEY, client, deferred, nextEvent, proxyTo, recordingWebSocket, stub, until } from './harness';

async function decide(httpUrl: string, runId: string, callId: string, approved: boolean) {
  const response = await fetch(`${httpUrl}/v1/runs/${runId}/approvals/${callId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ approved }),
  });
  return response.status;
}

describe('approvals over a flaky connection', () => {
  it('does not ask again for a call already approved when the socket drops while it runs', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] }, { text: 'ok' }]),
    });
    const proxy = await proxyTo(server);
    const started = deferred();
    const release = deferred();
    let executions = 0;
    const refund = tool({
      name: 'refund',
      description: 'Refunds; large amounts need a human.',
      parameters: z.object({ amount: z.number() }),
      needsApproval: (_ctx, { amount }) => amount > 100,
      execute: async () => {
        executions += 1;
        started.resolve();
        await release.promise;
        return 'refunded';
      },
    });
    const recording = recordingWebSocket();
    const worker = client(proxy.url, { tools: [refund], WebSocket: recording.WebSocket });
    await worker.connect();
    const requested = nextEvent<{ callId: string; runId: string }>(worker, 'approval_requested');
    const runId = server.runs.start({ name: 'a', instructions: '', tools: ['refund'] }, 'go');
    const { callId } = await requested;
    await until(() => server.runs.get(runId)?.toolCalls[0]?.state, 'awaiting_approval');
    expect(await decide(server.httpUrl, runId, callId, true)).toBe(200);
    await started.promise;
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    proxy.dropAll();
    expect(await resumed).toMatchObject({ resumed: true });
    // On resume the stub re-sends the call it is owed, with its decision.
    await until(() => recording.received.filter((frame) => frame.type === 'tool_call').length, 3);
    release.resolve();
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls[0]).toMatchObject({ status: 'ok', output: 'refunded' });
    expect(executions).toBe(1);
    expect(recording.sent.filter((frame) => frame.type === 'approval_request')).toEqual([
      { type: 'approval_request', callId },
    ]);
    expect(worker.state).toBe('open');
  });

  it('asks again after a drop for a call still undecided, and runs it once approved', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] }, { text: 'ok' }]),
    });
    const proxy = await proxyTo(server);
    let executions = 0;
    const refund = tool({
      name: 'refund',
      description: 'Refunds; large amounts need a human.',
      parameters: z.object({ amount: z.number() }),
      needsApproval: (_ctx, { amount }) => amount > 100,
      execute: () => {
        executions += 1;
        return 'refunded';
      },
    });
    const recording = recordingWebSocket();
    const worker = client(proxy.url, { tools: [refund], WebSocket: recording.WebSocket });
    await worker.connect();
    const requested = nextEvent<{ callId: string }>(worker, 'approval_requested');
    const runId = server.runs.start({ name: 'a', instructions: '', tools: ['refund'] }, 'go');
    const { callId } = await requested;
    await until(() => server.runs.get(runId)?.toolCalls[0]?.state, 'awaiting_approval');
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    proxy.dropAll();
    expect(await resumed).toMatchObject({ resumed: true });
    await until(() => recording.sent.filter((frame) => frame.type === 'approval_request').length, 2);
    expect(await decide(server.httpUrl, runId, callId, true)).toBe(200);
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls[0]).toMatchObject({ status: 'ok', output: 'refunded' });
    expect(executions).toBe(1);
    expect(recording.sent.filter((frame) => frame.type === 'approval_request')).toEqual([
      { type: 'approval_request', callId },
      { type: 'approval_request', callId },
    ]);
  });
});
