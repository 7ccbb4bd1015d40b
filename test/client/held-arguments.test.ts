/**
 * What a held call keeps of its arguments while it is not running (src/client/held-arguments.ts `ArgumentsText`,
 * `keptOf`): a queued call their JSON text, counted against `maxQueueBytes`, parsed again as they came when it
 * starts; a call waiting for a decision on its approval, or for its key's turn, keeps no large ones (its tool has
 * them), and their bytes count against `maxQueueBytes` while its tool holds its input. A 1 MiB frame of
 * `{"a":[{},{},…]}` parses to about 21 MiB: held as parsed objects, 1,000 queued calls would take about 21 GiB.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DEADLINE_GRACE_MS } from '../../src/client/deadlines';
import { argumentsText, jsonBytes, parsedArguments } from '../../src/client/held-arguments';
import { callTraces, type ToolTracing } from '../../src/client/tracing';
import { Client, OptionsError, tool } from '../../src/index';
import { silentLogger } from '../../src/logger';
import { utf8Length } from '../../src/utf8';
import { collectedAll } from '../support/gc';
import {
  argumentsTracer,
  nextTask,
  type RunnerOptions,
  recording,
  results,
  waitsForAbort,
} from './call-runner-harness';

/** A tool that records the arguments each call's `execute` got. */
function recordsInput() {
  const got: unknown[] = [];
  const made = tool({
    name: 'echo',
    description: 'Records its input.',
    parameters: z.looseObject({}),
    execute: (input: unknown) => {
      got.push(input);
      return 'ok';
    },
  });
  return { tool: made, got };
}

/** One call of `stuck` holding the only slot, and what `echo` got from the calls queued behind it. */
function queuedBehindStuck(overrides: Parameters<typeof recording>[1] = {}) {
  const echo = recordsInput();
  const runner = recording([waitsForAbort('stuck'), echo.tool], { maxConcurrency: 1, ...overrides });
  runner.call('s1', 'stuck');
  const queue = (callId: string, args: unknown) =>
    runner.calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'echo', arguments: args });
  const unstick = async () => {
    runner.calls.cancel('s1', 'service');
    await nextTask();
    await nextTask();
  };
  return { ...runner, got: echo.got, queue, unstick };
}

/** Queues 100 calls with ~10 KB of nested arguments each: weak references to those. */
function queueLarge(queue: (callId: string, args: unknown) => void): Array<WeakRef<object>> {
  const kept: Array<WeakRef<object>> = [];
  for (let i = 0; i < 100; i++) {
    const args = { a: Array.from({ length: 1_000 }, () => ({})), i };
    kept.push(new WeakRef(args));
    queue(`q${i}`, args);
  }
  return kept;
}

describe('a call waiting for a slot', () => {
  it('holds its arguments as text, not the objects the frame parsed to, and runs with them as they came', async () => {
    const setup = queuedBehindStuck();
    const kept = queueLarge(setup.queue);
    expect(setup.calls.queued).toBe(100);
    expect(await collectedAll(kept)).toBe(true);
    await setup.unstick();
    expect(setup.got).toHaveLength(100);
    expect(setup.got[42]).toEqual({ a: Array.from({ length: 1_000 }, () => ({})), i: 42 });
  });

  it('gets back every value JSON parsed: -0, Infinity, lone surrogates, strings that look like marks', async () => {
    const setup = queuedBehindStuck();
    const args = JSON.parse(
      '{"z":-0,"s":"\\ud800 x","m":"\\u0000-0","mm":"\\u0000\\u0000Infinity","__proto__":{"p":1},"n":[-0,0.1,12345678901234567890,null,true]}',
    ) as Record<string, unknown>;
    setup.queue('q1', args);
    // Out of range (parsed as ±Infinity): refused naming each, as a call that did not wait is.
    const huge = () => JSON.parse('{"big":1e400,"n":[-1e400,-0]}') as unknown;
    setup.queue('q2', huge());
    await setup.unstick();
    expect(setup.sent.at(-1)).toMatchObject({
      callId: 'q2',
      status: 'invalid_arguments',
      output:
        'Invalid arguments for echo: big: the number is too large for JavaScript (past ±1.8e308); it became Infinity; n[0]: the number is too large for JavaScript (past ±1.8e308); it became -Infinity',
    });
    const got = setup.got[0] as Record<string, unknown>;
    expect(Object.is(got.z, -0)).toBe(true);
    expect([got.s, got.m, got.mm]).toEqual(['\ud800 x', '\u0000-0', '\u0000\u0000Infinity']);
    expect(Object.is((got.n as unknown[])[0], -0)).toBe(true);
    expect((got.n as unknown[]).slice(1)).toEqual([0.1, 12345678901234567000, null, true]);
  });

  it('is answered as before when its arguments nest too deep, or are an array', async () => {
    const setup = queuedBehindStuck();
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { deep };
    let deepArray: unknown = [];
    for (let i = 0; i < 100; i++) deepArray = [deepArray];
    setup.queue('q1', deep);
    setup.queue('q2', deepArray);
    await setup.unstick();
    const outputs = setup.sent
      .filter((frame) => frame.type === 'tool_result' && frame.callId !== 's1')
      .map((frame) => [(frame as { status: string }).status, (frame as { output: string }).output]);
    expect(outputs).toEqual([
      ['invalid_arguments', 'Invalid arguments for echo: the arguments nest deeper than 64 levels'],
      ['invalid_arguments', 'Invalid arguments for echo: expected a JSON object, got array'],
    ]);
    expect(setup.got).toEqual([]);
  });

  it('runs with arguments of exactly 64 levels, -0 at the bottom, and refuses 65', async () => {
    const setup = queuedBehindStuck();
    const nest = (levels: number) => {
      let deep: unknown = { z: -0 };
      for (let i = 1; i < levels; i++) deep = { deep };
      return deep;
    };
    setup.queue('q64', nest(64));
    setup.queue('q65', nest(65));
    await setup.unstick();
    expect(results(setup.sent).slice(1)).toEqual(['q64:ok', 'q65:invalid_arguments']);
    let bottom = setup.got[0] as { deep?: unknown; z?: number };
    for (let i = 1; i < 64; i++) bottom = bottom.deep as typeof bottom;
    expect(Object.is(bottom.z, -0)).toBe(true);
  });

  it('is answered busy once the arguments queued reach maxQueueBytes, and taken again once they start', async () => {
    const setup = queuedBehindStuck({ maxQueueBytes: 25 });
    setup.queue('q1', { text: 'x'.repeat(10) }); // {"text":"xxxxxxxxxx"}: 21 bytes
    setup.queue('q2', { text: 'y' }); // 12 bytes: 33 in all
    setup.queue('q3', { text: 'z' });
    expect(results(setup.sent)).toEqual(['q3:error']);
    expect(setup.sent.at(-1)).toMatchObject({ callId: 'q3', retryable: true });
    expect(setup.calls.queued).toBe(2);
    await setup.unstick();
    setup.queue('q4', { text: 'w' });
    expect(results(setup.sent).slice(1)).toEqual(['s1:cancelled', 'q1:ok', 'q2:ok', 'q4:ok']);
  });

  it('counts arguments the model sent as JSON text against maxQueueBytes too', async () => {
    const setup = queuedBehindStuck({ maxQueueBytes: 25 });
    const text = `{"text":"${'x'.repeat(20)}"}`;
    setup.queue('q1', text);
    setup.queue('q2', { text: 'y' });
    expect(results(setup.sent)).toEqual(['q2:error']);
    await setup.unstick();
    expect(setup.got).toEqual([{ text: 'x'.repeat(20) }]);
  });

  it('is traced with its arguments when it ends in line, in a client that traces', async () => {
    const { tracing, recorded } = argumentsTracer();
    const setup = queuedBehindStuck({ tracing, callTraces });
    const args = { list: Array.from({ length: 300 }, (_, i) => i), note: 'n' };
    setup.queue('q1', args);
    setup.calls.cancel('q1', 'service');
    await nextTask();
    expect(recorded).toEqual([args]);
  });

  it('is traced with its arguments when they nest too deep, or with a note when too deep to write', async () => {
    const { tracing, recorded } = argumentsTracer();
    const setup = queuedBehindStuck({ tracing, callTraces });
    const nest = (levels: number) => {
      let deep: unknown = { leaf: -1 };
      for (let i = 0; i < levels; i++) deep = { deep };
      return deep;
    };
    setup.queue('q1', nest(100));
    setup.queue('q2', nest(100_000));
    let deepArray: unknown = ['x'];
    for (let i = 0; i < 100; i++) deepArray = [deepArray];
    setup.queue('q3', deepArray);
    setup.queue('q4', nest(100_000));
    setup.calls.cancel('q4', 'service');
    await setup.unstick();
    expect(recorded.slice(0, 1)).toEqual(['[arguments nested too deep to write as JSON: not recorded]']);
    expect(recorded.slice(2)).toEqual([
      nest(100),
      '[arguments nested too deep to write as JSON: not recorded]',
      deepArray,
    ]);
    expect(results(setup.sent)).toEqual([
      'q4:cancelled',
      's1:cancelled',
      'q1:invalid_arguments',
      'q2:invalid_arguments',
      'q3:invalid_arguments',
    ]);
  });

  it('ended in line (cancelled) frees its bytes and is answered as any call', async () => {
    const setup = queuedBehindStuck({ maxQueueBytes: 25 });
    setup.queue('q1', { text: 'x'.repeat(30) });
    setup.calls.cancel('q1', 'service');
    setup.queue('q2', { text: 'y' });
    expect(setup.calls.queued).toBe(1);
    expect(results(setup.sent)).toEqual(['q1:cancelled']);
  });
});

/** The arguments of a call of {@link keyedWithPad}'s tool: a tenant, a number and 1,000 characters `é`. */
const padArgs = (n: number, tenant = 'a') => ({ tenant, n, pad: 'é'.repeat(1_000) });

/** UTF-8 bytes of the JSON text of {@link padArgs} with a one-digit `n` (`é` is 2 bytes). */
const BYTES = 2_029;

/**
 * A tool whose calls of one tenant run one at a time (`concurrency: { limit: 1, key: tenant }`), its schema keeping
 * their `pad`, each running until `release(callId)`; `send` delivers a call of it with a 1,000-character pad.
 */
function keyedWithPad(overrides: Partial<RunnerOptions> = {}, needsApproval = false) {
  const releases = new Map<string, () => void>();
  const started: string[] = [];
  const work = tool({
    name: 'work',
    description: 'Work for a tenant.',
    parameters: z.object({ tenant: z.string(), n: z.number(), pad: z.string() }),
    needsApproval,
    concurrency: { limit: 1, key: (input) => input.tenant },
    execute: (_input, ctx) =>
      new Promise<string>((resolve) => {
        started.push(ctx.callId);
        releases.set(ctx.callId, () => resolve('done'));
      }),
  });
  const runner = recording([work], { maxConcurrency: 8, ...overrides });
  const send = (
    callId: string,
    n: number,
    extra: { runId?: string; deadlineMs?: number; tenant?: string } = {},
  ) =>
    runner.calls.receive({
      type: 'tool_call',
      callId,
      runId: extra.runId ?? 'r1',
      toolName: 'work',
      arguments: padArgs(n, extra.tenant),
      ...(extra.deadlineMs === undefined ? {} : { deadlineMs: extra.deadlineMs }),
    });
  const release = async (callId: string) => {
    releases.get(callId)?.();
    await nextTask();
    await nextTask();
  };
  return { ...runner, started, send, release };
}

/** The service cancels the calls `a1`–`a3` with `reason`. */
function cancelWaiting(calls: ReturnType<typeof recording>['calls'], reason: string): void {
  for (const callId of ['a1', 'a2', 'a3']) calls.cancel(callId, reason);
}

/** How the calls `a1`–`a3` (run `C`, a deadline of 0), waiting for their key, stop waiting. */
const keyWaitEndings: Array<[string, (calls: ReturnType<typeof recording>['calls']) => void]> = [
  ['the service cancels them', (calls) => cancelWaiting(calls, 'user')],
  ['the service cancels their run', (calls) => cancelWaiting(calls, 'run_cancelled')],
  ['the service no longer holds them', (calls) => cancelWaiting(calls, 'not_dispatched')],
  [
    'a resume does not list them as owed',
    (calls) => {
      calls.disconnected();
      calls.welcomed({ resumed: true, features: ['owed_calls'], owed: ['a0'], heartbeatIntervalMs: 60_000 });
    },
  ],
  [
    'the service asks for them back',
    (calls) => calls.handle({ type: 'hand_back', callIds: ['a1', 'a2', 'a3'] }),
  ],
  ['their deadline passes', () => vi.advanceTimersByTime(DEADLINE_GRACE_MS)],
  ['their run’s caller aborts it', (calls) => calls.cancelRun('C', new Error('stop'))],
  ['the client stops taking calls (a drain hands them back)', (calls) => calls.stopAccepting()],
  ['the client closes', (calls) => calls.abortAll('closing')],
];

describe('a call waiting for its key’s turn', () => {
  it('counts its arguments’ bytes against maxQueueBytes: past it new calls are answered busy', async () => {
    expect(utf8Length(JSON.stringify(padArgs(1)))).toBe(BYTES);
    const { calls, sent, send } = keyedWithPad({ maxQueueBytes: 3 * BYTES });
    send('a0', 0);
    for (const n of [1, 2, 3]) send(`a${n}`, n);
    await nextTask();
    expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 3 } });
    expect(calls.waitingBytes).toBe(3 * BYTES);
    // A call of another key would run at once: refused all the same, as behind a full queue.
    send('a4', 4);
    send('b0', 0, { tenant: 'b' });
    expect(results(sent)).toEqual(['a4:error', 'b0:error']);
    expect(sent.at(-1)).toMatchObject({
      callId: 'b0',
      status: 'error',
      output: 'Error running work: the client is busy; try again later',
      retryable: true,
    });
    expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 3 } });
    calls.abortAll('test over');
    calls.dispose();
  });

  it('gives its bytes back when it takes its permit, and each call that follows', async () => {
    const { calls, sent, started, send, release } = keyedWithPad({ maxQueueBytes: 2 * BYTES });
    send('a0', 0);
    send('a1', 1);
    send('a2', 2);
    await nextTask();
    expect(calls.waitingBytes).toBe(2 * BYTES);
    await release('a0');
    expect(started).toEqual(['a0', 'a1']);
    expect(calls.waitingBytes).toBe(BYTES);
    send('a3', 3);
    await nextTask();
    expect(calls.waitingBytes).toBe(2 * BYTES);
    for (const id of ['a1', 'a2', 'a3']) await release(id);
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(calls.waitingBytes).toBe(0);
    expect(calls.concurrencyStats()).toEqual({ work: { running: 0, waiting: 0 } });
    expect(results(sent)).toEqual(['a0:ok', 'a1:ok', 'a2:ok', 'a3:ok']);
    calls.dispose();
  });

  it('gives its bytes back when it takes its permit without a slot, and waits for one', async () => {
    const { calls, started, send, release } = keyedWithPad({ maxConcurrency: 1 });
    send('a0', 0);
    send('b0', 0, { tenant: 'b' });
    await nextTask();
    // b0 holds its key's permit and waits for the one slot: counted too, its tool holding its input.
    expect(started).toEqual(['a0']);
    expect(calls.waitingBytes).toBe(BYTES);
    await release('a0');
    expect(started).toEqual(['a0', 'b0']);
    expect(calls.waitingBytes).toBe(0);
    calls.abortAll('test over');
    calls.dispose();
  });

  it.each(keyWaitEndings)('gives its bytes back when %s', async (_how, end) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { calls, started, send, release } = keyedWithPad({ maxQueueBytes: 3 * BYTES });
      calls.welcomed({ features: ['owed_calls', 'hand_back', 'key_waits'], heartbeatIntervalMs: 60_000 });
      send('a0', 0, { runId: 'K' });
      for (const n of [1, 2, 3]) send(`a${n}`, n, { runId: 'C', deadlineMs: 0 });
      await nextTask();
      expect(calls.waitingBytes).toBe(3 * BYTES);
      end(calls);
      await nextTask();
      expect(calls.waitingBytes).toBe(0);
      expect(calls.concurrencyStats()?.work?.waiting).toBe(0);
      await release('a0');
      expect(started).toEqual(['a0']);
      expect(calls.waitingBytes).toBe(0);
      calls.abortAll('test over');
      calls.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('is counted once when the service sends it again, and again once when it comes back after a hand-back', async () => {
    const { calls, send } = keyedWithPad();
    calls.welcomed({ features: ['hand_back', 'key_waits'], heartbeatIntervalMs: 60_000 });
    send('a0', 0);
    send('a1', 1);
    await nextTask();
    send('a1', 1);
    await nextTask();
    expect(calls.waitingBytes).toBe(BYTES);
    calls.handle({ type: 'hand_back', callIds: ['a1'] });
    await nextTask();
    expect(calls.waitingBytes).toBe(0);
    send('a1', 1);
    await nextTask();
    expect(calls.waitingBytes).toBe(BYTES);
    expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 1 } });
    calls.abortAll('test over');
    calls.dispose();
  });

  it('counts the bytes of arguments forgotten while it waited for its approval, once', async () => {
    const { calls, send } = keyedWithPad({}, true);
    send('a0', 0);
    send('a1', 1);
    await nextTask();
    // Both wait for a decision: counted for that wait.
    expect(calls.waitingBytes).toBe(2 * BYTES);
    for (const id of ['a0', 'a1'])
      calls.receive({ type: 'tool_call', callId: id, runId: 'r1', toolName: 'work', approved: true });
    await nextTask();
    // a0 runs; a1 waits at its gate now, counted there alone (not for its decision too).
    expect(calls.concurrencyStats()).toEqual({ work: { running: 1, waiting: 1 } });
    expect(calls.waitingBytes).toBe(BYTES);
    calls.abortAll('test over');
    await nextTask();
    expect(calls.waitingBytes).toBe(0);
    calls.dispose();
  });

  it('counts the same bytes in a client that traces (its arguments held as text)', async () => {
    const tracing: ToolTracing = { startCall: () => ({ event() {}, run: (fn) => fn(), end() {} }) };
    const { calls, send } = keyedWithPad({ tracing, callTraces });
    send('a0', 0);
    send('a1', 1);
    await nextTask();
    expect(calls.waitingBytes).toBe(BYTES);
    calls.cancel('a1', 'user');
    expect(calls.waitingBytes).toBe(0);
    calls.abortAll('test over');
    calls.dispose();
  });
});

/** Who decides the calls of {@link approvedWithPad}'s tool: a local approver (`onApproval`), or the service. */
type Decider = 'local' | 'service';

/**
 * `review`, a tool needing approval whose schema keeps a 1,000-character pad (no `concurrency`), each call running
 * until `finish(callId)`; `stuck`, and `echo` (no approval, answers at once). `send` delivers a call of `review`,
 * `decide` gives the decision on one.
 */
function approvedWithPad(decider: Decider, overrides: Partial<RunnerOptions> = {}) {
  const answers = new Map<string, (approved: boolean) => void>();
  const finishes = new Map<string, () => void>();
  const review = tool({
    name: 'review',
    description: 'Needs approval.',
    parameters: z.object({ tenant: z.string(), n: z.number(), pad: z.string() }),
    needsApproval: true,
    execute: (_input, ctx) =>
      new Promise<string>((resolve) => finishes.set(ctx.callId, () => resolve('done'))),
  });
  const runner = recording([review, waitsForAbort('stuck'), recordsInput().tool], {
    maxConcurrency: 8,
    ...(decider === 'local'
      ? {
          onApproval: (request) => new Promise<boolean>((resolve) => answers.set(request.callId, resolve)),
        }
      : {}),
    ...overrides,
  });
  const send = (callId: string, n: number, extra: { runId?: string; deadlineMs?: number } = {}) =>
    runner.calls.receive({
      type: 'tool_call',
      callId,
      runId: extra.runId ?? 'r1',
      toolName: 'review',
      arguments: padArgs(n),
      ...(extra.deadlineMs === undefined ? {} : { deadlineMs: extra.deadlineMs }),
    });
  const decide = (callId: string, approved: boolean) => {
    if (decider === 'local') answers.get(callId)?.(approved);
    else runner.calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'review', approved });
  };
  const finish = async (callId: string) => {
    finishes.get(callId)?.();
    await nextTask();
  };
  return { ...runner, send, decide, finish };
}

const deciders: Decider[] = ['local', 'service'];

/** How the calls `a1`–`a3` (run `C`, a deadline of 0), waiting for a decision, stop waiting; and for which decider. */
const decisionWaitEndings: Array<
  [string, Decider[], (calls: ReturnType<typeof recording>['calls']) => void]
> = [
  ['the service cancels them', deciders, (calls) => cancelWaiting(calls, 'user')],
  ['the service cancels their run', deciders, (calls) => cancelWaiting(calls, 'run_cancelled')],
  ['the service no longer holds them', deciders, (calls) => cancelWaiting(calls, 'not_dispatched')],
  [
    'a resume does not list them as owed',
    deciders,
    (calls) => {
      calls.disconnected();
      calls.welcomed({ resumed: true, features: ['owed_calls'], owed: ['a0'], heartbeatIntervalMs: 60_000 });
    },
  ],
  // The service's deadline pauses while it decides (docs/protocol/deadlines.md).
  ['their deadline passes', ['local'], () => vi.advanceTimersByTime(DEADLINE_GRACE_MS)],
  [
    'the service refuses them (their session is gone)',
    ['service'],
    (calls) => {
      for (const callId of ['a1', 'a2', 'a3']) calls.ack(callId, 'session_expired');
    },
  ],
  ['their run’s caller aborts it', deciders, (calls) => calls.cancelRun('C', new Error('stop'))],
  ['the client stops taking calls (a drain hands them back)', deciders, (calls) => calls.stopAccepting()],
  ['the client closes', deciders, (calls) => calls.abortAll('closing')],
];

describe('a call waiting for a decision on its approval', () => {
  it.each(deciders)(
    'counts its arguments’ bytes against maxQueueBytes: past it new calls are answered busy (%s)',
    async (decider) => {
      const { calls, sent, send } = approvedWithPad(decider, { maxQueueBytes: 3 * BYTES });
      for (const n of [1, 2, 3]) send(`a${n}`, n);
      await nextTask();
      expect(calls.waiting).toBe(3);
      expect(calls.waitingBytes).toBe(3 * BYTES);
      // A call of a tool without approval would run at once: refused all the same, as behind a full queue.
      send('a4', 4);
      calls.receive({ type: 'tool_call', callId: 'e1', runId: 'r1', toolName: 'echo', arguments: {} });
      expect(results(sent)).toEqual(['a4:error', 'e1:error']);
      expect(sent.at(-1)).toMatchObject({
        callId: 'e1',
        status: 'error',
        output: 'Error running echo: the client is busy; try again later',
        retryable: true,
      });
      expect(calls.waiting).toBe(3);
      calls.abortAll('test over');
      await nextTask();
      expect(calls.waitingBytes).toBe(0);
      calls.dispose();
    },
  );

  it.each(deciders)(
    'gives its bytes back when approved and it goes on, or rejected (%s)',
    async (decider) => {
      const { calls, sent, send, decide, finish } = approvedWithPad(decider, { maxQueueBytes: 2 * BYTES });
      send('a1', 1);
      send('a2', 2);
      await nextTask();
      expect(calls.waitingBytes).toBe(2 * BYTES);
      decide('a1', true);
      await nextTask();
      // a1 runs: its input is its tool's now, as any running call's.
      expect(calls.running).toBe(1);
      expect(calls.waitingBytes).toBe(BYTES);
      send('a3', 3);
      await nextTask();
      expect(calls.waitingBytes).toBe(2 * BYTES);
      decide('a2', false);
      decide('a3', true);
      await nextTask();
      expect(calls.running).toBe(2);
      expect(calls.waitingBytes).toBe(0);
      await finish('a1');
      await finish('a3');
      expect(results(sent)).toEqual(['a2:rejected', 'a1:ok', 'a3:ok']);
      calls.dispose();
    },
  );

  it.each(deciders)('keeps its bytes counted while, approved, it waits for a slot (%s)', async (decider) => {
    const { calls, sent, send, decide, finish } = approvedWithPad(decider, { maxConcurrency: 1 });
    send('a1', 1);
    send('a2', 2);
    await nextTask();
    calls.receive({ type: 'tool_call', callId: 's1', runId: 'r1', toolName: 'stuck', arguments: {} });
    await nextTask();
    decide('a1', true);
    decide('a2', true);
    await nextTask();
    // Approved, both wait in line for the slot s1 holds: their tools still hold their input.
    expect(calls.waitingBytes).toBe(2 * BYTES);
    calls.cancel('a2', 'user');
    expect(calls.waitingBytes).toBe(BYTES);
    calls.cancel('s1', 'user');
    await nextTask();
    await nextTask();
    expect(calls.running).toBe(1);
    expect(calls.waitingBytes).toBe(0);
    await finish('a1');
    expect(results(sent)).toEqual(['a2:cancelled', 's1:cancelled', 'a1:ok']);
    calls.dispose();
  });

  it('is counted again once when, taken back while it waited, it comes back to wait for the same answer', async () => {
    const { calls, sent, send, decide, finish } = approvedWithPad('local');
    send('a1', 1);
    await nextTask();
    expect(calls.waitingBytes).toBe(BYTES);
    calls.cancel('a1', 'not_dispatched');
    await nextTask();
    expect(calls.waitingBytes).toBe(0);
    send('a1', 1);
    await nextTask();
    expect(calls.waitingBytes).toBe(BYTES);
    decide('a1', true);
    await nextTask();
    expect(calls.running).toBe(1);
    expect(calls.waitingBytes).toBe(0);
    await finish('a1');
    expect(results(sent)).toEqual(['a1:ok']);
    calls.dispose();
  });

  for (const decider of deciders)
    it.each(decisionWaitEndings.filter(([, who]) => who.includes(decider)))(
      `gives its bytes back when %s (${decider})`,
      async (_how, _who, end) => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
        try {
          const { calls, send, decide } = approvedWithPad(decider, { maxQueueBytes: 4 * BYTES });
          calls.welcomed({ features: ['owed_calls', 'approval_waits'], heartbeatIntervalMs: 60_000 });
          send('a0', 0, { runId: 'K' });
          for (const n of [1, 2, 3]) send(`a${n}`, n, { runId: 'C', deadlineMs: 0 });
          await nextTask();
          expect(calls.waitingBytes).toBe(4 * BYTES);
          decide('a0', true);
          await nextTask();
          expect(calls.waitingBytes).toBe(3 * BYTES);
          end(calls);
          await nextTask();
          expect(calls.waitingBytes).toBe(0);
          expect(calls.waiting).toBe(0);
          calls.abortAll('test over');
          calls.dispose();
        } finally {
          vi.useRealTimers();
        }
      },
    );
});

describe('jsonBytes', () => {
  it('is the UTF-8 size of the JSON text of any value JSON parses to', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(jsonBytes(value)).toBe(utf8Length(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['-0, integers and floats', [-0, 0, 7, -12, 1e21, 2 ** 53, -(2 ** 53) - 2, 0.1, 1.5e-7, -1e300]],
    ['escapes and non-ASCII text', { 'k"\\': 'a\n\u0001"é😀\ud800', '': [true, false, null] }],
    ['__proto__ keys', JSON.parse('{"__proto__":{"p":[1,{}]},"a":[]}')],
  ])('counts %s exactly', (_what, value) => {
    expect(jsonBytes(value)).toBe(utf8Length(JSON.stringify(value)));
  });
});

describe('a call waiting for a human', () => {
  it('keeps none of its large arguments: its tool has what its schema took', async () => {
    const gated = tool({
      name: 'gated',
      description: 'Needs approval.',
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      execute: ({ id }) => id,
    });
    const { calls, sent } = recording([gated]);
    const kept: Array<WeakRef<object>> = [];
    (() => {
      for (let i = 0; i < 20; i++) {
        const args = { id: `id${i}`, junk: Array.from({ length: 1_000 }, () => ({})) };
        kept.push(new WeakRef(args));
        calls.receive({
          type: 'tool_call',
          callId: `g${i}`,
          runId: 'r1',
          toolName: 'gated',
          arguments: args,
        });
      }
    })();
    await nextTask();
    expect(calls.waiting).toBe(20);
    expect(await collectedAll(kept)).toBe(true);
    calls.receive({ type: 'tool_call', callId: 'g3', runId: 'r1', toolName: 'gated', approved: true });
    await nextTask();
    expect(sent.filter((frame) => frame.type === 'tool_result')).toMatchObject([
      { callId: 'g3', status: 'ok', output: 'id3' },
    ]);
  });
});

describe('a call whose result waits for its ack', () => {
  it('keeps nothing its tool put into its arguments in place (a JSON Schema tool gets them as they came)', async () => {
    const rows: Array<WeakRef<object>> = [];
    const grows = tool({
      name: 'grows',
      description: 'Adds rows to its input.',
      parameters: { type: 'object', properties: { id: { type: 'string' } } } as const,
      execute: (input) => {
        const added = Array.from({ length: 1_000 }, () => ({}));
        rows.push(new WeakRef(added));
        // The object the frame carried: small when the call began, not when it ends.
        (input as Record<string, unknown>).rows = added;
        return 'ok';
      },
    });
    const { calls, sent } = recording([grows]);
    for (let i = 0; i < 20; i++)
      calls.receive({
        type: 'tool_call',
        callId: `g${i}`,
        runId: 'r1',
        toolName: 'grows',
        arguments: { id: `id${i}` },
      });
    await nextTask();
    expect(results(sent)).toEqual(Array.from({ length: 20 }, (_, i) => `g${i}:ok`));
    expect(calls.unacked).toBe(20);
    expect(await collectedAll(rows)).toBe(true);
  });
});

describe('a call whose tool awaits something', () => {
  it('keeps no object of its own for arguments without a field, and tells a re-delivery with other arguments', async () => {
    const warned: string[] = [];
    const logger = { ...silentLogger, warn: (_fields: object, message: string) => void warned.push(message) };
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waits = tool({ name: 'waits', description: 'Waits.', execute: () => released.then(() => 'done') });
    const { calls, sent } = recording([waits], { logger });
    const kept: Array<WeakRef<object>> = [];
    (() => {
      for (let i = 0; i < 10; i++) {
        const args = {};
        kept.push(new WeakRef(args));
        calls.receive({
          type: 'tool_call',
          callId: `w${i}`,
          runId: 'r1',
          toolName: 'waits',
          arguments: args,
        });
      }
    })();
    expect(calls.running).toBe(10);
    expect(await collectedAll(kept)).toBe(true);
    // Sent again with the same arguments: no line; with others: the line says so, as before.
    calls.receive({ type: 'tool_call', callId: 'w1', runId: 'r1', toolName: 'waits', arguments: {} });
    expect(warned).toEqual([]);
    calls.receive({ type: 'tool_call', callId: 'w2', runId: 'r1', toolName: 'waits', arguments: { a: 1 } });
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('arguments different');
    release();
    await nextTask();
    expect(results(sent)).toHaveLength(10);
  });

  it('hands a tracer arguments without a field as an object of its own, which it may change', async () => {
    // A tracer of its own may annotate what it is handed: not the object every waiting call shares.
    const { tracing, recorded } = argumentsTracer((args) => {
      args.traced = true;
    });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waits = tool({ name: 'waits', description: 'Waits.', execute: () => released.then(() => 'done') });
    const { calls, sent } = recording([waits], { tracing, callTraces });
    for (const callId of ['t1', 't2'])
      calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'waits', arguments: {} });
    release();
    await nextTask();
    expect(results(sent)).toEqual(['t1:ok', 't2:ok']);
    expect(recorded).toEqual([{ traced: true }, { traced: true }]);
    expect(recorded[0]).not.toBe(recorded[1]);
  });
});

describe('ArgumentsText', () => {
  it('holds the UTF-8 bytes of the JSON text', () => {
    expect(argumentsText({ a: 'é' }).bytes).toBe(10);
    expect(parsedArguments(argumentsText({ a: 'é' }))).toEqual({ a: 'é' });
  });

  it.each([
    ['plain', '{"__proto__":{"p":1},"a":[1]}'],
    ['with -0', '{"__proto__":{"p":-0},"a":[1]}'],
  ])('keeps __proto__ keys as own data properties (%s)', (_kind, json) => {
    const again = parsedArguments(argumentsText(JSON.parse(json) as object)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(again)).toBe(Object.prototype);
    expect(Object.hasOwn(again, '__proto__')).toBe(true);
    expect(Object.keys(again)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });
});

describe('maxQueueBytes', () => {
  it('is refused when it is not a positive integer of bytes', () => {
    const made = () => new Client({ url: 'ws://127.0.0.1:1', apiKey: 'key', tools: [], maxQueueBytes: 0 });
    expect(made).toThrow(OptionsError);
    expect(made).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: 'new Client(options): maxQueueBytes must be a positive integer of bytes, got 0',
      }),
    );
  });
});
