/**
 * The lease keeps a call alive once its tool runs, not before: a call still waiting for its `context` (an async
 * `context` function that never settles) or in line for a slot keeps the service's deadline, even across a
 * reconnect, so it cannot hold its slot forever while the lease is renewed for it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DEADLINE_GRACE_MS } from '../../src/client/deadlines';
import { tool } from '../../src/tool/tool';
import { keyedTool } from '../support/keyed-tool';
import { nextTask, recording, results, waitsForAbort } from './call-runner-harness';

afterEach(() => {
  vi.useRealTimers();
});

const welcome = { features: ['lease'], leaseMs: 3_000, heartbeatIntervalMs: 15_000, sessionGraceMs: 60_000 };

/** A tool named `name` that records the calls it runs and runs until aborted. */
function runsUntilAborted(name: string, parameters?: z.ZodType<object>) {
  const ran: string[] = [];
  const running = tool({
    name,
    description: 'Runs until aborted.',
    parameters,
    execute: (_input: unknown, ctx) => {
      ran.push(ctx.callId);
      return new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped')));
    },
  });
  return { running, ran };
}

/**
 * As close() does: c1, whose `execute` has not begun, is handed back (another worker runs it rather than the drain
 * wait for it); c2, running, stays.
 */
async function stopsHandingBackC1(
  calls: ReturnType<typeof recording>['calls'],
  sent: ReturnType<typeof recording>['sent'],
  toolName: string,
) {
  calls.stopAccepting();
  await nextTask();
  expect(sent.filter((frame) => frame.type === 'tool_result')).toEqual([
    {
      type: 'tool_result',
      callId: 'c1',
      status: 'error',
      output: `Error running ${toolName}: the client is shutting down; try again later`,
      retryable: true,
    },
  ]);
  expect(calls.running).toBe(1);
}

describe('the lease and calls whose tool has not begun', () => {
  it('ends a call whose context never comes at its deadline, and leases only calls whose tool runs', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    const { calls, sent } = recording([waitsForAbort('stuck')], {
      contextFor: (frame) => (frame.callId === 'c1' ? new Promise(() => {}) : undefined),
    });
    calls.welcomed(welcome);
    calls.receive({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'stuck',
      arguments: {},
      deadlineMs: 5_000,
    });
    calls.receive({
      type: 'tool_call',
      callId: 'c2',
      runId: 'r1',
      toolName: 'stuck',
      arguments: {},
      deadlineMs: 5_000,
    });
    await nextTask();
    // A new socket resumes the session: the lease goes on for the calls whose tool runs, only, renewed at once and
    // then every interval.
    calls.reconnected();
    const lease = { type: 'lease', callIds: ['c2'] };
    expect(sent.filter((frame) => frame.type === 'lease')).toEqual([lease]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.filter((frame) => frame.type === 'lease')).toEqual([lease, lease]);
    // The deadline, and the client's grace after it (the service's own cancel would come first).
    await vi.advanceTimersByTimeAsync(4_000 + DEADLINE_GRACE_MS);
    // Its tool never began: it timed out, as the service says of a call it cut at its deadline.
    expect(results(sent)).toEqual(['c1:timeout']);
    expect(sent.find((frame) => frame.type === 'tool_result')).toMatchObject({
      output: 'Error running stuck: timed out after 5000ms',
    });
    expect(calls.running).toBe(1);
  });

  it('ends a call cancelled while its context is awaited, at once and without running it', async () => {
    const ran: string[] = [];
    const { calls, sent } = recording([waitsForAbort('stuck', (callId) => ran.push(callId))], {
      contextFor: () => new Promise(() => {}),
    });
    calls.receive({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'stuck', arguments: {} });
    await nextTask();
    expect(calls.running).toBe(1);
    calls.cancel('c1', 'run_cancelled');
    await nextTask();
    expect(results(sent)).toEqual(['c1:cancelled']);
    expect(calls.running).toBe(0);
    expect(ran).toEqual([]);
  });

  it('hands back a call waiting for its context when the client stops, and does not run it', async () => {
    const { running, ran } = runsUntilAborted('stuck');
    const { calls, sent } = recording([running], {
      contextFor: (frame) => (frame.callId === 'c1' ? new Promise(() => {}) : undefined),
    });
    calls.receive({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'stuck', arguments: {} });
    calls.receive({ type: 'tool_call', callId: 'c2', runId: 'r1', toolName: 'stuck', arguments: {} });
    await nextTask();
    expect(ran).toEqual(['c2']);
    await stopsHandingBackC1(calls, sent, 'stuck');
    expect(ran).toEqual(['c2']);
    calls.abortAll('test over');
  });

  it('hands back a call whose arguments are still being validated (async refine) when the client stops', async () => {
    let checked: (ok: boolean) => void = () => {};
    const checking = new Promise<boolean>((resolve) => {
      checked = resolve;
    });
    // `hold` waits for `checked`; any other value is judged at once (still asynchronously: zod's async parse).
    const { running, ran } = runsUntilAborted(
      'slow',
      z.object({ hold: z.boolean() }).refine((input) => (input.hold ? checking : true)),
    );
    const { calls, sent } = recording([running]);
    calls.receive({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'slow',
      arguments: { hold: true },
    });
    calls.receive({
      type: 'tool_call',
      callId: 'c2',
      runId: 'r1',
      toolName: 'slow',
      arguments: { hold: false },
    });
    await nextTask();
    expect(ran).toEqual(['c2']);
    await stopsHandingBackC1(calls, sent, 'slow');
    // Its validation, come later, runs nothing.
    checked(true);
    await nextTask();
    expect(ran).toEqual(['c2']);
    expect(results(sent)).toEqual(['c1:error']);
    calls.abortAll('test over');
  });

  it('leases a keyed call only once it may run: one waiting for its key ends timeout at its deadline', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    const { work, started, release } = keyedTool(1);
    const { calls, sent } = recording([work]);
    calls.welcomed(welcome);
    const send = (callId: string, deadlineMs: number) =>
      calls.receive({
        type: 'tool_call',
        callId,
        runId: 'r1',
        toolName: 'work',
        arguments: { tenant: 'a', n: Number(callId.slice(1)) },
        deadlineMs,
      });
    send('a0', 60_000);
    send('a1', 5_000);
    send('a2', 60_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['a0']);
    // a1 and a2 wait for their key's turn, their tool not begun: not leased.
    const leases = () => sent.filter((frame) => frame.type === 'lease');
    expect(leases()).toEqual([{ type: 'lease', callIds: ['a0'] }]);
    await vi.advanceTimersByTimeAsync(4_000 + DEADLINE_GRACE_MS);
    expect(results(sent)).toEqual(['a1:timeout']);
    expect(sent.find((frame) => frame.type === 'tool_result')).toMatchObject({
      output: 'Error running work: timed out after 5000ms',
    });
    release('a0');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual(['a0', 'a2']);
    // a2 runs now: leased from here on.
    expect(leases().at(-1)).toEqual({ type: 'lease', callIds: ['a2'] });
    release('a2');
    await vi.advanceTimersByTimeAsync(0);
    expect(results(sent)).toEqual(['a1:timeout', 'a0:ok', 'a2:ok']);
    calls.dispose();
  });

  it('leases no keyed call that holds its key but waits for a slot: past its deadline it ends timeout', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    const { work, started } = keyedTool(2);
    const { calls, sent } = recording([work, waitsForAbort('stuck')], { maxConcurrency: 1 });
    calls.welcomed(welcome);
    calls.receive({
      type: 'tool_call',
      callId: 's1',
      runId: 'r1',
      toolName: 'stuck',
      arguments: {},
      deadlineMs: 60_000,
    });
    // No slot is free: it starts without one, takes its key's permit, and waits for a slot in its key's turn.
    calls.receive({
      type: 'tool_call',
      callId: 'b0',
      runId: 'r1',
      toolName: 'work',
      arguments: { tenant: 'b', n: 0 },
      deadlineMs: 5_000,
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.filter((frame) => frame.type === 'lease')).toEqual([{ type: 'lease', callIds: ['s1'] }]);
    await vi.advanceTimersByTimeAsync(4_000 + DEADLINE_GRACE_MS);
    expect(results(sent)).toEqual(['b0:timeout']);
    expect(started).toEqual([]);
    calls.abortAll('test over');
    calls.dispose();
  });
});
