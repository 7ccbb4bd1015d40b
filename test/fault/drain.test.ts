/**
 * A worker that drains (`close()`, `handleSignals`) beside another worker of the same tools, against the stub
 * (docs/guide/workers.md, "Deploys"): the calls it never started go to the other worker; only a call that outlives
 * the drain's `timeoutMs` ends `cancelled`.
 */
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type StubServer, scriptedModel } from '../../server-stub/index';
import { tool } from '../../src/index';
import { API_KEY, client, deferred, onCleanup, proxyTo, stub, until } from './harness';

/**
 * The `work` tool of `worker`, recording each call it executes in `executed`: a gated one runs until it is aborted
 * (past the drain's timeout), the other returns at once.
 */
function workOf(worker: string, gated: boolean, executed: string[], options: object = {}) {
  return tool({
    name: 'work',
    description: 'Works.',
    parameters: z.object({ n: z.number(), tenant: z.string().optional() }),
    ...options,
    execute: ({ n }, ctx) => {
      executed.push(`${worker}:${n}`);
      if (!gated) return `${worker}:${n}`;
      return new Promise<string>((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
      );
    },
  });
}

describe('a worker draining beside another', () => {
  it('hands its queued calls to the other worker; only its running call, past the timeout, is cancelled', async () => {
    const executed: string[] = [];
    const work = (worker: string, gated: boolean) => workOf(worker, gated, executed);
    const agent = { name: 'Fleet', instructions: '', tools: ['work'] };
    const calls = [0, 1, 2, 3].map((n) => ({ name: 'work', arguments: { n } }));
    const server = await stub({
      agents: [agent],
      model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
    });
    const a = client(server.url, { tools: [work('a', true)], maxConcurrency: 1, maxQueue: 4 });
    await a.connect();
    const runId = server.runs.start('Fleet', 'go');
    // One running, one queued behind it (the stub sends a worker one round past its slots); two wait in the stub.
    await until(() => a.stats, { running: 1, queued: 1, waiting: 0, unacked: 0 });
    const b = client(server.url, { tools: [work('b', false)] });
    await b.connect();
    await a.close({ timeoutMs: 200 });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.status).toBe('completed');
    const outcomes = transcript.toolCalls.map((call) => call.status).sort();
    expect(outcomes).toEqual(['cancelled', 'ok', 'ok', 'ok']);
    expect(executed.filter((name) => name.startsWith('a:'))).toEqual(['a:0']);
    expect(executed.filter((name) => name.startsWith('b:')).sort()).toEqual(['b:1', 'b:2', 'b:3']);
  });

  it('hands a running call of an idempotent tool, past the timeout, to the other worker, which runs it again', async () => {
    const executed: string[] = [];
    const steps: string[] = [];
    // Call 0 on a: its step finishes, then it runs past the drain. On b it runs again, its step's result kept.
    const work = (worker: string, gated: boolean) =>
      tool({
        name: 'work',
        description: 'Works.',
        sideEffect: 'idempotent',
        parameters: z.object({ n: z.number() }),
        execute: async ({ n }, ctx) => {
          executed.push(`${worker}:${n}`);
          const step = await ctx.step('reserve', () => {
            steps.push(`${worker}:${n}`);
            return `reserved by ${worker}`;
          });
          if (!gated) return `${worker}:${n} ${step}`;
          return new Promise<string>((_resolve, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
          );
        },
      });
    const agent = { name: 'Fleet', instructions: '', tools: ['work'] };
    const calls = [0, 1, 2, 3].map((n) => ({ name: 'work', arguments: { n } }));
    const server = await stub({
      agents: [agent],
      model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
    });
    const a = client(server.url, { tools: [work('a', true)], maxConcurrency: 1, maxQueue: 4 });
    const events: string[] = [];
    a.on('tool_result', ({ callId, status }) => events.push(`${callId} ${status}`));
    await a.connect();
    const runId = server.runs.start('Fleet', 'go');
    await until(() => a.stats, { running: 1, queued: 1, waiting: 0, unacked: 0 });
    const b = client(server.url, { tools: [work('b', false)] });
    await b.connect();
    await a.close({ timeoutMs: 200 });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(executed.filter((name) => name.startsWith('a:'))).toEqual(['a:0']);
    expect(executed.filter((name) => name.startsWith('b:')).sort()).toEqual(['b:0', 'b:1', 'b:2', 'b:3']);
    expect(steps.sort()).toEqual(['a:0', 'b:1', 'b:2', 'b:3']);
    expect(transcript.toolCalls[0]?.output).toBe('b:0 reserved by a');
    // On a, the running call ended with its event, handed back (error, retryable); the queued one never began.
    expect(events).toEqual([expect.stringMatching(/ error$/)]);
    await b.close();
  });

  it('does the same with the calls of a tool with concurrency waiting for their key', async () => {
    const executed: string[] = [];
    const keyed = { concurrency: { limit: 1, key: (input: { tenant?: string }) => input.tenant ?? 'none' } };
    const work = (worker: string, gated: boolean) => workOf(worker, gated, executed, keyed);
    const agent = { name: 'Fleet', instructions: '', tools: ['work'] };
    const calls = [0, 1, 2, 3].map((n) => ({ name: 'work', arguments: { n, tenant: 'acme' } }));
    const server = await stub({
      agents: [agent],
      model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
    });
    const a = client(server.url, { tools: [work('a', true)], maxConcurrency: 4 });
    const events: string[] = [];
    a.on('tool_call', ({ callId }) => events.push(`call ${callId}`));
    a.on('tool_result', ({ callId, status }) => events.push(`result ${callId} ${status}`));
    await a.connect();
    const runId = server.runs.start('Fleet', 'go');
    await until(() => a.stats.tools?.work, { running: 1, waiting: 3 });
    const b = client(server.url, { tools: [work('b', false)] });
    await b.connect();
    await a.close({ timeoutMs: 200 });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.status).sort()).toEqual(['cancelled', 'ok', 'ok', 'ok']);
    expect(executed.filter((name) => name.startsWith('a:'))).toEqual(['a:0']);
    expect(executed.filter((name) => name.startsWith('b:')).sort()).toEqual(['b:1', 'b:2', 'b:3']);
    // Each call a started ended with its event: three handed back (error), the running one cancelled.
    expect(events.filter((line) => line.startsWith('call'))).toHaveLength(4);
    expect(
      events
        .filter((line) => line.startsWith('result'))
        .map((line) => line.split(' ')[2])
        .sort(),
    ).toEqual(['cancelled', 'error', 'error', 'error']);
  });
});

describe('a worker draining while its calls wait for a human', () => {
  it('hands the calls it asked approval for to the other worker at once: approved later, they run there once', async () => {
    const executed: string[] = [];
    const guarded = (worker: string) => workOf(worker, false, executed, { needsApproval: () => true });
    const agent = { name: 'Fleet', instructions: '', tools: ['work'] };
    const calls = [0, 1, 2].map((n) => ({ name: 'work', arguments: { n } }));
    const server = await stub({
      agents: [agent],
      model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
    });
    const a = client(server.url, { tools: [guarded('a')], maxConcurrency: 2 });
    const asked: string[] = [];
    a.on('approval_requested', ({ callId }) => asked.push(callId));
    await a.connect();
    const runId = server.runs.start('Fleet', 'go');
    await until(() => asked.length, 3);
    const b = client(server.url, { tools: [guarded('b')] });
    await b.connect();
    // Nothing runs on a: its drain has nothing to wait for (a drain that waited would end the calls cancelled).
    await a.close({ timeoutMs: 10_000 });
    expect(a.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 0 });
    for (const callId of asked) {
      const response = await fetch(
        `${server.url.replace('ws', 'http')}/v1/runs/${runId}/approvals/${callId}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ approved: true }),
        },
      );
      expect(response.status).toBe(200);
    }
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(['ok', 'ok', 'ok']);
    expect(executed.sort()).toEqual(['b:0', 'b:1', 'b:2']);
  });
});

describe('a worker whose socket drops while it drains', () => {
  /** A `work` tool whose calls wait for `release()`, recording where each ran. */
  function gatedWork(worker: string, executed: string[], gates: Array<() => void>) {
    return tool({
      name: 'work',
      description: 'Works.',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => {
        executed.push(`${worker}:${n}`);
        return new Promise<string>((resolve) => gates.push(() => resolve(`${worker}:${n}`)));
      },
    });
  }

  async function setUp() {
    const executed: string[] = [];
    const gates: Array<() => void> = [];
    const server = await stub({
      agents: [{ name: 'Fleet', instructions: '', tools: ['work'] }],
      model: scriptedModel([{ toolCalls: [{ name: 'work', arguments: { n: 0 } }] }, { text: 'done' }]),
    });
    const proxy = await proxyTo(server);
    const a = client(server.url.replace(`:${server.port}`, `:${proxy.port}`), {
      tools: [gatedWork('a', executed, gates)],
    });
    const states: string[] = [];
    a.on('connected', ({ resumed }) => states.push(`connected resumed=${resumed}`));
    a.on('disconnected', () => states.push('disconnected'));
    await a.connect();
    const runId = server.runs.start('Fleet', 'go');
    await until(() => a.stats.running, 1);
    const b = client(server.url, { tools: [gatedWork('b', executed, gates)] });
    await b.connect();
    return { server, proxy, a, runId, executed, gates, states };
  }

  it('resumes its session, lets the running call finish and delivers its result: it runs once', async () => {
    const { server, proxy, a, runId, executed, gates, states } = await setUp();
    const closing = a.close({ timeoutMs: 10_000 });
    expect(a.state).toBe('draining');
    proxy.dropAll();
    await until(() => states, ['connected resumed=false', 'disconnected', 'connected resumed=true']);
    expect(a.state).toBe('draining');
    gates.shift()?.();
    // Had the drain waited out its timeoutMs, the call would have been aborted: its result says it ran to the end.
    await closing;
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([['ok', 'a:0']]);
    expect(executed).toEqual(['a:0']);
  });

  it('drains the same when the socket is already down as close() is called', async () => {
    const { server, proxy, a, runId, executed, gates, states } = await setUp();
    // close() begins as the socket is found gone, before the client has opened another.
    const closing = new Promise<void>((resolve, reject) =>
      a.once('reconnecting', () => {
        states.push(`closing in state ${a.state}`);
        a.close({ timeoutMs: 10_000 }).then(resolve, reject);
      }),
    );
    proxy.dropAll();
    await until(() => a.state, 'draining');
    gates.shift()?.();
    await closing;
    expect(states).toEqual([
      'connected resumed=false',
      'disconnected',
      'closing in state reconnecting',
      'connected resumed=true',
    ]);
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([['ok', 'a:0']]);
    expect(executed).toEqual(['a:0']);
  });
});

describe('a worker draining while a real port accepts its attempt and never answers', () => {
  /**
   * A TCP port in front of the stub on 127.0.0.1: while `hang`, it accepts each connection and says nothing (no
   * HTTP answer to the upgrade); else it pipes it to the stub. `dropPiped()` breaks the piped connections.
   */
  async function frontOf(server: StubServer) {
    const piped: Socket[] = [];
    const held: Socket[] = [];
    const front = { mode: 'pipe' as 'pipe' | 'hang', held, heldClosed: 0, port: 0 };
    const tcp = createServer((socket) => {
      socket.on('error', () => {});
      if (front.mode === 'hang') {
        held.push(socket);
        socket.on('close', () => (front.heldClosed += 1));
        // Reads (and drops) what comes, so that it sees the client close the connection.
        socket.resume();
        return;
      }
      const upstream = connect(server.port, '127.0.0.1');
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => socket.destroy());
      socket.pipe(upstream).pipe(socket);
      piped.push(socket);
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    front.port = (tcp.address() as { port: number }).port;
    onCleanup(async () => {
      for (const socket of [...piped, ...held]) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    });
    const dropPiped = () => {
      for (const socket of piped.splice(0)) socket.destroy();
    };
    return { front, dropPiped };
  }

  /**
   * Lets real I/O happen, and the fake timers due now run, until `done()`: the fake clock does not move. Fails after
   * 5 s of real time (`Date` is not faked), a failure bound on loopback I/O, not a timing.
   */
  async function io(done: () => boolean): Promise<void> {
    const failAt = Date.now() + 5_000;
    while (!done()) {
      if (Date.now() > failAt) throw new Error(`still waiting for ${done.toString()}`);
      await vi.advanceTimersByTimeAsync(0);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('cuts the attempt 2 s after it began and delivers the result over the next one, once the service is back', async () => {
    const gate = deferred<string>();
    const work = tool({ name: 'work', description: 'Works.', execute: () => gate.promise });
    const server = await stub({
      agents: [{ name: 'Fleet', instructions: '', tools: ['work'] }],
      model: scriptedModel([{ toolCalls: [{ name: 'work', arguments: {} }] }, { text: 'done' }]),
    });
    const { front, dropPiped } = await frontOf(server);
    const url = server.url.replace(`:${server.port}`, `:${front.port}`);
    const a = client(url, { tools: [work], reconnect: { initialDelayMs: 100, maxDelayMs: 100 } });
    const errors: string[] = [];
    a.on('error', (error) => errors.push(`${error.code}: ${error.message}`));
    await a.connect();
    const runId = server.runs.start('Fleet', 'go');
    await until(() => a.stats.running, 1);
    // The clock is fake from here (the real sockets are not): every figure below is exact. Each backoff delay is
    // half its ceiling: 50 ms.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      front.mode = 'hang';
      dropPiped();
      await io(() => a.state === 'reconnecting');
      // The attempt 50 ms after the drop: the port accepts it and never answers the upgrade.
      await vi.advanceTimersByTimeAsync(50);
      await io(() => front.held.length === 1);
      gate.resolve('done');
      await io(() => a.stats.unacked === 1);
      const started = performance.now();
      let closedAfter: number | undefined;
      const closing = a.close({ timeoutMs: 5_000 }).then(() => {
        closedAfter = performance.now() - started;
      });
      // The service is back, but the attempt under way was accepted by the hanging port.
      front.mode = 'pipe';
      await vi.advanceTimersByTimeAsync(1_999);
      expect([a.state, front.heldClosed, errors]).toEqual(['reconnecting', 0, []]);
      await vi.advanceTimersByTimeAsync(1);
      // Cut: the client closed the TCP connection it had opened.
      await io(() => front.heldClosed === 1);
      expect(errors).toEqual([
        `handshake_timeout: ${url}: the WebSocket upgrade did not complete within 2000 ms`,
      ]);
      // The next attempt, 50 ms later, resumes the session, delivers the result and has its ack: close() returns.
      await vi.advanceTimersByTimeAsync(50);
      await io(() => closedAfter !== undefined);
      await closing;
      expect([closedAfter, a.stats.unacked, front.held.length]).toEqual([2_050, 0, 1]);
    } finally {
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([['ok', 'done']]);
  });
});
