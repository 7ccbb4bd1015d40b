import { afterEach, describe, expect, it, vi } from 'vitest';
import { tool } from '../../src/tool/tool';
import { decodeServiceFrame } from '../../src/wire/codec';
import { withCountedAbortControllers } from '../support/abort-controllers';
import { nextTask, recording, recordsCalls, statuses } from './call-runner-harness';

describe('CallRunner', () => {
  it('answers a call whose steps are all synchronous within receive(), without an AbortController', () => {
    withCountedAbortControllers((made) => {
      const { call, sent } = recording([recordsCalls('echo').tool]);
      call('c1', 'echo');
      expect(sent).toEqual([expect.objectContaining({ type: 'tool_result', callId: 'c1', output: 'c1' })]);
      expect(made()).toBe(0);
    });
  });
});

describe('CallRunner durationMs', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const durations = (sent: unknown[]) =>
    sent.map(
      (frame) => `${(frame as { callId: string }).callId}:${(frame as { durationMs: number }).durationMs}`,
    );

  it('counts from when the call started: its tool, a context that failed; 0 for one cancelled while queued', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const slow = tool({
      name: 'slow',
      description: 'Takes 250 ms.',
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), 250)),
    });
    const noContext = tool({ name: 'no_context', description: 'Needs a context.', execute: () => 'never' });
    const { calls, call, sent } = recording([slow, noContext], {
      maxConcurrency: 2,
      contextFor: (execution: { toolName: string }) =>
        execution.toolName === 'no_context'
          ? new Promise((_resolve, reject) => setTimeout(() => reject(new Error('no tenant')), 120))
          : undefined,
    });
    call('s1', 'slow');
    call('n1', 'no_context');
    // Both slots are taken: this one waits in the queue and is cancelled there.
    call('q1', 'slow');
    await vi.advanceTimersByTimeAsync(50);
    calls.cancel('q1', 'user');
    await vi.advanceTimersByTimeAsync(300);
    expect(durations(sent).sort()).toEqual(['n1:120', 'q1:0', 's1:250']);
  });
});

describe('CallRunner: a call answered while its tool still runs', () => {
  /** A tool that ignores its signal and returns only when the test says so. */
  function ignoresSignal(name: string, extra: { timeoutMs?: number } = {}) {
    const pending: Array<() => void> = [];
    const started: string[] = [];
    const made = tool({
      name,
      description: 'Ignores its signal.',
      ...extra,
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => {
          started.push(ctx.callId);
          pending.push(() => resolve('late'));
        }),
    });
    return { tool: made, pending, started };
  }

  it('answers a cancelled call at once and keeps its slot until execute returns', async () => {
    const hang = ignoresSignal('hang');
    const { calls, call, sent } = recording([hang.tool], { maxConcurrency: 2, maxQueue: 10 });
    call('a', 'hang');
    call('b', 'hang');
    call('c', 'hang');
    calls.cancel('a', 'user');
    calls.cancel('b', 'user');
    await nextTask();
    // Both answered, neither tool returned: no third execute starts beside them.
    expect(statuses(sent)).toEqual(['a:cancelled', 'b:cancelled']);
    expect([calls.running, hang.started]).toEqual([2, ['a', 'b']]);
    hang.pending[0]?.();
    await nextTask();
    expect([calls.running, hang.started]).toEqual([2, ['a', 'b', 'c']]);
    hang.pending[1]?.();
    hang.pending[2]?.();
    await nextTask();
    expect(calls.running).toBe(0);
    expect(statuses(sent)).toEqual(['a:cancelled', 'b:cancelled', 'c:ok']);
  });

  it('does the same for a call past its tool timeoutMs (a cancel, the deadline and close() abort alike)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const slow = ignoresSignal('slow', { timeoutMs: 100 });
    const { calls, call, sent } = recording([slow.tool], { maxConcurrency: 1, maxQueue: 10 });
    call('t', 'slow');
    call('q', 'slow');
    await vi.advanceTimersByTimeAsync(100);
    expect([statuses(sent), calls.running, slow.started]).toEqual([['t:timeout'], 1, ['t']]);
    slow.pending[0]?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(slow.started).toEqual(['t', 'q']);
    vi.useRealTimers();
  });
});

describe('CallRunner idle', () => {
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

describe('CallRunner frames', () => {
  it('applies the acks a tool_call carries before the call, so their room is free for it', () => {
    const echo = recordsCalls('echo');
    const { calls, sent } = recording([echo.tool], { maxConcurrency: 1, maxQueue: 0 });
    const frame = (callId: string, acks?: string[]) =>
      ({ type: 'tool_call', callId, runId: 'r1', toolName: 'echo', arguments: {}, acks }) as const;
    expect(calls.handle(frame('c1'))).toBe(true);
    expect(calls.handle(frame('c2', ['c1']))).toBe(true);
    expect(echo.ran).toEqual(['c1', 'c2']);
    expect(statuses(sent)).toEqual(['c1:ok', 'c2:ok']);
    expect(calls.handle({ type: 'ack', callIds: ['c2'] })).toBe(true);
    expect(calls.unacked).toBe(0);
  });

  it('acks what an ack frame names, decoded in the shape of a call (its callId, then its callIds)', () => {
    const echo = recordsCalls('echo');
    const { calls } = recording([echo.tool]);
    for (const callId of ['c1', 'c2', 'c3', 'c4'])
      calls.handle({ type: 'tool_call', callId, runId: 'r1', toolName: 'echo', arguments: {} });
    expect(calls.unacked).toBe(4);
    const decoded = decodeServiceFrame('{"type":"ack","callId":"c1","callIds":["c2","c3"]}');
    if (!decoded.ok) throw new Error(decoded.message);
    expect(calls.handle(decoded.frame)).toBe(true);
    expect(calls.unacked).toBe(1);
    expect(calls.handle({ type: 'ack', callId: 'c4' })).toBe(true);
    expect(calls.unacked).toBe(0);
    expect(echo.ran).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('leaves frames that are not about calls to the client', () => {
    const { calls } = recording([]);
    expect(calls.handle({ type: 'ping' })).toBe(false);
    expect(calls.handle({ type: 'error', code: 'invalid_frame', message: 'no' })).toBe(false);
  });
});
