import { describe, expect, it, vi } from 'vitest';
import { CallRunner, DEADLINE_GRACE_MS } from '../src/calls';
import { Redactor, silentLogger } from '../src/logger';
import type { ClientFrame } from '../src/protocol';
import { ToolRegistry } from '../src/registry';
import { tool } from '../src/tool';

function runner(options: { writable?: () => boolean } = {}) {
  const executed: string[] = [];
  const sent: ClientFrame[] = [];
  const echo = tool({
    name: 'echo',
    description: 'Echoes the call id.',
    execute: (_input, ctx) => {
      executed.push(ctx.callId);
      return ctx.callId;
    },
  });
  const calls = new CallRunner({
    registry: new ToolRegistry([echo]),
    maxConcurrency: 16,
    maxQueue: 1_000,
    highWaterMarkBytes: 1_048_576,
    send: (frame) => {
      sent.push(frame);
      return true;
    },
    writable: options.writable ?? (() => true),
    bufferedAmount: () => 0,
    maxPayloadBytes: () => 1_048_576,
    contextFor: () => undefined,
    onApproval: undefined,
    extend: {},
    redactor: new Redactor([]),
    logger: silentLogger,
    events: { toolCall() {}, toolResult() {}, approvalRequested() {}, widgetInvalid() {} },
  });
  const call = (callId: string) =>
    calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'echo', arguments: {} });
  return { calls, call, executed, sent };
}

describe('CallRunner', () => {
  it('refuses a re-delivery of any of the last 10,000 finished and acked calls, and forgets older ones', async () => {
    const { calls, call, executed } = runner();
    for (let i = 0; i < 10_001; i++) {
      call(`c${i}`);
      await new Promise((resolve) => setImmediate(resolve));
      calls.ack(`c${i}`);
    }
    expect(executed).toHaveLength(10_001);
    expect(calls.unacked).toBe(0);
    call('c1'); // among the last 10,000: ignored
    call('c10000');
    call('c0'); // the oldest, forgotten: runs again
    await new Promise((resolve) => setImmediate(resolve));
    expect(executed.slice(10_001)).toEqual(['c0']);
  });

  it('answers a call whose steps are all synchronous within receive(), without an AbortController', () => {
    let made = 0;
    vi.stubGlobal(
      'AbortController',
      class extends AbortController {
        constructor() {
          super();
          made += 1;
        }
      },
    );
    try {
      const { call, sent } = runner();
      call('c1');
      expect(sent).toEqual([expect.objectContaining({ type: 'tool_result', callId: 'c1', output: 'c1' })]);
      expect(made).toBe(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('keeps results for a socket that is not writable and writes them all, in order, once it is', () => {
    let open = false;
    const { calls, call, sent } = runner({ writable: () => open });
    call('c1');
    call('c2');
    expect(sent).toEqual([]);
    expect(calls.unacked).toBe(2);
    open = true;
    call('c3'); // written after the two older ones, not before them
    expect(sent.map((frame) => (frame as { callId: string }).callId)).toEqual(['c1', 'c2', 'c3']);
    call('c4');
    expect(sent).toHaveLength(4);
  });

  it('aborts ctx.signal of a running call on cancel, with the cancel reason', async () => {
    const reasons: unknown[] = [];
    const waiting = tool({
      name: 'wait',
      description: 'Waits for its signal.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            reasons.push(ctx.signal.reason);
            resolve('stopped');
          }),
        ),
    });
    const sent: ClientFrame[] = [];
    const calls = new CallRunner({
      ...runnerOptions(),
      registry: new ToolRegistry([waiting]),
      send: (frame) => {
        sent.push(frame);
        return true;
      },
    });
    calls.receive({ type: 'tool_call', callId: 'w1', runId: 'r1', toolName: 'wait', arguments: {} });
    await new Promise((resolve) => setImmediate(resolve));
    calls.cancel('w1', 'user pressed stop');
    await new Promise((resolve) => setImmediate(resolve));
    expect(reasons).toEqual(['user pressed stop']);
    expect(sent).toEqual([expect.objectContaining({ callId: 'w1', status: 'cancelled' })]);
  });
});

describe('CallRunner deadlines', () => {
  it('aborts each call at its own deadline (plus the grace), with one timer for all', async () => {
    const aborted: string[] = [];
    const wait = tool({
      name: 'wait',
      description: 'Waits for its signal.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted.push(`${ctx.callId}:${String(ctx.signal.reason)}`);
            resolve('stopped');
          }),
        ),
    });
    const calls = new CallRunner({ ...runnerOptions(), registry: new ToolRegistry([wait]) });
    const call = (callId: string, deadlineMs: number) =>
      calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'wait', arguments: {}, deadlineMs });
    const started = performance.now();
    call('late', 5_000);
    call('never', 60_000);
    call('soon', 0); // earlier than the timer already set: it is brought forward
    await expect.poll(() => aborted, { timeout: 3_000, interval: 20 }).toEqual(['soon:deadline']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(DEADLINE_GRACE_MS - 5);
    expect(calls.running).toBe(2);
    calls.abortAll('test over');
    calls.dispose();
  });
});

describe('CallRunner cancelling queued calls', () => {
  /** One call that never ends running, three synchronous ones queued behind it (maxConcurrency 1). */
  function queuedBehindOne() {
    const ran: string[] = [];
    const stuck = tool({
      name: 'stuck',
      description: 'Never ends unless aborted.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'))),
    });
    const charge = tool({
      name: 'charge',
      description: 'A side effect.',
      execute: (_input, ctx) => {
        ran.push(ctx.callId);
        return 'charged';
      },
    });
    const sent: ClientFrame[] = [];
    const calls = new CallRunner({
      ...runnerOptions(),
      registry: new ToolRegistry([stuck, charge]),
      maxConcurrency: 1,
      send: (frame) => {
        sent.push(frame);
        return true;
      },
    });
    const call = (callId: string, toolName: string, deadlineMs?: number) =>
      calls.receive({
        type: 'tool_call',
        callId,
        runId: 'r1',
        toolName,
        arguments: {},
        ...(deadlineMs === undefined ? {} : { deadlineMs }),
      });
    return { calls, call, ran, sent };
  }
  const statuses = (sent: ClientFrame[]) =>
    sent.map((frame) => `${(frame as { callId: string }).callId}:${(frame as { status: string }).status}`);

  it('aborts every call on abortAll (close) without running the queued ones', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck');
    for (const id of ['q1', 'q2', 'q3']) call(id, 'charge');
    await new Promise((resolve) => setImmediate(resolve));
    calls.abortAll('closing');
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([]);
    expect(statuses(sent).sort()).toEqual(['q1:cancelled', 'q2:cancelled', 'q3:cancelled', 'run:cancelled']);
  });

  it('does not start a queued call whose cancel came in the same task as the one that freed its slot', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck');
    for (const id of ['q1', 'q2', 'q3']) call(id, 'charge');
    await new Promise((resolve) => setImmediate(resolve));
    for (const id of ['run', 'q1', 'q2', 'q3']) calls.cancel(id, 'run_cancelled'); // one burst of frames
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([]);
    expect(statuses(sent)).toHaveLength(4);
    expect(statuses(sent).every((entry) => entry.endsWith(':cancelled'))).toBe(true);
  });

  it('does not run a queued call that passed its deadline while it waited', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck', 0);
    call('late', 'charge', 0);
    await expect.poll(() => sent.length, { timeout: 3_000, interval: 20 }).toBe(2);
    expect(ran).toEqual([]);
    expect(statuses(sent).sort()).toEqual(['late:cancelled', 'run:cancelled']);
    calls.dispose();
  });

  it('frees the slot of a call waiting for a human, and takes it back on the decision', async () => {
    const gated = tool({
      name: 'gated',
      description: 'Needs approval.',
      needsApproval: true,
      execute: () => 'done',
    });
    const other = tool({ name: 'other', description: 'Runs meanwhile.', execute: () => 'other' });
    const sent: ClientFrame[] = [];
    const calls = new CallRunner({
      ...runnerOptions(),
      registry: new ToolRegistry([gated, other]),
      maxConcurrency: 1,
      send: (frame) => {
        sent.push(frame);
        return true;
      },
    });
    const frame = { type: 'tool_call', runId: 'r1', arguments: {} } as const;
    calls.receive({ ...frame, callId: 'g1', toolName: 'gated' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([{ type: 'approval_request', callId: 'g1' }]);
    calls.receive({ ...frame, callId: 'o1', toolName: 'other' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.at(-1)).toMatchObject({ type: 'tool_result', callId: 'o1', status: 'ok' });
    calls.receive({ ...frame, callId: 'g1', toolName: 'gated', approved: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.at(-1)).toMatchObject({ type: 'tool_result', callId: 'g1', status: 'ok', output: 'done' });
    expect(calls.running).toBe(0);
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
    const fast = tool({ name: 'fast', description: 'Answers at once.', execute: () => 'fast' });
    const sent: ClientFrame[] = [];
    const calls = new CallRunner({
      ...runnerOptions(),
      registry: new ToolRegistry([slow, fast]),
      maxConcurrency: 2,
      maxQueue: 20_000,
      send: (frame) => {
        sent.push(frame);
        return true;
      },
    });
    const call = (callId: string, toolName: string) =>
      calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: {} });
    call('s1', 'slow');
    call('s2', 'slow');
    for (let i = 0; i < 15_000; i++) call(`f${i}`, 'fast');
    expect(calls.queued).toBe(15_000);
    await new Promise((resolve) => setImmediate(resolve));
    for (const resolve of release) resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls.queued).toBe(0);
    expect(calls.running).toBe(0);
    expect(sent).toHaveLength(15_002);
  });
});

function runnerOptions(): ConstructorParameters<typeof CallRunner>[0] {
  return {
    registry: new ToolRegistry(),
    maxConcurrency: 16,
    maxQueue: 1_000,
    highWaterMarkBytes: 1_048_576,
    send: () => true,
    writable: () => true,
    bufferedAmount: () => 0,
    maxPayloadBytes: () => 1_048_576,
    contextFor: () => undefined,
    onApproval: undefined,
    extend: {},
    redactor: new Redactor([]),
    logger: silentLogger,
    events: { toolCall() {}, toolResult() {}, approvalRequested() {}, widgetInvalid() {} },
  };
}
