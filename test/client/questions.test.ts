/**
 * Questions end to end over the real stub (docs/protocol/questions.md): answered over HTTP, declined, answered by the
 * client's own onQuestion, across a dropped connection, without holding a concurrency slot, and against a
 * service that does not take questions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Agent, Client, QuestionError, type QuestionRequest, tool } from '../../src/index';
import { startTcpProxy } from '../support/tcp-proxy';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stub(options: Parameters<typeof startStubServer>[0] = {}): Promise<StubServer> {
  const server = await startStubServer({
    logger: silentLogger,
    model: scriptedModel([
      { toolCalls: [{ name: 'export' }] },
      ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
    ]),
    ...options,
  });
  cleanups.push(() => server.close());
  return server;
}

function client(url: string, options: Partial<ConstructorParameters<typeof Client>[0]>): Client {
  const made = new Client({
    url,
    apiKey: 'long-calls-test-key',
    tools: [],
    reconnect: { initialDelayMs: 5, maxDelayMs: 50 },
    ...options,
  });
  cleanups.push(() => made.close({ drain: false }));
  return made;
}

/** Asks which warehouse, and exports there; a QuestionError is handled by the tool: the call goes on. */
const exporter = tool({
  name: 'export',
  description: 'Exports to a warehouse.',
  execute: async (_input, ctx) => {
    try {
      const warehouse = await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] });
      return `exported to ${warehouse}`;
    } catch (error) {
      if (error instanceof QuestionError) return `not exported (${error.code}: ${error.message})`;
      throw error;
    }
  },
});

/** Resolves with the data of the stub's next `question_asked` event. */
function nextQuestion(server: StubServer): Promise<{ runId: string; callId: string; questionId: string }> {
  return new Promise((resolve) => {
    const listener = (info: { runId: string; kind: string; data: unknown }) => {
      if (info.kind !== 'question_asked') return;
      server.events.off('run_event', listener);
      const data = info.data as { callId: string; questionId: string };
      resolve({ runId: info.runId, callId: data.callId, questionId: data.questionId });
    };
    server.events.on('run_event', listener);
  });
}

async function post(
  server: StubServer,
  asked: { runId: string; callId: string; questionId: string },
  body: unknown,
) {
  const response = await fetch(
    `${server.httpUrl}/v1/runs/${asked.runId}/calls/${asked.callId}/questions/${asked.questionId}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return { status: response.status, body: await response.json() };
}

const agent = new Agent({ name: 'A', instructions: '', tools: [exporter] });

describe('questions over the stub', () => {
  it('answered over HTTP: the tool gets the answer and the transcript keeps it', async () => {
    const server = await stub();
    const worker = client(server.url, { tools: [exporter] });
    await worker.connect();
    const asked = nextQuestion(server);
    const running = worker.run(agent, 'go');
    expect(await post(server, await asked, { answer: 'Lyon' })).toMatchObject({
      status: 200,
      body: { status: 'answered' },
    });
    const result = await running;
    expect(result.finalOutput).toBe('exported to Lyon');
    expect(server.runs.get(result.runId)?.toolCalls[0]?.questions).toMatchObject([
      {
        questionId: 'q1',
        question: 'Which warehouse?',
        choices: ['Berlin', 'Lyon'],
        status: 'answered',
        answer: 'Lyon',
      },
    ]);
  });

  it('declined over HTTP: the tool gets a QuestionError and goes on', async () => {
    const server = await stub();
    const worker = client(server.url, { tools: [exporter] });
    await worker.connect();
    const asked = nextQuestion(server);
    const running = worker.run(agent, 'go');
    await post(server, await asked, { declined: true, reason: 'ask finance' });
    expect((await running).finalOutput).toBe(
      'not exported (declined: the user declined to answer: ask finance)',
    );
  });

  it('answered by the client own onQuestion: nothing goes to the service', async () => {
    const server = await stub();
    const asked: QuestionRequest[] = [];
    const worker = client(server.url, {
      tools: [exporter],
      onQuestion: async (request) => {
        asked.push(request);
        return { answer: 'Berlin' };
      },
    });
    await worker.connect();
    const result = await worker.run(agent, 'go');
    expect(result.finalOutput).toBe('exported to Berlin');
    expect(asked).toMatchObject([{ toolName: 'export', questionId: 'q1', choices: ['Berlin', 'Lyon'] }]);
    expect(server.runs.get(result.runId)?.toolCalls[0]?.questions).toBeUndefined();
  });

  it('holds no concurrency slot while waiting: another call runs meanwhile', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'export' }, { name: 'quick' }] },
        ({ messages }) => ({
          text: messages
            .filter((m) => m.role === 'tool')
            .map((m) => m.content)
            .join(' | '),
        }),
      ]),
    });
    const order: string[] = [];
    const quick = tool({
      name: 'quick',
      description: 'Answers at once.',
      execute: () => {
        order.push('quick ran');
        return 'quick';
      },
    });
    const worker = client(server.url, { tools: [exporter, quick], maxConcurrency: 1 });
    await worker.connect();
    const asked = nextQuestion(server);
    const running = worker.run(new Agent({ name: 'B', instructions: '', tools: [exporter, quick] }), 'go');
    const question = await asked;
    await expect.poll(() => order).toEqual(['quick ran']);
    order.push('answered');
    await post(server, question, { answer: 'Berlin' });
    expect((await running).finalOutput).toBe('exported to Berlin | quick');
    expect(order).toEqual(['quick ran', 'answered']);
  });

  it('survives a dropped connection: an answer given while the client is away reaches it after the resume', async () => {
    const server = await stub();
    const proxy = await startTcpProxy({ targetPort: server.port });
    cleanups.push(() => proxy.close());
    const worker = client(proxy.url, { tools: [exporter] });
    await worker.connect();
    const asked = nextQuestion(server);
    const running = worker.run(agent, 'go');
    const question = await asked;
    const detached = new Promise((resolve) => server.events.once('session_detached', resolve));
    proxy.blackhole(true);
    proxy.dropAll();
    await detached;
    expect((await post(server, question, { answer: 'Lyon' })).status).toBe(200);
    proxy.blackhole(false);
    // A reconnect made meanwhile lost its hello to the blackhole and would wait out a handshake timeout (10 s):
    // cut it, so that the next one, made at once, goes through.
    proxy.dropAll();
    expect((await running).finalOutput).toBe('exported to Lyon');
  });

  it('rejects with unsupported against a service without questions, and the tool decides', async () => {
    const server = await stub({ features: [] });
    const worker = client(server.url, { tools: [exporter] });
    await worker.connect();
    expect((await worker.run(agent, 'go')).finalOutput).toBe(
      'not exported (unsupported: nobody can answer: the client has no onQuestion and the service does not take questions)',
    );
  });
});
