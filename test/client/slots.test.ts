import { describe, expect, it, vi } from 'vitest';
import type { CallRunner } from '../../src/client/calls';
import { Execution } from '../../src/client/execution';
import { Slots } from '../../src/client/slots';
import { tool } from '../../src/tool/tool';
import { afterTest } from '../support/after-test';
import {
  nextTask,
  parkers,
  queuedBehindOne,
  recording,
  recordsCalls,
  releasedWhileSlotBusy,
  results,
  statuses,
  waitsForAbort,
} from './call-runner-harness';

describe('Slots, in a call runner: slow calls', () => {
  /** A synchronous tool that keeps the event loop `ms` (the fake clock moves on while it runs). */
  function blocking(ms: number) {
    const ran: string[] = [];
    const made = tool({
      name: 'block',
      description: 'Blocks the event loop.',
      execute: (_input, ctx) => {
        ran.push(ctx.callId);
        vi.advanceTimersByTime(ms);
        return ctx.callId;
      },
    });
    return { tool: made, ran };
  }

  it('starts the next call in a later task after a slow one, so that its result leaves first', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const { tool: block, ran } = blocking(1_500);
      const { calls, sent } = recording([block], { maxConcurrency: 1 });
      const call = (callId: string) =>
        calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'block', arguments: {} });
      // Three calls in one read of the socket, and the queue behind them: one per task.
      call('b1');
      call('b2');
      call('b3');
      expect(ran).toEqual(['b1']);
      expect(statuses(sent)).toEqual(['b1:ok']);
      await nextTask();
      expect(ran).toEqual(['b1', 'b2']);
      await nextTask();
      expect(ran).toEqual(['b1', 'b2', 'b3']);
      expect(statuses(sent)).toEqual(['b1:ok', 'b2:ok', 'b3:ok']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs quick synchronous calls many to a task', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const { tool: block, ran } = blocking(1);
      const { calls } = recording([block], { maxConcurrency: 1 });
      for (const id of ['q1', 'q2', 'q3'])
        calls.receive({ type: 'tool_call', callId: id, runId: 'r1', toolName: 'block', arguments: {} });
      await Promise.resolve();
      await Promise.resolve();
      expect(ran).toEqual(['q1', 'q2', 'q3']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Slots, in a call runner: cancelling queued calls', () => {
  it('does not start a queued call whose cancel came in the same task as the one that freed its slot', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck');
    for (const id of ['q1', 'q2', 'q3']) call(id, 'charge');
    await nextTask();
    for (const id of ['run', 'q1', 'q2', 'q3']) calls.cancel(id, 'run_cancelled'); // one burst of frames
    await nextTask();
    expect(ran).toEqual([]);
    expect(statuses(sent).sort()).toEqual(['q1:cancelled', 'q2:cancelled', 'q3:cancelled', 'run:cancelled']);
  });

  it('ends the queued calls of a run with the first run_cancelled, though their own cancels come a task later', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck');
    for (const id of ['q1', 'q2']) call(id, 'charge');
    call('other', 'charge', { runId: 'r2' });
    await nextTask();
    calls.cancel('run', 'run_cancelled'); // a service that cancels in the order it dispatched
    await nextTask();
    for (const id of ['q1', 'q2']) {
      calls.cancel(id, 'run_cancelled');
      await nextTask();
    }
    // The call of another run takes the slot; none of the cancelled run's starts.
    expect(ran).toEqual(['other']);
    expect(statuses(sent)).toEqual(['run:cancelled', 'q1:cancelled', 'q2:cancelled', 'other:ok']);
  });

  it('ends only its call on a cancel for any other reason: the next call of the run takes the slot', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck');
    for (const id of ['q1', 'q2']) call(id, 'charge');
    await nextTask();
    calls.cancel('run', 'deadline');
    await nextTask();
    expect(ran).toEqual(['q1', 'q2']);
    expect(statuses(sent)).toEqual(['run:cancelled', 'q1:ok', 'q2:ok']);
  });
});

describe('Slots, in a call runner: parked calls', () => {
  it.each(parkers)('frees the slot of a call %s, and takes it back when it goes on', async (_, setup) => {
    const { calls, call, sent, ran, start, release } = setup();
    start();
    await nextTask();
    expect(calls.running).toBe(0);
    call('o1', 'other'); // runs at once, in the slot the waiting call gave up
    await nextTask();
    expect(results(sent)).toEqual(['o1:ok']);
    release();
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['o1:ok', 'g1:ok']);
    expect(calls.running).toBe(0);
  });

  it.each(parkers)(
    'runs a call %s that goes on while every slot is busy only once a slot is free, never over maxConcurrency',
    async (_, setup) => {
      const { calls, sent, ran } = await releasedWhileSlotBusy(setup());
      expect(ran).toEqual([]);
      expect(calls.running).toBe(1);
      calls.cancel('s1', 'done with it');
      await nextTask();
      expect(ran).toEqual(['g1']);
      expect(results(sent).sort()).toEqual(['g1:ok', 's1:cancelled']);
      expect(calls.running).toBe(0);
    },
  );

  it.each(parkers)(
    'ends a call %s cancelled while it waits in line for a slot, without running it or taking the slot',
    async (_, setup) => {
      const { calls, sent, ran } = await releasedWhileSlotBusy(setup());
      calls.cancel('g1', 'run_cancelled');
      await nextTask();
      expect(results(sent)).toEqual(['g1:cancelled']);
      calls.cancel('s1', 'done with it');
      await nextTask();
      expect(ran).toEqual([]);
      expect(calls.running).toBe(0);
      expect(calls.queued).toBe(0);
    },
  );
});

describe('Slots, in a call runner: slot accounting', () => {
  it('ends cancelled queued calls without a slot, a tool_call event or their context', async () => {
    const started: string[] = [];
    const contexts: string[] = [];
    const { calls, call, sent } = recording([waitsForAbort('stuck'), recordsCalls('other').tool], {
      maxConcurrency: 1,
      contextFor: (frame) => {
        contexts.push(frame.callId);
        return Promise.resolve(undefined);
      },
      events: {
        toolCall: (info) => started.push(info.callId),
        toolResult() {},
        approvalRequested() {},
        widgetInvalid() {},
      },
    });
    call('s1', 'stuck');
    for (const id of ['q1', 'q2', 'q3']) call(id, 'other');
    await nextTask();
    for (const id of ['q1', 'q2', 'q3']) calls.cancel(id, 'run_cancelled');
    expect(calls.running).toBe(1);
    await nextTask();
    expect(statuses(sent)).toEqual(['q1:cancelled', 'q2:cancelled', 'q3:cancelled']);
    expect(sent[0]).toEqual({
      type: 'tool_result',
      callId: 'q1',
      status: 'cancelled',
      output: 'Error running other: the call was cancelled',
      durationMs: 0,
    });
    expect(started).toEqual(['s1']);
    expect(contexts).toEqual(['s1']);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(calls.running).toBe(0);
  });

  it("takes the calls of a nested run started here past twice the room, maxConcurrency more a depth, and no other's", async () => {
    let runner: CallRunner | undefined;
    const nesting = tool({
      name: 'nesting',
      description: 'Waits for a nested run, for ever.',
      execute: (_input, ctx) => {
        runner!.park(ctx.callId);
        return new Promise<never>(() => {});
      },
    });
    const other = recordsCalls('other');
    // Room for one call (maxConcurrency 1, maxQueue 0); runs `n1` and `n2` are nested runs this client started.
    const runs = new Map([
      ['n1', { frame: { parentCallId: 'p1' } }],
      ['n2', { frame: { parentCallId: 'c1' } }],
    ]);
    const { calls, call, sent } = recording([nesting, other.tool], {
      maxConcurrency: 1,
      maxQueue: 0,
      runCallers: { get: (runId) => runs.get(runId) },
    });
    runner = calls;
    const busy = () =>
      sent.flatMap((frame) =>
        frame.type === 'tool_result' && frame.retryable === true ? [frame.callId] : [],
      );
    call('p1', 'nesting');
    await nextTask();
    call('p2', 'nesting');
    await nextTask();
    expect(calls.waiting).toBe(2);
    // Two callers wait: twice the room is held. A call of another run is refused; one of the nested run is taken.
    call('o1', 'other', { runId: 'r9' });
    call('c1', 'nesting', { runId: 'n1', depth: 1 });
    await nextTask();
    expect(busy()).toEqual(['o1']);
    expect(calls.waiting).toBe(3);
    // Depth 1 has filled its room; a call one deeper has room of its own (the nested run's caller waits there).
    call('c2', 'other', { runId: 'n1', depth: 1 });
    call('d1', 'other', { runId: 'n2', depth: 2 });
    await nextTask();
    expect(busy()).toEqual(['o1', 'c2']);
    expect(other.ran).toEqual(['d1']);
  });

  it('waits in line once for a call whose two nested runs end while every slot is busy, and runs it once', async () => {
    let runner: CallRunner | undefined;
    const gates: Array<() => void> = [];
    let executions = 0;
    const fanout = tool({
      name: 'fanout',
      description: 'Two nested runs at once.',
      execute: async (_input, ctx) => {
        executions += 1;
        runner!.park(ctx.callId);
        const nested = () =>
          new Promise<void>((resolve) => gates.push(resolve)).then(() =>
            runner!.resumeParked(ctx.callId, 'answer'),
          );
        return (await Promise.all([nested(), nested()])).join(' and ');
      },
    });
    const { calls, call, sent } = recording([fanout, waitsForAbort('stuck')], { maxConcurrency: 1 });
    runner = calls;
    call('f1', 'fanout');
    await nextTask();
    call('s1', 'stuck');
    await nextTask();
    for (const open of gates) open();
    await nextTask();
    expect(calls.queued).toBe(1);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(executions).toBe(1);
    expect(sent.filter((frame) => frame.type === 'tool_result')).toEqual([
      expect.objectContaining({ callId: 's1', status: 'cancelled' }),
      expect.objectContaining({ callId: 'f1', status: 'ok', output: 'answer and answer' }),
    ]);
    expect(calls.running).toBe(0);
    expect(calls.queued).toBe(0);
  });

  it.each([
    [
      'the service cancels it',
      (calls: CallRunner) => calls.cancel('n1', 'user pressed stop'),
      'AbortError: cancelled by the service (user pressed stop)',
    ],
    [
      'the service no longer holds it',
      (calls: CallRunner) => calls.cancel('n1', 'not_dispatched'),
      'AbortError: cancelled by the service (not_dispatched): the call had already ended there, or gone to another worker',
    ],
    [
      'its run is aborted',
      (calls: CallRunner) => calls.cancelRun('r1', 'stop'),
      'AbortError: run r1 was aborted by its caller',
    ],
  ])(
    'rejects the nested run’s await with the abort reason, and the tool runs on to its finally, when %s while it waits in line',
    async (_, end, reason) => {
      let runner: CallRunner | undefined;
      let open: (() => void) | undefined;
      const went: string[] = [];
      const nesting = tool({
        name: 'nesting',
        description: 'Waits for a nested run.',
        execute: async (_input, ctx) => {
          runner!.park(ctx.callId);
          try {
            await new Promise<void>((resolve) => {
              open = resolve;
            });
            return await runner!.resumeParked(ctx.callId, 'the answer');
          } catch (error) {
            went.push(
              error === ctx.signal.reason ? `${(error as Error).name}: ${(error as Error).message}` : 'other',
            );
            throw error;
          } finally {
            went.push('finally');
          }
        },
      });
      const { calls, call } = recording([nesting, waitsForAbort('stuck')], { maxConcurrency: 1 });
      runner = calls;
      call('n1', 'nesting');
      await nextTask();
      call('s1', 'stuck', { runId: 'r2' });
      await nextTask();
      open!();
      await nextTask();
      expect(calls.queued).toBe(1);
      end(calls);
      await nextTask();
      expect(went).toEqual([reason, 'finally']);
      expect([calls.running, calls.queued, calls.waiting]).toEqual([1, 0, 0]);
      calls.cancel('s1', 'done with it');
      await nextTask();
      expect(calls.running).toBe(0);
    },
  );

  it('gives no slot later to a call that timed out while waiting in line for one', async () => {
    let runner: CallRunner | undefined;
    let open: (() => void) | undefined;
    const nesting = tool({
      name: 'nesting',
      description: 'Times out while waiting in line.',
      timeoutMs: 30,
      execute: async (_input, ctx) => {
        runner!.park(ctx.callId);
        await new Promise<void>((resolve) => {
          open = resolve;
        });
        await runner!.resumeParked(ctx.callId, undefined);
        return 'too late';
      },
    });
    const { calls, call, sent } = recording([nesting, waitsForAbort('stuck'), recordsCalls('other').tool], {
      maxConcurrency: 1,
    });
    runner = calls;
    // The tool's time limit runs on a fake clock: it passes only when the test says so.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      call('n1', 'nesting');
      await nextTask();
      call('s1', 'stuck');
      await nextTask();
      open!();
      await nextTask();
      expect(calls.queued).toBe(1);
      vi.advanceTimersByTime(30);
    } finally {
      vi.useRealTimers();
    }
    expect(statuses(sent)).toEqual(['n1:timeout']);
    expect(calls.queued).toBe(0);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(calls.running).toBe(0);
    call('o1', 'other');
    await nextTask();
    expect(statuses(sent)).toEqual(['n1:timeout', 's1:cancelled', 'o1:ok']);
    expect(calls.running).toBe(0);
  });
});

describe('Slots, in a call runner: queue', () => {
  it('runs thousands of queued synchronous calls after slow ones without growing the stack', async () => {
    // The clock stands still: no call counts as slow (SLOW_CALL_MS), whatever the machine's load, so all the calls
    // run in the task after the release.
    vi.useFakeTimers({ toFake: ['performance'] });
    afterTest(() => {
      vi.useRealTimers();
    });
    const release: Array<() => void> = [];
    const slow = tool({
      name: 'slow',
      description: 'Waits.',
      execute: () => new Promise<string>((resolve) => release.push(() => resolve('slow'))),
    });
    const { calls, call, sent } = recording([slow, recordsCalls('fast').tool], {
      maxConcurrency: 2,
      maxQueue: 20_000,
    });
    call('s1', 'slow');
    call('s2', 'slow');
    for (let i = 0; i < 15_000; i++) call(`f${i}`, 'fast');
    expect(calls.queued).toBe(15_000);
    await nextTask();
    for (const resolve of release) resolve();
    await nextTask();
    expect(calls.queued).toBe(0);
    expect(calls.running).toBe(0);
    expect(sent).toHaveLength(15_002);
  });
});

/** Slots over calls made here; `started` lists the calls begun, in order. */
function slotsOf(maxConcurrency: number) {
  const started: string[] = [];
  const slots = new Slots({ maxConcurrency, start: (execution) => started.push(execution.frame.callId) });
  const owner = { finished() {} };
  const make = (callId: string) =>
    new Execution({ type: 'tool_call', callId, runId: 'r1', toolName: 't', arguments: {} }, owner);
  return { slots, started, make };
}

describe('Slots', () => {
  it('starts calls while a slot is free, and the rest in the order they came, after the task that freed one', async () => {
    const { slots, started, make } = slotsOf(1);
    const [a, b, c] = [make('a'), make('b'), make('c')];
    for (const execution of [a, b, c]) slots.admit(execution);
    expect(started).toEqual(['a']);
    expect([slots.running, slots.queued]).toEqual([1, 2]);
    expect(slots.finish(a)).toBe('running');
    expect(started).toEqual(['a']);
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    expect([b.state, c.state]).toEqual(['running', 'queued']);
  });

  it('refuses to finish a call twice, keeping the count of slots held', () => {
    const { slots, make } = slotsOf(2);
    const a = make('a');
    slots.admit(a);
    slots.admit(make('b'));
    expect(slots.finish(a)).toBe('running');
    expect(slots.finish(a)).toBeUndefined();
    expect(slots.running).toBe(1);
  });

  it('parks only a running call, and gives the slot back when it goes on', () => {
    const { slots, make } = slotsOf(1);
    const [a, b] = [make('a'), make('b')];
    slots.admit(a);
    slots.admit(b);
    slots.park(b); // queued: not started, nothing to give up
    expect(b.state).toBe('queued');
    slots.park(a);
    expect([a.state, slots.running]).toEqual(['parked', 0]);
    slots.park(a);
    expect(slots.running).toBe(0);
    let went = 0;
    slots.whenInSlot(a, () => {
      went += 1;
    });
    expect([a.state, slots.running, went]).toEqual(['running', 1, 1]);
  });

  it('puts a call that may go on while every slot is busy first in line, ahead of calls queued before it', async () => {
    const { slots, started, make } = slotsOf(1);
    const [a, b, c] = [make('a'), make('b'), make('c')];
    slots.admit(a);
    slots.park(a);
    await Promise.resolve();
    slots.admit(b); // takes the slot a gave up
    slots.admit(c);
    const order: string[] = [];
    slots.whenInSlot(a, () => order.push('a goes on'));
    expect([a.state, slots.queued]).toEqual(['resuming', 2]);
    slots.finish(b);
    await Promise.resolve();
    expect(order).toEqual(['a goes on']);
    expect(started).toEqual(['a', 'b']);
    expect([a.state, c.state]).toEqual(['running', 'queued']);
  });

  it('keeps a call in line where it is when it is parked again (a second nested run of the same call)', async () => {
    const { slots, make } = slotsOf(1);
    const [a, b] = [make('a'), make('b')];
    slots.admit(a);
    slots.park(a);
    slots.admit(b);
    const order: string[] = [];
    slots.whenInSlot(a, () => order.push('first'));
    slots.park(a);
    expect([a.state, slots.queued, slots.running]).toEqual(['resuming', 1, 1]);
    slots.whenInSlot(a, () => order.push('second'));
    slots.finish(b);
    await Promise.resolve();
    expect(order).toEqual(['first', 'second']);
    expect([a.state, slots.queued, slots.running]).toEqual(['running', 0, 1]);
  });

  it('takes a call cancelled in line out of it, telling its wait it holds no slot, so it takes none', async () => {
    const { slots, make } = slotsOf(1);
    const [a, b] = [make('a'), make('b')];
    slots.admit(a);
    slots.park(a);
    slots.admit(b);
    const went: boolean[] = [];
    slots.whenInSlot(a, (inSlot) => went.push(inSlot));
    slots.leaveLine(a);
    expect(went).toEqual([false]);
    expect([a.state, slots.queued, a.resume]).toEqual(['parked', 0, undefined]);
    expect(slots.finish(a)).toBe('parked');
    slots.finish(b);
    await Promise.resolve();
    expect(went).toEqual([false]);
    expect(slots.running).toBe(0);
  });

  it('tells the wait of a call that ends in line (its own timeout) it holds no slot', async () => {
    const { slots, make } = slotsOf(1);
    const [a, b] = [make('a'), make('b')];
    slots.admit(a);
    slots.park(a);
    slots.admit(b);
    const went: Promise<boolean> = slots.backInSlot(a);
    expect(slots.finish(a)).toBe('resuming');
    slots.finish(b);
    expect(await went).toBe(false);
    expect([slots.running, slots.queued]).toEqual([0, 0]);
  });
});
