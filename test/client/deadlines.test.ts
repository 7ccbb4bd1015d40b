import { describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/client/client';
import { DEADLINE_GRACE_MS, Deadlines } from '../../src/client/deadlines';
import { Execution } from '../../src/client/execution';
import { MAX_TIMEOUT_MS } from '../../src/limits';
import { tool } from '../../src/tool/tool';
import { type MemoryPeer, memorySocketPair, welcomeFrame } from '../helpers/memory-socket';
import { keyedTool } from '../support/keyed-tool';
import { nextTask, queuedBehindOne, recording, statuses, waitsForAbort } from './call-runner-harness';

/** A `Deadlines` over executions of `callIds` (not begun), noting each it expires as `note` says: by id. */
function watched(callIds: string[], note = (execution: Execution) => execution.frame.callId) {
  const owner = { finished() {} };
  const held = callIds.map(
    (callId) =>
      new Execution({ type: 'tool_call', callId, runId: 'r1', toolName: 't', arguments: {} }, owner),
  );
  const expired: string[] = [];
  const deadlines = new Deadlines({ held: () => held, expire: (execution) => expired.push(note(execution)) });
  return { held, expired, deadlines };
}

/** An expired call as `<callId>@<performance.now()>`. */
const stamped = (execution: Execution) => `${execution.frame.callId}@${performance.now()}`;

describe('Deadlines, in a call runner', () => {
  it('aborts each call at its own deadline (plus the grace), with one timer for all', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const aborted: string[] = [];
      const wait = waitsForAbort('wait', (callId, reason) =>
        aborted.push(
          `${callId}:${(reason as DOMException).name}:${String((reason as { cause?: unknown }).cause)}`,
        ),
      );
      const { calls, call } = recording([wait]);
      call('late', 'wait', { deadlineMs: 5_000 });
      call('never', 'wait', { deadlineMs: 60_000 });
      call('soon', 'wait', { deadlineMs: 0 }); // earlier than the timer already set: it is brought forward
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(DEADLINE_GRACE_MS - 1);
      expect(aborted).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(aborted).toEqual(['soon:TimeoutError:deadline']);
      expect(vi.getTimerCount()).toBe(1); // set again, for the next deadline
      vi.advanceTimersByTime(5_000);
      expect(aborted).toEqual(['soon:TimeoutError:deadline', 'late:TimeoutError:deadline']);
      // Each aborted call keeps its slot until its tool returns (it resolves on the abort, a task later).
      expect(calls.running).toBe(3);
      await nextTask();
      expect(calls.running).toBe(1);
      expect(vi.getTimerCount()).toBe(1);
      calls.abortAll('test over');
      calls.dispose();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Deadlines, in a call runner: cancelling queued calls', () => {
  it('does not run a queued call that passed its deadline while it waited', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    // The queued call's deadline passes 50 ms before the running one's: it must be cancelled where it waits,
    // not started when the running one's deadline frees the slot.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      call('run', 'stuck', { deadlineMs: 50 });
      call('late', 'charge', { deadlineMs: 0 });
      vi.advanceTimersByTime(DEADLINE_GRACE_MS + 50);
    } finally {
      vi.useRealTimers();
    }
    await nextTask(); // the queue drains after the task
    expect(ran).toEqual([]);
    expect(statuses(sent).sort()).toEqual(['late:timeout', 'run:cancelled']);
    calls.dispose();
  });
});

describe("Deadlines, in a call runner: a slot freed after a queued call's deadline", () => {
  it('does not start a queued call whose deadline passed, even before the grace is over', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      call('run', 'stuck', { deadlineMs: 60_000 });
      call('late', 'charge', { deadlineMs: 100 });
      // The service has told the model `late` timed out; its own cancel has not come yet (within the grace).
      vi.advanceTimersByTime(150);
      calls.cancel('run', 'user');
    } finally {
      vi.useRealTimers();
    }
    await nextTask(); // the queue drains after the task
    expect(ran).toEqual([]);
    expect(statuses(sent).sort()).toEqual(['late:timeout', 'run:cancelled']);
    calls.dispose();
  });

  it('does not start a keyed call whose deadline passed while it waited for its key', async () => {
    const { work, started, release } = keyedTool(1);
    const { calls, sent } = recording([work]);
    const send = (callId: string, n: number, deadlineMs: number) =>
      calls.receive({
        type: 'tool_call',
        callId,
        runId: 'r1',
        toolName: 'work',
        arguments: { tenant: 'a', n },
        deadlineMs,
      });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      send('a0', 0, 60_000);
      send('a1', 1, 100);
      vi.advanceTimersByTime(150);
      release('a0');
    } finally {
      vi.useRealTimers();
    }
    await nextTask();
    expect(started).toEqual(['a0']);
    expect(statuses(sent).sort()).toEqual(['a0:ok', 'a1:timeout']);
    // Its tool never began: it timed out, as the service tells the model, after the deadline it was given.
    expect(sent.find((frame) => frame.type === 'tool_result' && frame.callId === 'a1')).toMatchObject({
      status: 'timeout',
      output: 'Error running work: timed out after 100ms',
    });
    expect(calls.running).toBe(0);
    calls.dispose();
  });
});

describe('Deadlines', () => {
  it('expires a call past its deadline once, and none whose deadline was cleared', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { held, expired, deadlines } = watched(['a', 'b', 'c']);
      const [a, b, c] = held as [Execution, Execution, Execution];
      for (const execution of held) execution.begin(); // running: their tools began
      deadlines.arm(a, 0);
      deadlines.arm(b, 0);
      deadlines.arm(c, 10);
      deadlines.arm(b, undefined); // e.g. waiting for a human
      vi.advanceTimersByTime(DEADLINE_GRACE_MS);
      expect(expired).toEqual(['a']);
      expect(a.deadlineAt).toBeUndefined();
      vi.advanceTimersByTime(10);
      expect(expired).toEqual(['a', 'c']);
      expect(vi.getTimerCount()).toBe(0);
      deadlines.arm(a, 5_000);
      deadlines.dispose();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Deadlines of calls whose tool has not begun', () => {
  it('stops such a call at its deadline, without the grace: a service that leased it sends no cancel', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { held, expired, deadlines } = watched(['queued', 'running'], stamped);
      const [queued, running] = held as [Execution, Execution];
      const start = performance.now();
      deadlines.arrived(queued, 500, start);
      deadlines.arrived(running, 500, start);
      running.begin();
      vi.advanceTimersByTime(500);
      expect(expired).toEqual([`queued@${start + 500}`]);
      vi.advanceTimersByTime(DEADLINE_GRACE_MS);
      expect(expired).toEqual([`queued@${start + 500}`, `running@${start + 500 + DEADLINE_GRACE_MS}`]);
      deadlines.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Deadlines past the timer range', () => {
  const huge = 3_000_000_000;

  it('never hands setTimeout a delay past the longest timer, even at a fractional now', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const spy = vi.spyOn(globalThis, 'setTimeout');
    try {
      vi.advanceTimersByTime(0.5); // `performance.now()` is no longer a whole number
      const owner = { finished() {} };
      const held = [
        new Execution({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 't', arguments: {} }, owner),
      ];
      const expired: string[] = [];
      const deadlines = new Deadlines({
        held: () => held,
        expire: (execution) => expired.push(execution.frame.callId),
      });
      deadlines.arm(held[0] as Execution, huge);
      // A delay past the range would fire after 1 ms and set the timer again, over and over.
      vi.advanceTimersByTime(100);
      expect(expired).toEqual([]);
      expect(spy).toHaveBeenCalledTimes(1);
      for (const [, delay] of spy.mock.calls) expect(delay).toBeLessThanOrEqual(MAX_TIMEOUT_MS);
      expect(vi.getTimerCount()).toBe(1);
      deadlines.dispose();
    } finally {
      // Not `spy.mockRestore()`: `vi.restoreAllMocks()` (test/setup.ts, when the file ends) would restore the
      // spy again and put the fake `setTimeout` back for good. This restores it once and forgets it.
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
  });

  it('emits no TimeoutOverflowWarning for a deadlineMs past the range', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const owner = { finished() {} };
      const deadlines = new Deadlines({ held: () => [], expire: () => {} });
      // Several tries: the overflow shows only when `performance.now()` has a fraction, which it nearly always has.
      for (let i = 0; i < 10; i++)
        deadlines.arm(
          new Execution(
            { type: 'tool_call', callId: `c${i}`, runId: 'r1', toolName: 't', arguments: {} },
            owner,
          ),
          huge,
        );
      deadlines.dispose();
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      expect(warnings.filter((warning) => warning.name === 'TimeoutOverflowWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('Deadlines while the socket is down', () => {
  it('stops each call at its deadline, without the grace, since no cancel can come; the grace is back once connected', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { held, expired, deadlines } = watched(['inGrace', 'down', 'after'], stamped);
      const [inGrace, down, after] = held as [Execution, Execution, Execution];
      for (const execution of held) execution.begin(); // running: their tools began
      const start = performance.now();
      deadlines.arm(inGrace, 100);
      deadlines.arm(down, 500);
      deadlines.arm(after, 2_000);
      vi.advanceTimersByTime(300);
      // Past its deadline, in its grace: the service's cancel was on its way, and is lost with the socket.
      deadlines.disconnected();
      expect(expired).toEqual([`inGrace@${start + 300}`]);
      vi.advanceTimersByTime(200);
      expect(expired).toEqual([`inGrace@${start + 300}`, `down@${start + 500}`]);
      deadlines.reconnected();
      vi.advanceTimersByTime(1_500);
      expect(expired).toHaveLength(2); // connected again: 'after' keeps its grace
      vi.advanceTimersByTime(1_000);
      expect(expired).toEqual([`inGrace@${start + 300}`, `down@${start + 500}`, `after@${start + 3_000}`]);
      deadlines.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Deadlines, in a call runner: a call with a question open on the service', () => {
  /** A tool that asks the service one question (two with `twice`) and returns the answers; records its abort. */
  const asking = (aborted: string[], twice = false) =>
    tool({
      name: 'asking',
      description: 'Asks the service.',
      execute: async (_input, ctx) => {
        ctx.signal.addEventListener('abort', () => aborted.push(String(ctx.signal.reason)));
        const first = ctx.askQuestion('Which city?');
        const second = twice ? ctx.askQuestion('Which street?') : undefined;
        return JSON.stringify([await first, await second]);
      },
    });

  it('holds its deadline while the question is open, and starts it again in full once answered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const aborted: string[] = [];
      const { calls, call, sent } = recording([asking(aborted)]);
      calls.welcomed({ features: ['questions'], heartbeatIntervalMs: 60_000 });
      call('c1', 'asking', { deadlineMs: 1_500 });
      await vi.advanceTimersByTimeAsync(0);
      expect(sent.map((frame) => frame.type)).toEqual(['question']);
      // Past the deadline and its grace: the question holds it.
      await vi.advanceTimersByTimeAsync(3_000);
      expect(aborted).toEqual([]);
      calls.handle({ type: 'answer', callId: 'c1', questionId: 'q1', status: 'answered', answer: 'Lyon' });
      // The deadline starts again in full: 1,500 ms plus the grace from the answer.
      await vi.advanceTimersByTimeAsync(1_500 + DEADLINE_GRACE_MS - 1);
      expect(aborted).toEqual([]);
      expect(sent.at(-1)).toMatchObject({ type: 'tool_result', callId: 'c1', status: 'ok' });
      calls.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts the deadline again only when the last open question closes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const aborted: string[] = [];
      const { calls, call, sent } = recording([asking(aborted, true)]);
      calls.welcomed({ features: ['questions'], heartbeatIntervalMs: 60_000 });
      call('c1', 'asking', { deadlineMs: 1_500 });
      await vi.advanceTimersByTimeAsync(0);
      calls.handle({ type: 'answer', callId: 'c1', questionId: 'q1', status: 'answered', answer: 'Lyon' });
      await vi.advanceTimersByTimeAsync(5_000);
      expect(aborted).toEqual([]);
      calls.handle({ type: 'answer', callId: 'c1', questionId: 'q2', status: 'answered', answer: 'Main' });
      await vi.advanceTimersByTimeAsync(0);
      expect(sent.at(-1)).toMatchObject({
        type: 'tool_result',
        callId: 'c1',
        status: 'ok',
        output: '["Lyon","Main"]',
      });
      calls.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('cuts a call at its deadline counted in full from the answer, when the tool goes on waiting', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const aborted: string[] = [];
      const stalls = tool({
        name: 'stalls',
        description: 'Asks, then runs until aborted.',
        execute: async (_input, ctx) => {
          await ctx.askQuestion('Go on?');
          return new Promise<string>((resolve) =>
            ctx.signal.addEventListener('abort', () => {
              aborted.push((ctx.signal.reason as { cause?: unknown }).cause as string);
              resolve('stopped');
            }),
          );
        },
      });
      const { calls, call } = recording([stalls]);
      calls.welcomed({ features: ['questions'], heartbeatIntervalMs: 60_000 });
      call('c1', 'stalls', { deadlineMs: 1_500 });
      await vi.advanceTimersByTimeAsync(10_000);
      calls.handle({ type: 'answer', callId: 'c1', questionId: 'q1', status: 'answered', answer: 'yes' });
      await vi.advanceTimersByTimeAsync(1_500 + DEADLINE_GRACE_MS - 1);
      expect(aborted).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(aborted).toEqual(['deadline']);
      calls.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Deadlines and durationMs of a call a Client received, on fake timers', () => {
  it("count from the frame's arrival on the faked clock: the socket's heartbeat reads it, the call takes that time", async () => {
    // Vitest replaces the global `performance` object while `performance` is faked: a clock that kept the real
    // object (or its `now`) would count these calls from the real process time and miss both figures.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const results: Array<{ callId: string; status: string; durationMs: number }> = [];
      const pair = memorySocketPair({
        onConnection(peer) {
          peer.onMessage = (text) => {
            const frame = JSON.parse(text) as {
              type: string;
              callId: string;
              status: string;
              durationMs: number;
            };
            if (frame.type === 'hello') peer.send(welcomeFrame());
            if (frame.type === 'tool_result') {
              const { callId, status, durationMs } = frame;
              results.push({ callId, status, durationMs });
            }
          };
        },
      });
      const slow = tool({
        name: 'slow',
        description: 'Takes 5 s, or until its signal aborts.',
        execute: (_input, { signal }) =>
          new Promise<string>((resolve) => {
            const timer = setTimeout(() => resolve('done'), 5_000);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              resolve('aborted');
            });
          }),
      });
      const client = new Client({
        url: 'ws://toolwire.test/v1/ws',
        WebSocket: pair.WebSocket,
        apiKey: 'key',
        tools: [slow],
      });
      await client.connect();
      const peer = pair.peers[0] as MemoryPeer;
      await vi.advanceTimersByTimeAsync(1_000);
      peer.send({ type: 'tool_call', callId: 'fast', runId: 'r1', toolName: 'slow', arguments: {} });
      peer.send({
        type: 'tool_call',
        callId: 'due',
        runId: 'r1',
        toolName: 'slow',
        arguments: {},
        deadlineMs: 100,
      });
      await vi.advanceTimersByTimeAsync(DEADLINE_GRACE_MS + 99);
      expect(results).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(results).toEqual([{ callId: 'due', status: 'cancelled', durationMs: DEADLINE_GRACE_MS + 100 }]);
      await vi.advanceTimersByTimeAsync(5_000 - DEADLINE_GRACE_MS - 100);
      expect(results).toEqual([
        { callId: 'due', status: 'cancelled', durationMs: DEADLINE_GRACE_MS + 100 },
        { callId: 'fast', status: 'ok', durationMs: 5_000 },
      ]);
      await client.close({ drain: false, timeoutMs: 0 });
    } finally {
      vi.useRealTimers();
    }
  });
});
