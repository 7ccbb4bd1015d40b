import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { z } from 'zod';
import {
  type ScriptedTurn,
  type StubServer,
  scriptedModel,
  silentLogger,
  startStubServer,
} from '../../server-stub/index';
import { Agent, Client, ConnectionError, tool } from '../../src/index';
import type { WebSocketConstructor } from '../../src/wire/transport';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stub(options: Parameters<typeof startStubServer>[0] = {}): Promise<StubServer> {
  const server = await startStubServer({ apiKeys: ['test-key'], logger: silentLogger, ...options });
  cleanups.push(() => server.close());
  return server;
}

async function proxyTo(server: StubServer): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ targetPort: server.port });
  cleanups.push(() => proxy.close());
  return proxy;
}

function client(url: string, options: Partial<ConstructorParameters<typeof Client>[0]> = {}): Client {
  const created = new Client({
    url,
    apiKey: 'test-key',
    tools: [],
    reconnect: { initialDelayMs: 5, maxDelayMs: 50 },
    ...options,
  });
  cleanups.push(() => created.close({ drain: false }));
  return created;
}

/** A deferred promise, for tools that wait for the test. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const counted = () => {
  const runs = new Map<string, number>();
  const add = tool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }, ctx) => {
      runs.set(ctx.callId, (runs.get(ctx.callId) ?? 0) + 1);
      return String(a + b);
    },
  });
  return { add, runs };
};

describe('Client against the stub', () => {
  it('runs 1,000 calls of one run with concurrency, each exactly once', async () => {
    const turns: ScriptedTurn[] = Array.from({ length: 10 }, (_, turn) => ({
      toolCalls: Array.from({ length: 100 }, (_, index) => ({
        name: 'add',
        arguments: JSON.stringify({ a: turn, b: index }),
      })),
    }));
    turns.push(({ messages }) => ({
      text: String(messages.filter((m) => m.role === 'tool').reduce((sum, m) => sum + Number(m.content), 0)),
    }));
    const server = await stub({ model: scriptedModel(turns), maxTurns: 20 });
    const { add, runs } = counted();
    const worker = client(server.url, { tools: [add], maxConcurrency: 8 });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'Summer', instructions: 'Add.', tools: [add] }), 'go', {
      maxTurns: 20,
    });
    // Σ over turns 0..9 and indexes 0..99 of (turn + index) = 100·45 + 10·4950
    expect(result.finalOutput).toBe(String(100 * 45 + 10 * 4950));
    expect(result.toolCalls).toHaveLength(1_000);
    expect(result.toolCalls.every((call) => call.status === 'ok')).toBe(true);
    expect(runs.size).toBe(1_000);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    await expect.poll(() => worker.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 0 });
  });

  it('says what to do when nothing accepts connections at the url', async () => {
    const { createServer } = await import('node:net');
    // A port that was free a moment ago: nothing listens there now.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const nobody = client(`ws://127.0.0.1:${port}`, { connectTimeoutMs: 200 });
    const error = await nobody.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConnectionError', code: 'connect_timeout' });
    expect((error as Error).message).toMatch(
      /\(last attempt: .*connection refused \(.*\)\); nothing accepts connections there: start the service \(the stand-in: npx toolwire-stub\) or check the url$/,
    );
  });

  it('rejects connect() cleanly, without crashing, when the handshake never completes', async () => {
    const { createServer } = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => silent.close(() => resolve()));
    });
    const { port } = silent.address() as { port: number };
    const stuck = client(`ws://127.0.0.1:${port}`, { connectTimeoutMs: 200 });
    await expect(stuck.connect()).rejects.toMatchObject({ name: 'ConnectionError', code: 'connect_timeout' });
    // `ws` reports the aborted handshake on the next tick; it must not surface as an uncaught error.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stuck.state).toBe('closed');
  });

  it('settles run() when the outputs of a run add up to more than the frame limit', async () => {
    const big = tool({ name: 'big', description: 'Big output.', execute: () => 'x'.repeat(3_000) });
    const server = await stub({
      maxPayloadBytes: 4_096,
      model: scriptedModel([
        { toolCalls: [{ name: 'big' }] },
        ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
      ]),
    });
    const worker = client(server.url, { tools: [big] });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [big] }), 'go');
    // Tool outputs are cut first, so the final answer arrives whole.
    expect(result.finalOutput).toBe('x'.repeat(3_000));
    expect(result.toolCalls[0]?.output).toMatch(/\[truncated: the full output was 3000 bytes\]$/);
    expect(server.runs.get(result.runId)?.finalOutput).toBe('x'.repeat(3_000));
  });

  it('states the full size in result.toolCalls when outputs the client cut are cut again to fit run_result', async () => {
    const big = tool({ name: 'big', description: 'Big output.', execute: () => 'x'.repeat(20_000) });
    const server = await stub({
      maxPayloadBytes: 4_096,
      model: scriptedModel([{ toolCalls: [{ name: 'big' }, { name: 'big' }] }, { text: 'done' }]),
    });
    const worker = client(server.url, { tools: [big] });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [big] }), 'go');
    const marker = '\n[truncated: the full output was 20000 bytes]';
    const transcript = server.runs.get(result.runId)?.toolCalls ?? [];
    // What the model read: cut once by the client, the full size in its marker.
    expect(transcript.map((call) => call.output?.endsWith(marker))).toEqual([true, true]);
    // Cut again to fit the frame: shorter, and still the full size.
    expect(result.toolCalls).toHaveLength(2);
    for (const call of result.toolCalls) {
      expect(call.output).toBe(`${'x'.repeat(call.output.length - marker.length)}${marker}`);
      expect(call.output.length).toBeLessThan(transcript[0]?.output?.length ?? 0);
    }
  });

  it('refuses a wrong key with ConnectionError unauthorized', async () => {
    const server = await stub();
    const refused = client(server.url, { apiKey: 'wrong-key' });
    const error = await refused.connect().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('unauthorized');
    expect(refused.state).toBe('closed');
  });

  it('aborts ctx.signal when the service cancels a call past its deadline, and reports timeout to the model', async () => {
    const aborted = deferred<unknown>();
    const slow = tool({
      name: 'slow',
      description: 'Never finishes on its own.',
      execute: (_input, ctx) =>
        new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted.resolve(ctx.signal.reason);
            reject(new Error('stopped'));
          });
        }),
    });
    const server = await stub({
      callDeadlineMs: 50,
      // A service without the lease (docs/protocol/lease.md) cuts a running call at its deadline.
      features: [],
      model: scriptedModel([
        { toolCalls: [{ name: 'slow', arguments: {} }] },
        ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
      ]),
    });
    const worker = client(server.url, { tools: [slow] });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [slow] }), 'go');
    const reason = await aborted.promise;
    expect(reason).toBeInstanceOf(DOMException);
    expect(reason).toMatchObject({
      name: 'AbortError',
      message: 'cancelled by the service (deadline)',
      cause: 'deadline',
    });
    expect(result.toolCalls[0]).toMatchObject({
      status: 'timeout',
      output: 'Error running slow: timed out after 50ms',
    });
    expect(result.finalOutput).toBe('Error running slow: timed out after 50ms');
  });

  it('reports a tool timeout (timeoutMs) as status timeout through the tool', async () => {
    const hang = tool({
      name: 'hang',
      description: 'Hangs.',
      timeoutMs: 20,
      execute: () => new Promise<string>(() => {}),
    });
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'hang' }] }, { text: 'done' }]),
    });
    const worker = client(server.url, { tools: [hang] });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [hang] }), 'go');
    expect(result.toolCalls[0]).toMatchObject({
      status: 'timeout',
      output: 'Error running hang: timed out after 20ms',
    });
  });

  it('cancels the run on the service when the run signal aborts', async () => {
    const started = deferred();
    const aborted = deferred();
    const wait = tool({
      name: 'wait',
      description: 'Waits until cancelled.',
      execute: (_input, ctx) => {
        started.resolve();
        return new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted.resolve();
            reject(new Error('cancelled'));
          });
        });
      },
    });
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'wait' }] }, { text: 'never' }]),
    });
    const worker = client(server.url, { tools: [wait] });
    await worker.connect();
    const controller = new AbortController();
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [wait] }), 'go', {
      signal: controller.signal,
    });
    await started.promise;
    controller.abort();
    const error = await running.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'AbortError', code: 'aborted' });
    expect((error as Error).cause).toBe(controller.signal.reason);
    await aborted.promise;
    // run() rejects at once; the service ends the run when its run_cancel arrives.
    await expect.poll(() => server.runs.list().map((summary) => summary.status)).toEqual(['cancelled']);
  });

  it('delivers the result of a call once after the socket drops mid-call, without running it twice', async () => {
    const release = deferred();
    const started = deferred();
    let executions = 0;
    const job = tool({
      name: 'job',
      description: 'Slow job.',
      execute: async () => {
        executions += 1;
        started.resolve();
        await release.promise;
        return 'done';
      },
    });
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'job' }] },
        ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
      ]),
    });
    const proxy = await proxyTo(server);
    const worker = client(proxy.url, { tools: [job] });
    await worker.connect();
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [job] }), 'go');
    await started.promise;
    const reconnected = new Promise((resolve) => worker.once('connected', resolve));
    proxy.dropAll();
    expect(await reconnected).toMatchObject({ resumed: true });
    release.resolve();
    const result = await running;
    expect(result.finalOutput).toBe('done');
    expect(result.toolCalls).toHaveLength(1);
    expect(executions).toBe(1);
    await expect.poll(() => worker.stats.unacked).toBe(0);
  });

  it('answers a call re-delivered after it finished from the outbox, without running it again', async () => {
    let executions = 0;
    let proxy!: TcpProxy;
    const once = tool({
      name: 'once',
      description: 'Counts executions.',
      execute: () => {
        executions += 1;
        // From now on nothing this client writes reaches the service: the result stays in the outbox, and
        // after the reconnect the service re-delivers the call it never got an answer for.
        proxy.blackhole(true, 'up');
        return 'ran';
      },
    });
    const server = await stub({ model: scriptedModel([{ toolCalls: [{ name: 'once' }] }, { text: 'ok' }]) });
    proxy = await proxyTo(server);
    const worker = client(proxy.url, { tools: [once] });
    await worker.connect();
    const answered = new Promise((resolve) => worker.once('tool_result', resolve));
    const running = worker.run(new Agent({ name: 'A', instructions: '', tools: [once] }), 'go');
    await answered;
    expect(worker.stats.unacked).toBe(1);
    proxy.dropAll();
    proxy.blackhole(false, 'up');
    const result = await running;
    expect(result.finalOutput).toBe('ok');
    expect(result.toolCalls).toMatchObject([{ toolName: 'once', status: 'ok', output: 'ran' }]);
    expect(executions).toBe(1);
  });

  it('detects a dead peer through the heartbeat and reconnects', async () => {
    const server = await stub({ heartbeatIntervalMs: 100 });
    const proxy = await proxyTo(server);
    const worker = client(proxy.url);
    await worker.connect();
    const disconnected = new Promise<{ code: number }>((resolve) => worker.once('disconnected', resolve));
    const reconnected = new Promise<{ resumed: boolean }>((resolve) =>
      worker.on('connected', (info) => info.resumed && resolve(info)),
    );
    proxy.blackhole(true);
    // How long detection takes is measured in test/fault/heartbeat.test.ts (fake timers), not asserted here.
    expect((await disconnected).code).toBe(4008);
    proxy.blackhole(false);
    proxy.dropAll();
    expect(await reconnected).toMatchObject({ resumed: true });
  });

  it('does not take a blocked event loop (a synchronous tool) for a dead peer', async () => {
    const spin = tool({
      name: 'spin',
      description: 'Blocks the event loop.',
      execute: () => {
        const until = Date.now() + 400;
        while (Date.now() < until) {
          // busy: no I/O is read meanwhile, not even the service's pongs
        }
        return 'spun';
      },
    });
    const server = await stub({
      heartbeatIntervalMs: 60_000,
      model: scriptedModel([{ toolCalls: [{ name: 'spin' }] }, { text: 'done' }]),
    });
    const worker = client(server.url, { tools: [spin], heartbeatIntervalMs: 100 });
    const drops: number[] = [];
    worker.on('disconnected', ({ code }) => drops.push(code));
    await worker.connect();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [spin] }), 'go');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(result.toolCalls[0]?.output).toBe('spun');
    expect(drops).toEqual([]);
  });

  it('drains on close: calls in flight finish and their results are acked before the socket closes', async () => {
    const started = deferred();
    const finished: string[] = [];
    const work = tool({
      name: 'work',
      description: 'Takes a little while.',
      execute: async (_input, ctx) => {
        started.resolve();
        await new Promise((resolve) => setTimeout(resolve, 50));
        finished.push(ctx.callId);
        return 'finished';
      },
    });
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'work' }] },
        { toolCalls: [{ name: 'work' }] },
        { text: 'ok' },
      ]),
    });
    const worker = client(server.url, { tools: [work] });
    await worker.connect();
    const runId = deferred<string>();
    worker.on('tool_call', (info) => runId.resolve(info.runId));
    void worker.run(new Agent({ name: 'A', instructions: '', tools: [work] }), 'go').catch(() => {});
    await started.promise;
    await worker.close({ timeoutMs: 5_000 });
    expect(finished).toHaveLength(1);
    expect(worker.state).toBe('closed');
    const transcript = await server.runs.waitFor(await runId.promise);
    expect(transcript.toolCalls[0]).toMatchObject({ status: 'ok', output: 'finished' });
    // The run could not go on without its client: it was cancelled, not left waiting for the session.
    expect(transcript.status).toBe('cancelled');
  });

  it('never lets the API key, the run context or a redact pattern cross the wire or reach a log line', async () => {
    const apiKey = 'sk-live-PLANTED-KEY-0001';
    const secret = 'PLANTED-DB-PASSWORD-42';
    const frames: string[] = [];
    class RecordingWebSocket extends WsWebSocket {
      constructor(...args: ConstructorParameters<typeof WsWebSocket>) {
        super(...args);
        this.on('message', (data) => frames.push(String(data)));
      }
      override send(data: unknown, ...rest: unknown[]): void {
        frames.push(String(data));
        (super.send as (...args: unknown[]) => void)(data, ...rest);
      }
    }
    const lines: string[] = [];
    const logger = {
      debug: (object: object, message: string) => lines.push(JSON.stringify(object) + message),
      info: (object: object, message: string) => lines.push(JSON.stringify(object) + message),
      warn: (object: object, message: string) => lines.push(JSON.stringify(object) + message),
      error: (object: object, message: string) => lines.push(JSON.stringify(object) + message),
    };
    const leaky = tool({
      name: 'leaky',
      description: 'Tries to leak.',
      execute: (_input, ctx) => {
        const context = ctx.context as { dbPassword: string };
        throw new Error(`connect failed for key ${apiKey} with password ${context.dbPassword}`);
      },
    });
    const chatty = tool({
      name: 'chatty',
      description: 'Returns a secret in its data and its widget.',
      execute: (_input, ctx) => ({
        note: `password is ${(ctx.context as { dbPassword: string }).dbPassword}`,
        widget: { type: 'Text', value: `key ${apiKey}` },
      }),
    });
    const server = await stub({
      apiKeys: [apiKey],
      model: scriptedModel([{ toolCalls: [{ name: 'leaky' }, { name: 'chatty' }] }, { text: 'done' }]),
    });
    const worker = new Client({
      url: server.url,
      apiKey,
      tools: [leaky, chatty],
      WebSocket: RecordingWebSocket as unknown as WebSocketConstructor,
      logger,
      redact: [secret],
    });
    cleanups.push(() => worker.close({ drain: false }));
    await worker.connect();
    const result = await worker.run(
      new Agent({ name: 'A', instructions: '', tools: [leaky, chatty] }),
      'go',
      {
        context: { dbPassword: secret },
      },
    );
    await worker.close();
    expect(result.toolCalls.map((call) => call.output).sort()).toEqual([
      'Error running leaky: connect failed for key [redacted] with password [redacted]',
      '{"note":"password is [redacted]"}',
    ]);
    const transcript = JSON.stringify(server.runs.get(result.runId));
    expect(frames.length).toBeGreaterThan(4);
    for (const text of [...frames, ...lines, transcript]) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(secret);
      expect(text).not.toContain('dbPassword');
    }
  });
});
