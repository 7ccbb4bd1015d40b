/**
 * A call that ended, or went to another worker, while its worker was away (docs/protocol/calls-no-longer-held.md): the worker
 * comes back and names the call (its open question sent again, its lease renewed), and the stub answers
 * `cancel { reason: 'not_dispatched' }`, so the call stops there instead of waiting for an answer or renewing a
 * lease nobody reads; with the feature `owed_calls` the resume's `welcome` lists the calls still owed, and the worker
 * drops the others at once, running or queued. The stubs of the tests that name a call use no `owed_calls` (an
 * older service). The real client against the real stub, through a proxy that cuts the connection; every step
 * waits for an event, never for time.
 */
import { describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel } from '../../server-stub/index';
import { type Client, QuestionError, tool } from '../../src/index';
import { agent, track } from '../stub/helpers';
import { TestClient, toolDef } from '../stub/test-client';
import { client, deferred, proxyTo, stub } from '../support/long-calls';
import type { TcpProxy } from '../support/tcp-proxy';

/** What the tool saw: its `ctx.signal`'s reason, and how each of its questions ended. */
interface Seen {
  aborted: string[];
  questions: string[];
}

/** Asks which warehouse (no time limit) until it gets an answer or its call is aborted. */
function asker(seen: Seen) {
  return tool({
    name: 'export',
    description: 'Asks which warehouse, then exports there.',
    execute: async (_input, ctx) => {
      ctx.signal.addEventListener('abort', () => seen.aborted.push(String(ctx.signal.reason)));
      while (!ctx.signal.aborted) {
        try {
          return `exported to ${await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] })}`;
        } catch (error) {
          if (!(error instanceof QuestionError)) throw error;
          seen.questions.push(`${error.code}: ${error.message}`);
        }
      }
      return 'not exported';
    },
  });
}

/** Runs until its `ctx.signal` aborts (a long call its client keeps leased). */
function longRunner(seen: Seen) {
  return tool({
    name: 'export',
    description: 'Exports for a long while.',
    execute: (_input, ctx) =>
      new Promise<string>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          seen.aborted.push(String(ctx.signal.reason));
          resolve('stopped');
        }),
      ),
  });
}

/** Resolves on the stub's next run event of `kind`. */
function nextRunEvent(server: StubServer, kind: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (info: { kind: string }) => {
      if (info.kind !== kind) return;
      server.events.off('run_event', listener);
      resolve();
    };
    server.events.on('run_event', listener);
  });
}

/**
 * A stub with `options`, a worker behind a proxy whose tool asks a question, and a run whose call waits for the
 * answer there.
 */
async function waitingForAnswer(options: Parameters<typeof stub>[0]) {
  const server = await stub({ features: ['questions'], ...options });
  const proxy = await proxyTo(server);
  const seen: Seen = { aborted: [], questions: [] };
  const worker = client(proxy.url, [asker(seen)]);
  await worker.connect();
  const asked = nextRunEvent(server, 'question_asked');
  const runId = server.runs.start(agent('a', ['export']), 'go');
  await asked;
  return { server, proxy, seen, worker, runId };
}

/** Cuts the worker off (its reconnects swallowed) and resolves once the stub has detached its session. */
async function cutOff(server: StubServer, proxy: TcpProxy, worker?: Client): Promise<void> {
  const detached = new Promise((resolve) => server.events.once('session_detached', resolve));
  proxy.blackhole(true);
  proxy.dropAll();
  await detached;
  // The worker hears of the drop on its own time: what the test does next must find it away, not still open.
  if (worker !== undefined) await expect.poll(() => worker.state).not.toBe('open');
}

/** Lets the worker back in and resolves with its next `connected` event. */
async function letBackIn(worker: Client, proxy: TcpProxy): Promise<{ resumed: boolean }> {
  const connected = new Promise<{ resumed: boolean }>((resolve) => worker.once('connected', resolve));
  proxy.blackhole(false);
  // A reconnect made meanwhile lost its hello to the blackhole and would wait out a handshake timeout: cut it,
  // so that the next one, made at once, goes through.
  proxy.dropAll();
  return connected;
}

/**
 * Cuts the worker off, cancels the run while it is away (the cancel is lost with the socket), lets it back in (a
 * resume), and resolves with how its call ended there (its `tool_result` event).
 */
async function cancelledWhileAway(
  server: StubServer,
  proxy: TcpProxy,
  worker: Client,
  runId: string,
): Promise<{ status: string }> {
  await cutOff(server, proxy, worker);
  expect(server.runs.cancel(runId)).toBe(true);
  const ended = new Promise<{ status: string }>((resolve) => worker.once('tool_result', resolve));
  expect(await letBackIn(worker, proxy)).toMatchObject({ resumed: true });
  return ended;
}

const NOT_DISPATCHED =
  'AbortError: cancelled by the service (not_dispatched): the call had already ended there, or gone to another worker';

describe('a call that ended while its worker was away', () => {
  it('stops when the worker resumes and asks its open question again: the question ends, the call ends cancelled', async () => {
    const { server, proxy, seen, worker, runId } = await waitingForAnswer({ callDeadlineMs: 5_000 });
    expect(worker.stats).toMatchObject({ running: 0, waiting: 1 });
    expect(await cancelledWhileAway(server, proxy, worker, runId)).toMatchObject({ status: 'cancelled' });
    expect(seen.aborted).toEqual([NOT_DISPATCHED]);
    expect(seen.questions).toEqual(['cancelled: the call was cancelled']);
    // It ends without a result (the service wants none): nothing is held for the call any more, and a drain has
    // nothing to wait for.
    await expect.poll(() => worker.stats).toMatchObject({ running: 0, waiting: 0, unacked: 0 });
    expect(server.runs.get(runId)?.toolCalls).toMatchObject([
      { status: 'cancelled', output: 'Error running export: the call was cancelled' },
    ]);
  });

  it('stops a leased call when the worker resumes and renews its lease', async () => {
    const server = await stub({ features: ['lease'], callDeadlineMs: 5_000, leaseMs: 60_000 });
    const proxy = await proxyTo(server);
    const seen: Seen = { aborted: [], questions: [] };
    const worker = client(proxy.url, [longRunner(seen)]);
    await worker.connect();
    const started = new Promise((resolve) => worker.once('tool_call', resolve));
    const runId = server.runs.start(agent('a', ['export']), 'go');
    await started;
    expect(await cancelledWhileAway(server, proxy, worker, runId)).toMatchObject({ status: 'cancelled' });
    expect(seen.aborted).toEqual([NOT_DISPATCHED]);
    await expect.poll(() => worker.stats).toMatchObject({ running: 0, waiting: 0, unacked: 0 });
    expect(server.runs.get(runId)?.toolCalls).toMatchObject([
      { status: 'cancelled', output: 'Error running export: the call was cancelled' },
    ]);
  });
});

describe('calls held by a worker whose run was cancelled while it was away (feature owed_calls)', () => {
  /**
   * A run of three refunds against a worker of one slot, cut off from the stub: the first call runs (until `gate`
   * is let go, or its signal aborts), the second waits behind it, a third waits in the service.
   */
  async function refundsCutOff() {
    // One slot: the first call runs, the second waits behind it (a third waits in the service).
    const server = await stub({
      callDeadlineMs: 60_000,
      model: scriptedModel([
        { toolCalls: [{ name: 'refund' }, { name: 'refund' }, { name: 'refund' }] },
        { text: 'done' },
      ]),
    });
    const proxy = await proxyTo(server);
    const started: string[] = [];
    const aborted: string[] = [];
    const gate = deferred();
    const worker = client(
      proxy.url,
      [
        tool({
          name: 'refund',
          description: 'Refunds the order, once let go (or stops at its signal).',
          execute: async (_input, ctx) => {
            started.push(ctx.callId);
            ctx.signal.addEventListener('abort', () => aborted.push(String(ctx.signal.reason)));
            await Promise.race([
              gate.promise,
              new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
            ]);
            return 'refunded';
          },
        }),
      ],
      { maxConcurrency: 1 },
    );
    await worker.connect();
    const ended: Array<{ callId: string; status: string }> = [];
    worker.on('tool_result', (event) => ended.push(event));
    const runId = server.runs.start(agent('a', ['refund']), 'refund the order');
    await expect.poll(() => worker.stats).toMatchObject({ running: 1, queued: 1 });
    const [running] = started;
    await cutOff(server, proxy, worker);
    return { server, proxy, worker, runId, running, started, aborted, gate, ended };
  }

  it('drops them when the worker resumes: the running call aborts, the queued one never starts', async () => {
    const { server, proxy, worker, runId, running, started, aborted, gate, ended } = await refundsCutOff();
    expect(server.runs.cancel(runId)).toBe(true);
    expect(await letBackIn(worker, proxy)).toMatchObject({ resumed: true });
    // The running call's tool would finish now: the queued call must not start in its slot.
    gate.resolve();
    await expect.poll(() => worker.stats).toMatchObject({ running: 0, queued: 0, waiting: 0, unacked: 0 });
    expect(started).toEqual([running]);
    expect(aborted).toEqual([NOT_DISPATCHED]);
    expect(ended.map((event) => event.status)).toEqual(['cancelled', 'cancelled']);
    expect((await server.runs.waitFor(runId)).toolCalls.map((call) => call.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });

  it('starts no queued call in a slot freed while the worker is away: the resume says it ended', async () => {
    const { server, proxy, worker, runId, running, started, aborted, gate, ended } = await refundsCutOff();
    expect(server.runs.cancel(runId)).toBe(true);
    // The running call's tool finishes while the worker is away: the queued call must not start in its slot.
    gate.resolve();
    await expect.poll(() => worker.stats).toMatchObject({ running: 0 });
    expect(started).toEqual([running]);
    expect(await letBackIn(worker, proxy)).toMatchObject({ resumed: true });
    await expect.poll(() => worker.stats).toMatchObject({ running: 0, queued: 0, waiting: 0, unacked: 0 });
    expect(started).toEqual([running]);
    expect(aborted).toEqual([]);
    expect(ended.map((event) => event.status)).toEqual(['ok', 'cancelled']);
    expect((await server.runs.waitFor(runId)).toolCalls.map((call) => call.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });
});

describe('a call that went to another worker while its first worker was away', () => {
  it('stops on the first worker when it comes back in a new session and asks again; the other worker result stands', async () => {
    // No lease: the first worker's call, waiting for an answer, has no clock of its own to stop it.
    const {
      server,
      proxy,
      seen,
      worker: first,
      runId,
    } = await waitingForAnswer({
      callDeadlineMs: 60_000,
      sessionGraceMs: 100,
    });
    const expired = new Promise((resolve) => server.events.once('session_expired', resolve));
    await cutOff(server, proxy);
    await expired;
    // Its session gone, the call goes to the next worker offering the tool.
    const second = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['questions'] }),
    );
    const call = await second.next('tool_call');
    // The first worker comes back: its session is gone, so its question ends, and the tool asks again there.
    const ended = new Promise<{ status: string }>((resolve) => first.once('tool_result', resolve));
    expect(await letBackIn(first, proxy)).toMatchObject({ resumed: false });
    expect(await ended).toMatchObject({ status: 'cancelled' });
    expect(seen.aborted).toEqual([NOT_DISPATCHED]);
    expect(seen.questions).toEqual([
      'cancelled: the session was lost: the client reconnected in a new session, which cannot answer a question put to the old one',
      'cancelled: the call was cancelled',
    ]);
    // The first worker's `cancelled` is acknowledged and not recorded: the call is the second worker's.
    await expect.poll(() => first.stats).toMatchObject({ running: 0, waiting: 0, unacked: 0 });
    second.result(call.callId, 'exported by the second');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls).toMatchObject([{ status: 'ok', output: 'exported by the second' }]);
    expect(second.all('cancel')).toEqual([]);
  });

  it('keeps a result the first worker finished while it was away: its progress, re-sent first, does not void it', async () => {
    // The first worker's tool reported progress, then finished while it was cut off: when it comes back in a new
    // session it sends its progress again (told not_dispatched: the call is the second's now), then its result.
    const server = await stub({ features: ['progress'], callDeadlineMs: 60_000, sessionGraceMs: 100 });
    const proxy = await proxyTo(server);
    const gate = deferred();
    const first = client(proxy.url, [
      tool({
        name: 'export',
        description: 'Reports progress, then exports once let go.',
        execute: async (_input, ctx) => {
          ctx.progress({ progress: 1, total: 2, message: 'half way' });
          await gate.promise;
          return 'exported by the first';
        },
      }),
    ]);
    await first.connect();
    const progressed = nextRunEvent(server, 'tool_progress');
    const runId = server.runs.start(agent('a', ['export']), 'go');
    await progressed;
    const expired = new Promise((resolve) => server.events.once('session_expired', resolve));
    await cutOff(server, proxy);
    const finished = new Promise((resolve) => first.once('tool_result', resolve));
    gate.resolve();
    await finished;
    await expired;
    const second = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['progress'] }),
    );
    const call = await second.next('tool_call');
    expect(await letBackIn(first, proxy)).toMatchObject({ resumed: false });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls).toMatchObject([{ status: 'ok', output: 'exported by the first' }]);
    expect(await second.next('cancel')).toEqual({
      type: 'cancel',
      callId: call.callId,
      reason: 'redispatched',
    });
    await expect.poll(() => first.stats).toMatchObject({ running: 0, unacked: 0 });
  });
});

describe('a call whose local approver is deciding when its worker loses it', () => {
  it('asks the approver once when the call comes back after another worker held it; that answer decides it', async () => {
    const server = await stub({ features: ['lease'], callDeadlineMs: 60_000, sessionGraceMs: 100 });
    const proxy = await proxyTo(server);
    const asked: string[] = [];
    const answers: Array<(approved: boolean) => void> = [];
    const promptShown = deferred();
    const first = client(
      proxy.url,
      [tool({ name: 'export', description: 'Exports.', needsApproval: true, execute: () => 'exported' })],
      {
        onApproval: (request) => {
          asked.push(request.callId);
          promptShown.resolve();
          return new Promise<boolean>((resolve) => answers.push(resolve));
        },
      },
    );
    await first.connect();
    const runId = server.runs.start(agent('a', ['export']), 'go');
    await promptShown.promise;
    // Cut off past its session's grace: the call leaves it (its end is no result), and goes to a second worker.
    const expired = new Promise((resolve) => server.events.once('session_expired', resolve));
    const lost = new Promise<{ status: string }>((resolve) => first.once('tool_result', resolve));
    await cutOff(server, proxy);
    expect(await lost).toMatchObject({ status: 'cancelled' });
    await expired;
    const second = track(
      await TestClient.connect(server.url, { tools: [toolDef('export', true)], localApprovals: true }),
    );
    const call = await second.next('tool_call');
    expect(await letBackIn(first, proxy)).toMatchObject({ resumed: false });
    // The second worker goes before deciding: the call comes back to the first, the only worker left, where the
    // person still has the first prompt on screen.
    const back = new Promise((resolve) => first.once('tool_call', resolve));
    await second.drop();
    await back;
    await expect.poll(() => first.stats).toMatchObject({ waiting: 1 });
    expect(asked).toEqual([call.callId]);
    answers[0]!(true);
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls).toMatchObject([{ status: 'ok', output: 'exported' }]);
    expect(answers).toHaveLength(1);
  });
});

describe('a call whose local approver listens to request.signal when its worker loses it', () => {
  it('tells the approver the prompt is moot when the service gives the call to another worker, and asks again when it comes back', async () => {
    const server = await stub({ features: ['lease'], callDeadlineMs: 60_000, sessionGraceMs: 100 });
    const proxy = await proxyTo(server);
    const signals: AbortSignal[] = [];
    const answers: Array<(approved: boolean) => void> = [];
    const prompts = [deferred(), deferred()];
    const first = client(
      proxy.url,
      [tool({ name: 'export', description: 'Exports.', needsApproval: true, execute: () => 'exported' })],
      {
        onApproval: (request) => {
          prompts[signals.length]?.resolve();
          signals.push(request.signal);
          // A prompt that goes away when the decision is no longer wanted (and is never answered then).
          return new Promise<boolean>((resolve) => answers.push(resolve));
        },
      },
    );
    await first.connect();
    const runId = server.runs.start(agent('a', ['export']), 'go');
    await prompts[0]!.promise;
    const expired = new Promise((resolve) => server.events.once('session_expired', resolve));
    await cutOff(server, proxy);
    await expect.poll(() => signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toMatchObject({ name: 'AbortError', cause: 'session_expired' });
    await expired;
    const second = track(
      await TestClient.connect(server.url, { tools: [toolDef('export', true)], localApprovals: true }),
    );
    await second.next('tool_call');
    expect(await letBackIn(first, proxy)).toMatchObject({ resumed: false });
    // The second worker goes before deciding: the call comes back to the first, which asks again.
    await second.drop();
    await prompts[1]!.promise;
    expect(signals[1]!.aborted).toBe(false);
    answers[1]!(true);
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls).toMatchObject([{ status: 'ok', output: 'exported' }]);
    expect(signals[1]!.aborted).toBe(false);
  });
});
