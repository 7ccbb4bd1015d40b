/**
 * The stub's fleet behaviour across sessions (docs/protocol/sessions.md, docs/protocol/fleet-limits.md): an orderly
 * close ends a session at once, fleet limits count connected sessions only, a detached session's calls end at
 * their deadline. Several clients against one stub in this process: separate processes would prove nothing more.
 */
import { describe, expect, it } from 'vitest';
import { type Model, scriptedModel } from '../../server-stub/index';
import { Client } from '../../src/index';
import type { ToolDefinition } from '../../src/wire/protocol';
import { agent, http, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const oneCall = () => scriptedModel([{ toolCalls: [{ name: 'work' }] }, { text: 'done' }]);

describe('a client that closes with 1000', () => {
  it('has left: its session ends at once and the call it owed goes to another client at once', async () => {
    const server = await stub({ model: oneCall(), sessionGraceMs: 60_000 });
    const a = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const b = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const runId = server.runs.start(agent('fleet', ['work']), 'go');
    const sent = await a.next('tool_call');
    const expired = once(server, 'session_expired', (info) => info.sessionId === a.sessionId);
    await a.close(1000, 'client closed');
    expect(await expired).toEqual({ sessionId: a.sessionId });
    const again = await b.next('tool_call');
    expect(again.callId).toBe(sent.callId);
    b.result(again.callId, 'from b');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.output, call.dispatchedTo, call.answeredBy])).toEqual([
      ['from b', [a.sessionId, b.sessionId], b.sessionId],
    ]);
    expect(server.sessions().map((session) => session.sessionId)).toEqual([b.sessionId]);
  });

  it('keeps a session dropped without a close frame for its grace period', async () => {
    const server = await stub({ model: oneCall(), sessionGraceMs: 60_000 });
    const a = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const detached = once(server, 'session_detached');
    await a.drop();
    expect(await detached).toEqual({ sessionId: a.sessionId, code: 1006, reason: '' });
    expect(server.sessions()).toMatchObject([{ sessionId: a.sessionId, state: 'detached' }]);
  });

  it('is what client.close() sends: the stub ends its session at once', async () => {
    const server = await stub({ sessionGraceMs: 60_000 });
    const client = new Client({ url: server.url, apiKey: 'k', tools: [] });
    await client.connect();
    const [session] = server.sessions();
    const detached = once(server, 'session_detached');
    const expired = once(server, 'session_expired');
    await client.close();
    expect(await detached).toEqual({ sessionId: session?.sessionId, code: 1000, reason: 'client closed' });
    expect(await expired).toEqual({ sessionId: session?.sessionId });
    expect(server.sessions()).toEqual([]);
  });
});

const limited = (concurrency: number) => ({ ...toolDef('work'), fleet: { concurrency } });

describe('fleet limits that disagree', () => {
  it('count connected sessions only: a detached one does not refuse the new numbers, and is refused at its resume', async () => {
    const server = await stub({ sessionGraceMs: 60_000 });
    const old = track(await TestClient.connect(server.url, { tools: [limited(2)] }));
    const detached = once(server, 'session_detached');
    await old.drop();
    await detached;
    const fresh = track(await TestClient.connect(server.url, { tools: [limited(3)] }));
    expect(fresh.welcome?.resumed).toBe(false);
    const resuming = track(TestClient.open(server.url, { tools: [limited(2)], sessionId: old.sessionId }));
    expect(await resuming.closed).toEqual({
      code: 4010,
      reason: 'fleet limits of work disagree: this worker concurrency 2, the fleet concurrency 3',
    });
  });

  it('ends a session whose resume it refused at once: the call it owed goes to another worker now', async () => {
    const server = await stub({ model: oneCall(), sessionGraceMs: 60_000 });
    const old = track(await TestClient.connect(server.url, { tools: [limited(2)] }));
    const runId = server.runs.start(agent('fleet', ['work']), 'go');
    const sent = await old.next('tool_call');
    const detached = once(server, 'session_detached');
    await old.drop();
    await detached;
    const fresh = track(await TestClient.connect(server.url, { tools: [limited(3)] }));
    const expired = once(server, 'session_expired', (info) => info.sessionId === old.sessionId);
    const resuming = track(TestClient.open(server.url, { tools: [limited(2)], sessionId: old.sessionId }));
    expect((await resuming.closed).code).toBe(4010);
    // Not after the 60 s of grace: next() gives up after 5 s.
    const again = await fresh.next('tool_call');
    expect(again.callId).toBe(sent.callId);
    expect(await expired).toEqual({ sessionId: old.sessionId });
    fresh.result(again.callId, 'from the new worker');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.output, call.dispatchedTo])).toEqual([
      ['from the new worker', [old.sessionId, fresh.sessionId]],
    ]);
    expect(server.sessions().map((session) => session.sessionId)).toEqual([fresh.sessionId]);
  });

  it("keeps the session when the refused hello that names it comes with another tenant's key", async () => {
    const server = await stub({ sessionGraceMs: 60_000, apiKeys: ['key-a', 'key-b'] });
    const old = track(await TestClient.connect(server.url, { apiKey: 'key-a', tools: [limited(2)] }));
    const detached = once(server, 'session_detached');
    await old.drop();
    await detached;
    track(await TestClient.connect(server.url, { apiKey: 'key-b', tools: [limited(3)] }));
    const other = track(
      TestClient.open(server.url, { apiKey: 'key-b', tools: [limited(2)], sessionId: old.sessionId }),
    );
    expect((await other.closed).code).toBe(4010);
    expect(server.sessions().find((session) => session.sessionId === old.sessionId)?.state).toBe('detached');
  });

  it('still refuses a worker whose numbers differ from a connected session', async () => {
    const server = await stub();
    track(await TestClient.connect(server.url, { tools: [limited(2)] }));
    const other = track(TestClient.open(server.url, { tools: [limited(3)] }));
    expect(await other.closed).toEqual({
      code: 4010,
      reason: 'fleet limits of work disagree: this worker concurrency 3, the fleet concurrency 2',
    });
  });
});

describe('fleet concurrency', () => {
  it('holds the slot of a call that timed out until its worker answers', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'work' }] },
      { toolCalls: [{ name: 'work' }] },
      { text: 'done' },
    ]);
    const server = await stub({ model, callDeadlineMs: 300 });
    const worker = track(await TestClient.connect(server.url, { tools: [limited(1)] }));
    const runId = server.runs.start(agent('fleet', ['work']), 'go');
    const first = await worker.next('tool_call');
    // The tool ignores its signal: past the deadline the model reads timeout, the worker still runs it.
    const asked = once(
      server,
      'run_event',
      (info) => info.kind === 'tool_call' && (info.data as { callId: string }).callId !== first.callId,
    );
    expect(await worker.next('cancel')).toEqual({ type: 'cancel', callId: first.callId, reason: 'deadline' });
    await asked;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(worker.all('tool_call').map((frame) => frame.callId)).toEqual([first.callId]);
    worker.result(first.callId, 'late');
    const second = await worker.next('tool_call', (frame) => frame.callId !== first.callId);
    worker.result(second.callId, 'second');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([
      ['timeout', 'Error running work: timed out after 300ms'],
      ['ok', 'second'],
    ]);
  });

  it("frees the slot of a call that timed out when its worker's session ends", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'work' }] },
      { toolCalls: [{ name: 'work' }] },
      { text: 'done' },
    ]);
    const server = await stub({ model, callDeadlineMs: 300 });
    const stuck = track(await TestClient.connect(server.url, { tools: [limited(1)] }));
    const other = track(await TestClient.connect(server.url, { tools: [limited(1)] }));
    const runId = server.runs.start(agent('fleet', ['work']), 'go');
    const first = await stuck.next('tool_call');
    await stuck.next('cancel');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(other.all('tool_call')).toEqual([]);
    await stuck.close(1000, 'client closed');
    const second = await other.next('tool_call');
    expect(second.callId).not.toBe(first.callId);
    other.result(second.callId, 'second');
    expect((await server.runs.waitFor(runId)).toolCalls.map((call) => call.status)).toEqual([
      'timeout',
      'ok',
    ]);
  });
});

describe('spreading calls', () => {
  it('spreads the calls of a fleet-limited tool over every idle worker, not the oldest', async () => {
    const model = scriptedModel([
      { toolCalls: Array.from({ length: 9 }, () => ({ name: 'work' })) },
      { text: 'done' },
    ]);
    const server = await stub({ model });
    const workers = await Promise.all(
      [0, 1, 2].map(async () =>
        track(await TestClient.connect(server.url, { tools: [limited(1)] })).serve({ work: () => 'ok' }),
      ),
    );
    const transcript = await server.runs.waitFor(server.runs.start(agent('fleet', ['work']), 'go'));
    expect(transcript.status).toBe('completed');
    expect(workers.map((worker) => worker.executions.size)).toEqual([3, 3, 3]);
  });

  it('spreads plain calls answered one at a time over every worker', async () => {
    const model = scriptedModel([
      ...Array.from({ length: 4 }, () => ({ toolCalls: [{ name: 'work' }] })),
      { text: 'done' },
    ]);
    const server = await stub({ model });
    const workers = await Promise.all(
      [0, 1].map(async () =>
        track(await TestClient.connect(server.url, { tools: [toolDef('work')] })).serve({ work: () => 'ok' }),
      ),
    );
    await server.runs.waitFor(server.runs.start(agent('fleet', ['work']), 'go'));
    expect(workers.map((worker) => worker.executions.size)).toEqual([2, 2]);
  });
});

describe('a backlog', () => {
  /** 8 calls of one turn; a first worker (maxConcurrency 2) takes its round, then a second one connects. */
  async function backlogThenJoin(features: string[]) {
    const model = scriptedModel([
      { toolCalls: Array.from({ length: 8 }, () => ({ name: 'work' })) },
      { text: 'done' },
    ]);
    const server = await stub({ model });
    const worker = { tools: [toolDef('work')], maxConcurrency: 2, maxQueue: 1_000, features };
    const first = track(await TestClient.connect(server.url, worker));
    const runId = server.runs.start(agent('fleet', ['work']), 'go');
    const firstCalls = [];
    for (let i = 0; i < 4; i++) firstCalls.push(await first.next('tool_call'));
    // Alone: two running, two queued behind them (min(maxQueue, maxConcurrency)); the other four wait in the service.
    expect(server.sessions().map((session) => session.inFlight)).toEqual([4]);
    const second = track(await TestClient.connect(server.url, worker));
    return { server, runId, first, firstCalls, second };
  }

  it("stays in the service past one round beyond a worker's slots, and a worker that joins later takes it", async () => {
    const { server, runId, first, firstCalls, second } = await backlogThenJoin([]);
    const secondCalls = [await second.next('tool_call'), await second.next('tool_call')];
    // Two workers could take the calls, and neither hands a call back: the second is sent calls for its free slots
    // only, and the rest waits in the service for whichever has room first.
    expect(server.sessions().map((session) => session.inFlight)).toEqual([4, 2]);
    expect(server.runs.get(runId)?.toolCalls.filter((call) => call.state === 'waiting')).toHaveLength(2);
    first.serve({ work: () => 'first' });
    second.serve({ work: () => 'second' });
    for (const call of firstCalls) first.result(call.callId, 'first');
    for (const call of secondCalls) second.result(call.callId, 'second');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.status).toBe('completed');
    const outputs = transcript.toolCalls.map((call) => call.output);
    expect(outputs.filter((output) => output === 'first').length).toBeGreaterThanOrEqual(4);
    expect(outputs.filter((output) => output === 'second').length).toBeGreaterThanOrEqual(2);
    expect(outputs).toHaveLength(8);
  });

  it("asks a worker that joins with room for the round queued on the first worker's (feature hand_back)", async () => {
    const { server, runId, first, firstCalls, second } = await backlogThenJoin(['hand_back']);
    // The second takes its round from the service's backlog; nothing is asked back while calls wait there.
    const secondCalls = [];
    for (let i = 0; i < 4; i++) secondCalls.push(await second.next('tool_call'));
    expect(server.sessions().map((session) => session.inFlight)).toEqual([4, 4]);
    expect(first.all('hand_back')).toEqual([]);
    // It ends its four: with room and nothing waiting in the service, it is given the first's queued round, the
    // calls sent there last.
    for (const call of secondCalls) second.result(call.callId, 'second');
    const asked = await first.next('hand_back');
    expect(asked.callIds).toEqual([firstCalls[3]?.callId, firstCalls[2]?.callId]);
    for (const callId of asked.callIds) first.result(callId, 'busy', { status: 'error', retryable: true });
    const moved = [await second.next('tool_call'), await second.next('tool_call')];
    expect(moved.map((call) => call.callId).sort()).toEqual([...asked.callIds].sort());
    for (const call of moved) second.result(call.callId, 'second');
    for (const call of firstCalls.slice(0, 2)) first.result(call.callId, 'first');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.output).sort()).toEqual([
      ...Array.from({ length: 2 }, () => 'first'),
      ...Array.from({ length: 6 }, () => 'second'),
    ]);
  });
});

describe('tools with slots', () => {
  it('count their slots: a light call goes to the worker with free slots, not the one a heavy call fills', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'heavy' }, { name: 'work' }, { name: 'work' }, { name: 'work' }] },
      { text: 'done' },
    ]);
    const server = await stub({ model });
    const tools = [{ ...toolDef('heavy'), slots: 4 }, toolDef('work')];
    let finishHeavy = () => {};
    const heavyDone = new Promise<string>((resolve) => {
      finishHeavy = () => resolve('heavy done');
    });
    const [first, second] = await Promise.all(
      [0, 1].map(async () =>
        track(await TestClient.connect(server.url, { tools, maxConcurrency: 4, maxQueue: 4 })),
      ),
    );
    const ran: string[] = [];
    for (const [name, worker] of [
      ['first', first],
      ['second', second],
    ] as const) {
      worker?.serve({
        heavy: () => {
          ran.push(`${name}: heavy`);
          return heavyDone;
        },
        work: () => {
          ran.push(`${name}: work`);
          if (ran.filter((line) => line.endsWith('work')).length === 3) finishHeavy();
          return 'ok';
        },
      });
    }
    const transcript = await server.runs.waitFor(server.runs.start(agent('fleet', ['heavy', 'work']), 'go'));
    expect(transcript.status).toBe('completed');
    expect([...ran].sort()).toEqual(['first: heavy', 'second: work', 'second: work', 'second: work']);
  });
});

describe('hello.buildId', () => {
  it('is refused (4003) unless 1 to 128 printable ASCII characters without spaces', async () => {
    const server = await stub();
    for (const buildId of ['a b', 'a\nb', '   ', 'caf\u00e9']) {
      const client = track(TestClient.open(server.url, { hello: false }));
      await client.opened();
      client.send({
        type: 'hello',
        protocol: 1,
        sdk: { name: 'test-client', version: '0.0.0' },
        tools: [],
        buildId,
      });
      expect(await client.closed).toEqual({
        code: 4003,
        reason: `hello.buildId must be 1 to 128 printable ASCII characters without spaces, got a string of ${buildId.length} characters`,
      });
    }
    const good = track(TestClient.open(server.url, { hello: false }));
    await good.opened();
    good.send({
      type: 'hello',
      protocol: 1,
      sdk: { name: 't', version: '0' },
      tools: [],
      buildId: 'v1.2-abc',
    });
    await good.next('welcome');
    expect(server.sessions()).toMatchObject([{ buildId: 'v1.2-abc' }]);
  });

  it('is checked the same way by setCurrentBuild', async () => {
    const server = await stub();
    expect(() => server.setCurrentBuild('a b')).toThrow(
      new TypeError(
        'setCurrentBuild: buildId must be 1 to 128 printable ASCII characters without spaces or undefined, got a string of 3 characters',
      ),
    );
  });
});

describe("a run's build", () => {
  it('shows in its transcript and in the runs list once the run is pinned', async () => {
    const server = await stub({ model: scriptedModel([{ text: 'done' }]) });
    const unpinned = server.runs.start(agent('plain', []), 'go');
    await server.runs.waitFor(unpinned);
    server.setCurrentBuild('build-7');
    const pinned = server.runs.start(agent('plain', []), 'go');
    await server.runs.waitFor(pinned);
    expect((await http(server, 'GET', `/v1/runs/${pinned}`, undefined, 'k')).body).toMatchObject({
      runId: pinned,
      buildId: 'build-7',
    });
    const unpinnedBody = (await http(server, 'GET', `/v1/runs/${unpinned}`, undefined, 'k')).body;
    expect(unpinnedBody).not.toHaveProperty('buildId');
    const { runs } = (await http(server, 'GET', '/v1/runs', undefined, 'k')).body as {
      runs: Array<{ runId: string; buildId?: string }>;
    };
    expect(runs.map((run) => [run.runId, run.buildId])).toEqual([
      [pinned, 'build-7'],
      [unpinned, undefined],
    ]);
    expect(server.runs.get(pinned)).toMatchObject({ buildId: 'build-7' });
  });
});

describe('the tools a pinned run sees', () => {
  /** A scripted model that keeps the tool definitions it is shown at each turn. */
  function watched(turns: Parameters<typeof scriptedModel>[0]) {
    const inner = scriptedModel(turns);
    const shown: ToolDefinition[][] = [];
    const model: Model = {
      ...(inner.info === undefined ? {} : { info: inner.info }),
      nextTurn: (request) => {
        shown.push(request.tools.map((definition) => ({ ...definition })) as ToolDefinition[]);
        return inner.nextTurn(request);
      },
    };
    return { model, shown };
  }
  const described = (name: string, description: string): ToolDefinition => ({
    ...toolDef(name),
    description,
  });

  it("are its build's definitions, not the oldest session's", async () => {
    const { model, shown } = watched([{ toolCalls: [{ name: 'work' }] }, { text: 'done' }]);
    const server = await stub({ model });
    track(await TestClient.connect(server.url, { tools: [described('work', 'v1')], buildId: 'b1' }));
    const b2 = track(
      await TestClient.connect(server.url, { tools: [described('work', 'v2')], buildId: 'b2' }),
    ).serve({ work: () => 'ok' });
    server.setCurrentBuild('b2');
    const transcript = await server.runs.waitFor(server.runs.start(agent('fleet', ['work']), 'go'));
    expect(transcript).toMatchObject({ status: 'completed', buildId: 'b2' });
    expect(shown.map((tools) => tools.map((tool) => tool.description))).toEqual([['v2'], ['v2']]);
    expect(b2.executions.size).toBe(1);
  });

  it('leave out a tool only another build offers; a call of it is unknown_tool at once', async () => {
    const { model, shown } = watched([{ toolCalls: [{ name: 'extra' }] }, { text: 'done' }]);
    const server = await stub({ model, callDeadlineMs: 2_000 });
    track(await TestClient.connect(server.url, { tools: [toolDef('work')], buildId: 'b1' }));
    track(
      await TestClient.connect(server.url, { tools: [toolDef('work'), toolDef('extra')], buildId: 'b2' }),
    );
    server.setCurrentBuild('b1');
    const transcript = await server.runs.waitFor(server.runs.start(agent('fleet', ['work', 'extra']), 'go'));
    expect(shown[0]?.map((tool) => tool.name)).toEqual(['work']);
    expect(transcript.buildId).toBe('b1');
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([
      ['unknown_tool', 'Tool "extra" not found. Available tools: work'],
    ]);
  });
});
