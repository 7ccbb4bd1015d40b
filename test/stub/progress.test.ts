/**
 * Feature negotiation (docs/protocol/index.md) and call progress (docs/protocol/updates.md) on the stub, with the
 * protocol-level test
 * client.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, dropAndWait, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const exportScript = () =>
  scriptedModel([{ toolCalls: [{ name: 'export', arguments: {} }] }, { text: 'exported' }]);

describe('feature negotiation', () => {
  it('answers with the offered features it knows, ignoring unknown names', async () => {
    const server = await stub();
    const client = track(await TestClient.connect(server.url, { features: ['progress', 'teleport'] }));
    expect(client.welcome?.features).toEqual(['progress']);
  });

  it('says nothing of features to a client that offered none, and uses none the stub was told not to', async () => {
    const server = await stub();
    const old = track(await TestClient.connect(server.url));
    expect(old.welcome && 'features' in old.welcome).toBe(false);
    const plain = await stub({ features: [] });
    const offering = track(await TestClient.connect(plain.url, { features: ['progress'] }));
    expect(offering.welcome?.features).toEqual([]);
  });

  it('refuses an unknown feature in its own options', async () => {
    await expect(stub({ features: ['nope' as never] })).rejects.toThrow(
      /^startStubServer: features: unknown feature "nope" \(known: progress, preliminary, lease, questions, [a-z_]+(?:, [a-z_]+)*\)$/,
    );
  });
});

describe('tool_progress', () => {
  async function started(features: string[] | undefined) {
    const server = await stub({ model: exportScript() });
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], ...(features ? { features } : {}) }),
    );
    client.send({
      type: 'run_start',
      requestId: 'q1',
      agent: agent('exporter', ['export']),
      input: 'go',
    });
    const { runId } = await client.next('run_started');
    const call = await client.next('tool_call');
    return { server, client, runId, call };
  }

  it('becomes a run event for the owner, the latest is in the transcript, and a repeated seq counts once', async () => {
    const { server, client, runId, call } = await started(['progress']);
    client.send({
      type: 'tool_progress',
      callId: call.callId,
      seq: 1,
      progress: 1,
      total: 4,
      message: 'one',
    });
    client.send({
      type: 'tool_progress',
      callId: call.callId,
      seq: 1,
      progress: 1,
      total: 4,
      message: 'one',
    });
    client.send({ type: 'tool_progress', callId: call.callId, seq: 2, progress: 3, total: 4 });
    const second = await client.next(
      'run_event',
      (frame) =>
        frame.event.kind === 'tool_progress' && (frame.event.data as { progress: number }).progress === 3,
    );
    expect(second.event.data).toEqual({ callId: call.callId, toolName: 'export', progress: 3, total: 4 });
    const progress = server.runs
      .get(runId)
      ?.toolCalls.find((entry) => entry.callId === call.callId)?.progress;
    expect(progress).toMatchObject({ progress: 3, total: 4 });
    client.result(call.callId, 'done');
    await client.next('run_result');
    const events = (server.runs.get(runId)?.events ?? []).filter((event) => event.kind === 'tool_progress');
    expect(events.map((event) => event.data)).toEqual([
      { callId: call.callId, toolName: 'export', progress: 1, total: 4, message: 'one' },
      { callId: call.callId, toolName: 'export', progress: 3, total: 4 },
    ]);
    expect(client.all('run_event').filter((f) => f.event.kind === 'tool_progress')).toHaveLength(2);
  });

  it('ignores progress for a call that is done, unknown, or assigned to another session, without an error; that session is told to stop it', async () => {
    const { server, client, runId, call } = await started(['progress']);
    const other = track(await TestClient.connect(server.url, { features: ['progress'] }));
    other.send({ type: 'tool_progress', callId: call.callId, seq: 1, progress: 9 });
    client.send({ type: 'tool_progress', callId: 'call_nope', seq: 1, progress: 9 });
    client.result(call.callId, 'done');
    client.send({ type: 'tool_progress', callId: call.callId, seq: 5, progress: 9 });
    await client.next('run_result');
    // A ping answered after them proves they were read.
    client.send({ type: 'ping', id: 'after' });
    other.send({ type: 'ping', id: 'after' });
    await client.next('pong', (frame) => frame.id === 'after');
    await other.next('pong', (frame) => frame.id === 'after');
    expect(server.runs.get(runId)?.events.filter((event) => event.kind === 'tool_progress')).toEqual([]);
    expect(client.all('error')).toEqual([]);
    expect(other.all('error')).toEqual([]);
    // The call is another session's: `other` stops it (docs/protocol/calls-no-longer-held.md). The call's own session, whose
    // progress crossed its own result, is told nothing.
    expect(other.all('cancel')).toEqual([{ type: 'cancel', callId: call.callId, reason: 'not_dispatched' }]);
    expect(client.all('cancel')).toEqual([]);
  });

  it('keeps tool_progress events from an owner that did not negotiate progress, but records them', async () => {
    const server = await stub({ model: exportScript() });
    // A worker with the feature runs the call; the run's owner is an older client without it.
    const owner = track(await TestClient.connect(server.url));
    const worker = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['progress'] }),
    );
    owner.send({ type: 'run_start', requestId: 'q1', agent: agent('exporter', ['export']), input: 'go' });
    const { runId } = await owner.next('run_started');
    const call = await worker.next('tool_call');
    const recorded = once(server, 'run_event', (info) => info.kind === 'tool_progress');
    worker.send({ type: 'tool_progress', callId: call.callId, seq: 1, progress: 1 });
    await recorded;
    worker.result(call.callId, 'done');
    await owner.next('run_result');
    expect(owner.all('run_event').map((frame) => frame.event.kind)).not.toContain('tool_progress');
    expect(owner.undecodable).toEqual([]);
    expect(server.runs.get(runId)?.events.some((event) => event.kind === 'tool_progress')).toBe(true);
  });

  it('does not record again a progress the client re-sends after a resume', async () => {
    const { server, client, runId, call } = await started(['progress']);
    client.send({ type: 'tool_progress', callId: call.callId, seq: 1, progress: 1 });
    await client.next('run_event', (frame) => frame.event.kind === 'tool_progress');
    await dropAndWait(server, client);
    await client.reconnect();
    // The client re-sends its latest progress after the reconnect: the same seq, not recorded again.
    client.send({ type: 'tool_progress', callId: call.callId, seq: 1, progress: 1 });
    client.send({ type: 'tool_progress', callId: call.callId, seq: 2, progress: 2 });
    await client.next('run_event', (frame) => frame.event.kind === 'tool_progress');
    client.result(call.callId, 'done');
    await client.next('run_result');
    const events = server.runs.get(runId)?.events.filter((event) => event.kind === 'tool_progress') ?? [];
    expect(events.map((event) => (event.data as { progress: number }).progress)).toEqual([1, 2]);
  });
});

describe('event_replay', () => {
  async function detachedRun(features: string[] | undefined) {
    const server = await stub({ model: exportScript() });
    const owner = track(await TestClient.connect(server.url, features ? { features } : {}));
    const worker = track(await TestClient.connect(server.url, { tools: [toolDef('export')] }));
    owner.send({ type: 'run_start', requestId: 'q1', agent: agent('exporter', ['export']), input: 'go' });
    const { runId } = await owner.next('run_started');
    const call = await worker.next('tool_call');
    await owner.next('run_event', (frame) => frame.event.kind === 'tool_call');
    await dropAndWait(server, owner);
    // The call ends while the owner is away: its tool_result event is written to nobody.
    worker.result(call.callId, 'done');
    await once(server, 'run_finished');
    await owner.reconnect();
    await owner.next('run_result');
    return { owner, runId };
  }

  it('sends the events a detached owner missed again on resume, each numbered', async () => {
    const { owner, runId } = await detachedRun(['event_replay']);
    const kinds = owner.all('run_event').map((frame) => [frame.seq, frame.event.kind]);
    // Everything from the window before the drop comes again; the client drops repeats by seq.
    expect(kinds.filter(([, kind]) => kind === 'tool_result')).toEqual([[4, 'tool_result']]);
    expect(new Set(owner.all('run_event').map((frame) => frame.runId))).toEqual(new Set([runId]));
  });

  it('does not keep run events for an owner without the feature', async () => {
    const { owner } = await detachedRun(undefined);
    expect(owner.all('run_event').map((frame) => frame.event.kind)).not.toContain('tool_result');
  });
});
