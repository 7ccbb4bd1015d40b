/**
 * The code of the questions a call puts to the service, as a browser gets it: the core entry (src/index.ts) loads
 * src/client/socket-questions.ts with `import()` at a client's first question to the service (the Node entry and
 * the tests' setup register it up front). Until then no question is open, so an `answer` is no one's. A failed
 * load ends that question as `QuestionError` `failed` (the `load_failed` error as `cause`): the tool decides, the
 * call ends with a result, and the next question loads again. A question whose call stopped waiting, or whose
 * session was lost, while the code loaded is never sent. The source is loaded afresh (`vi.resetModules()`) so
 * that no registration is there.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Core from '../../src/index';
import { controlLoads } from '../helpers/code-loads';
import { type MemoryPeer, memorySocketPair } from '../helpers/memory-socket';

interface Frame {
  type: string;
  callId: string;
  questionId: string;
  question: string;
  status: string;
  output: string;
}

/**
 * A service taking the feature `questions`: it answers each `question` with `blue` (unless `answering` is
 * off), records the questions and the results, and sends calls of tool `asking`. Each welcome starts a new
 * session when `resumed` is off.
 */
function service() {
  const questions: string[] = [];
  const results: Array<{ callId: string; status: string; output: string }> = [];
  const state = { answering: true, resumed: false };
  let peer: MemoryPeer | undefined;
  let sessions = 0;
  const pair = memorySocketPair({
    onConnection(connected: MemoryPeer) {
      peer = connected;
      connected.onMessage = (text) => {
        const frame = JSON.parse(text) as Frame;
        if (frame.type === 'hello') {
          sessions += 1;
          connected.send({
            type: 'welcome',
            sessionId: state.resumed ? 's1' : `s${sessions}`,
            resumed: state.resumed && sessions > 1,
            heartbeatIntervalMs: 15_000,
            maxPayloadBytes: 1_048_576,
            features: ['questions'],
          });
        } else if (frame.type === 'question') {
          questions.push(`${frame.callId} ${frame.questionId} ${frame.question}`);
          if (state.answering) {
            connected.send({
              type: 'answer',
              callId: frame.callId,
              questionId: frame.questionId,
              status: 'answered',
              answer: 'blue',
            });
          }
        } else if (frame.type === 'tool_result') {
          results.push({ callId: frame.callId, status: frame.status, output: frame.output });
        }
      };
    },
  });
  const call = (callId: string, toolName = 'asking') =>
    peer!.send({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: {} });
  return {
    pair,
    questions,
    results,
    state,
    call,
    send: (frame: object) => peer!.send(frame),
    peer: () => peer!,
  };
}

/**
 * A client of a fresh core (nothing registered) with tools `asking` (catches) and `careless` (does not), the
 * loads of its question code set by `loads` (see {@link controlLoads}).
 */
async function connectedClient(
  options: { onQuestion?: () => string } = {},
  loads: { held?: boolean; offline?: boolean } = {},
) {
  vi.resetModules();
  const core = await import('../../src/index');
  const { setCodeLoader } = await import('../../src/code-on-demand');
  const questionLoads = controlLoads(setCodeLoader, 'question', loads);
  const svc = service();
  const asking = core.tool({
    name: 'asking',
    description: 'Asks for a colour.',
    execute: (_input: unknown, ctx) =>
      ctx.askQuestion('Which colour?').then(
        (answer) => `answer ${String(answer)}`,
        (error: Core.QuestionError) =>
          `${error.name}/${error.code}: ${error.message} (cause: ${(error.cause as Core.ToolwireError | undefined)?.code})`,
      ),
  });
  const careless = core.tool({
    name: 'careless',
    description: 'Asks, and lets a failure end the call.',
    execute: async (_input: unknown, ctx) => `answer ${String(await ctx.askQuestion('Which colour?'))}`,
  });
  const client = new core.Client({
    url: 'ws://service',
    apiKey: 'key-1',
    WebSocket: svc.pair.WebSocket,
    tools: [asking, careless],
    reconnect: { initialDelayMs: 1, maxDelayMs: 1 },
    ...options,
  });
  client.on('error', () => {});
  await client.connect();
  return { core, client, loads: questionLoads, ...svc };
}

afterEach(() => {
  vi.resetModules();
});

describe('questions put to the service where their code loads with import()', () => {
  it('is not loaded by calls that ask no question, an onQuestion that answers, or answers to nothing', async () => {
    const { client, results, call, send, loads } = await connectedClient({ onQuestion: () => 'red' });
    send({ type: 'answer', callId: 'c0', questionId: 'q1', status: 'answered', answer: 'blue' });
    call('c1');
    await vi.waitFor(() => expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'answer red' }]));
    expect(loads.begun).toBe(0);
    await client.close({ drain: false });
  });

  it('loads at the first question put to the service, once', async () => {
    const { client, questions, results, call, loads } = await connectedClient();
    call('c1');
    await vi.waitFor(() => expect(results).toHaveLength(1));
    call('c2');
    await vi.waitFor(() => expect(results).toHaveLength(2));
    expect(results).toEqual([
      { callId: 'c1', status: 'ok', output: 'answer blue' },
      { callId: 'c2', status: 'ok', output: 'answer blue' },
    ]);
    expect(questions).toEqual(['c1 q1 Which colour?', 'c2 q1 Which colour?']);
    expect(loads.begun).toBe(1);
    await client.close({ drain: false });
  });

  it('ends a question whose code could not load as QuestionError failed, the call with a result; the next loads again', async () => {
    const { client, questions, results, call, loads } = await connectedClient({}, { offline: true });
    call('c1');
    call('c2', 'careless');
    await vi.waitFor(() => expect(results).toHaveLength(2));
    const [caught, uncaught] = results;
    // After the prefix, the import's own message (vitest's, around the mock's error).
    expect(caught).toEqual({
      callId: 'c1',
      status: 'ok',
      output: expect.stringMatching(
        /^QuestionError\/failed: toolwire could not load its question code: \S.* \(cause: load_failed\)$/,
      ),
    });
    expect(uncaught).toEqual({
      callId: 'c2',
      status: 'error',
      output: expect.stringMatching(/^Error running careless: toolwire could not load its question code: \S/),
    });
    expect(questions).toEqual([]);

    loads.offline = false;
    call('c3');
    await vi.waitFor(() => expect(results).toHaveLength(3));
    expect(results[2]).toEqual({ callId: 'c3', status: 'ok', output: 'answer blue' });
    expect(questions).toEqual(['c3 q1 Which colour?']);
    expect(loads.begun).toBe(2);
    await client.close({ drain: false });
  });

  it('sends a question once its code arrives, and takes the answer that comes for it', async () => {
    const { client, questions, results, call, loads } = await connectedClient({}, { held: true });
    call('c1');
    // The call asked: its question waits for the code.
    await vi.waitFor(() => expect(loads.begun).toBe(1));
    expect(questions).toEqual([]);
    loads.arrive();
    await vi.waitFor(() => expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'answer blue' }]));
    expect(questions).toEqual(['c1 q1 Which colour?']);
    await client.close({ drain: false });
  });

  it('never sends a question whose call was cancelled while its code loaded', async () => {
    const { client, questions, results, call, send, loads } = await connectedClient({}, { held: true });
    call('c1');
    // The call asked: its question waits for the code.
    await vi.waitFor(() => expect(loads.begun).toBe(1));
    send({ type: 'cancel', callId: 'c1' });
    await vi.waitFor(() => expect(results).toHaveLength(1));
    expect(results[0]).toMatchObject({ callId: 'c1', status: 'cancelled' });
    loads.arrive();
    await vi.waitFor(() => expect(loads.done).toBe(1));
    expect(questions).toEqual([]);
    await client.close({ drain: false });
  });

  it('never sends a question to a new session when the old one was lost while its code loaded', async () => {
    const { client, questions, results, call, peer, loads } = await connectedClient({}, { held: true });
    call('c1');
    // The call asked: its question waits for the code.
    await vi.waitFor(() => expect(loads.begun).toBe(1));
    const reconnected = new Promise<boolean>((resolve) =>
      client.once('connected', ({ resumed }) => resolve(resumed)),
    );
    peer().close(1011, 'restarting');
    expect(await reconnected).toBe(false);
    loads.arrive();
    await vi.waitFor(() => expect(results).toHaveLength(1));
    expect(results[0]).toEqual({
      callId: 'c1',
      status: 'ok',
      output:
        'QuestionError/cancelled: the session was lost: the client reconnected in a new session, which cannot answer a question put to the old one (cause: undefined)',
    });
    expect(questions).toEqual([]);
    await client.close({ drain: false });
  });
});
