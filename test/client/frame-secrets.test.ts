/**
 * No secret reaches a frame the client sends: every field of every client frame that carries text a tool, a
 * policy or the application wrote is driven with the API key and a `redact` value, in several encodings (as
 * written, JSON-escaped, `\uXXXX`-escaped, percent-encoded), and every frame the service receives is searched
 * for them in every form (test/support/leaks.ts). The fields sent as written by design (README, "Sent as written,
 * never redacted") are listed, so that a frame type added later fails here until it is placed.
 */
import { describe, expect, it } from 'vitest';
import { approvalRequired, Client, content, tool } from '../../src/index';
import { clientFrames, FEATURES } from '../../src/wire/protocol';
import { findLeak } from '../support/leaks';
import { FAKE_URL, type FakeConnection, fakeWebSocket, useFakeService, welcome } from './fake-service';

const { clientFrameSchema } = clientFrames();

const KEY = 'sk-SECRETKEY-1234567890';
const WORD = 'hunter2-REDACTME';
const SECRETS = [KEY, WORD, 'tok_abc123'];

/** `secret` in the forms a tool might write it: as written, JSON-escaped, `\u`-escaped and percent-encoded. */
function forms(secret: string): string {
  const unicode = [...secret]
    .map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
  return `${secret} ${JSON.stringify(JSON.stringify(secret))} ${unicode} ${encodeURIComponent(secret)}`;
}
const ALL = `${forms(KEY)} / ${forms(WORD)} / tok_abc123`;
/** Short enough to fit a choice (200 characters) once redacted. */
const SHORT = `${KEY} ${encodeURIComponent(WORD)}`;

/**
 * Every client frame type, and the fields of it that carry free text (searched by the test below) or why it has
 * none. Fields sent as written by design are not listed: `hello.apiKey` (a browser's only way to send the key),
 * tool names, descriptions and parameter schemas, a run's `input` and agent.
 */
const FRAME_TEXT: Record<string, string> = {
  hello: 'tools[].approvalReason',
  tools_update: 'tools[].approvalReason',
  tool_result: 'output, widget, content, result (its value)',
  approval_request: 'reason',
  approval: 'reason (edited arguments holding a secret are refused)',
  run_start: 'none redacted: input and agent are sent as written',
  run_cancel: 'reason: fixed texts of the SDK',
  tool_progress: 'message',
  tool_preliminary: 'output, widget',
  lease: 'ids only',
  key_waits: 'ids only',
  approval_waits: 'ids only',
  question: 'question, choices, schema',
  question_cancel: 'ids only',
  tool_event: 'data (a name holding a secret is refused)',
  step_result: 'key, result',
  ping: 'an id of the SDK',
  pong: "the service's id",
  error: 'never sent by the client',
};

const { service, clients } = useFakeService();

async function connect(client: Client, extra: Record<string, unknown> = {}): Promise<FakeConnection> {
  const opened = service.nextConnection();
  const connecting = client.connect();
  const connection = await opened;
  await connection.next('hello');
  connection.send(welcome('s1', { features: [...FEATURES], ...extra }));
  await connecting;
  return connection;
}

function call(callId: string, toolName: string, extra: Record<string, unknown> = {}) {
  return { type: 'tool_call', callId, runId: 'r1', toolName, arguments: {}, ...extra };
}

const answers: unknown[] = [];

/** The next `question` frame other than `seen`'s. */
async function nextQuestion(connection: FakeConnection, seen: string) {
  for (;;) {
    const frame = await connection.next('question');
    if (frame.questionId !== seen) return frame;
  }
}

const gated = tool({
  name: 'gated',
  description: 'Needs approval, with a reason that quotes secrets.',
  needsApproval: () => ({ required: true, reason: `predicate ${ALL}` }),
  execute: () => 'ran',
});
const policed = tool({ name: 'policed', description: 'A policy asks for approval.', execute: () => 'ran' });
const announced = tool({
  name: 'announced',
  description: 'Its definition announces an approval reason.',
  needsApproval: approvalRequired(`static ${SHORT}`),
  execute: () => 'ran',
});
const worker = tool({
  name: 'worker',
  description: 'Sends every update a call can.',
  async *execute(_args, ctx) {
    ctx.progress({ progress: 1, total: 2, message: `progress ${ALL}` });
    ctx.emit('worker.event', { note: `emit ${ALL}`, [KEY]: WORD });
    yield { note: `preliminary ${ALL}`, widget: { type: 'Text', value: `widget ${ALL}` } };
    const stepped = await ctx.step(`step-${SHORT}`, () => `step result ${ALL}`);
    answers.push(stepped);
    answers.push(
      await ctx.askQuestion(`question ${ALL}?`, { choices: ['yes', `no ${SHORT}`], timeoutMs: 60_000 }),
    );
    answers.push(
      await ctx.askQuestion('How many?', {
        schema: { type: 'integer', description: `schema ${ALL}`, examples: [KEY] },
        timeoutMs: 60_000,
      }),
    );
    return content([
      { type: 'text', text: `text ${ALL}` },
      { type: 'json', value: { k: ALL } },
    ]);
  },
});

/** Results whose full value travels beside `output` (feature `result_parts`): a projected one and a thrown one. */
const projected = tool({
  name: 'projected',
  description: 'Shows the model less than it returns.',
  execute: () => ({ full: `full ${ALL}`, list: [KEY, { deep: WORD }], [KEY]: 1 }),
  toModelOutput: (output) => `shown ${Object.keys(output).length}`,
});
const thrower = tool({
  name: 'thrower',
  description: 'Throws plain data.',
  execute: () => {
    throw { reason: `thrown ${ALL}`, key: KEY };
  },
});

describe('no secret reaches a frame the client sends', () => {
  it('lists every client frame type (a new one must be placed here)', () => {
    const options = clientFrameSchema._zod.def.options as unknown as Array<{
      _zod: { def: { shape: { type: { _zod: { def: { values: string[] } } } } } };
    }>;
    const types = options.map((option) => option._zod.def.shape.type._zod.def.values[0]).sort();
    expect(types).toEqual(Object.keys(FRAME_TEXT).sort());
  });

  it('redacts every free-text field: approval reasons, questions and choices, step keys, updates, results', async () => {
    answers.length = 0;
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: KEY,
      redact: [WORD, /tok_[a-z0-9]+/],
      tools: [gated, policed, announced, worker, projected, thrower],
      policies: [(c) => (c.toolName === 'policed' ? { requireApproval: `policy ${ALL}` } : undefined)],
      reconnect: false,
    });
    clients.push(client);
    const connection = await connect(client);

    const gatedAsked = connection.next('approval_request');
    connection.send(call('c1', 'gated'));
    expect((await gatedAsked).reason).toContain('predicate [redacted]');
    const policedAsked = connection.next('approval_request');
    connection.send(call('c2', 'policed'));
    expect((await policedAsked).reason).toContain('policy [redacted]');
    const decision = connection.next('approval');
    const deciding = client.decide('c1', { approved: false, reason: `declined ${ALL}` });
    const { requestId } = await decision;
    connection.send({ type: 'approval_applied', requestId: requestId ?? '', callId: 'c1', approved: false });
    await deciding;

    const asked = connection.next('question');
    const result = connection.next('tool_result');
    connection.send(call('c3', 'worker'));
    const question = await asked;
    expect(question.choices).toEqual(['yes', 'no [redacted] [redacted]']);
    // The person picks the choice as shown: the tool reads its own choice back.
    connection.send({
      type: 'answer',
      callId: 'c3',
      questionId: question.questionId,
      status: 'answered',
      answer: 'no [redacted] [redacted]',
    });
    const second = await nextQuestion(connection, question.questionId);
    expect(JSON.stringify(second.schema)).toContain('schema [redacted]');
    connection.send({
      type: 'answer',
      callId: 'c3',
      questionId: second.questionId,
      status: 'answered',
      answer: 3,
    });
    await result;
    for (const [callId, toolName] of [
      ['c4', 'projected'],
      ['c5', 'thrower'],
    ] as const) {
      const answered = connection.next('tool_result');
      connection.send(call(callId, toolName));
      const frame = await answered;
      expect(frame.result, `${toolName}: ${frame.output}`).toMatchObject({ value: expect.anything() });
    }
    expect(answers).toEqual([expect.stringContaining('step result [redacted]'), `no ${SHORT}`, 3]);

    const sent = connection.frames;
    const types = new Set(sent.map((frame) => frame.type));
    for (const type of [
      'hello',
      'approval_request',
      'approval',
      'tool_progress',
      'tool_event',
      'tool_preliminary',
      'step_result',
      'question',
      'tool_result',
    ])
      expect(types, type).toContain(type);
    const hello = sent.find((frame) => frame.type === 'hello');
    expect(JSON.stringify(hello)).toContain('static [redacted]');
    const step = sent.find((frame) => frame.type === 'step_result');
    expect(step).toMatchObject({ key: 'step-[redacted] [redacted]' });
    for (const frame of sent) {
      const text = JSON.stringify(frame);
      for (const secret of SECRETS) expect(findLeak(text, secret), `${frame.type}: ${text}`).toBeUndefined();
    }
  });

  it('announces a tool added later with its approval reason redacted (tools_update)', async () => {
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: KEY,
      redact: [WORD],
      tools: [],
      reconnect: false,
    });
    clients.push(client);
    const connection = await connect(client);
    const update = connection.next('tools_update');
    client.addTool(announced);
    const text = JSON.stringify(await update);
    expect(text).toContain('static [redacted]');
    for (const secret of [KEY, WORD]) expect(findLeak(text, secret)).toBeUndefined();
  });
});
