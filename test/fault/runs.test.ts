/** Runs started by the client across dropped connections: each starts once, and its result arrives. */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Agent, QuestionError, RunError, tool } from '../../src/index';
import { FEATURES } from '../../src/wire/protocol';
import { client, deferred, nextEvent, proxyTo, recordingWebSocket, stub, until } from './harness';

const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'echoed' });
const agent = new Agent({ name: 'A', instructions: '', tools: [echo] });
const model = () =>
  scriptedModel([
    { toolCalls: [{ name: 'echo' }] },
    ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
  ]);

describe('client.run() over a flaky connection', () => {
  it('starts a run whose run_start was lost with the socket', async () => {
    const server = await stub({ model: model() });
    const proxy = await proxyTo(server);
    const recording = recordingWebSocket();
    const worker = client(proxy.url, { tools: [echo], WebSocket: recording.WebSocket });
    await worker.connect();
    proxy.blackhole(true, 'up');
    const running = worker.run(agent, 'go');
    await until(() => recording.sent.filter((frame) => frame.type === 'run_start').length, 1);
    await until(() => proxy.stats.swallowed > 0, true);
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    proxy.dropAll();
    proxy.blackhole(false, 'up');
    expect(await resumed).toMatchObject({ resumed: true });
    const result = await running;
    expect(result.finalOutput).toBe('echoed');
    expect(server.runs.list()).toHaveLength(1);
  });

  it('starts the run once when its run_started was lost, though run_start is sent again', async () => {
    const server = await stub({ model: model() });
    const proxy = await proxyTo(server);
    const recording = recordingWebSocket();
    const worker = client(proxy.url, { tools: [echo], WebSocket: recording.WebSocket });
    await worker.connect();
    proxy.blackhole(true, 'down');
    const running = worker.run(agent, 'go');
    await until(() => server.runs.list().length, 1);
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    proxy.dropAll();
    proxy.blackhole(false, 'down');
    expect(await resumed).toMatchObject({ resumed: true });
    const result = await running;
    expect(result.finalOutput).toBe('echoed');
    expect(server.runs.list()).toHaveLength(1);
    expect(server.runs.get(result.runId)?.toolCalls).toHaveLength(1);
  });

  it('rejects a started run with session_lost when the client comes back after its session expired', async () => {
    const release = deferred();
    const started = deferred();
    const slow = tool({
      name: 'echo',
      description: 'Waits for the test.',
      execute: async () => {
        started.resolve();
        await release.promise;
        return 'late';
      },
    });
    const server = await stub({ model: model(), sessionGraceMs: 50 });
    const proxy = await proxyTo(server);
    const worker = client(proxy.url, { tools: [slow] });
    await worker.connect();
    const waiting = new Agent({ name: 'A', instructions: '', tools: [slow] });
    const running = worker.run(waiting, 'go');
    const outcome = running.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await started.promise;
    const expired = nextEvent(server.events, 'session_expired');
    proxy.blackhole(true);
    proxy.dropAll();
    await expired;
    expect(server.runs.list().map((run) => run.status)).toEqual(['cancelled']);
    const connected = nextEvent<{ resumed: boolean }>(worker, 'connected');
    proxy.blackhole(false);
    proxy.dropAll();
    expect(await connected).toMatchObject({ resumed: false });
    const error = await outcome;
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({
      code: 'session_lost',
      message: expect.stringMatching(/^run \S+ was lost with its session: /),
    });
    release.resolve();
    // The client goes on: a run started in the new session completes.
    const again = await worker.run(waiting, 'again');
    expect(again.finalOutput).toBe('late');
  });

  it("fails a running call's open question cancelled when the client comes back in a new session", async () => {
    const started = deferred();
    const asked = deferred<unknown>();
    const asking = tool({
      name: 'echo',
      description: 'Asks the user.',
      execute: async (_input, ctx) => {
        started.resolve();
        asked.resolve(await ctx.askQuestion('Which?').catch((error: unknown) => error));
        return 'asked';
      },
    });
    // Without the lease, nothing else ends the call (and so its question) when its session goes.
    const server = await stub({
      model: model(),
      sessionGraceMs: 50,
      features: FEATURES.filter((name) => name !== 'lease'),
    });
    const proxy = await proxyTo(server);
    const worker = client(proxy.url, { tools: [asking] });
    await worker.connect();
    const questionAsked = nextEvent<{ kind: string }>(
      worker,
      'run_event',
      (event) => event.kind === 'question_asked',
    );
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [asking] }), 'go');
    running.catch(() => {});
    await started.promise;
    await questionAsked;
    const expired = nextEvent(server.events, 'session_expired');
    proxy.blackhole(true);
    proxy.dropAll();
    await expired;
    const connected = nextEvent<{ resumed: boolean }>(worker, 'connected');
    proxy.blackhole(false);
    proxy.dropAll();
    expect(await connected).toMatchObject({ resumed: false });
    const error = await asked.promise;
    expect(error).toBeInstanceOf(QuestionError);
    expect(error).toMatchObject({
      code: 'cancelled',
      message:
        'the session was lost: the client reconnected in a new session, which cannot answer a question put to the old one',
    });
    await expect(running).rejects.toMatchObject({ name: 'RunError', code: 'session_lost' });
  });
});
