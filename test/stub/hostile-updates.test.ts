/**
 * A hostile or broken client's call updates (docs/protocol/updates.md): values nested past the frame limit, updates,
 * leases and questions for calls it does not hold. The stub refuses or ignores each, and the run goes on.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, http, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const ALL = ['events', 'progress', 'preliminary', 'lease', 'questions', 'content'];

async function running() {
  const server = await stub({
    model: scriptedModel([{ toolCalls: [{ name: 'export' }] }, { text: 'done' }]),
  });
  const client = track(await TestClient.connect(server.url, { tools: [toolDef('export')], features: ALL }));
  client.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['export']), input: 'go' });
  const { runId } = await client.next('run_started');
  const call = await client.next('tool_call');
  return { server, client, runId, call };
}

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('hostile call updates', () => {
  it('refuses updates nested past the frame limit, and the run and its transcript are unharmed', async () => {
    const { server, client, call, runId } = await running();
    const callId = JSON.stringify(call.callId);
    client.sendRaw(`{"type":"tool_event","callId":${callId},"seq":1,"event":"x","data":${deep(100_000)}}`);
    client.sendRaw(
      `{"type":"tool_preliminary","callId":${callId},"seq":1,"output":"x","widget":${deep(100_000)}}`,
    );
    client.sendRaw(
      `{"type":"question","callId":${callId},"questionId":"q1","question":"x","schema":{"a":${deep(100_000)}}}`,
    );
    for (const _ of [1, 2, 3]) {
      expect(await client.next('error')).toMatchObject({
        code: 'invalid_frame',
        message: 'frame nests deeper than 128 levels',
      });
    }
    client.result(call.callId, 'exported');
    expect((await client.next('run_result')).status).toBe('completed');
    const transcript = server.runs.get(runId);
    expect(transcript?.toolCalls[0]).toMatchObject({ output: 'exported' });
    expect(transcript?.toolCalls[0]?.preliminary).toBeUndefined();
    expect(server.log.filter((line) => line.message === 'frame handler threw')).toEqual([]);
  });

  it('ignores leases, questions and cancels of questions for calls it does not hold, without an error', async () => {
    const { server, client, call, runId } = await running();
    client.send({ type: 'lease', callIds: ['nope', call.callId, 'other'] });
    client.send({ type: 'question_cancel', callId: 'nope', questionId: 'q9' });
    client.send({ type: 'question_cancel', callId: call.callId, questionId: 'never-asked' });
    client.send({ type: 'question', callId: 'nope', questionId: 'q9', question: 'Which?' });
    client.send({ type: 'tool_progress', callId: 'nope', seq: 1, progress: 1 });
    client.result(call.callId, 'exported');
    expect((await client.next('run_result')).status).toBe('completed');
    expect(client.all('error')).toEqual([]);
    expect(server.runs.get(runId)?.toolCalls[0]?.questions).toBeUndefined();
    expect(server.log.filter((line) => line.level === 'error')).toEqual([]);
  });
});

describe('hostile HTTP answers', () => {
  it('refuses a request body nested past the frame limit, and the question stays open', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'export' }] }, { text: 'done' }]),
    });
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['questions'] }),
    );
    client.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['export']), input: 'go' });
    const { runId } = await client.next('run_started');
    const call = await client.next('tool_call');
    // A recursive schema: every level of the answer is checked again.
    client.send({
      type: 'question',
      callId: call.callId,
      questionId: 'q1',
      question: 'Which tree?',
      schema: { type: 'array', items: { $ref: '#' } },
    });
    await client.next('run_event', (frame) => frame.event.kind === 'question_asked');
    const path = `/v1/runs/${runId}/calls/${call.callId}/questions/q1`;
    expect(await http(server, 'POST', path, `{"answer":${deep(100_000)}}`)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'request body nests deeper than 128 levels' } },
    });
    expect(await http(server, 'POST', path, { answer: [[], [[]]] })).toMatchObject({ status: 200 });
    expect(await client.next('answer')).toMatchObject({ status: 'answered', answer: [[], [[]]] });
    client.result(call.callId, 'ok');
    await client.next('run_result');
    expect(server.runs.get(runId)?.toolCalls[0]?.questions).toMatchObject([{ status: 'answered' }]);
  });
});

describe('per-call bounds the stub keeps', () => {
  it('records at most 256 tool events of one call; the rest are ignored', async () => {
    const { server, client, call, runId } = await running();
    for (let seq = 1; seq <= 300; seq++) {
      client.send({ type: 'tool_event', callId: call.callId, seq, event: 'tick', data: seq });
    }
    client.result(call.callId, 'ok');
    await client.next('run_result');
    const events = (server.runs.get(runId)?.events ?? []).filter((event) => event.kind === 'tool_event');
    expect(events).toHaveLength(256);
    expect(events.at(-1)?.data).toMatchObject({ data: 256 });
  });

  it('keeps at most 64 questions of one call, asked and withdrawn in turn; a later one is answered cancelled', async () => {
    const { server, client, call, runId } = await running();
    for (let n = 1; n <= 70; n++) {
      const questionId = `q${n}`;
      client.send({ type: 'question', callId: call.callId, questionId, question: 'Which?' });
      client.send({ type: 'question_cancel', callId: call.callId, questionId });
    }
    const refused = await client.next('answer');
    expect(refused).toEqual({
      type: 'answer',
      callId: call.callId,
      questionId: 'q65',
      status: 'cancelled',
      reason: 'too many questions: a call may ask 64',
    });
    client.result(call.callId, 'ok');
    await client.next('run_result');
    expect(server.runs.get(runId)?.toolCalls[0]?.questions).toHaveLength(64);
  });
});
