import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, http, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const lastToolMessage = ({ messages }: { messages: readonly { role: string; content: string }[] }) => ({
  text: messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '(none)',
});

const refundModel = () =>
  scriptedModel([{ toolCalls: [{ name: 'refund', arguments: { amount: 42 } }] }, lastToolMessage]);

/** The model's text for a call too large to send (src/tool/model-text.ts), checked against the 1024-byte limit. */
function tooLargeText(output: string | undefined): string {
  const match =
    /^Error running refund: the arguments were too large for this worker: the tool call would be ([\d,]+) bytes, over its frame limit of 1,024 bytes$/.exec(
      output ?? '',
    );
  expect(match, output).not.toBeNull();
  expect(Number(match?.[1]?.replaceAll(',', ''))).toBeGreaterThan(1024);
  return output as string;
}

async function heldCall(server: Awaited<ReturnType<typeof stub>>, runId: string) {
  const event = await once(
    server,
    'run_event',
    (info) => info.runId === runId && info.kind === 'approval_requested',
  );
  return (event.data as { callId: string }).callId;
}

describe('approvals', () => {
  it('holds a needsApproval call until the run owner approves it over the socket', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] }));
    client.send({ type: 'run_start', requestId: 'q', agent: agent('a', ['refund']), input: 'refund it' });
    const { runId } = await client.next('run_started');
    const requested = await client.next('run_event', (frame) => frame.event.kind === 'approval_requested');
    const { callId } = requested.event.data as { callId: string };
    expect(requested).toEqual({
      type: 'run_event',
      runId,
      // turn, message, tool_call, then this one.
      seq: 4,
      event: {
        kind: 'approval_requested',
        data: { callId, toolName: 'refund', arguments: { amount: 42 }, requestedBy: 'definition' },
      },
    });
    expect(client.all('tool_call')).toEqual([]);
    client.send({ type: 'approval', callId, approved: true });
    const call = await client.next('tool_call');
    expect(call).toMatchObject({ callId, toolName: 'refund', approved: true, arguments: { amount: 42 } });
    client.result(callId, 'refunded 42');
    const result = await client.next('run_result');
    expect(result.finalOutput).toBe('refunded 42');
    expect(client.all('run_event').map((frame) => frame.event.kind)).toContain('approval_decided');
    expect(server.runs.get(runId)?.toolCalls[0]?.approval).toEqual({
      requestedBy: 'definition',
      requestedAt: expect.any(String),
      decision: { approved: true, by: 'socket', at: expect.any(String) },
    });
  });

  it('runs a call approved over HTTP', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const callId = await heldCall(server, runId);
    expect(
      await http(server, 'POST', `/v1/runs/${runId}/approvals/${callId}`, { approved: true }),
    ).toMatchObject({
      status: 200,
      body: { runId, callId, approved: true },
    });
    const call = await client.next('tool_call');
    expect(call.approved).toBe(true);
    client.result(callId, 'refunded');
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('refunded');
  });

  it('sends a rejection with its reason, and the model reads the client rejected text', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] })).serve({
      refund: () => 'refunded',
    });
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const callId = await heldCall(server, runId);
    const decided = await http(server, 'POST', `/v1/runs/${runId}/approvals/${callId}`, {
      approved: false,
      reason: 'too much',
    });
    expect(decided).toMatchObject({
      status: 200,
      body: { runId, callId, approved: false, reason: 'too much' },
    });
    const transcript = await server.runs.waitFor(runId);
    expect(client.all('tool_call')[0]).toMatchObject({ callId, approved: false, reason: 'too much' });
    expect(client.executions.size).toBe(0);
    expect(transcript.toolCalls[0]).toMatchObject({
      status: 'rejected',
      output: 'refund was not run: the user declined. Reason: too much',
    });
  });

  it('refuses a second decision with 409 or not_allowed, and runs the call once', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] })).serve({
      refund: () => 'refunded',
    });
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const callId = await heldCall(server, runId);
    expect(
      (await http(server, 'POST', `/v1/runs/${runId}/approvals/${callId}`, { approved: true })).status,
    ).toBe(200);
    expect(
      await http(server, 'POST', `/v1/runs/${runId}/approvals/${callId}`, { approved: false }),
    ).toMatchObject({
      status: 409,
      body: { error: { code: 'not_allowed', message: `tool call ${callId} was already approved` } },
    });
    client.send({ type: 'approval', callId, approved: true });
    expect(await client.next('error')).toEqual({
      type: 'error',
      code: 'not_allowed',
      message: `tool call ${callId} was already approved`,
      callId,
    });
    await server.runs.waitFor(runId);
    expect(client.executions.get(callId)).toBe(1);
    expect(client.all('tool_call').length).toBe(1);
  });

  it('refuses a decision after the run was cancelled, and dispatches nothing', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const callId = await heldCall(server, runId);
    expect(await http(server, 'POST', `/v1/runs/${runId}/cancel`, { reason: 'changed my mind' })).toEqual({
      status: 200,
      body: { runId, status: 'cancelled' },
      headers: expect.anything(),
    });
    expect(
      await http(server, 'POST', `/v1/runs/${runId}/approvals/${callId}`, { approved: true }),
    ).toMatchObject({
      status: 409,
      body: {
        error: { code: 'not_allowed', message: `tool call ${callId} was cancelled; nothing will run` },
      },
    });
    client.send({ type: 'approval', callId, approved: true });
    expect((await client.next('error')).message).toBe(`tool call ${callId} was cancelled; nothing will run`);
    expect(client.all('tool_call')).toEqual([]);
    expect(server.runs.get(runId)).toMatchObject({
      status: 'cancelled',
      error: 'the run was cancelled: changed my mind',
      toolCalls: [{ status: 'cancelled', output: 'Error running refund: the call was cancelled' }],
    });
  });

  it('holds a call the client asks approval for, with the deadline stopped, and sends the decision to that client', async () => {
    const server = await stub({ callDeadlineMs: 60, model: refundModel() });
    const asker = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    const approver = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const call = await asker.next('tool_call');
    expect(call.approved).toBeUndefined();
    asker.send({ type: 'approval_request', callId: call.callId, reason: 'over 10' });
    const event = await once(server, 'run_event', (info) => info.kind === 'approval_requested');
    expect(event.data).toEqual({
      callId: call.callId,
      toolName: 'refund',
      arguments: { amount: 42 },
      requestedBy: 'client',
      reason: 'over 10',
    });
    // A repeated request (what a client re-sends after a reconnect) changes nothing.
    asker.send({ type: 'approval_request', callId: call.callId, reason: 'over 10' });
    // Longer than the deadline: a held call has none.
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(server.runs.get(runId)?.toolCalls[0]?.state).toBe('awaiting_approval');
    approver.send({ type: 'approval', callId: call.callId, approved: true, reason: 'fine' });
    const decided = await asker.next('tool_call');
    expect(decided).toMatchObject({ callId: call.callId, approved: true, reason: 'fine' });
    expect(decided.deadlineMs).toBeGreaterThan(40);
    asker.result(call.callId, 'refunded');
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('refunded');
    expect(approver.all('tool_call')).toEqual([]);
    expect(approver.all('error')).toEqual([]);
  });

  it('keeps a held call held when the client that asked answers busy, and sends the decision to another client', async () => {
    const server = await stub({ model: refundModel() });
    const asker = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const call = await asker.next('tool_call');
    asker.send({ type: 'approval_request', callId: call.callId, reason: 'over 10' });
    await once(server, 'run_event', (info) => info.kind === 'approval_requested');
    // The asker drains: it gives the call back with the busy answer.
    asker.result(call.callId, 'Error running refund: the client is shutting down; try again later', {
      status: 'error',
      retryable: true,
    });
    expect(await asker.next('ack')).toMatchObject({ callId: call.callId });
    expect(server.runs.get(runId)?.toolCalls[0]).toMatchObject({
      state: 'awaiting_approval',
      dispatchedTo: [asker.welcome?.sessionId],
    });
    const other = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    expect(
      await http(server, 'POST', `/v1/runs/${runId}/approvals/${call.callId}`, { approved: true }),
    ).toMatchObject({ status: 200 });
    const decided = await other.next('tool_call');
    expect(decided).toMatchObject({ callId: call.callId, approved: true });
    other.result(call.callId, 'refunded');
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('refunded');
    expect(server.runs.get(runId)?.toolCalls[0]).toMatchObject({
      status: 'ok',
      answeredBy: other.welcome?.sessionId,
    });
    expect(asker.all('tool_call')).toHaveLength(1);
    expect(asker.all('error')).toEqual([]);
  });

  it('cancels a call held after the client asked approval when its run is cancelled', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const call = await client.next('tool_call');
    client.send({ type: 'approval_request', callId: call.callId });
    await once(server, 'run_event', (info) => info.kind === 'approval_requested');
    expect(server.runs.cancel(runId)).toBe(true);
    expect(await client.next('cancel')).toEqual({
      type: 'cancel',
      callId: call.callId,
      reason: 'run_cancelled',
    });
    client.send({ type: 'approval', callId: call.callId, approved: true });
    expect((await client.next('error')).message).toBe(
      `tool call ${call.callId} was cancelled; nothing will run`,
    );
  });

  it('sends needsApproval calls undecided to a client that decides approvals locally', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('refund', true)], localApprovals: true }),
    );
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const call = await client.next('tool_call');
    expect(call.approved).toBeUndefined();
    client.result(call.callId, 'refund was not run: the user declined.', { status: 'rejected' });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.events.map((event) => event.kind)).not.toContain('approval_requested');
    expect(transcript.toolCalls[0]?.status).toBe('rejected');
  });

  it('answers 404 for an unknown call and 409 for a call that is not held', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const call = await client.next('tool_call');
    expect(await http(server, 'POST', `/v1/runs/${runId}/approvals/nope`, { approved: true })).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_call', message: `no tool call "nope" in run ${runId}` } },
    });
    expect(
      await http(server, 'POST', `/v1/runs/${runId}/approvals/${call.callId}`, { approved: true }),
    ).toMatchObject({
      status: 409,
      body: { error: { code: 'not_allowed', message: `tool call ${call.callId} is not awaiting approval` } },
    });
    expect(
      await http(server, 'POST', `/v1/runs/nope/approvals/${call.callId}`, { approved: true }),
    ).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_run', message: 'no run "nope"' } },
    });
    expect(
      await http(server, 'POST', `/v1/runs/${runId}/approvals/${call.callId}`, { approved: 'yes' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'approved must be a boolean' } },
    });
    client.send({ type: 'approval', callId: 'nope', approved: true });
    expect(await client.next('error')).toEqual({
      type: 'error',
      code: 'unknown_call',
      message: 'no tool call "nope"',
      callId: 'nope',
    });
  });

  it('refuses a result for a held call from a client, so nothing bypasses the decision', async () => {
    const server = await stub({ model: refundModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const callId = await heldCall(server, runId);
    client.result(callId, 'refunded anyway');
    expect(await client.next('error')).toEqual({
      type: 'error',
      code: 'not_allowed',
      message: `tool call ${callId} is awaiting approval`,
      callId,
    });
    expect(server.runs.get(runId)?.toolCalls[0]?.state).toBe('awaiting_approval');
  });

  it('decides a call of a nested run through the outer run id', async () => {
    const server = await stub({
      model: scriptedModel({
        outer: [{ toolCalls: [{ name: 'ask_clerk' }] }, lastToolMessage],
        clerk: [{ toolCalls: [{ name: 'refund', arguments: { amount: 42 } }] }, lastToolMessage],
      }),
    });
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('ask_clerk'), toolDef('refund', true)] }),
    );
    client.send({ type: 'run_start', requestId: 'outer', agent: agent('outer', ['ask_clerk']), input: 'go' });
    const { runId: outerId } = await client.next('run_started');
    const ask = await client.next('tool_call');
    client.send({
      type: 'run_start',
      requestId: 'inner',
      agent: agent('clerk', ['refund']),
      input: 'refund',
      parentRunId: outerId,
      parentCallId: ask.callId,
    });
    const { runId: innerId } = await client.next('run_started', (frame) => frame.requestId === 'inner');
    const requested = await client.next(
      'run_event',
      (frame) => frame.runId === innerId && frame.event.kind === 'approval_requested',
    );
    const { callId } = requested.event.data as { callId: string };
    expect(
      await http(server, 'POST', `/v1/runs/${outerId}/approvals/${callId}`, { approved: true }),
    ).toMatchObject({
      status: 200,
      body: { runId: outerId, callId, approved: true },
    });
    expect(await client.next('tool_call', (frame) => frame.callId === callId)).toMatchObject({
      runId: innerId,
      approved: true,
      depth: 1,
    });
  });

  it('refuses with 413 or error too_large a decision whose tool_call would be over the frame limit, and keeps the call held', async () => {
    const server = await stub({ model: refundModel(), maxPayloadBytes: 1024 });
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('refund', true)], features: ['decisions'] }),
    );
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const callId = await heldCall(server, runId);
    const decide = (body: unknown) => http(server, 'POST', `/v1/runs/${runId}/approvals/${callId}`, body);
    const refused = await decide({ approved: false, reason: 'r'.repeat(1_000) });
    expect(refused).toMatchObject({
      status: 413,
      body: {
        error: {
          code: 'too_large',
          message: expect.stringMatching(
            new RegExp(
              `^the decision makes a tool_call of \\d+ bytes for tool call ${callId}, over the frame limit of 1024 bytes$`,
            ),
          ),
        },
      },
    });
    expect(
      (await decide({ approved: true, arguments: { amount: 42, note: 'n'.repeat(1_000) } })).status,
    ).toBe(413);
    // Over the socket, the approval frame itself fits; the tool_call carrying it would not.
    client.send({
      type: 'approval',
      callId,
      approved: true,
      requestId: 'd1',
      arguments: { amount: 42, note: 'n'.repeat(850) },
    });
    expect(await client.next('error')).toMatchObject({ code: 'too_large', callId, requestId: 'd1' });
    expect(server.runs.get(runId)?.toolCalls[0]).toMatchObject({ state: 'awaiting_approval' });
    expect(server.runs.get(runId)?.toolCalls[0]?.approval?.decision).toBeUndefined();
    expect(client.all('tool_call')).toEqual([]);
    expect((await decide({ approved: true })).status).toBe(200);
    expect(await client.next('tool_call')).toMatchObject({ callId, approved: true });
  });

  it('ends at once, as an error the model reads, a call whose tool_call would be over the frame limit', async () => {
    const server = await stub({
      maxPayloadBytes: 1024,
      // Far beyond the test's own timeout: the call must not wait for it.
      callDeadlineMs: 60_000,
      model: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { note: 'n'.repeat(2_000) } }] },
        lastToolMessage,
      ]),
    });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const transcript = await server.runs.waitFor(runId);
    const text = tooLargeText(transcript.toolCalls[0]?.output);
    expect(transcript).toMatchObject({
      status: 'completed',
      finalOutput: text,
      toolCalls: [{ status: 'error', output: text, dispatchedTo: [client.sessionId] }],
    });
    expect(client.all('tool_call')).toEqual([]);
    expect(server.log).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: expect.stringMatching(
          /^tool call call_\S+ ends: its tool_call would be \d+ bytes, over the frame limit$/,
        ),
      }),
    );
  });

  it('asks nobody to approve a call whose tool_call would be over the frame limit: it ends at once', async () => {
    const server = await stub({
      maxPayloadBytes: 1024,
      callDeadlineMs: 60_000,
      model: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { note: 'n'.repeat(2_000) } }] },
        lastToolMessage,
      ]),
    });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const transcript = await server.runs.waitFor(runId);
    const text = tooLargeText(transcript.toolCalls[0]?.output);
    expect(transcript.status).toBe('completed');
    expect(transcript.toolCalls[0]).toMatchObject({ status: 'error', output: text, dispatchedTo: [] });
    expect(transcript.toolCalls[0]?.approval).toBeUndefined();
    expect(transcript.events.map((event) => event.kind)).not.toContain('approval_requested');
    expect(client.all('tool_call')).toEqual([]);
  });

  it('ends at once a call re-dispatched to a worker whose tool_call for it would be over the frame limit', async () => {
    // The second call is sized to fit a plain worker's frame and not one with the call_context fields.
    let note = '';
    const server = await stub({
      maxPayloadBytes: 1024,
      callDeadlineMs: 60_000,
      model: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { note: '' } }] },
        () => ({ toolCalls: [{ name: 'refund', arguments: { note } }] }),
        lastToolMessage,
      ]),
    });
    const plain = track(await TestClient.connect(server.url, { tools: [toolDef('refund')] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const probe = await plain.next('tool_call');
    note = 'n'.repeat(1024 - Buffer.byteLength(JSON.stringify(probe)) - 16);
    plain.result(probe.callId, 'done');
    const big = await plain.next('tool_call', (frame) => frame.callId !== probe.callId);
    expect(big.arguments).toEqual({ note });
    const rich = track(
      await TestClient.connect(server.url, { tools: [toolDef('refund')], features: ['call_context'] }),
    );
    // Closed with 1000: the session ends at once, and its call goes to the other worker.
    await plain.close();
    const transcript = await server.runs.waitFor(runId);
    const text = tooLargeText(transcript.toolCalls[1]?.output);
    expect(transcript.status).toBe('completed');
    expect(transcript.toolCalls[1]).toMatchObject({
      status: 'error',
      output: text,
      dispatchedTo: [plain.sessionId, rich.sessionId],
    });
    expect(rich.all('tool_call')).toEqual([]);
  });
});
