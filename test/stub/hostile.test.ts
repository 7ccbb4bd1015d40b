import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel } from '../../server-stub/index';
import { CLOSE_CODES } from '../../src/wire/protocol';
import { agent, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

/** Every run calls `echo` once and returns what it said. */
const echoModel = () =>
  scriptedModel([
    ({ runId }) => ({ toolCalls: [{ name: 'echo', arguments: { runId } }] }),
    ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
  ]);

/** Starts a run that needs the bystander and resolves with what the model got back. */
async function stillServed(server: StubServer): Promise<unknown> {
  const runId = server.runs.start(agent('a', ['echo']), 'ping');
  return (await server.runs.waitFor(runId)).finalOutput;
}

async function setup(options: Parameters<typeof stub>[0] = {}) {
  const server = await stub({ model: echoModel(), ...options });
  const bystander = track(await TestClient.connect(server.url, { tools: [toolDef('echo')] })).serve({
    echo: (args) => `echo ${(args as { runId: string }).runId}`,
  });
  const hostile = track(await TestClient.connect(server.url));
  return { server, bystander, hostile };
}

describe('hostile and broken clients', () => {
  it('closes a connection that sends a frame over maxPayloadBytes with 1009, and keeps serving the others', async () => {
    const { server, hostile } = await setup({ maxPayloadBytes: 1024 });
    hostile.sendRaw(JSON.stringify({ type: 'ping', id: 'x'.repeat(2000) }));
    expect(await hostile.closed).toEqual({ code: CLOSE_CODES.tooBig, reason: '' });
    expect(await stillServed(server)).toMatch(/^echo run_/);
  });

  it('answers invalid JSON with invalid_json, logs it, and keeps the connection', async () => {
    const { server, hostile } = await setup();
    hostile.sendRaw('{"type":"ping"');
    const error = await hostile.next('error');
    expect(error.code).toBe('invalid_json');
    expect(error.message).toMatch(/^frame is not JSON: /);
    expect(
      server.log.some((line) => line.level === 'warn' && line.message === `refused frame: ${error.message}`),
    ).toBe(true);
    hostile.send({ type: 'ping', id: 'still-here' });
    expect(await hostile.next('pong')).toEqual({ type: 'pong', id: 'still-here' });
    expect(await stillServed(server)).toMatch(/^echo run_/);
  });

  it('answers an unknown frame type with unknown_type', async () => {
    const { server, hostile } = await setup();
    hostile.sendRaw('{"type":"teleport","to":"mars"}');
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'unknown_type',
      message: 'unknown frame type "teleport"',
    });
    expect(await stillServed(server)).toMatch(/^echo run_/);
  });

  it('answers a frame with wrong fields with invalid_frame naming each field', async () => {
    const { hostile } = await setup();
    hostile.sendRaw('{"type":"tool_result","callId":"","status":"fine","output":7}');
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'invalid_frame',
      message:
        'invalid tool_result frame: callId: must be at least 1 character; status: must be "ok", "error", "invalid_arguments", "unknown_tool", "rejected", "timeout" or "cancelled"; output: must be a string',
    });
    hostile.sendRaw('[1,2]');
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'invalid_frame',
      message: 'frame must be a JSON object',
    });
  });

  it('answers a binary frame with invalid_frame', async () => {
    const { hostile } = await setup();
    hostile.sendRaw(Buffer.from('{"type":"ping"}'));
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'invalid_frame',
      message: 'binary frames are not part of the protocol; send JSON text frames',
    });
  });

  it('answers a result for an unknown callId with unknown_call', async () => {
    const { server, hostile } = await setup();
    hostile.result('call_made_up', 'hello');
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'unknown_call',
      message: 'no tool call has the id "call_made_up"',
      callId: 'call_made_up',
    });
    expect(await stillServed(server)).toMatch(/^echo run_/);
  });

  it('answers a result for a call another client answered with duplicate_result, and records nothing', async () => {
    const { server, bystander, hostile } = await setup();
    const output = await stillServed(server);
    const callId = bystander.all('tool_call')[0]?.callId ?? '';
    hostile.result(callId, 'hijacked');
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'duplicate_result',
      message: `tool call ${callId} already has a result (status ok)`,
      callId,
    });
    const runId = server.runs.list()[0]?.runId ?? '';
    expect(server.runs.get(runId)?.toolCalls[0]?.output).toBe(output);
  });

  it('closes a flooding connection with 4029 and keeps serving the others', async () => {
    const { server, hostile } = await setup({ maxFramesPerSecond: 100, maxFrameBurst: 50 });
    const frame = JSON.stringify({ type: 'ping' });
    for (let i = 0; i < 500; i++) hostile.sendRaw(frame);
    expect(await hostile.closed).toEqual({
      code: CLOSE_CODES.flood,
      reason: 'more than 100 frames per second (burst 50)',
    });
    expect(hostile.all('pong').length).toBeGreaterThanOrEqual(49); // the burst, less the hello
    expect(hostile.all('pong').length).toBeLessThan(500);
    expect(await stillServed(server)).toMatch(/^echo run_/);
  });

  it('refuses a second hello with not_allowed, and adopts nothing of it (docs/protocol/lifecycle.md)', async () => {
    const { server, bystander, hostile } = await setup();
    const before = server.sessions();
    // Another session's id, other tools, local approvals: none of it may change this socket's session.
    hostile.send({
      type: 'hello',
      protocol: 1,
      sdk: { name: 'x', version: '1' },
      tools: [toolDef('stolen')],
      sessionId: bystander.welcome?.sessionId,
      localApprovals: true,
    });
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'not_allowed',
      message: 'hello was already received on this connection',
    });
    expect(hostile.all('welcome')).toHaveLength(1);
    expect(server.sessions()).toEqual(before);
    expect(await stillServed(server)).toMatch(/^echo run_/);
  });

  it('refuses to cancel an unknown run or a run another session started', async () => {
    const { server, bystander, hostile } = await setup({
      model: scriptedModel([{ toolCalls: [{ name: 'echo' }] }, { text: 'done' }]),
    });
    hostile.send({ type: 'run_cancel', runId: 'run_nope' });
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'unknown_run',
      message: 'no run "run_nope"',
      runId: 'run_nope',
    });
    bystander.send({ type: 'run_start', requestId: 'q', agent: agent('a', ['echo']), input: 'go' });
    const { runId } = await bystander.next('run_started');
    hostile.send({ type: 'run_cancel', runId });
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'not_allowed',
      message: `run ${runId} was not started by this session`,
      runId,
    });
    expect((await bystander.next('run_result')).status).toBe('completed');
    expect(server.runs.get(runId)?.status).toBe('completed');
  });

  it('refuses an approval_request for a call sent to another client', async () => {
    const { server, bystander, hostile } = await setup();
    const runId = server.runs.start(agent('a', ['echo']), 'go');
    await server.runs.waitFor(runId);
    const callId = bystander.all('tool_call')[0]?.callId ?? '';
    hostile.send({ type: 'approval_request', callId });
    expect(await hostile.next('error')).toEqual({
      type: 'error',
      code: 'not_allowed',
      message: `tool call ${callId} is not assigned to this session`,
      callId,
    });
  });

  it('uses the first definition of a tool announced twice and says so', async () => {
    const server = await stub();
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('dup'), toolDef('dup', true)] }),
    );
    expect(await client.next('error')).toEqual({
      type: 'error',
      code: 'invalid_frame',
      message: 'tool names announced more than once (the first definition is used): dup',
    });
    expect(server.sessions()[0]?.tools).toEqual(['dup']);
  });

  it('logs an error frame from a client without answering it', async () => {
    const { server, hostile } = await setup();
    hostile.send({ type: 'error', code: 'invalid_frame', message: 'your frame was odd', callId: 'c' });
    hostile.send({ type: 'ping', id: 'after' });
    await hostile.next('pong');
    expect(hostile.all('error')).toEqual([]);
    expect(server.log.some((line) => line.message === 'client reported an error: your frame was odd')).toBe(
      true,
    );
  });

  it('closes a connection that stops reading once maxBufferedBytes are waiting, and keeps serving the others', async () => {
    const { server, hostile } = await setup({ maxBufferedBytes: 1024, maxFramesPerSecond: 10_000 });
    const sessionId = hostile.sessionId;
    const refused = once(server, 'protocol_error', (info) => info.sessionId === sessionId);
    const detached = once(server, 'session_detached', (info) => info.sessionId === sessionId);
    // Stop reading: the kernel buffers fill, then the stub's own buffer grows.
    (hostile.ws as unknown as { _socket: Socket })._socket.pause();
    const big = 'x'.repeat(100_000);
    for (let i = 0; i < 200; i++) hostile.send({ type: 'ping', id: big });
    expect(await refused).toEqual({
      sessionId,
      code: 1008,
      message: 'the client is not reading: over 1024 bytes waiting',
    });
    await detached;
    expect(await stillServed(server)).toMatch(/^echo run_/);
  });
});
