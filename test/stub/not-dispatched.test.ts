/**
 * A session that names a call not dispatched to it (docs/protocol/calls-no-longer-held.md): in a `lease`, a call update, a
 * `question` or `key_waits`. A call that ended (but by that session's own result) or is another session's is
 * stopped there with `cancel { reason: 'not_dispatched' }`, once per frame, and the `cancelled` an older client
 * answers it with is acknowledged and not recorded; any other call it names is left alone. Every step waits for a frame or an event,
 * never for time: a `ping` answered after the frames under test proves they were read.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import type { ClientFrame, FrameOf, ServiceFrame } from '../../src/wire/protocol';
import { agent, dropAndWait, http, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const FEATURES = ['lease', 'questions', 'progress', 'preliminary', 'events', 'steps', 'key_waits'];
const script = () => scriptedModel([{ toolCalls: [{ name: 'export' }] }, { text: 'done' }]);

/** A worker offering `export` with every feature that names calls, and a call of a run started over HTTP. */
async function dispatched(options: Parameters<typeof stub>[0] = {}) {
  const server = await stub({ model: script(), ...options });
  const worker = track(
    await TestClient.connect(server.url, { tools: [toolDef('export')], features: FEATURES }),
  );
  const runId = server.runs.start(agent('a', ['export']), 'go');
  const call = await worker.next('tool_call');
  return { server, worker, runId, call };
}

/** Resolves once the stub has read every frame `client` sent before. */
async function settled(client: TestClient): Promise<void> {
  const id = `sync-${client.received.length}`;
  client.send({ type: 'ping', id });
  await client.next('pong', (frame) => frame.id === id);
}

/** Each frame that names a call as one its sender runs. */
const NAMING: Array<[string, (callId: string) => ClientFrame]> = [
  ['lease', (callId) => ({ type: 'lease', callIds: [callId] })],
  ['question', (callId) => ({ type: 'question', callId, questionId: 'q1', question: 'Which warehouse?' })],
  ['tool_progress', (callId) => ({ type: 'tool_progress', callId, seq: 1, progress: 1 })],
  ['tool_preliminary', (callId) => ({ type: 'tool_preliminary', callId, seq: 1, output: 'so far' })],
  ['tool_event', (callId) => ({ type: 'tool_event', callId, seq: 1, event: 'rows.exported' })],
  ['step_result', (callId) => ({ type: 'step_result', callId, key: 'reserve', result: 1 })],
  ['key_waits', (callId) => ({ type: 'key_waits', waiting: [callId] })],
];

const notDispatched = (callId: string): FrameOf<ServiceFrame, 'cancel'> => ({
  type: 'cancel',
  callId,
  reason: 'not_dispatched',
});

describe('a call that ended while its session was detached', () => {
  it.each(NAMING)('is stopped when the resumed session names it in a %s frame', async (_type, naming) => {
    const { server, worker, runId, call } = await dispatched();
    await dropAndWait(server, worker);
    // The run's cancel is written while the socket is down: lost, and not repeated on the resume.
    expect(server.runs.cancel(runId)).toBe(true);
    expect((await worker.reconnect()).resumed).toBe(true);
    worker.send(naming(call.callId));
    expect(await worker.next('cancel')).toEqual(notDispatched(call.callId));
    // Its client stops the call and answers `cancelled`: received, not recorded.
    worker.result(call.callId, 'stopped', { status: 'cancelled' });
    expect(await worker.next('ack')).toEqual({ type: 'ack', callId: call.callId });
    expect(worker.all('error')).toEqual([]);
    expect(server.runs.get(runId)?.toolCalls).toMatchObject([
      { status: 'cancelled', output: 'Error running export: the call was cancelled' },
    ]);
  });

  it('is stopped with one cancel for a lease frame that names it twice', async () => {
    const { server, worker, runId, call } = await dispatched();
    await dropAndWait(server, worker);
    server.runs.cancel(runId);
    await worker.reconnect();
    worker.send({ type: 'lease', callIds: [call.callId, 'call_unknown', call.callId] });
    await settled(worker);
    expect(worker.all('cancel')).toEqual([notDispatched(call.callId)]);
  });

  it('is stopped when another session answered it meanwhile', async () => {
    const { server, worker, runId, call } = await dispatched();
    await dropAndWait(server, worker);
    // A result is taken from any session of the tenant (a restarted process re-sending its outbox).
    const other = track(await TestClient.connect(server.url));
    other.result(call.callId, 'exported elsewhere');
    await server.runs.waitFor(runId);
    await worker.reconnect();
    worker.send({ type: 'question', callId: call.callId, questionId: 'q1', question: 'Which warehouse?' });
    expect(await worker.next('cancel')).toEqual(notDispatched(call.callId));
    expect(server.runs.get(runId)?.toolCalls).toMatchObject([{ status: 'ok', output: 'exported elsewhere' }]);
  });
});

describe('a call dispatched to another session', () => {
  it('is stopped where it is named; its echo is not recorded, and it may be sent the call again', async () => {
    const { server, worker, runId, call } = await dispatched();
    const stray = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: FEATURES }),
    );
    stray.send({ type: 'lease', callIds: [call.callId] });
    expect(await stray.next('cancel')).toEqual(notDispatched(call.callId));
    // An older client answers the cancel with `cancelled`: its echo, received and not recorded.
    stray.result(call.callId, 'stopped', { status: 'cancelled' });
    expect(await stray.next('ack')).toEqual({ type: 'ack', callId: call.callId });
    expect(server.runs.get(runId)?.status).toBe('running');
    // Its worker leaves for good: the call is offered again at once, to the session told it was not its own too
    // (it may be the only worker left).
    const expired = once(server, 'session_expired', (info) => info.sessionId === worker.sessionId);
    await worker.close(1000);
    await expired;
    expect((await stray.next('tool_call')).callId).toBe(call.callId);
    stray.result(call.callId, 'exported by the stray');
    expect((await server.runs.waitFor(runId)).toolCalls).toMatchObject([
      { status: 'ok', output: 'exported by the stray' },
    ]);
  });

  it("takes a result of that session that is not the cancel's echo: a tool that finished before it was told", async () => {
    const { server, worker, runId, call } = await dispatched();
    const stray = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: FEATURES }),
    );
    stray.send({ type: 'tool_progress', callId: call.callId, seq: 1, progress: 1 });
    expect(await stray.next('cancel')).toEqual(notDispatched(call.callId));
    // Its outbox, re-sent after its progress: the call's result, from wherever it comes.
    stray.result(call.callId, 'exported before it was told');
    expect((await server.runs.waitFor(runId)).toolCalls).toMatchObject([
      { status: 'ok', output: 'exported before it was told' },
    ]);
    expect(await worker.next('cancel')).toEqual({
      type: 'cancel',
      callId: call.callId,
      reason: 'redispatched',
    });
  });
});

describe('calls a session names that are not stopped', () => {
  it('leaves alone its own call, one it answered, and an unknown id', async () => {
    const { worker, call } = await dispatched();
    for (const [, naming] of NAMING) worker.send(naming(call.callId));
    worker.send({ type: 'lease', callIds: ['call_unknown'] });
    worker.send({ type: 'question', callId: 'call_unknown', questionId: 'q1', question: 'Which?' });
    worker.result(call.callId, 'exported');
    await worker.next('ack');
    // Crossing its own result (a progress frame written just before it was read): not stopped.
    worker.send({ type: 'tool_progress', callId: call.callId, seq: 2, progress: 2 });
    worker.send({ type: 'lease', callIds: [call.callId] });
    await settled(worker);
    expect(worker.all('cancel')).toEqual([]);
  });

  it('leaves alone a call held after its approval_request, and one waiting here for a worker', async () => {
    const { server, worker, call } = await dispatched({ busyRetryMs: 60_000 });
    worker.send({ type: 'approval_request', callId: call.callId, reason: 'a big export' });
    await once(server, 'run_event', (info) => info.kind === 'approval_requested');
    worker.send({ type: 'lease', callIds: [call.callId] });
    worker.send({ type: 'tool_progress', callId: call.callId, seq: 1, progress: 1 });
    await settled(worker);
    expect(worker.all('cancel')).toEqual([]);
    // A second run's call, answered busy: it waits here (for the busy retry) for a worker, assigned to none.
    server.runs.start(agent('a', ['export']), 'again');
    const busy = await worker.next('tool_call', (frame) => frame.callId !== call.callId);
    worker.result(busy.callId, 'busy', { status: 'error', retryable: true });
    await worker.next('ack', (frame) => frame.callId === busy.callId);
    worker.send({ type: 'lease', callIds: [busy.callId] });
    worker.send({ type: 'question', callId: busy.callId, questionId: 'q1', question: 'Which?' });
    await settled(worker);
    expect(worker.all('cancel')).toEqual([]);
  });

  it('leaves alone a call of another tenant, which reads as unknown', async () => {
    const server = await stub({
      model: script(),
      apiKeys: ['tenant-one-key-0001', 'tenant-two-key-0002'],
      agents: [agent('a', ['export'])],
    });
    const one = track(
      await TestClient.connect(server.url, {
        apiKey: 'tenant-one-key-0001',
        tools: [toolDef('export')],
        features: FEATURES,
      }),
    );
    const two = track(
      await TestClient.connect(server.url, { apiKey: 'tenant-two-key-0002', features: FEATURES }),
    );
    const started = await http(
      server,
      'POST',
      '/v1/runs',
      { agent: 'a', input: 'go' },
      'tenant-one-key-0001',
    );
    expect(started.status).toBe(201);
    const call = await one.next('tool_call');
    two.send({ type: 'lease', callIds: [call.callId] });
    two.send({ type: 'question', callId: call.callId, questionId: 'q1', question: 'Mine?' });
    await settled(two);
    expect(two.all('cancel')).toEqual([]);
  });
});
