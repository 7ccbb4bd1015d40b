/** Approvals across dropped connections: a decided call is never asked about again, nothing runs twice. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../server-stub/index';
import { Agent, tool } from '../../src/index';
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

  it('rejects decide() too_large when the decided tool_call would be over the frame limit, with no reconnect loop', async () => {
    const server = await stub({
      maxPayloadBytes: 2_048,
      model: scriptedModel([{ toolCalls: [{ name: 'note', arguments: { note: 'n' } }] }, { text: 'ok' }]),
    });
    const ran: number[] = [];
    const note = tool({
      name: 'note',
      description: 'Keeps a note; a human approves it.',
      parameters: z.object({ note: z.string() }),
      needsApproval: true,
      execute: ({ note: text }) => {
        ran.push(text.length);
        return 'kept';
      },
    });
    const worker = client(server.url, { tools: [note] });
    const drops: number[] = [];
    worker.on('disconnected', ({ code }) => drops.push(code));
    await worker.connect();
    const requested = nextEvent<{ callId: string }>(worker, 'approval_requested');
    const run = worker.run(new Agent({ name: 'a', instructions: '', tools: [note] }), 'go');
    const { callId } = await requested;
    // The approval frame fits in 2,048 bytes; the tool_call the stub would send with it does not.
    const refused = worker.decide(callId, { approved: true, arguments: { note: 'a'.repeat(1_800) } });
    await expect(refused).rejects.toMatchObject({
      name: 'ApprovalError',
      code: 'too_large',
      message: expect.stringMatching(
        new RegExp(
          `^decide\\(\\): the decision makes a tool_call of \\d+ bytes for tool call ${callId}, over the frame limit of 2048 bytes$`,
        ),
      ),
    });
    await worker.decide(callId, { approved: true, arguments: { note: 'short' } });
    const result = await run;
    expect(result.toolCalls.map((call) => call.status)).toEqual(['ok']);
    expect(ran).toEqual([5]);
    expect(drops).toEqual([]);
  });

  it('decide() for 300 held calls at once stays within the frame rate the stub announced: no 4029, every call runs', async () => {
    const calls = Array.from({ length: 300 }, (_, n) => ({ name: 'note', arguments: { note: `n${n}` } }));
    // 300 decisions at once against a bucket of 280: a client that did not pace would be closed at once. The client
    // paces to three quarters of the burst, the rest left for frames that reach the service bunched: here the stub
    // reads in the client's own process, so a stall of that process (a GC on a loaded machine) bunches its paced
    // frames. 70 frames at 400 a second leave 175 ms for that (a burst of 200 at 1,000 a second left 50 ms).
    const server = await stub({
      maxFramesPerSecond: 400,
      maxFrameBurst: 280,
      model: scriptedModel([{ toolCalls: calls }, { text: 'ok' }]),
    });
    const ran: string[] = [];
    const note = tool({
      name: 'note',
      description: 'Keeps a note; a human approves it.',
      parameters: z.object({ note: z.string() }),
      needsApproval: true,
      execute: ({ note: text }) => {
        ran.push(text);
        return 'kept';
      },
    });
    const worker = client(server.url, { tools: [note] });
    const drops: string[] = [];
    worker.on('disconnected', ({ code, reason }) => drops.push(`${code} ${reason}`));
    const held: string[] = [];
    worker.on('approval_requested', ({ callId }: { callId: string }) => held.push(callId));
    await worker.connect();
    const run = worker.run(new Agent({ name: 'a', instructions: '', tools: [note] }), 'go');
    await until(() => held.length, 300);
    await Promise.all(held.map((callId) => worker.decide(callId, true))).catch((error: unknown) => {
      throw new Error(`decide() failed (${String(error)}); the socket closed: ${drops.join('; ')}`);
    });
    const result = await run;
    expect(result.toolCalls.map((call) => call.status)).toEqual(calls.map(() => 'ok'));
    expect(ran.sort()).toEqual(calls.map((call) => call.arguments.note).sort());
    expect(drops).toEqual([]);
  });
});
