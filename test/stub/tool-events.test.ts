/** Tool events (docs/protocol/updates.md) on the stub, with the protocol-level test client. */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, dropAndWait, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

async function running(features: string[] = ['events']) {
  const server = await stub({
    model: scriptedModel([{ toolCalls: [{ name: 'export' }] }, { text: 'done' }]),
  });
  const client = track(await TestClient.connect(server.url, { tools: [toolDef('export')], features }));
  client.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['export']), input: 'go' });
  const { runId } = await client.next('run_started');
  const call = await client.next('tool_call');
  return { server, client, runId, call };
}

const toolEvents = (server: Awaited<ReturnType<typeof running>>['server'], runId: string) =>
  (server.runs.get(runId)?.events ?? [])
    .filter((event) => event.kind === 'tool_event')
    .map((event) => event.data);

describe('tool_event', () => {
  it('records each event once, in order, across a resume that sends them again', async () => {
    const { server, client, runId, call } = await running();
    client.send({ type: 'tool_event', callId: call.callId, seq: 1, event: 'export.started' });
    client.send({
      type: 'tool_event',
      callId: call.callId,
      seq: 2,
      event: 'rows.exported',
      data: { rows: 10 },
    });
    await client.next(
      'run_event',
      (frame) =>
        frame.event.kind === 'tool_event' &&
        frame.seq !== undefined &&
        (frame.event.data as { event: string }).event === 'rows.exported',
    );
    await dropAndWait(server, client);
    await client.reconnect();
    for (const [seq, event] of [
      [1, 'export.started'],
      [2, 'rows.exported'],
      [3, 'export.done'],
    ] as const) {
      client.send({
        type: 'tool_event',
        callId: call.callId,
        seq,
        event,
        ...(seq === 2 ? { data: { rows: 10 } } : {}),
      });
    }
    client.result(call.callId, 'ok');
    await client.next('run_result');
    expect(toolEvents(server, runId)).toEqual([
      { callId: call.callId, toolName: 'export', event: 'export.started' },
      { callId: call.callId, toolName: 'export', event: 'rows.exported', data: { rows: 10 } },
      { callId: call.callId, toolName: 'export', event: 'export.done' },
    ]);
  });

  it('replaces data over 16,384 bytes, and sends tool_event run events only to an owner with the feature', async () => {
    const { server, client, runId, call } = await running(['progress']);
    client.send({ type: 'tool_event', callId: call.callId, seq: 1, event: 'blob', data: 'x'.repeat(20_000) });
    client.result(call.callId, 'ok');
    await client.next('run_result');
    expect(toolEvents(server, runId)).toEqual([
      { callId: call.callId, toolName: 'export', event: 'blob', data: { truncated: true, bytes: 20_002 } },
    ]);
    expect(client.all('run_event').map((frame) => frame.event.kind)).not.toContain('tool_event');
  });
});
