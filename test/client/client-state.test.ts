import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Agent, Client, ConnectionError, OptionsError, ToolDefinitionError, tool } from '../../src/index';
import { registerNodeWebSocket } from '../../src/wire/transport';
import { type MemoryPeer, type MemorySocketPair, memorySocketPair } from '../helpers/memory-socket';
import { unknownOptionMessage } from '../support/known-options';
import { recordingLogger } from '../support/recording-logger';
import { realClock } from '../support/still-clock';
import { FAKE_URL, fakeWebSocket, useFakeService, welcome } from './fake-service';

const { service, clients } = useFakeService();

const echo = tool({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const,
  execute: ({ text }) => text,
});

function makeClient(extra: Partial<ConstructorParameters<typeof Client>[0]> = {}) {
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: 'key-123456',
    tools: [echo],
    reconnect: { initialDelayMs: 1, maxDelayMs: 5 },
    ...extra,
  });
  clients.push(client);
  return client;
}

/** A client connected to the fake service, and the service's side of its connection. */
async function connected(extra: Partial<ConstructorParameters<typeof Client>[0]> = {}) {
  const client = makeClient(extra);
  const connection = await service.connect(client);
  return { client, connection };
}

describe('Client connection states', () => {
  it('sends hello with the tools, and the key where headers are impossible, and resolves on welcome', async () => {
    // A WHATWG WebSocket (as in browsers) has no `terminate` and cannot send an Authorization header.
    class BrowserWebSocket extends (globalThis.WebSocket as unknown as new (
      url: string,
      protocols?: string[],
    ) => object) {}
    Object.defineProperty(BrowserWebSocket.prototype, 'terminate', { value: undefined });
    const client = makeClient({ WebSocket: BrowserWebSocket as never });
    const states: string[] = [client.state];
    const connected: unknown[] = [];
    client.on('connected', (info) => connected.push(info));
    const opened = service.nextConnection();
    const connecting = client.connect();
    states.push(client.state);
    const connection = await opened;
    const hello = await connection.next('hello');
    expect(hello).toMatchObject({
      type: 'hello',
      protocol: 1,
      sdk: { name: 'toolwire' },
      apiKey: 'key-123456',
      localApprovals: false,
      maxConcurrency: 16,
    });
    expect(hello.tools.map((definition) => definition.name)).toEqual(['echo']);
    expect(hello.sessionId).toBeUndefined();
    expect(connection.frames.filter((frame) => JSON.stringify(frame).includes('key-123456'))).toHaveLength(1);
    connection.send(welcome('s1'));
    await connecting;
    states.push(client.state);
    expect(states).toEqual(['idle', 'connecting', 'open']);
    expect(connected).toEqual([{ sessionId: 's1', resumed: false }]);
    expect(client.sessionId).toBe('s1');
  });

  it("sends the key in hello over Bun's global WebSocket, which has ws's methods but takes no headers", async () => {
    // Bun's global WebSocket has `terminate`, `ping`, `pong`, `pause` and `resume` as `ws` does, but it is an
    // EventTarget, not an EventEmitter, and ignores a third constructor argument: an Authorization header given
    // there is never sent.
    class BunWebSocket extends (globalThis.WebSocket as unknown as new (
      url: string,
      protocols?: string[],
    ) => object) {
      terminate() {
        (this as unknown as { close(): void }).close();
      }
      ping() {}
      pong() {}
    }
    Object.defineProperty(BunWebSocket.prototype, 'on', { value: undefined });
    const client = makeClient({ WebSocket: BunWebSocket as never });
    const opened = service.nextConnection();
    const connecting = client.connect();
    const connection = await opened;
    const hello = await connection.next('hello');
    expect(hello).toMatchObject({ type: 'hello', apiKey: 'key-123456' });
    connection.send(welcome('s1'));
    await connecting;
  });

  it('rejects connect() with ConnectionError unauthorized when the key is refused, and does not retry', async () => {
    const client = makeClient();
    const opened = service.nextConnection();
    const connecting = client.connect();
    const connection = await opened;
    await connection.next('hello');
    const before = service.connections.length;
    connection.close(4001, 'invalid API key');
    const error = await connecting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({
      code: 'unauthorized',
      message: `${FAKE_URL}: the service refused the connection (4001: invalid API key)`,
    });
    expect(client.state).toBe('closed');
    expect(service.connections.length).toBe(before);
  });

  it('reconnects after a drop and resumes the session by id', async () => {
    const client = makeClient();
    const events: string[] = [];
    client.on('disconnected', ({ code }) => events.push(`disconnected ${code}`));
    client.on('reconnecting', ({ attempt }) => events.push(`reconnecting ${attempt}`));
    client.on('connected', ({ resumed }) => events.push(`connected ${resumed}`));
    const first = service.nextConnection();
    const connecting = client.connect();
    const one = await first;
    await one.next('hello');
    one.send(welcome('s-resume'));
    await connecting;
    const second = service.nextConnection();
    one.close(4500, 'service restarting');
    const two = await second;
    const hello = await two.next('hello');
    expect(hello.sessionId).toBe('s-resume');
    const resumed = new Promise((resolve) => client.once('connected', resolve));
    two.send(welcome('s-resume', { resumed: true }));
    await resumed;
    expect(events).toEqual(['connected false', 'disconnected 4500', 'reconnecting 1', 'connected true']);
    expect(client.state).toBe('open');
  });

  it('answers an invalid frame with an error frame and stays connected', async () => {
    const { client, connection } = await connected();
    const answer = connection.next('error');
    connection.sendRaw('{"type":"tool_call","callId":""}');
    expect(await answer).toMatchObject({ type: 'error', code: 'invalid_frame' });
    const unknown = connection.next('error');
    connection.sendRaw('{"type":"surprise"}');
    expect(await unknown).toEqual({
      type: 'error',
      code: 'unknown_type',
      message: 'unknown frame type "surprise"',
    });
    expect(client.state).toBe('open');
  });

  it('terminates and reconnects when the service goes silent for two heartbeat intervals', async () => {
    // The heartbeat's verdict reads the clock: the silence must pass on it (test/support/still-clock.ts).
    realClock();
    const client = makeClient({ heartbeatIntervalMs: 20 });
    // Listen before anything happens: under load the 40 ms of silence may pass before the test resumes.
    const disconnected = new Promise<{ code: number }>((resolve) => client.once('disconnected', resolve));
    const first = service.nextConnection();
    const connecting = client.connect();
    const one = await first;
    await one.next('hello');
    const second = service.nextConnection();
    one.send(welcome('s-hb'));
    await connecting;
    expect(await disconnected).toEqual({ code: 4008, reason: 'heartbeat timeout' });
    const two = await second;
    await expect
      .poll(() => two.frames.find((frame) => frame.type === 'hello'))
      .toMatchObject({ sessionId: 's-hb' });
  });
});

describe('Client tool calls (msw)', () => {
  it('runs a call, holds the result until ack, and answers a re-delivery from the outbox without re-running', async () => {
    const { client, connection } = await connected();
    const events: string[] = [];
    client.on('tool_call', ({ callId }) => events.push(`call ${callId}`));
    client.on('tool_result', ({ callId, status }) => events.push(`result ${callId} ${status}`));
    const result = connection.next('tool_result');
    connection.send({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'echo',
      arguments: '{"text":"hi"}',
    });
    expect(await result).toMatchObject({ type: 'tool_result', callId: 'c1', status: 'ok', output: 'hi' });
    expect(client.stats.unacked).toBe(1);
    const again = connection.next('tool_result');
    connection.send({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'echo',
      arguments: '{"text":"hi"}',
    });
    expect(await again).toMatchObject({ callId: 'c1', output: 'hi' });
    expect(events).toEqual(['call c1', 'result c1 ok']);
    connection.send({ type: 'ack', callId: 'c1' });
    await expect.poll(() => client.stats.unacked).toBe(0);
  });

  it('gives tool_call and tool_result to the listeners there are at each call, however they came and went', async () => {
    const { client, connection } = await connected();
    const events: string[] = [];
    const call = async (callId: string) => {
      const result = connection.next('tool_result');
      connection.send({
        type: 'tool_call',
        callId,
        runId: 'r1',
        toolName: 'echo',
        arguments: { text: callId },
      });
      await result;
    };
    const onCall = ({ callId }: { callId: string }) => events.push(`call ${callId}`);
    const onResult = ({ callId }: { callId: string }) => events.push(`result ${callId}`);
    await call('c1'); // nobody listens
    client.addListener('tool_call', onCall);
    await call('c2');
    client.off('tool_call', onCall);
    client.once('tool_result', onResult);
    await call('c3');
    await call('c4'); // the `once` listener has gone
    client.on('tool_call', onCall);
    await call('c5');
    client.removeAllListeners();
    await call('c6');
    expect(events).toEqual(['call c2', 'result c3', 'call c5']);
  });

  it('drops results acked several at once (callIds) and acked on a later tool_call (acks)', async () => {
    const { client, connection } = await connected();
    const call = (callId: string, acks?: string[]) =>
      connection.send({
        type: 'tool_call',
        callId,
        runId: 'r1',
        toolName: 'echo',
        arguments: { text: callId },
        ...(acks ? { acks } : {}),
      });
    for (const callId of ['c1', 'c2', 'c3']) {
      const result = connection.next('tool_result');
      call(callId);
      await result;
    }
    expect(client.stats.unacked).toBe(3);
    connection.send({ type: 'ack', callIds: ['c1', 'c2'] });
    await expect.poll(() => client.stats.unacked).toBe(1);
    const fourth = connection.next('tool_result');
    call('c4', ['c3']);
    await fourth;
    expect(client.stats.unacked).toBe(1); // only c4 waits now
  });

  it.each(['unknown_call', 'duplicate_result', 'not_allowed'] as const)(
    'drops a result from the outbox when the service answers %s, and reports it',
    async (code) => {
      const { client, connection } = await connected();
      const errors: string[] = [];
      client.on('error', (error) => errors.push(error.message));
      const result = connection.next('tool_result');
      connection.send({
        type: 'tool_call',
        callId: 'e1',
        runId: 'r1',
        toolName: 'echo',
        arguments: { text: 'x' },
      });
      await result;
      expect(client.stats.unacked).toBe(1);
      connection.send({ type: 'error', code, callId: 'e1', message: 'not recorded' });
      await expect.poll(() => client.stats.unacked).toBe(0);
      expect(errors).toEqual(['the service reported: not recorded']);
    },
  );

  it.each(['unknown_call', 'duplicate_result'] as const)(
    'drops the cancelled result of a call the service no longer knows (%s) quietly: no error event',
    async (code) => {
      const waits = tool({
        name: 'waits',
        description: 'Waits until cancelled.',
        execute: (_input, ctx) =>
          new Promise<string>((_resolve, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
          ),
      });
      const { logger, lines } = recordingLogger();
      const { client, connection } = await connected({ tools: [waits], logger });
      const errors: string[] = [];
      client.on('error', (error) => errors.push(error.message));
      const result = connection.next('tool_result');
      connection.send({ type: 'tool_call', callId: 'w1', runId: 'r1', toolName: 'waits', arguments: {} });
      connection.send({ type: 'cancel', callId: 'w1', reason: 'service' });
      expect(await result).toMatchObject({ callId: 'w1', status: 'cancelled' });
      // As after a restart of the service, or a re-send into a new session: it knows nothing of w1.
      connection.send({ type: 'error', code, callId: 'w1', message: 'no tool call has the id "w1"' });
      await expect.poll(() => client.stats.unacked).toBe(0);
      expect(errors).toEqual([]);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'debug',
          message:
            'the service does not take the cancelled result of a call it no longer knows; it is dropped',
        }),
      );
    },
  );

  it('tells the model about bad arguments without running the tool', async () => {
    const { connection } = await connected();
    const result = connection.next('tool_result');
    connection.send({
      type: 'tool_call',
      callId: 'c2',
      runId: 'r1',
      toolName: 'echo',
      arguments: '{"text":5}',
    });
    expect(await result).toMatchObject({ callId: 'c2', status: 'invalid_arguments' });
  });

  it('tells the operator about a failed call: the tool_result event carries the output, and it is logged', async () => {
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (_: object, message: string) => warnings.push(message),
      error() {},
    };
    const boom = tool({
      name: 'boom',
      description: 'Fails.',
      execute: () => {
        throw new Error('kaboom at db layer');
      },
    });
    const { client, connection } = await connected({ tools: [boom], logger });
    const events: unknown[] = [];
    client.on('tool_result', ({ status, output }) => events.push({ status, output }));
    const result = connection.next('tool_result');
    connection.send({ type: 'tool_call', callId: 'b1', runId: 'r1', toolName: 'boom', arguments: {} });
    await result;
    expect(events).toEqual([{ status: 'error', output: 'Error running boom: kaboom at db layer' }]);
    expect(warnings).toContain('Error running boom: kaboom at db layer');
  });

  it('answers an unknown tool with unknown_tool listing the tools', async () => {
    const { client, connection } = await connected();
    const events: string[] = [];
    client.on('tool_call', ({ callId }) => events.push(`call ${callId}`));
    client.on('tool_result', ({ callId, status }) => events.push(`result ${callId} ${status}`));
    const result = connection.next('tool_result');
    connection.send({ type: 'tool_call', callId: 'c3', runId: 'r1', toolName: 'nope', arguments: {} });
    expect(await result).toMatchObject({
      callId: 'c3',
      status: 'unknown_tool',
      output: 'Tool "nope" not found. Available tools: echo',
    });
    // Nothing ran: a tool_result with no tool_call, as for any call answered without starting.
    expect(events).toEqual(['result c3 unknown_tool']);
  });
});

describe('Client tools and events (msw)', () => {
  it('announces a tool added or removed while connected with tools_update', async () => {
    const { client, connection } = await connected();
    const added = connection.next('tools_update');
    client.addTool(tool({ name: 'ping', description: 'Pong.', execute: () => 'pong' }));
    expect((await added).tools.map((definition) => definition.name)).toEqual(['echo', 'ping']);
    const removed = connection.next('tools_update');
    expect(client.removeTool('echo')).toBe(true);
    expect((await removed).tools.map((definition) => definition.name)).toEqual(['ping']);
    expect(client.removeTool('echo')).toBe(false);
  });

  it('replaces a tool removed and added in one task with one tools_update: the service never sees it missing', async () => {
    const { client, connection } = await connected();
    client.removeTool('echo');
    client.addTool(tool({ name: 'echo', description: 'Echoes, louder.', execute: () => 'ECHO' }));
    client.removeTool('nothing');
    const update = await connection.next('tools_update');
    expect(update.tools.map((definition) => [definition.name, definition.description])).toEqual([
      ['echo', 'Echoes, louder.'],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(connection.frames.filter((frame) => frame.type === 'tools_update')).toHaveLength(1);
  });

  it('replaces a tool in one tools_update across awaits of settled promises in the task', async () => {
    const { client, connection } = await connected();
    client.removeTool('echo');
    await Promise.resolve();
    await (async () => {})();
    client.addTool(tool({ name: 'echo', description: 'Echoes, louder.', execute: () => 'ECHO' }));
    await connection.next('tools_update');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(connection.frames.filter((frame) => frame.type === 'tools_update')).toHaveLength(1);
  });

  it('hands back a queued call of a removed tool after announcing the removal, and lets the running one finish', async () => {
    const ends: Array<() => void> = [];
    const slow = tool({
      name: 'slow',
      description: 'Takes its time.',
      execute: () => new Promise<string>((resolve) => ends.push(() => resolve('done'))),
    });
    const { client, connection } = await connected({ tools: [echo, slow], maxConcurrency: 1 });
    const call = (callId: string) =>
      connection.send({ type: 'tool_call', callId, runId: 'r1', toolName: 'slow', arguments: {} });
    call('s1');
    call('s2');
    await vi.waitFor(() => expect(client.stats).toMatchObject({ running: 1, queued: 1 }));
    const update = connection.next('tools_update');
    expect(client.removeTool('slow')).toBe(true);
    expect((await update).tools.map((definition) => definition.name)).toEqual(['echo']);
    ends[0]?.();
    await vi.waitFor(() => expect(connection.frames.filter((f) => f.type === 'tool_result')).toHaveLength(2));
    const results = connection.frames.filter((frame) => frame.type === 'tool_result');
    // Another worker that offers the tool gets s2: the model does not read that the tool does not exist.
    expect(results).toEqual([
      {
        type: 'tool_result',
        callId: 's2',
        status: 'error',
        output: 'Error running slow: the client is busy; try again later',
        retryable: true,
      },
      expect.objectContaining({ callId: 's1', status: 'ok', output: 'done' }),
    ]);
    const types = connection.frames.map((frame) => frame.type);
    expect(types.indexOf('tool_result')).toBeGreaterThan(types.lastIndexOf('tools_update'));
    expect(ends).toHaveLength(1);
  });

  it('announces the tools at welcome when they changed after the hello went out', async () => {
    const client = makeClient();
    const opened = service.nextConnection();
    const connecting = client.connect();
    const connection = await opened;
    expect((await connection.next('hello')).tools.map((definition) => definition.name)).toEqual(['echo']);
    client.removeTool('echo');
    client.addTool(tool({ name: 'ping', description: 'Pong.', execute: () => 'pong' }));
    const update = connection.next('tools_update');
    connection.send(welcome('s1'));
    await connecting;
    expect((await update).tools.map((definition) => definition.name)).toEqual(['ping']);
  });

  it('announces a removal before a run started in the same task', async () => {
    const { client, connection } = await connected();
    client.addTool(tool({ name: 'ping', description: 'Pong.', execute: () => 'pong' }));
    await connection.next('tools_update');
    client.removeTool('ping');
    void client.run(new Agent({ name: 'A' }), 'hi').catch(() => {});
    await connection.next('run_start');
    const types = connection.frames.map((frame) => frame.type);
    expect(types.slice(types.lastIndexOf('tools_update'))).toEqual(['tools_update', 'run_start']);
  });

  it('refuses a tool whose definition would not fit in one frame, and keeps the others announced', async () => {
    const { client } = await connected();
    const huge = tool({ name: 'huge', description: 'x'.repeat(70_000), execute: () => '' });
    expect(() => client.addTool(huge)).toThrowError(
      /^addTool\(\): adding tool "huge" makes the tool definitions \d+ bytes, over the service's limit of 65536$/,
    );
    expect(client.removeTool('huge')).toBe(false);
  });

  it("weighs the calls of a run's agent tool by its slots, as if the client had been given it", async () => {
    const { client, connection } = await connected({ maxConcurrency: 4 });
    const ends: Array<() => void> = [];
    const heavy = tool({
      name: 'heavy',
      description: 'Takes 3 slots.',
      slots: 3,
      execute: () => new Promise<string>((resolve) => ends.push(() => resolve('done'))),
    });
    void client.run(new Agent({ name: 'A', tools: [heavy] }), 'hi').catch(() => {});
    await connection.next('run_start');
    const call = (callId: string) =>
      connection.send({ type: 'tool_call', callId, runId: 'r1', toolName: 'heavy', arguments: {} });
    call('h1');
    call('h2');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    // 3 + 3 slots are more than 4: the second waits for the first.
    await vi.waitFor(() => expect(client.stats).toMatchObject({ running: 1, queued: 1 }));
    expect(ends).toHaveLength(1);
    ends[0]?.();
    await vi.waitFor(() => expect(ends).toHaveLength(2));
  });

  it("checks a run's agent tools as addTool() does, before anything is sent, and keeps serving", async () => {
    const { client, connection } = await connected({ maxConcurrency: 2 });
    const huge = tool({ name: 'huge', description: 'x'.repeat(70_000), execute: () => '' });
    // Refused before anything is sent: a run that started instead is a failure to see, not a wait.
    const started = connection.next('run_start').then(() => new Error('the run started'));
    const refused = (agent: Agent) =>
      Promise.race([client.run(agent, 'hi'), started]).then((value) => Promise.reject(value));
    await expect(refused(new Agent({ name: 'A', tools: [huge] }))).rejects.toThrowError(
      /^client\.run\(\): agent "A": adding tool "huge" makes the tool definitions \d+ bytes, over the service's limit of 65536$/,
    );
    const wide = tool({ name: 'wide', description: 'Takes 3 slots.', slots: 3, execute: () => '' });
    await expect(refused(new Agent({ name: 'B', tools: [wide] }))).rejects.toMatchObject({
      code: 'invalid_option',
      message:
        'client.run(): agent "B": tool "wide" has slots 3, more than maxConcurrency (2): none of its calls could ever run',
    });
    expect(client.removeTool('huge')).toBe(false);
    expect(client.removeTool('wide')).toBe(false);
    // Nothing was announced or started, and the tools it had are still served.
    expect(
      connection.frames.filter((frame) => frame.type === 'tools_update' || frame.type === 'run_start'),
    ).toEqual([]);
    connection.send({
      type: 'tool_call',
      callId: 'e1',
      runId: 'r1',
      toolName: 'echo',
      arguments: { text: 'still' },
    });
    expect(await connection.next('tool_result')).toMatchObject({
      callId: 'e1',
      status: 'ok',
      output: 'still',
    });
  });

  it('asks the service for approval, runs nothing until the decision, then runs once', async () => {
    let runs = 0;
    const guarded = tool({
      name: 'guarded',
      description: 'Needs a yes.',
      needsApproval: () => true,
      execute: () => {
        runs += 1;
        return 'done';
      },
    });
    const { client, connection } = await connected({ tools: [guarded] });
    const requested: unknown[] = [];
    client.on('approval_requested', (request) => requested.push(request));
    const asked = connection.next('approval_request');
    connection.send({ type: 'tool_call', callId: 'a1', runId: 'r1', toolName: 'guarded', arguments: {} });
    expect(await asked).toEqual({ type: 'approval_request', callId: 'a1' });
    expect(requested).toEqual([
      { callId: 'a1', runId: 'r1', toolName: 'guarded', input: {}, sideEffect: 'external' },
    ]);
    expect(runs).toBe(0);
    const result = connection.next('tool_result');
    connection.send({
      type: 'tool_call',
      callId: 'a1',
      runId: 'r1',
      toolName: 'guarded',
      arguments: {},
      approved: true,
    });
    expect(await result).toMatchObject({ callId: 'a1', status: 'ok', output: 'done' });
    expect(runs).toBe(1);
  });

  it('counts a call held by an onApproval that has not answered as waiting, and runs it once answered', async () => {
    let answer: ((approved: boolean) => void) | undefined;
    const guarded = tool({
      name: 'guarded',
      description: 'Needs a yes.',
      needsApproval: true,
      execute: () => 'done',
    });
    const { client, connection } = await connected({
      tools: [guarded],
      onApproval: () => new Promise<boolean>((resolve) => (answer = resolve)),
    });
    connection.send({ type: 'tool_call', callId: 'a1', runId: 'r1', toolName: 'guarded', arguments: {} });
    await vi.waitFor(() => expect(answer).toBeDefined());
    expect(client.stats).toEqual({ running: 0, queued: 0, waiting: 1, unacked: 0 });
    const result = connection.next('tool_result');
    answer?.(true);
    expect(await result).toMatchObject({ callId: 'a1', status: 'ok', output: 'done' });
    expect(client.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 1 });
  });

  it('emits widget_invalid and still sends the data when a widget is invalid', async () => {
    const card = tool({
      name: 'card',
      description: 'A broken card.',
      execute: () => ({ total: 3, widget: { type: 'Badge' } }),
    });
    const { client, connection } = await connected({ tools: [card] });
    const invalid: unknown[] = [];
    client.on('widget_invalid', (info) => invalid.push(info));
    const result = connection.next('tool_result');
    connection.send({ type: 'tool_call', callId: 'w1', runId: 'r1', toolName: 'card', arguments: {} });
    const frame = await result;
    expect(frame).toMatchObject({ callId: 'w1', status: 'ok', output: '{"total":3}' });
    expect(frame.widget).toBeUndefined();
    expect(invalid).toEqual([{ toolName: 'card', callId: 'w1', path: 'label', message: expect.any(String) }]);
  });

  it('aborts ctx.signal on cancel and answers cancelled', async () => {
    let reason: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const wait = tool({
      name: 'wait',
      description: 'Waits.',
      execute: (_input, ctx) =>
        new Promise<string>((_resolve, reject) => {
          started();
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            reject(new Error('aborted'));
          });
        }),
    });
    const { connection } = await connected({ tools: [wait] });
    connection.send({ type: 'tool_call', callId: 'x1', runId: 'r1', toolName: 'wait', arguments: {} });
    await running;
    const result = connection.next('tool_result');
    connection.send({ type: 'cancel', callId: 'x1', reason: 'run_cancelled' });
    expect(await result).toMatchObject({
      callId: 'x1',
      status: 'cancelled',
      output: 'Error running wait: the call was cancelled',
    });
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason).toMatchObject({
      name: 'AbortError',
      message: 'cancelled by the service (run_cancelled)',
      cause: 'run_cancelled',
    });
  });

  it('aborts a call on its own when deadlineMs passes (a cancel may be lost with a socket)', async () => {
    // The deadline's timer reads the clock when it fires: the 30 ms must pass on it (test/support/still-clock.ts).
    realClock();
    let reason: unknown;
    const wait = tool({
      name: 'wait',
      description: 'Waits.',
      execute: (_input, ctx) =>
        new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            reject(new Error('aborted'));
          });
        }),
    });
    const { connection } = await connected({ tools: [wait] });
    const result = connection.next('tool_result');
    connection.send({
      type: 'tool_call',
      callId: 'd1',
      runId: 'r1',
      toolName: 'wait',
      arguments: {},
      deadlineMs: 30,
    });
    expect(await result).toMatchObject({ callId: 'd1', status: 'cancelled' });
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason).toMatchObject({
      name: 'TimeoutError',
      message: 'the call passed its deadline',
      cause: 'deadline',
    });
  });

  it('closes on `await using` with a normal close after draining', async () => {
    const { client } = await connected();
    {
      await using scoped = client;
      expect(scoped.state).toBe('open');
    }
    expect(client.state).toBe('closed');
  });
});

describe('Client usage errors', () => {
  it('rejects run() before connect() instead of waiting forever', async () => {
    const client = makeClient();
    await expect(client.run(new Agent({ name: 'A', instructions: '' }), 'hi')).rejects.toMatchObject({
      name: 'ConnectionError',
      code: 'not_connected',
      message: 'call connect() before run()',
    });
  });

  it('rejects decide() after close() with closed, as run() is, and before connect() with not_connected', async () => {
    const before = await makeClient()
      .decide('c1', true)
      .catch((e: unknown) => e);
    expect(before).toBeInstanceOf(ConnectionError);
    expect(before).toMatchObject({ code: 'not_connected', message: 'decide(): the client is not connected' });
    const { client } = await connected();
    await client.close({ drain: false });
    const decided = await client.decide('c1', true).catch((e: unknown) => e);
    expect(decided).toBeInstanceOf(ConnectionError);
    expect(decided).toMatchObject({ code: 'closed', message: 'decide(): the client is closed' });
    await expect(client.run(new Agent({ name: 'A', instructions: '' }), 'hi')).rejects.toMatchObject({
      name: 'ConnectionError',
      code: 'closed',
      message: 'the client is closed',
    });
  });

  it('refuses addTool() on a closed client with closed, and adds before connect()', async () => {
    const late = tool({ name: 'late', description: 'Added late.', execute: () => 'ok' });
    const idle = makeClient();
    expect(() => idle.addTool(late)).not.toThrow();
    const { client } = await connected();
    await client.close({ drain: false });
    expect(() => client.addTool(late)).toThrow(
      expect.objectContaining({
        name: 'ConnectionError',
        code: 'closed',
        message: 'client.addTool(): the client is closed; make a new Client to add tools',
      }),
    );
  });

  it('rejects a decision still waiting for its answer with closed when the client closes', async () => {
    const client = makeClient();
    const opened = service.nextConnection();
    const connecting = client.connect();
    const connection = await opened;
    await connection.next('hello');
    connection.send(welcome('s1', { features: ['decisions'] }));
    await connecting;
    const decided = client.decide('c1', true).catch((e: unknown) => e);
    await connection.next('approval');
    await client.close({ drain: false });
    const error = await decided;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({
      code: 'closed',
      message:
        'decide(): the client was closed before the service answered, so whether the decision was applied is unknown',
    });
  });

  it('rejects connect() again while connecting and once connected, saying to call it once', async () => {
    const client = makeClient();
    const opened = service.nextConnection();
    const first = client.connect();
    await expect(client.connect()).rejects.toMatchObject({
      name: 'ConnectionError',
      code: 'already_connecting',
      message: 'connect() is already connecting; await the first call instead of calling it again',
    });
    const connection = await opened;
    await connection.next('hello');
    connection.send(welcome());
    await first;
    await expect(client.connect()).rejects.toMatchObject({
      name: 'ConnectionError',
      code: 'already_connected',
      message: 'already connected (open); call connect() once: the client reconnects by itself',
    });
  });
});

describe('Client options', () => {
  const make = (extra: Record<string, unknown> | null) => () =>
    new Client(
      (extra === null
        ? null
        : { url: FAKE_URL, WebSocket: fakeWebSocket(), apiKey: 'k', tools: [echo], ...extra }) as never,
    );
  const DURATION = 'integer of milliseconds up to 2147483647 (the longest timer)';

  it('names the field and value of an invalid option', () => {
    expect(make({ maxConcurrency: 0 })).toThrowError(
      new OptionsError(
        'invalid_option',
        'new Client(options): maxConcurrency must be a positive integer, got 0',
      ),
    );
  });

  it('throws an OptionsError, never a ToolDefinitionError: no tool is at fault', () => {
    const error = (() => {
      try {
        make({ maxQueue: -1 })();
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).not.toBeInstanceOf(ToolDefinitionError);
    expect(error).toMatchObject({ name: 'OptionsError', code: 'invalid_option' });
  });

  it.each([
    [null, 'invalid_options', 'new Client(options): options must be an object, got null'],
    [
      { maxConcurrency: Number.POSITIVE_INFINITY },
      'invalid_option',
      'new Client(options): maxConcurrency must be a positive integer, got Infinity',
    ],
    [
      { maxQueue: 2.5 },
      'invalid_option',
      'new Client(options): maxQueue must be a non-negative integer, got 2.5',
    ],
    [
      { highWaterMarkBytes: '1mb' },
      'invalid_option',
      'new Client(options): highWaterMarkBytes must be a positive integer of bytes, got "1mb"',
    ],
    [
      { reconnect: true },
      'invalid_option',
      'new Client(options): reconnect must be false or an object { initialDelayMs?, maxDelayMs?, maxAttempts? }, got true',
    ],
    [
      { onApproval: 'yes' },
      'invalid_option',
      'new Client(options): onApproval must be a function, got "yes"',
    ],
    [
      { logger: console.log },
      'invalid_option',
      'new Client(options): logger must be a logger with debug, info, warn and error methods, got a function',
    ],
    [
      { reconnect: { maxAttempts: 1.5 } },
      'invalid_option',
      'new Client(options): reconnect.maxAttempts must be a positive integer or Infinity, got 1.5',
    ],
    [
      { reconnect: { maxAttempts: 0 } },
      'invalid_option',
      'new Client(options): reconnect.maxAttempts must be a positive integer or Infinity, got 0',
    ],
    [
      { reconnect: { initialDelayMs: 1.5 } },
      'invalid_option',
      `new Client(options): reconnect.initialDelayMs must be a non-negative ${DURATION}, got 1.5`,
    ],
    [
      { reconnect: { initialDelayMs: 5000, maxDelayMs: 100 } },
      'invalid_option',
      'new Client(options): reconnect.initialDelayMs (5000) must not exceed reconnect.maxDelayMs (100)',
    ],
    [
      { reconnect: { initialDelayMs: 20_000 } },
      'invalid_option',
      'new Client(options): reconnect.initialDelayMs (20000) must not exceed reconnect.maxDelayMs (10000, the default)',
    ],
    [
      { redact: [/(?:)/g] },
      'invalid_option',
      'new Client(options): redact[0] must be a string of 4 characters or more (shorter ones would scrub ordinary words) or a RegExp that does not match the empty string, got a RegExp',
    ],
    [
      { apiKey: 'a\nb' },
      'invalid_option',
      'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt), got a string of 3 characters; character 2 is U+000A (a line break), not printable ASCII',
    ],
    [
      { apiKey: 'k y' },
      'invalid_option',
      'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt), got a string of 3 characters; character 2 is U+0020 (a space), not printable ASCII',
    ],
    [
      { apiKey: 'sk-live-…' },
      'invalid_option',
      'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt), got a string of 9 characters; character 9 is U+2026, not printable ASCII',
    ],
    [
      { apiKey: 12345678 },
      'invalid_option',
      'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt), got a number',
    ],
    [
      { apiKey: '' },
      'invalid_option',
      'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt), got a string of 0 characters',
    ],
    [
      { apiKey: 'k'.repeat(4097) },
      'invalid_option',
      'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt), got a string of 4097 characters',
    ],
    [
      { tools: 'search' },
      'invalid_option',
      'new Client(options): tools must be an array of tools or a record of tools keyed by name, got "search"',
    ],
    [
      { maxConcurency: 4 },
      'unknown_option',
      'new Client(options): unknown option "maxConcurency" (did you mean "maxConcurrency"?)',
    ],
    [
      { timeout: 5_000 },
      'unknown_option',
      'new Client(options): unknown option "timeout" (did you mean "connectTimeoutMs"?)',
    ],
    [
      { reconnect: { maxDelay: 5_000 } },
      'unknown_option',
      'new Client(options): unknown option "reconnect.maxDelay" (did you mean "reconnect.maxDelayMs"?)',
    ],
    [
      { tls: true },
      'unknown_option',
      unknownOptionMessage('new Client(options): unknown option "tls"', 'url', 'apiKey', 'tools'),
    ],
    [
      { url: 'http://x' },
      'invalid_option',
      'new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got "http://x"',
    ],
  ])('explains why %j is refused', (extra, code, message) => {
    expect(make(extra)).toThrowError(expect.objectContaining({ name: 'OptionsError', code, message }));
  });

  it.each([
    [
      { tools: [echo, { name: 'fake', definition: { name: 'fake' } }] },
      'not_a_tool',
      'new Client(options): tools[1] must be a tool (made with tool(), or an object with description and execute), got an object named "fake"',
    ],
    [
      { tools: { echo, fake: 42 } },
      'not_a_tool',
      'new Client(options): tools.fake must be a tool (made with tool(), or an object with description and execute), got 42',
    ],
    [
      { tools: [echo, tool({ name: 'echo', description: 'Another echo.', execute: () => '' })] },
      'duplicate_tool',
      'new Client(options): two different tools are named "echo"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
    ],
  ])(
    'refuses what is no tool in %j as a ToolDefinitionError, in an array or a record',
    (extra, code, message) => {
      expect(make(extra)).toThrowError(
        expect.objectContaining({ name: 'ToolDefinitionError', code, message }),
      );
    },
  );

  it.each(['', ' ', 'b 1', 'a\nb', 'a\u0000b', '\ud800', 'é'])('refuses the buildId %j', (buildId) => {
    expect(() => new Client({ url: 'ws://localhost:1', apiKey: 'k-123', tools: [], buildId })).toThrow(
      new OptionsError(
        'invalid_option',
        `new Client(options): buildId must be 1 to 128 characters of printable ASCII without spaces (a commit, a tag), got ${JSON.stringify(buildId)}`,
      ),
    );
  });

  it('says where a missing url and key may come from', () => {
    vi.stubEnv('TOOLWIRE_URL', undefined);
    vi.stubEnv('TOOLWIRE_API_KEY', undefined);
    try {
      expect(() => new Client({ apiKey: 'k', tools: [] })).toThrowError(
        new OptionsError(
          'invalid_option',
          'new Client(options): url must be a ws:// or wss:// URL without a fragment (#…) (or set TOOLWIRE_URL), got undefined',
        ),
      );
      expect(() => new Client({ url: FAKE_URL, tools: [] })).toThrowError(
        new OptionsError(
          'invalid_option',
          'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt) (or set TOOLWIRE_API_KEY), got undefined',
        ),
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('names no environment variable where the runtime has none (a browser)', () => {
    const missingUrl = () => new Client({ apiKey: 'k', tools: [] });
    const missingKey = () => new Client({ url: FAKE_URL, tools: [] });
    vi.stubGlobal('process', undefined);
    let errors: unknown[];
    try {
      errors = [missingUrl, missingKey].map((make) => {
        try {
          make();
        } catch (error) {
          return error;
        }
        return undefined;
      });
    } finally {
      vi.unstubAllGlobals();
    }
    expect(errors).toEqual([
      new OptionsError(
        'invalid_option',
        'new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got undefined',
      ),
      new OptionsError(
        'invalid_option',
        'new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt), got undefined',
      ),
    ]);
  });

  it.each([
    ["a bundler's stand-in process in a browser", { browser: true, env: {}, versions: {} }, ''],
    [
      'a process.env whose reads throw (Deno without --allow-env)',
      {
        versions: { node: '20.0.0' },
        env: new Proxy(
          {},
          {
            get: () => {
              throw new Error('NotCapable: Requires env access');
            },
          },
        ),
      },
      ' (or set TOOLWIRE_API_KEY)',
    ],
    [
      'a process whose env getter throws',
      Object.defineProperty({ versions: { node: '20.0.0' } }, 'env', {
        get: () => {
          throw new Error('env refused');
        },
      }),
      '',
    ],
  ])('throws an OptionsError for a missing apiKey with %s', (_where, stand, hint) => {
    vi.stubGlobal('process', stand);
    let error: unknown;
    try {
      new Client({ url: FAKE_URL, tools: [] });
    } catch (thrown) {
      error = thrown;
    } finally {
      vi.unstubAllGlobals();
    }
    expect(error).toEqual(
      new OptionsError(
        'invalid_option',
        `new Client(options): apiKey must be a non-empty string of printable ASCII without spaces, at most 4096 characters (the characters an HTTP header may carry) or a function returning one (read before every connection attempt)${hint}, got undefined`,
      ),
    );
  });
});

describe('run() and close() options', () => {
  const idle = () => new Client({ url: FAKE_URL, apiKey: 'k', tools: [echo] });
  const agent = new Agent({ name: 'A', instructions: '' });

  it.each([
    [{ maxturns: 1 }, 'unknown_option', 'client.run(): unknown option "maxturns" (did you mean "maxTurns"?)'],
    [
      { max_turns: 1 },
      'unknown_option',
      'client.run(): unknown option "max_turns" (did you mean "maxTurns"?)',
    ],
    [
      { abortSignal: 1 },
      'unknown_option',
      'client.run(): unknown option "abortSignal" (did you mean "signal"?)',
    ],
    [{ stream: true }, 'unknown_option', 'client.run(): unknown option "stream" (did you mean "onEvent"?)'],
    [
      { experimental_context: {} },
      'unknown_option',
      'client.run(): unknown option "experimental_context" (did you mean "context"?)',
    ],
    [
      { maxOutputBytes: 1 },
      'unknown_option',
      unknownOptionMessage('client.run(): unknown option "maxOutputBytes"', 'context', 'signal', 'maxTurns'),
    ],
    [{ maxTurns: 0 }, 'invalid_option', 'client.run(): maxTurns must be a positive integer, got 0'],
    [{ signal: 'stop' }, 'invalid_option', 'client.run(): signal must be an AbortSignal, got "stop"'],
    [null, 'invalid_options', 'client.run(): options must be an object, got null'],
  ])('run() refuses %j before anything is sent', async (options, code, message) => {
    const error = await idle()
      .run(agent, 'hi', options as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).toMatchObject({ code, message });
  });

  it('run() still accepts good options (and then says it is not connected)', async () => {
    await expect(
      idle().run(agent, 'hi', { maxTurns: 3, signal: new AbortController().signal, context: {} }),
    ).rejects.toMatchObject({ name: 'ConnectionError', code: 'not_connected' });
  });

  it.each([
    [
      { timeout: 10 },
      'unknown_option',
      'client.close(): unknown option "timeout" (did you mean "timeoutMs"?)',
    ],
    [
      { timeoutMs: 3_000_000_000 },
      'invalid_option',
      'client.close(): timeoutMs must be a non-negative integer of milliseconds up to 2147483647 (the longest timer), got 3000000000',
    ],
    [{ drain: 'yes' }, 'invalid_option', 'client.close(): drain must be a boolean, got "yes"'],
  ])('close() refuses %j and closes nothing', async (options, code, message) => {
    const client = idle();
    const error = await client.close(options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).toMatchObject({ code, message });
    expect(client.state).toBe('idle');
    await client.close({ drain: false, timeoutMs: 0 });
    expect(client.state).toBe('closed');
  });
});

describe('an apiKey function that never answers, outside a drain', () => {
  it('fails that attempt after 10 s with api_key_failed, an error event and a warn line, then tries again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const pair = memorySocketPair({
        onConnection(peer) {
          peer.onMessage = (text) => {
            if ((JSON.parse(text) as { type: string }).type === 'hello') peer.send(welcome('s1'));
          };
        },
      });
      const key = { hangs: 0 };
      const { logger, lines } = recordingLogger();
      const client = new Client({
        url: FAKE_URL,
        WebSocket: pair.WebSocket,
        apiKey: () => (key.hangs-- > 0 ? new Promise<string>(() => {}) : 'key-123456'),
        tools: [echo],
        reconnect: { initialDelayMs: 100, maxDelayMs: 100 },
        logger,
      });
      clients.push(client);
      const seen: string[] = [];
      client.on('error', (error) => seen.push(`error ${error.code}: ${error.message}`));
      client.on('reconnecting', ({ attempt, delayMs }) => seen.push(`reconnecting ${attempt} ${delayMs}`));
      client.on('connected', () => seen.push('connected'));
      await client.connect();
      seen.length = 0;
      key.hangs = 1;
      (pair.peers[0] as MemoryPeer).fail();
      await vi.advanceTimersByTimeAsync(50 + 9_999);
      expect([client.state, seen]).toEqual(['reconnecting', ['reconnecting 1 50']]);
      await vi.advanceTimersByTimeAsync(1);
      await vi.advanceTimersByTimeAsync(50);
      expect([client.state, pair.peers.length, seen]).toEqual([
        'open',
        2,
        [
          'reconnecting 1 50',
          'error api_key_failed: the apiKey function did not answer within 10000ms',
          'reconnecting 2 50',
          'connected',
        ],
      ]);
      expect(lines.filter((line) => line.level === 'warn')).toEqual([
        {
          level: 'warn',
          object: { attempt: 1, code: 'api_key_failed' },
          message: 'connection attempt 1 failed: the apiKey function did not answer within 10000ms',
        },
      ]);
    } finally {
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
  });
  it('close() during a hung key read leaves no timer to hold the process open', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const pair = memorySocketPair({});
      const client = new Client({
        url: FAKE_URL,
        WebSocket: pair.WebSocket,
        apiKey: () => new Promise<string>(() => {}),
        tools: [echo],
      });
      clients.push(client);
      const connecting = client.connect().catch((error: Error) => error.message);
      await vi.advanceTimersByTimeAsync(1_000);
      await client.close();
      // The key's 10 s wait ended with the client: nothing is left to keep an exiting process alive.
      expect([await connecting, vi.getTimerCount(), pair.peers.length]).toEqual([
        'the client was closed before it connected',
        0,
        0,
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('close() while the service is out of reach', () => {
  /**
   * A client whose first socket is welcomed and sent a call that runs until aborted, then dropped; every later
   * socket fails at once (the service is down). Fake timers drive it.
   */
  async function cutOffWithACallRunning(logger?: ReturnType<typeof recordingLogger>['logger']) {
    const aborted: string[] = [];
    const waits = tool({
      name: 'waits',
      description: 'Runs until aborted.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted.push(ctx.callId);
            resolve('stopped');
          }),
        ),
    });
    const pair = memorySocketPair({
      onConnection(peer) {
        if (pair.peers.length > 1) {
          queueMicrotask(() => peer.fail());
          return;
        }
        peer.onMessage = (text) => {
          if ((JSON.parse(text) as { type: string }).type !== 'hello') return;
          peer.send(welcome('s1'));
          peer.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'waits', arguments: {} });
        };
      },
    });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: pair.WebSocket,
      apiKey: 'key-123456',
      tools: [waits],
      reconnect: { initialDelayMs: 100, maxDelayMs: 100 },
      ...(logger === undefined ? {} : { logger }),
    });
    clients.push(client);
    await client.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(client.stats.running).toBe(1);
    (pair.peers[0] as MemoryPeer).fail();
    await vi.advanceTimersByTimeAsync(0);
    expect(client.state).toBe('reconnecting');
    return { client, aborted };
  }

  it('returns within timeoutMs: the running call is aborted then, and no ack is waited for', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    try {
      const { client, aborted } = await cutOffWithACallRunning();
      let closed = false;
      const closing = client.close({ timeoutMs: 3_000 }).then(() => {
        closed = true;
      });
      await vi.advanceTimersByTimeAsync(2_999);
      expect([closed, aborted]).toEqual([false, []]);
      await vi.advanceTimersByTimeAsync(1);
      expect([closed, aborted, client.state]).toEqual([true, ['c1'], 'closed']);
      await closing;
    } finally {
      vi.useRealTimers();
    }
  });
  it('keeps in stats.unacked the results it closed without an ack, and a warn line names their calls', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    try {
      const { logger, lines } = recordingLogger();
      const { client } = await cutOffWithACallRunning(logger);
      const closing = client.close({ timeoutMs: 3_000 });
      await vi.advanceTimersByTimeAsync(3_000);
      await closing;
      // The aborted call's `cancelled` answer, which the service never got: a final figure, for as long as the
      // client is kept.
      expect([client.state, client.stats]).toEqual([
        'closed',
        { running: 0, queued: 0, waiting: 0, unacked: 1 },
      ]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(client.stats.unacked).toBe(1);
      expect(lines.filter((line) => line.level === 'warn' && 'unacked' in (line.object ?? {}))).toEqual([
        {
          level: 'warn',
          object: { unacked: 1 },
          message:
            "the client closed with 1 result the service had not acknowledged (call c1): it may not have it, and gives a call it has no result for to another client, which runs it again: at once when this client's close reached it, else after the session's grace period",
        },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a resume the service refuses with 4010', () => {
  it('closes the client for good: an error event, the closed event with fleet_conflict, an error line', async () => {
    const { logger, lines } = recordingLogger();
    const reason = 'fleet limits of echo disagree: this worker concurrency 2, the fleet concurrency 3';
    const pair = memorySocketPair({
      onConnection(peer) {
        const first = pair.peers.length === 1;
        peer.onMessage = (text) => {
          if ((JSON.parse(text) as { type: string }).type !== 'hello') return;
          if (first) peer.send(welcome('s1'));
          else peer.close(4010, reason);
        };
      },
    });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: pair.WebSocket,
      apiKey: 'key-123456',
      tools: [echo],
      reconnect: { initialDelayMs: 1, maxDelayMs: 1 },
      logger,
    });
    clients.push(client);
    const seen: string[] = [];
    client.on('error', (error) => seen.push(`error ${(error as ConnectionError).code}`));
    const closed = new Promise<ConnectionError | undefined>((resolve) => client.once('closed', resolve));
    await client.connect();
    (pair.peers[0] as MemoryPeer).fail();
    const error = await closed;
    expect(error).toBeInstanceOf(ConnectionError);
    expect([error?.code, client.state, seen]).toEqual(['fleet_conflict', 'closed', ['error fleet_conflict']]);
    const message = `${FAKE_URL}: the service refused the tools' fleet limits (4010: ${reason}); every worker offering a tool must announce the same fleet limits: to change them, replace every worker offering it, or rename the tool`;
    expect(error?.message).toBe(message);
    expect(lines.filter((line) => line.level === 'error')).toEqual([
      {
        level: 'error',
        object: { code: 'fleet_conflict' },
        message: `the client closed for good and serves no more calls: ${message}`,
      },
    ]);
    await expect(client.connect()).rejects.toMatchObject({ code: 'closed' });
  });
});

describe('a welcomed socket the service closes for good (4001, 4010)', () => {
  it.each([
    [4001, 'unauthorized'],
    [4010, 'fleet_conflict'],
  ])('closed %i: disconnected, then the error event, then closed with %s', async (code, errorCode) => {
    const pair = memorySocketPair({
      onConnection(peer) {
        peer.onMessage = (text) => {
          if ((JSON.parse(text) as { type: string }).type === 'hello') peer.send(welcome('s1'));
        };
      },
    });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: pair.WebSocket,
      apiKey: 'key-123456',
      tools: [echo],
      reconnect: { initialDelayMs: 1, maxDelayMs: 1 },
      logger: recordingLogger().logger,
    });
    clients.push(client);
    const seen: string[] = [];
    client.on('disconnected', ({ code: closedWith }) => seen.push(`disconnected ${closedWith}`));
    client.on('error', (error) => seen.push(`error ${(error as ConnectionError).code}`));
    const closed = new Promise<ConnectionError | undefined>((resolve) => client.once('closed', resolve));
    client.on('closed', (error) => seen.push(`closed ${error?.code}`));
    await client.connect();
    (pair.peers[0] as MemoryPeer).close(code, 'refused');
    const error = await closed;
    expect(seen).toEqual([`disconnected ${code}`, `error ${errorCode}`, `closed ${errorCode}`]);
    expect(error?.message).toBe(`the service refused the connection (${code}: refused)`);
  });
});

describe('close() while the socket is down: the attempts the drain makes', () => {
  // A fake clock, and each backoff delay half its ceiling.
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  /**
   * A client with one call running over a memory service that is `up` (welcomes and acks), `down` (resets each
   * socket) or `hang` (accepts the socket, never answers hello), as `mode` says when each socket opens.
   */
  async function drainingSetup(
    reconnect: { initialDelayMs?: number; maxDelayMs?: number; maxAttempts?: number },
    more: (pair: MemorySocketPair) => Partial<ConstructorParameters<typeof Client>[0]> = () => ({}),
  ) {
    let finish: (() => void) | undefined;
    const work = tool({
      name: 'work',
      description: 'Works until told to finish.',
      execute: () => new Promise<string>((resolve) => (finish = () => resolve('done'))),
    });
    const service: { mode: 'up' | 'down' | 'hang' } = { mode: 'up' };
    const results: string[] = [];
    const pair = memorySocketPair({
      onConnection(peer) {
        if (service.mode === 'down') {
          queueMicrotask(() => peer.fail());
          return;
        }
        if (service.mode === 'hang') return;
        const first = pair.peers.length === 1;
        peer.onMessage = (text) => {
          const frame = JSON.parse(text) as { type: string; callId?: string };
          if (frame.type === 'hello') {
            peer.send(welcome('s1', { resumed: !first }));
            if (first)
              peer.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'work', arguments: {} });
          }
          if (frame.type === 'tool_result' && !first) {
            results.push(`${frame.callId} on socket ${pair.peers.length}`);
            peer.send({ type: 'ack', callId: frame.callId });
          }
        };
      },
    });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: pair.WebSocket,
      apiKey: 'key-123456',
      tools: [work],
      reconnect,
      ...more(pair),
    });
    clients.push(client);
    const errors: string[] = [];
    client.on('error', (error) => errors.push(`${error.code}: ${error.message}`));
    await client.connect();
    await vi.advanceTimersByTimeAsync(0);
    return { client, pair, service, results, errors, finish: () => finish?.() };
  }

  /** Closes with `timeoutMs` and says after how many milliseconds `close()` resolved. */
  function timedClose(client: Client, timeoutMs: number): Promise<number> {
    const started = performance.now();
    return client.close({ timeoutMs }).then(() => performance.now() - started);
  }

  it('tries again within the drain rather than after a long backoff, and delivers the result of a call that finished', async () => {
    const { client, pair, service, results, finish } = await drainingSetup({
      initialDelayMs: 10_000,
      maxDelayMs: 10_000,
    });
    const reconnecting: unknown[] = [];
    client.on('reconnecting', (info) => reconnecting.push(info));
    service.mode = 'down';
    (pair.peers[0] as MemoryPeer).fail();
    await vi.advanceTimersByTimeAsync(0);
    // The call finishes while the socket is down: its result waits for the next socket.
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect([client.state, client.stats.unacked, reconnecting]).toEqual([
      'reconnecting',
      1,
      [{ attempt: 1, delayMs: 5_000 }],
    ]);
    // SIGTERM during the blip; the service is back a moment later.
    const closing = timedClose(client, 3_000);
    service.mode = 'up';
    await vi.advanceTimersByTimeAsync(3_000);
    expect([await closing, results, client.stats.unacked, reconnecting]).toEqual([
      500,
      ['c1 on socket 2'],
      0,
      [
        { attempt: 1, delayMs: 5_000 },
        { attempt: 1, delayMs: 500 },
      ],
    ]);
  });

  it('goes on past reconnect.maxAttempts until timeoutMs, and delivers the result when the service is back', async () => {
    const { client, pair, service, results, errors, finish } = await drainingSetup({ maxAttempts: 3 });
    service.mode = 'down';
    (pair.peers[0] as MemoryPeer).fail();
    await vi.advanceTimersByTimeAsync(0);
    finish();
    const closing = timedClose(client, 20_000);
    // Three attempts fail within the first second: past maxAttempts, the drain keeps trying.
    await vi.advanceTimersByTimeAsync(6_000);
    expect([client.state, results, errors.filter((e) => e.startsWith('unreachable'))]).toEqual([
      'reconnecting',
      [],
      [],
    ]);
    service.mode = 'up';
    await vi.advanceTimersByTimeAsync(14_000);
    const closedAfter = await closing;
    expect([closedAfter, results, client.stats.unacked]).toEqual([
      6_250,
      [`c1 on socket ${pair.peers.length}`],
      0,
    ]);
  });

  it('cuts an attempt stuck in its handshake 2 s after it began, the one under way at close() included', async () => {
    const { client, pair, service, results, errors, finish } = await drainingSetup({
      initialDelayMs: 100,
      maxDelayMs: 100,
    });
    // The port accepts sockets but never answers: the attempt 50 ms after the drop hangs in its handshake.
    service.mode = 'hang';
    (pair.peers[0] as MemoryPeer).fail();
    await vi.advanceTimersByTimeAsync(0);
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect([client.state, pair.peers.length]).toEqual(['reconnecting', 2]);
    const closing = timedClose(client, 8_000);
    // The attempt under way (begun 50 ms before close()) is cut at 1.95 s; the next, begun at 2 s, hangs too and
    // is cut at 4 s (the service is back at 3 s, but that socket was accepted by the hanging port); the third, at
    // 4.05 s, delivers. Each waited 10 s before.
    await vi.advanceTimersByTimeAsync(2_900);
    service.mode = 'up';
    await vi.advanceTimersByTimeAsync(5_100);
    const closedAfter = await closing;
    expect([closedAfter, results, client.stats.unacked, errors]).toEqual([
      4_050,
      ['c1 on socket 4'],
      0,
      [
        'handshake_timeout: ws://toolwire.test/v1/ws: no welcome within 2000 ms (the socket opened, but the service did not answer hello)',
        'handshake_timeout: ws://toolwire.test/v1/ws: no welcome within 2000 ms (the socket opened, but the service did not answer hello)',
      ],
    ]);
  });
  it('cuts an attempt whose apiKey function hangs 2 s after it began, the one under way at close() included', async () => {
    // The key function answers at once, except the number of times `hangs` says: then it never answers.
    const key = { hangs: 0 };
    const apiKey = () => {
      if (key.hangs === 0) return 'key-123456';
      key.hangs -= 1;
      return new Promise<string>(() => {});
    };
    const { client, pair, results, errors, finish } = await drainingSetup(
      { initialDelayMs: 100, maxDelayMs: 100 },
      () => ({ apiKey }),
    );
    key.hangs = 2;
    (pair.peers[0] as MemoryPeer).fail();
    await vi.advanceTimersByTimeAsync(0);
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect([client.state, pair.peers.length, key.hangs]).toEqual(['reconnecting', 1, 1]);
    const closing = timedClose(client, 8_000);
    // The attempt under way (begun 50 ms before close()) is cut at 1.95 s; the next, begun at 2 s, hangs too and
    // is cut at 4 s; the third, at 4.05 s, delivers. Each held the drain 10 s (API_KEY_TIMEOUT_MS) before.
    await vi.advanceTimersByTimeAsync(8_000);
    const closedAfter = await closing;
    expect([closedAfter, results, client.stats.unacked, errors]).toEqual([
      4_050,
      ['c1 on socket 2'],
      0,
      [
        'api_key_failed: the apiKey function did not answer within 2000ms',
        'api_key_failed: the apiKey function did not answer within 2000ms',
      ],
    ]);
  });

  it('counts the time its apiKey function took in the 2 s of an attempt stuck in its handshake', async () => {
    const key = { slow: false };
    const apiKey = () =>
      key.slow
        ? new Promise<string>((resolve) => setTimeout(() => resolve('key-123456'), 1_500))
        : 'key-123456';
    const { client, pair, service, results, errors, finish } = await drainingSetup(
      { initialDelayMs: 100, maxDelayMs: 100 },
      () => ({ apiKey }),
    );
    key.slow = true;
    service.mode = 'hang';
    (pair.peers[0] as MemoryPeer).fail();
    await vi.advanceTimersByTimeAsync(0);
    finish();
    await vi.advanceTimersByTimeAsync(100);
    const closing = timedClose(client, 8_000);
    // The attempt begun at 50 ms has its key at 1.55 s, its socket accepted by the hanging port: cut at 2.05 s,
    // 2 s after the attempt began (not after its socket). The next, begun at 2.1 s, has its key at 3.6 s: delivered.
    await vi.advanceTimersByTimeAsync(1_500);
    expect(pair.peers.length).toBe(2);
    service.mode = 'up';
    await vi.advanceTimersByTimeAsync(6_500);
    const closedAfter = await closing;
    expect([closedAfter, results, errors]).toEqual([
      3_500,
      ['c1 on socket 3'],
      [
        'handshake_timeout: ws://toolwire.test/v1/ws: no welcome within 2000 ms (the socket opened, but the service did not answer hello)',
      ],
    ]);
  });

  it('cuts an attempt whose WebSocket class does not load 2 s after it began', async () => {
    // The loader a runtime without the WebSocket option uses (`import('ws')` in Node): it never answers once.
    const loader = { hangs: 0 };
    let previous: Parameters<typeof registerNodeWebSocket>[0];
    let setup: Awaited<ReturnType<typeof drainingSetup>>;
    try {
      // A client made without the WebSocket option takes the loader registered when it is made.
      setup = await drainingSetup({ initialDelayMs: 100, maxDelayMs: 100 }, (pair) => {
        previous = registerNodeWebSocket(() => {
          if (loader.hangs === 0) return Promise.resolve(pair.WebSocket);
          loader.hangs -= 1;
          return new Promise(() => {});
        });
        return { WebSocket: undefined };
      });
    } finally {
      registerNodeWebSocket(previous);
    }
    const { client, pair, results, errors, finish } = setup;
    loader.hangs = 1;
    (pair.peers[0] as MemoryPeer).fail();
    await vi.advanceTimersByTimeAsync(0);
    finish();
    await vi.advanceTimersByTimeAsync(100);
    expect([client.state, pair.peers.length, loader.hangs]).toEqual(['reconnecting', 1, 0]);
    const closing = timedClose(client, 8_000);
    await vi.advanceTimersByTimeAsync(8_000);
    const closedAfter = await closing;
    expect([closedAfter, results, client.stats.unacked, errors]).toEqual([
      2_000,
      ['c1 on socket 2'],
      0,
      ['handshake_timeout: ws://toolwire.test/v1/ws: the WebSocket class did not load within 2000 ms'],
    ]);
  });
});
