/** Questions (docs/protocol/questions.md) on the stub, with the protocol-level test client and the HTTP API. */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, dropAndWait, http, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const script = () => scriptedModel([{ toolCalls: [{ name: 'export' }] }, { text: 'done' }]);

async function asking(options: Parameters<typeof stub>[0] = {}) {
  const server = await stub({ model: script(), ...options });
  const client = track(
    await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['questions'] }),
  );
  client.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['export']), input: 'go' });
  const { runId } = await client.next('run_started');
  const call = await client.next('tool_call');
  const path = (questionId: string, callId = call.callId, run = runId) =>
    `/v1/runs/${run}/calls/${callId}/questions/${questionId}`;
  return { server, client, runId, call, path };
}

describe('questions', () => {
  it('records a question, takes an answer over HTTP, sends it to the client, and keeps both in the transcript', async () => {
    const { server, client, runId, call, path } = await asking();
    client.send({
      type: 'question',
      callId: call.callId,
      questionId: 'q1',
      question: 'Which warehouse?',
      choices: ['Berlin', 'Lyon'],
    });
    const asked = await client.next('run_event', (frame) => frame.event.kind === 'question_asked');
    expect(asked.event.data).toEqual({
      callId: call.callId,
      toolName: 'export',
      questionId: 'q1',
      question: 'Which warehouse?',
      choices: ['Berlin', 'Lyon'],
    });
    expect(await http(server, 'POST', path('q1'), { answer: 'Paris' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_answer', message: 'answer must be one of: Berlin, Lyon' } },
    });
    expect(await http(server, 'POST', path('q1'), { answer: 'Lyon' })).toMatchObject({
      status: 200,
      body: { runId, callId: call.callId, questionId: 'q1', status: 'answered' },
    });
    expect(await client.next('answer')).toEqual({
      type: 'answer',
      callId: call.callId,
      questionId: 'q1',
      status: 'answered',
      answer: 'Lyon',
    });
    expect(await http(server, 'POST', path('q1'), { answer: 'Berlin' })).toMatchObject({
      status: 409,
      body: {
        error: {
          code: 'not_allowed',
          message: `question q1 of tool call ${call.callId} was already answered`,
        },
      },
    });
    client.result(call.callId, 'exported to Lyon');
    await client.next('run_result');
    const entry = server.runs.get(runId)?.toolCalls[0];
    expect(entry?.questions).toMatchObject([
      { questionId: 'q1', question: 'Which warehouse?', status: 'answered', answer: 'Lyon', by: 'http' },
    ]);
    const kinds = server.runs.get(runId)?.events.map((event) => event.kind) ?? [];
    expect(kinds.filter((kind) => kind.startsWith('question'))).toEqual([
      'question_asked',
      'question_answered',
    ]);
  });

  it('checks answers against a JSON Schema or as a string, and takes a decline with a reason', async () => {
    const { client, call, path, server } = await asking();
    client.send({
      type: 'question',
      callId: call.callId,
      questionId: 'n',
      question: 'How many?',
      schema: { type: 'integer', minimum: 1 },
    });
    client.send({ type: 'question', callId: call.callId, questionId: 'text', question: 'Name?' });
    client.send({ type: 'question', callId: call.callId, questionId: 'no', question: 'Sure?' });
    await client.next(
      'run_event',
      (frame) => (frame.event.data as { questionId?: string }).questionId === 'no',
    );
    expect((await http(server, 'POST', path('n'), { answer: 0 })).status).toBe(400);
    expect((await http(server, 'POST', path('n'), { answer: 3 })).status).toBe(200);
    expect(await http(server, 'POST', path('text'), { answer: 3 })).toMatchObject({
      status: 400,
      body: { error: { message: 'answer must be a string' } },
    });
    expect((await http(server, 'POST', path('text'), { answer: 'Ada' })).status).toBe(200);
    expect(await http(server, 'POST', path('no'), { declined: true, reason: 'not sure' })).toMatchObject({
      status: 200,
      body: { status: 'declined' },
    });
    const answers = [await client.next('answer'), await client.next('answer'), await client.next('answer')];
    expect(answers.map((a) => [a.questionId, a.status, a.answer, a.reason])).toEqual([
      ['n', 'answered', 3, undefined],
      ['text', 'answered', 'Ada', undefined],
      ['no', 'declined', undefined, 'not sure'],
    ]);
    expect(await http(server, 'POST', path('zzz'), { answer: 'x' })).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_question' } },
    });
    expect(await http(server, 'POST', path('n', 'call_nope'), { answer: 'x' })).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_call' } },
    });
    expect(await http(server, 'POST', path('n'), { nothing: true })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'answer is required unless declined is true' } },
    });
  });

  it('keeps a call with an open question past its deadline, then restarts the deadline in full', async () => {
    const { client, call, path, server } = await asking({ callDeadlineMs: 100, features: ['questions'] });
    client.send({ type: 'question', callId: call.callId, questionId: 'q1', question: 'Go on?' });
    await client.next('run_event', (frame) => frame.event.kind === 'question_asked');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(client.all('cancel')).toEqual([]);
    await http(server, 'POST', path('q1'), { answer: 'yes' });
    await client.next('answer');
    // Not renewed and without a lease: the full deadline after the answer, then the cut.
    expect(await client.next('cancel')).toEqual({ type: 'cancel', callId: call.callId, reason: 'deadline' });
  });

  it('sends the answer again to a client that asks again after a reconnect, and withdraws on question_cancel', async () => {
    const { client, call, path, server, runId } = await asking();
    client.send({ type: 'question', callId: call.callId, questionId: 'q1', question: 'Which?' });
    client.send({ type: 'question', callId: call.callId, questionId: 'q2', question: 'And?' });
    await client.next(
      'run_event',
      (frame) => (frame.event.data as { questionId?: string }).questionId === 'q2',
    );
    await dropAndWait(server, client);
    expect((await http(server, 'POST', path('q1'), { answer: 'this one' })).status).toBe(200);
    await client.reconnect();
    client.send({ type: 'question', callId: call.callId, questionId: 'q1', question: 'Which?' });
    expect(await client.next('answer')).toMatchObject({
      questionId: 'q1',
      status: 'answered',
      answer: 'this one',
    });
    client.send({ type: 'question_cancel', callId: call.callId, questionId: 'q2' });
    const withdrawn = await once(
      server,
      'run_event',
      (info) =>
        info.kind === 'question_answered' && (info.data as { questionId: string }).questionId === 'q2',
    );
    expect(withdrawn.data).toMatchObject({ status: 'cancelled', by: 'client' });
    expect((await http(server, 'POST', path('q2'), { answer: 'late' })).status).toBe(409);
    client.result(call.callId, 'ok');
    await client.next('run_result');
    expect(server.runs.get(runId)?.toolCalls[0]?.questions?.map((q) => q.status)).toEqual([
      'answered',
      'cancelled',
    ]);
  });

  it('closes open questions when the call ends, and refuses a ninth open question', async () => {
    const { client, call, path, server, runId } = await asking();
    for (let n = 1; n <= 9; n++)
      client.send({ type: 'question', callId: call.callId, questionId: `q${n}`, question: `Question ${n}?` });
    expect(await client.next('answer')).toEqual({
      type: 'answer',
      callId: call.callId,
      questionId: 'q9',
      status: 'cancelled',
      reason: 'too many open questions',
    });
    client.result(call.callId, 'done without asking');
    await client.next('run_result');
    const statuses = server.runs.get(runId)?.toolCalls[0]?.questions?.map((q) => [q.status, q.by]);
    expect(statuses).toEqual([
      ...Array.from({ length: 8 }, () => ['cancelled', 'service']),
      ['cancelled', 'service'],
    ]);
    expect((await http(server, 'POST', path('q1'), { answer: 'late' })).status).toBe(409);
  });

  it('records no question from a session the call is not assigned to (it is told to stop the call), and sends question events only to owners with the feature', async () => {
    const server = await stub({ model: script() });
    const owner = track(await TestClient.connect(server.url));
    const worker = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['questions'] }),
    );
    const stranger = track(await TestClient.connect(server.url, { features: ['questions'] }));
    owner.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['export']), input: 'go' });
    const { runId } = await owner.next('run_started');
    const call = await worker.next('tool_call');
    stranger.send({ type: 'question', callId: call.callId, questionId: 'x', question: 'Mine?' });
    expect(await stranger.next('cancel')).toEqual({
      type: 'cancel',
      callId: call.callId,
      reason: 'not_dispatched',
    });
    worker.send({ type: 'question', callId: call.callId, questionId: 'q1', question: 'Which?' });
    await once(server, 'run_event', (info) => info.kind === 'question_asked');
    worker.result(call.callId, 'ok');
    await owner.next('run_result');
    expect(server.runs.get(runId)?.toolCalls[0]?.questions?.map((q) => q.questionId)).toEqual(['q1']);
    expect(
      owner
        .all('run_event')
        .map((f) => f.event.kind)
        .filter((k) => k.startsWith('question')),
    ).toEqual([]);
  });

  it('refuses with 413 an answer or a decline whose answer frame would be over the frame limit, and records nothing', async () => {
    const { client, call, path, server, runId } = await asking({ maxPayloadBytes: 1024 });
    client.send({ type: 'question', callId: call.callId, questionId: 'q1', question: 'Note?' });
    await client.next('run_event', (frame) => frame.event.kind === 'question_asked');
    const answer = 'x'.repeat(1_000);
    const bytes = JSON.stringify({
      type: 'answer',
      callId: call.callId,
      questionId: 'q1',
      status: 'answered',
      answer,
    }).length;
    expect(await http(server, 'POST', path('q1'), { answer })).toMatchObject({
      status: 413,
      body: {
        error: {
          code: 'too_large',
          message: `the reply makes an answer frame of ${bytes} bytes for question q1 of tool call ${call.callId}, over the frame limit of 1024 bytes`,
        },
      },
    });
    expect(
      (await http(server, 'POST', path('q1'), { declined: true, reason: 'r'.repeat(1_000) })).status,
    ).toBe(413);
    expect(server.runs.get(runId)?.toolCalls[0]?.questions?.map((q) => q.status)).toEqual(['open']);
    expect((await http(server, 'POST', path('q1'), { answer: 'short' })).status).toBe(200);
    expect(await client.next('answer')).toMatchObject({ questionId: 'q1', answer: 'short' });
    expect(client.all('answer')).toHaveLength(1);
  });

  it('cuts a question_asked event over the frame limit to its ids, marked truncated', async () => {
    const { client, call } = await asking({ maxPayloadBytes: 1024 });
    const question = `${'Which one? '.repeat(80)}`.trim();
    client.send({ type: 'question', callId: call.callId, questionId: 'q1', question, choices: ['a', 'b'] });
    const asked = await client.next('run_event', (frame) => frame.event.kind === 'question_asked');
    expect(asked.event.data).toEqual({
      callId: call.callId,
      toolName: 'export',
      questionId: 'q1',
      truncated: true,
      bytes: JSON.stringify({
        callId: call.callId,
        toolName: 'export',
        questionId: 'q1',
        question,
        choices: ['a', 'b'],
      }).length,
    });
  });

  describe('a call re-dispatched after its session expired', () => {
    async function redispatched() {
      const server = await stub({ sessionGraceMs: 30, model: script() });
      const first = track(
        await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['questions'] }),
      );
      const runId = server.runs.start(agent('a', ['export']), 'go');
      const call = await first.next('tool_call');
      const path = (questionId: string) => `/v1/runs/${runId}/calls/${call.callId}/questions/${questionId}`;
      const ask = async (client: TestClient, question: string) => {
        const asked = once(
          server,
          'run_event',
          (info) =>
            info.kind === 'question_asked' && (info.data as { question?: string }).question === question,
        );
        client.send({ type: 'question', callId: call.callId, questionId: 'q1', question });
        await asked;
      };
      const moveToSecond = async () => {
        const expired = once(server, 'session_expired');
        await first.drop();
        await expired;
        const second = track(
          await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['questions'] }),
        );
        expect((await second.next('tool_call')).callId).toBe(call.callId);
        return second;
      };
      return { server, first, runId, call, path, ask, moveToSecond };
    }

    it("never hands the new worker's q1 the answer a person gave the old worker's q1", async () => {
      const { server, first, runId, call, path, ask, moveToSecond } = await redispatched();
      await ask(first, 'Ship the export now?');
      expect((await http(server, 'POST', path('q1'), { answer: 'yes' })).status).toBe(200);
      expect(await first.next('answer')).toMatchObject({ questionId: 'q1', answer: 'yes' });
      const second = await moveToSecond();
      await ask(second, 'Also DELETE the source tables?');
      expect(second.all('answer')).toEqual([]);
      expect(await http(server, 'POST', path('q1'), { answer: 'no' })).toMatchObject({ status: 200 });
      expect(await second.next('answer')).toEqual({
        type: 'answer',
        callId: call.callId,
        questionId: 'q1',
        status: 'answered',
        answer: 'no',
      });
      second.result(call.callId, 'exported, nothing deleted');
      const transcript = await server.runs.waitFor(runId);
      expect(transcript.toolCalls[0]?.questions?.map((q) => [q.question, q.status, q.answer])).toEqual([
        ['Ship the export now?', 'answered', 'yes'],
        ['Also DELETE the source tables?', 'answered', 'no'],
      ]);
    });

    it('refuses an HTTP answer naming the old dispatch, and numbers the new dispatch in its events', async () => {
      const { server, first, runId, call, path, ask, moveToSecond } = await redispatched();
      await ask(first, 'Ship the export now?');
      const second = await moveToSecond();
      const asked = once(
        server,
        'run_event',
        (info) => info.kind === 'question_asked' && (info.data as { dispatch?: number }).dispatch === 2,
      );
      await ask(second, 'Also DELETE the source tables?');
      expect((await asked).data).toEqual({
        callId: call.callId,
        toolName: 'export',
        questionId: 'q1',
        dispatch: 2,
        question: 'Also DELETE the source tables?',
      });
      // A person still looking at the first worker's question answers it: refused, never given to the second's.
      expect(await http(server, 'POST', path('q1'), { answer: 'yes', dispatch: 1 })).toMatchObject({
        status: 409,
        body: {
          error: {
            code: 'not_allowed',
            message: `question q1 of tool call ${call.callId} was withdrawn or its call ended`,
          },
        },
      });
      expect((await http(server, 'POST', path('q1'), { answer: 'x', dispatch: 3 })).status).toBe(404);
      expect((await http(server, 'POST', path('q1'), { answer: 'no', dispatch: 2 })).status).toBe(200);
      expect(await second.next('answer')).toMatchObject({ questionId: 'q1', answer: 'no' });
      second.result(call.callId, 'ok');
      const transcript = await server.runs.waitFor(runId);
      expect(transcript.toolCalls[0]?.questions?.map((q) => [q.questionId, q.dispatch, q.status])).toEqual([
        ['q1', undefined, 'cancelled'],
        ['q1', 2, 'answered'],
      ]);
    });

    it("leaves the new worker's q1 open when the old worker's q1 was still open as its session expired", async () => {
      const { server, first, runId, call, path, ask, moveToSecond } = await redispatched();
      await ask(first, 'Ship the export now?');
      const second = await moveToSecond();
      await ask(second, 'Also DELETE the source tables?');
      expect(second.all('answer')).toEqual([]);
      expect((await http(server, 'POST', path('q1'), { answer: 'no' })).status).toBe(200);
      expect(await second.next('answer')).toMatchObject({
        questionId: 'q1',
        status: 'answered',
        answer: 'no',
      });
      second.result(call.callId, 'ok');
      const transcript = await server.runs.waitFor(runId);
      expect(transcript.toolCalls[0]?.questions?.map((q) => [q.status, q.by])).toEqual([
        ['cancelled', 'service'],
        ['answered', 'http'],
      ]);
    });
  });
});
