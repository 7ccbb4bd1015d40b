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
