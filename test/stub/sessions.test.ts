import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { CLOSE_CODES } from '../../src/wire/protocol';
import { afterTest } from '../support/after-test';
import { agent, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const joinToolMessages = ({ messages }: { messages: readonly { role: string; content: string }[] }) => ({
  text: messages
    .filter((message) => message.role === 'tool')
    .map((message) => message.content)
    .join(' | '),
});

const twoCalls = () =>
  scriptedModel([
    {
      toolCalls: [
        { name: 'work', arguments: { n: 1 } },
        { name: 'work', arguments: { n: 2 } },
      ],
    },
    joinToolMessages,
  ]);

describe('sessions', () => {
  it('resumes after a dropped socket: unanswered calls re-sent, outbox results recorded once, nothing run twice', async () => {
    const server = await stub({ model: twoCalls() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const sessionId = client.sessionId;
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const first = await client.next('tool_call');
    const second = await client.next('tool_call');
    // The socket drops; the first call finishes meanwhile and its result waits in the outbox.
    const detached = once(server, 'session_detached');
    await client.drop();
    expect(await detached).toEqual({ sessionId, code: 1006, reason: '' });
    client.result(first.callId, 'one'); // not sent: no socket, kept in the outbox
    expect(client.unacked).toEqual([first.callId]);

    const welcome = await client.reconnect();
    expect(welcome).toMatchObject({ sessionId, resumed: true });
    // Every call still owed is sent again, after the welcome.
    const resent = [await client.next('tool_call'), await client.next('tool_call')];
    expect(resent.map((frame) => frame.callId).sort()).toEqual([first.callId, second.callId].sort());
    expect(await client.next('ack', (frame) => frame.callId === first.callId)).toEqual({
      type: 'ack',
      callId: first.callId,
    });
    client.result(second.callId, 'two');
    await client.next('ack', (frame) => frame.callId === second.callId);
    // The ack could have been lost: the re-sent result is acknowledged again and not recorded twice.
    client.result(first.callId, 'one, again');
    expect(await client.next('ack', (frame) => frame.callId === first.callId)).toEqual({
      type: 'ack',
      callId: first.callId,
    });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.finalOutput).toBe('one | two');
    expect(transcript.toolCalls.map((call) => [call.output, call.dispatchedTo, call.answeredBy])).toEqual([
      ['one', [sessionId], sessionId],
      ['two', [sessionId], sessionId],
    ]);
    expect(client.unacked).toEqual([]);
    expect(server.sessions()).toHaveLength(1);
  });

  it('closes the previous socket with 4009 when another connection resumes its session', async () => {
    const server = await stub();
    const first = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const second = track(
      await TestClient.connect(server.url, { sessionId: first.sessionId, tools: [toolDef('work')] }),
    );
    expect(second.welcome).toMatchObject({ sessionId: first.sessionId, resumed: true });
    expect(await first.closed).toEqual({
      code: CLOSE_CODES.sessionReplaced,
      reason: 'session resumed by another connection',
    });
    expect(server.sessions()).toEqual([
      { sessionId: first.sessionId, state: 'connected', tools: ['work'], inFlight: 0, localApprovals: false },
    ]);
  });

  it('reads nothing more from a socket another connection resumed its session on: a late "busy" moves no call', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const first = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const call = await first.next('tool_call');
    const other = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    // The first socket is half-open: what its client writes now reaches the service only after the resume (a
    // network that delivers late). It answers the call busy, then gives the socket up and resumes on a new one.
    const tcp = (first.ws as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
    tcp.cork();
    first.send({
      type: 'tool_result',
      callId: call.callId,
      status: 'error',
      output: 'busy',
      retryable: true,
    });
    const resumed = track(
      await TestClient.connect(server.url, { sessionId: first.sessionId, tools: [toolDef('work')] }),
    );
    expect(resumed.welcome).toMatchObject({ sessionId: first.sessionId, resumed: true });
    // The call is still the session's: it is sent again on the new socket, and the client runs it.
    expect((await resumed.next('tool_call')).callId).toBe(call.callId);
    // The busy arrives on the replaced socket (before its close handshake ends): it is not the resumed client's word.
    tcp.uncork();
    expect((await first.closed).code).toBe(CLOSE_CODES.sessionReplaced);
    resumed.result(call.callId, 'ran once');
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('ran once');
    expect(other.all('tool_call')).toEqual([]);
    expect(server.runs.get(runId)?.toolCalls.map((entry) => entry.dispatchedTo)).toEqual([[first.sessionId]]);
  });

  it('starts a new session for an unknown session id or a different key', async () => {
    const server = await stub({ apiKeys: ['k1', 'k2'] });
    const unknown = track(await TestClient.connect(server.url, { apiKey: 'k1', sessionId: 'sess_gone' }));
    expect(unknown.welcome).toMatchObject({ resumed: false });
    expect(unknown.sessionId).not.toBe('sess_gone');
    await unknown.drop();
    const otherKey = track(
      await TestClient.connect(server.url, { apiKey: 'k2', sessionId: unknown.sessionId }),
    );
    expect(otherKey.welcome?.resumed).toBe(false);
    expect(otherKey.sessionId).not.toBe(unknown.sessionId);
  });

  it('resumes with another key on a stub that accepts any key: its clients are one tenant', async () => {
    const server = await stub();
    const first = track(await TestClient.connect(server.url, { apiKey: 'dev-key-1' }));
    await first.drop();
    const second = track(
      await TestClient.connect(server.url, { apiKey: 'dev-key-2', sessionId: first.sessionId }),
    );
    expect(second.welcome).toMatchObject({ sessionId: first.sessionId, resumed: true });
  });

  it('re-dispatches the calls of an expired session to another client with the same callId', async () => {
    const server = await stub({
      sessionGraceMs: 30,
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const dying = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const survivor = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const call = await dying.next('tool_call');
    const expired = once(server, 'session_expired');
    await dying.drop();
    expect(await expired).toEqual({ sessionId: dying.sessionId });
    const redispatched = await survivor.next('tool_call');
    expect(redispatched.callId).toBe(call.callId);
    survivor.result(call.callId, 'survived');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.finalOutput).toBe('survived');
    expect(transcript.toolCalls[0]).toMatchObject({
      dispatchedTo: [dying.sessionId, survivor.sessionId],
      answeredBy: survivor.sessionId,
    });
    // The dead process restarts (a new session) and re-sends what its outbox held: refused, dropped by the client.
    const restarted = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    restarted.result(call.callId, 'from the grave');
    expect(await restarted.next('error')).toEqual({
      type: 'error',
      code: 'duplicate_result',
      message: `tool call ${call.callId} already has a result (status ok)`,
      callId: call.callId,
    });
  });

  it('keeps a call of an expired session waiting until a client with the tool connects', async () => {
    const server = await stub({
      sessionGraceMs: 20,
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const dying = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const call = await dying.next('tool_call');
    const expired = once(server, 'session_expired');
    await dying.drop();
    await expired;
    expect(server.runs.get(runId)?.toolCalls[0]?.state).toBe('waiting');
    const later = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const redispatched = await later.next('tool_call');
    expect(redispatched.callId).toBe(call.callId);
    later.result(call.callId, 'late but fine');
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('late but fine');
  });

  it('keeps the calls waiting in the service when the only worker leaves, for the worker that replaces it', async () => {
    const server = await stub({ model: twoCalls() });
    const leaving = track(
      await TestClient.connect(server.url, { tools: [toolDef('work')], maxConcurrency: 1, maxQueue: 0 }),
    );
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const sent = await leaving.next('tool_call');
    expect(server.runs.get(runId)?.toolCalls.map((call) => call.state)).toEqual(['dispatched', 'waiting']);
    // A deploy: the worker closes with 1000 (it has left) before it answers, and its replacement connects.
    const expired = once(server, 'session_expired');
    await leaving.close(1000);
    await expired;
    expect(server.runs.get(runId)?.toolCalls.map((call) => call.state)).toEqual(['waiting', 'waiting']);
    const next = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const [first, second] = [await next.next('tool_call'), await next.next('tool_call')];
    expect([first.callId, second.callId].sort()).toEqual(
      server.runs
        .get(runId)
        ?.toolCalls.map((call) => call.callId)
        .sort(),
    );
    expect([first.callId, second.callId]).toContain(sent.callId);
    next.result(first.callId, `n${JSON.stringify(first.arguments)}`);
    next.result(second.callId, `n${JSON.stringify(second.arguments)}`);
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('n{"n":1} | n{"n":2}');
  });

  it('counts a worker that closed with 1000 as gone once its close is read: a call asked for then is unknown_tool', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
      callDeadlineMs: 1_000,
    });
    const leaving = await TestClient.connect(server.url, { tools: [toolDef('work')] });
    // The worker closes with 1000 and does not end its TCP connection at once (a busy or slow peer): `ws` calls
    // close() again when the stub's answering close frame arrives, which is held here. So the stub has read the
    // close, and its socket waits for the connection to end.
    const { ws } = leaving;
    const close = ws.close.bind(ws);
    const answered = new Promise<void>((resolve) => {
      ws.close = (code?: number, reason?: string | Buffer) => {
        if (ws.readyState === ws.CLOSING) resolve();
        else close(code, reason);
      };
    });
    afterTest(() => ws.terminate());
    ws.close(1000, 'client closed');
    await answered;
    expect(server.sessions().map((session) => session.state)).toEqual(['connected']);
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([
      ['unknown_tool', 'Tool "work" not found. No tools are available.'],
    ]);
  });

  it('accepts a result from a restarted process before the session expires, and cancels the other copy', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const original = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const call = await original.next('tool_call');
    const other = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    other.result(call.callId, 'from elsewhere');
    expect(await other.next('ack')).toEqual({ type: 'ack', callId: call.callId });
    expect(await original.next('cancel')).toEqual({
      type: 'cancel',
      callId: call.callId,
      reason: 'redispatched',
    });
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('from elsewhere');
    // The copy answers the cancel as a client does (`cancelled`): acknowledged, not recorded, no error.
    original.send({
      type: 'tool_result',
      callId: call.callId,
      status: 'cancelled',
      output: 'Error running work: the call was cancelled',
    });
    expect(await Promise.race([original.next('ack'), original.next('error')])).toEqual({
      type: 'ack',
      callId: call.callId,
    });
    expect(server.runs.get(runId)?.toolCalls[0]).toMatchObject({ output: 'from elsewhere' });
  });

  it('cancels the runs a session started when that session expires', async () => {
    const server = await stub({
      sessionGraceMs: 20,
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const owner = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    owner.send({ type: 'run_start', requestId: 'q', agent: agent('a', ['work']), input: 'go' });
    const { runId } = await owner.next('run_started');
    await owner.next('tool_call');
    await owner.drop();
    const transcript = await server.runs.waitFor(runId);
    expect(transcript).toMatchObject({
      status: 'cancelled',
      error: 'the run was cancelled: the session that started it expired',
      toolCalls: [{ status: 'cancelled' }],
    });
  });

  it('delivers a run_result that arrived while the owner was away when it resumes', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const owner = track(await TestClient.connect(server.url, { tools: [] }));
    const worker = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    owner.send({ type: 'run_start', requestId: 'q', agent: agent('a', ['work']), input: 'go' });
    const { runId } = await owner.next('run_started');
    const call = await worker.next('tool_call');
    const detached = once(server, 'session_detached');
    await owner.drop();
    await detached;
    worker.result(call.callId, 'done while you were out');
    await server.runs.waitFor(runId);
    await owner.reconnect();
    expect(await owner.next('run_result')).toMatchObject({
      runId,
      status: 'completed',
      finalOutput: 'done while you were out',
    });
  });

  it('makes a call to the run owner wait while the owner is detached, then sends it on resume', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const server = await stub({
      model: scriptedModel([
        async () => {
          await gate;
          return { toolCalls: [{ name: 'work' }] };
        },
        joinToolMessages,
      ]),
    });
    const owner = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const bystander = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    owner.send({ type: 'run_start', requestId: 'q', agent: agent('a', ['work']), input: 'go' });
    const { runId } = await owner.next('run_started');
    const detached = once(server, 'session_detached');
    await owner.drop();
    await detached;
    // The model asks for the tool only now, while the owner is detached: the call waits for it.
    const asked = once(server, 'run_event', (info) => info.kind === 'tool_call');
    open();
    await asked;
    expect(server.runs.get(runId)?.toolCalls[0]?.state).toBe('waiting');
    await owner.reconnect();
    const call = await owner.next('tool_call');
    owner.result(call.callId, 'owner did it');
    expect((await owner.next('run_result')).finalOutput).toBe('owner did it');
    expect(bystander.all('tool_call')).toEqual([]);
  });

  it('sends a run_result again on resume when it was sent just before the drop was noticed', async () => {
    const server = await stub({ model: scriptedModel([{ text: 'quick' }]) });
    const owner = track(await TestClient.connect(server.url));
    owner.send({ type: 'run_start', requestId: 'q', agent: agent('a', []), input: 'go' });
    const first = await owner.next('run_result');
    const detached = once(server, 'session_detached');
    await owner.drop();
    await detached;
    await owner.reconnect();
    // It may not have arrived; the client ignores a run_result for a run it no longer waits for.
    expect(await owner.next('run_result')).toEqual(first);
  });
});
