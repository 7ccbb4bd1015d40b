import { describe, expect, it, vi } from 'vitest';
import { ToolRegistry } from '../../src/call/registry';
import { CallRunner, DEADLINE_GRACE_MS } from '../../src/client/calls';
import { Redactor, silentLogger } from '../../src/logger';
import { tool } from '../../src/tool/tool';
import type { ClientFrame } from '../../src/wire/protocol';
import { withCountedAbortControllers } from '../support/abort-controllers';

type RunnerOptions = ConstructorParameters<typeof CallRunner>[0];

/** A CallRunner over `tools` that records every frame it sends; `call` delivers a `tool_call`. */
function recording(
  tools: ConstructorParameters<typeof ToolRegistry>[0],
  overrides: Partial<RunnerOptions> = {},
) {
  const sent: ClientFrame[] = [];
  const calls = new CallRunner({
    registry: new ToolRegistry(tools),
    maxConcurrency: 16,
    maxQueue: 1_000,
    highWaterMarkBytes: 1_048_576,
    send: (frame) => {
      sent.push(frame);
      return true;
    },
    writable: () => true,
    bufferedAmount: () => 0,
    maxPayloadBytes: () => 1_048_576,
    contextFor: () => undefined,
    onApproval: undefined,
    extend: {},
    redactor: new Redactor([]),
    logger: silentLogger,
    events: { toolCall() {}, toolResult() {}, approvalRequested() {}, widgetInvalid() {} },
    ...overrides,
  });
  const call = (callId: string, toolName: string, extra: { deadlineMs?: number; approved?: boolean } = {}) =>
    calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: {}, ...extra });
  return { calls, call, sent };
}

/** A tool that runs until its `ctx.signal` aborts, telling `onAbort` the call id and the reason. */
const waitsForAbort = (name: string, onAbort: (callId: string, reason: unknown) => void = () => {}) =>
  tool({
    name,
    description: 'Runs until aborted.',
    execute: (_input, ctx) =>
      new Promise<string>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          onAbort(ctx.callId, ctx.signal.reason);
          resolve('stopped');
        }),
      ),
  });

/** A synchronous tool that records the calls it ran. */
function recordsCalls(name: string) {
  const ran: string[] = [];
  const made = tool({
    name,
    description: 'Records the call.',
    execute: (_input, ctx) => {
      ran.push(ctx.callId);
      return ctx.callId;
    },
  });
  return { tool: made, ran };
}

const nextTask = () => new Promise((resolve) => setImmediate(resolve));
const callIds = (sent: ClientFrame[]) => sent.map((frame) => (frame as { callId: string }).callId);
const statuses = (sent: ClientFrame[]) =>
  sent.map((frame) => `${(frame as { callId: string }).callId}:${(frame as { status: string }).status}`);

describe('CallRunner', () => {
  it('refuses a re-delivery of any of the last 10,000 finished and acked calls, and forgets those 20,000 back', async () => {
    const echo = recordsCalls('echo');
    const { calls, call } = recording([echo.tool]);
    for (let i = 0; i < 20_001; i++) {
      call(`c${i}`, 'echo');
      await nextTask();
      calls.ack(`c${i}`);
    }
    expect(echo.ran).toHaveLength(20_001);
    expect(calls.unacked).toBe(0);
    call('c10001', 'echo'); // among the last 10,000: ignored
    call('c20000', 'echo');
    call('c10000', 'echo'); // 10,001 back: still remembered (ids are forgotten 10,000 at a time)
    call('c9999', 'echo'); // in the generation forgotten whole: runs again
    call('c0', 'echo');
    await nextTask();
    expect(echo.ran.slice(20_001)).toEqual(['c9999', 'c0']);
  });

  it('answers a call whose steps are all synchronous within receive(), without an AbortController', () => {
    withCountedAbortControllers((made) => {
      const { call, sent } = recording([recordsCalls('echo').tool]);
      call('c1', 'echo');
      expect(sent).toEqual([expect.objectContaining({ type: 'tool_result', callId: 'c1', output: 'c1' })]);
      expect(made()).toBe(0);
    });
  });

  it('keeps results for a socket that is not writable and writes them all, in order, once it is', () => {
    let open = false;
    const { calls, call, sent } = recording([recordsCalls('echo').tool], { writable: () => open });
    call('c1', 'echo');
    call('c2', 'echo');
    expect(sent).toEqual([]);
    expect(calls.unacked).toBe(2);
    open = true;
    call('c3', 'echo'); // written after the two older ones, not before them
    expect(callIds(sent)).toEqual(['c1', 'c2', 'c3']);
    call('c4', 'echo');
    expect(sent).toHaveLength(4);
  });

  it('aborts ctx.signal of a running call on cancel, with the cancel reason', async () => {
    const reasons: unknown[] = [];
    const { calls, call, sent } = recording([waitsForAbort('wait', (_id, reason) => reasons.push(reason))]);
    call('w1', 'wait');
    await nextTask();
    calls.cancel('w1', 'user pressed stop');
    await nextTask();
    expect(reasons).toEqual(['user pressed stop']);
    expect(sent).toEqual([expect.objectContaining({ callId: 'w1', status: 'cancelled' })]);
  });
});

describe('CallRunner deadlines', () => {
  it('aborts each call at its own deadline (plus the grace), with one timer for all', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const aborted: string[] = [];
      const wait = waitsForAbort('wait', (callId, reason) => aborted.push(`${callId}:${String(reason)}`));
      const { calls, call } = recording([wait]);
      call('late', 'wait', { deadlineMs: 5_000 });
      call('never', 'wait', { deadlineMs: 60_000 });
      call('soon', 'wait', { deadlineMs: 0 }); // earlier than the timer already set: it is brought forward
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(DEADLINE_GRACE_MS - 1);
      expect(aborted).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(aborted).toEqual(['soon:deadline']);
      expect(vi.getTimerCount()).toBe(1); // set again, for the next deadline
      vi.advanceTimersByTime(5_000);
      expect(aborted).toEqual(['soon:deadline', 'late:deadline']);
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

describe('CallRunner cancelling queued calls', () => {
  /** One call that never ends running, synchronous `charge` calls queued behind it (maxConcurrency 1). */
  function queuedBehindOne() {
    const charge = recordsCalls('charge');
    const runner = recording([waitsForAbort('stuck'), charge.tool], { maxConcurrency: 1 });
    return { ...runner, ran: charge.ran };
  }

  it('aborts every call on abortAll (close) without running the queued ones', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck');
    for (const id of ['q1', 'q2', 'q3']) call(id, 'charge');
    await nextTask();
    calls.abortAll('closing');
    await nextTask();
    expect(ran).toEqual([]);
    expect(statuses(sent).sort()).toEqual(['q1:cancelled', 'q2:cancelled', 'q3:cancelled', 'run:cancelled']);
  });

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
    expect(statuses(sent).sort()).toEqual(['late:cancelled', 'run:cancelled']);
    calls.dispose();
  });
});

/**
 * One slot; `g1` gives it up while it waits (for a decision over the socket, a local approver or a nested run)
 * until `release()`; `stuck` runs until cancelled; `other` answers at once. `ran` lists the calls of `g1`'s tool
 * that went on past the wait.
 */
interface ParkedSetup extends ReturnType<typeof recording> {
  ran: string[];
  start(): void;
  release(approved?: boolean): void;
}

/** `gated` (needs approval, records the calls that ran), `stuck` and `other`, in one slot. */
function gatedInOneSlot(overrides: Partial<RunnerOptions> = {}) {
  const ran: string[] = [];
  const gated = tool({
    name: 'gated',
    description: 'Needs approval.',
    needsApproval: true,
    execute: (_input, ctx) => {
      ran.push(ctx.callId);
      return 'done';
    },
  });
  const recorded = recording([gated, waitsForAbort('stuck'), recordsCalls('other').tool], {
    maxConcurrency: 1,
    ...overrides,
  });
  return { ...recorded, ran, start: () => recorded.call('g1', 'gated') };
}

function parkedOnSocketApproval(): ParkedSetup {
  const setup = gatedInOneSlot();
  return { ...setup, release: (approved = true) => setup.call('g1', 'gated', { approved }) };
}

function parkedOnLocalApprover(): ParkedSetup {
  const answers: Array<(decision: boolean) => void> = [];
  const setup = gatedInOneSlot({
    onApproval: () => new Promise<boolean>((resolve) => answers.push(resolve)),
  });
  return { ...setup, release: (approved = true) => answers[0]!(approved) };
}

function parkedOnNestedRun(): ParkedSetup {
  const ran: string[] = [];
  const gates: Array<() => void> = [];
  let runner: CallRunner | undefined;
  const nesting = tool({
    name: 'nesting',
    description: 'Waits for a nested run.',
    execute: async (_input, ctx) => {
      runner!.park(ctx.callId);
      await new Promise<void>((resolve) => gates.push(resolve));
      await runner!.resumeParked(ctx.callId, undefined);
      ran.push(ctx.callId);
      return 'done';
    },
  });
  const recorded = recording([nesting, waitsForAbort('stuck'), recordsCalls('other').tool], {
    maxConcurrency: 1,
  });
  runner = recorded.calls;
  return { ...recorded, ran, start: () => recorded.call('g1', 'nesting'), release: () => gates[0]!() };
}

const parkers: Array<[string, () => ParkedSetup]> = [
  ['waiting for a decision over the socket', parkedOnSocketApproval],
  ['waiting for a local approver', parkedOnLocalApprover],
  ['waiting for a nested run', parkedOnNestedRun],
];
/** `g1` waits and gives up the slot, `s1` takes it, then `g1` is released (approved or not) while it is busy. */
async function releasedWhileSlotBusy(setup: ParkedSetup, approved = true): Promise<ParkedSetup> {
  setup.start();
  await nextTask();
  setup.call('s1', 'stuck');
  await nextTask();
  setup.release(approved);
  await nextTask();
  return setup;
}

const results = (sent: ClientFrame[]) => statuses(sent.filter((frame) => frame.type === 'tool_result'));

describe('CallRunner parked calls', () => {
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

  it.each(parkers.slice(0, 2))(
    'ends a call %s that is rejected while every slot is busy at once, without a slot',
    async (_, setup) => {
      const { calls, sent, ran } = await releasedWhileSlotBusy(setup(), false);
      expect(ran).toEqual([]);
      expect(results(sent)).toEqual(['g1:rejected']);
      expect(calls.running).toBe(1);
      calls.cancel('s1', 'done with it');
      await nextTask();
      expect(calls.running).toBe(0);
      expect(calls.queued).toBe(0);
    },
  );

  it('rejects a call whose local approver answers a promise of no decision, naming the answer', async () => {
    const { call, sent, ran } = gatedInOneSlot({ onApproval: async () => null as never });
    call('g1', 'gated');
    await nextTask();
    expect(ran).toEqual([]);
    expect(sent).toEqual([
      expect.objectContaining({
        callId: 'g1',
        status: 'rejected',
        output:
          'gated was not run: approval could not be obtained (the approver returned null instead of true, false or { approved: boolean }).',
      }),
    ]);
  });

  it('keeps no slot for a call cancelled while its local approver decides, when the answer comes later', async () => {
    const { calls, call, sent, ran, start, release } = parkedOnLocalApprover();
    start();
    await nextTask();
    calls.cancel('g1', 'run_cancelled');
    await nextTask();
    expect(results(sent)).toEqual(['g1:cancelled']);
    release();
    await nextTask();
    expect(ran).toEqual([]);
    expect(calls.running).toBe(0);
    call('o1', 'other'); // the one slot is free
    await nextTask();
    expect(results(sent)).toEqual(['g1:cancelled', 'o1:ok']);
  });
});

describe('CallRunner slot accounting', () => {
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

  it('is not idle while a call waits for a local approver, though it holds no slot', async () => {
    const answers: Array<(decision: boolean) => void> = [];
    const gated = tool({
      name: 'gated',
      description: 'Needs approval.',
      needsApproval: true,
      execute: () => 'done',
    });
    const { calls, call } = recording([gated], {
      onApproval: () => new Promise<boolean>((resolve) => answers.push(resolve)),
    });
    call('g1', 'gated');
    await nextTask();
    let idle = false;
    void calls.idle().then(() => {
      idle = true;
    });
    await nextTask();
    expect(calls.running).toBe(0);
    expect(idle).toBe(false);
    answers[0]!(true);
    await nextTask();
    calls.ack('g1');
    await nextTask();
    expect(idle).toBe(true);
  });
});

describe('CallRunner queue', () => {
  it('runs thousands of queued synchronous calls after slow ones without growing the stack', async () => {
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
