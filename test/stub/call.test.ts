import { afterEach, describe, expect, it, vi } from 'vitest';
import { Call, TRANSITIONS } from '../../server-stub/call';
import { Run } from '../../server-stub/run';
import type { CallState } from '../../server-stub/transcript';

function newCall(): Call {
  const run = new Run({
    id: 'run_1',
    agent: { name: 'a', instructions: 'i', tools: ['refund'] },
    input: 'x',
    maxTurns: 3,
    depth: 0,
    startedBy: 'api',
  });
  return new Call({
    callId: 'call_1',
    modelCallId: 'm1',
    run,
    toolName: 'refund',
    arguments: { amount: 42 },
    turn: 1,
  });
}

/** A call brought to `state` by legal transitions. */
function callIn(state: CallState): Call {
  const call = newCall();
  if (state === 'dispatched') call.dispatch('s1');
  if (state === 'awaiting_approval') call.hold('definition', undefined);
  if (state === 'done') call.finish({ status: 'ok', output: 'done' }, undefined);
  expect(call.state).toBe(state);
  return call;
}

/** Each transition method, as the dispatcher and approvals call it. */
const attempts: Record<keyof typeof TRANSITIONS, (call: Call) => boolean> = {
  dispatch: (call) => call.dispatch('s2'),
  hold: (call) => call.hold('client', 'why'),
  decide: (call) => call.decide({ approved: true, by: 'http' }),
  requeue: (call) => call.requeueBusy('s1'),
  finish: (call) => call.finish({ status: 'cancelled', output: 'cancelled' }, undefined),
};

const STATES: CallState[] = ['waiting', 'dispatched', 'awaiting_approval', 'done'];

afterEach(() => {
  vi.useRealTimers();
});

describe('Call state transitions', () => {
  for (const state of STATES) {
    for (const [name, attempt] of Object.entries(attempts) as [
      keyof typeof TRANSITIONS,
      (c: Call) => boolean,
    ][]) {
      const { from, to } = TRANSITIONS[name];
      const allowed = (from as readonly CallState[]).includes(state);
      it(`${allowed ? 'moves' : 'refuses to move'} a ${state} call by ${name}${allowed ? ` to ${to}` : ''}`, () => {
        const call = callIn(state);
        const before = call.toTranscript();
        expect(attempt(call)).toBe(allowed);
        if (allowed) expect(call.state).toBe(to);
        else expect(call.toTranscript()).toEqual(before);
      });
    }
  }

  it('lists a session in sentTo once per run of dispatches to it, and stays assigned to the last', () => {
    const call = newCall();
    expect(call.dispatch('s1')).toBe(true);
    expect(call.sessionId).toBe('s1');
    expect(call.requeueBusy('s1')).toBe(true);
    expect(call.sessionId).toBeUndefined();
    expect(call.busyFrom).toEqual(new Set(['s1']));
    expect(call.dispatch('s2')).toBe(true);
    expect(call.sessionLost()).toBe(true);
    expect(call.dispatch('s2')).toBe(true);
    expect(call.sentTo).toEqual(['s1', 's2']);
    expect(call.toTranscript().dispatchedTo).toEqual(['s1', 's2']);
  });

  it('takes a busy answer only from the session the call was sent to', () => {
    const call = callIn('dispatched');
    expect(call.requeueBusy('s9')).toBe(false);
    expect(call.state).toBe('dispatched');
    expect(call.busyFrom.size).toBe(0);
  });

  it('holds a call once, and never once decided', () => {
    const call = callIn('dispatched');
    expect(call.hold('client', 'over 40')).toBe(true);
    expect(call.sessionId).toBe('s1');
    expect(call.approval).toEqual({
      requestedBy: 'client',
      reason: 'over 40',
      requestedAt: expect.any(String),
    });
    expect(call.hold('definition', undefined)).toBe(false);
    expect(call.decide({ approved: false, reason: 'no', by: 'socket' })).toBe(true);
    expect(call.state).toBe('waiting');
    expect(call.decision).toEqual({ approved: false, reason: 'no', by: 'socket', at: expect.any(String) });
    expect(call.hold('definition', undefined)).toBe(false);
    expect(call.decide({ approved: true, by: 'http' })).toBe(false);
    expect(call.decision?.approved).toBe(false);
  });

  it('sends the decision and the time left in its tool_call frame', () => {
    vi.useFakeTimers({ now: 1_000 });
    const call = newCall();
    call.armDeadline(5_000, () => {});
    vi.advanceTimersByTime(1_200);
    expect(call.frame(new Set())).toEqual({
      type: 'tool_call',
      callId: 'call_1',
      runId: 'run_1',
      toolName: 'refund',
      arguments: { amount: 42 },
      depth: 0,
      deadlineMs: 3_800,
      traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
    });
    call.hold('definition', undefined);
    call.decide({ approved: true, reason: 'fine', by: 'http' });
    expect(call.frame(new Set())).toEqual({
      type: 'tool_call',
      callId: 'call_1',
      runId: 'run_1',
      toolName: 'refund',
      arguments: { amount: 42 },
      depth: 0,
      approved: true,
      reason: 'fine',
      traceparent: call.traceparent,
    });
  });

  it('stops its deadline while held, and runs it again in full once armed after the decision', () => {
    vi.useFakeTimers({ now: 0 });
    const expired = vi.fn();
    const call = newCall();
    call.armDeadline(1_000, expired);
    expect(call.deadlineAt).toBe(1_000);
    vi.advanceTimersByTime(600);
    call.hold('definition', undefined);
    expect(call.deadlineAt).toBeUndefined();
    vi.advanceTimersByTime(10_000);
    expect(expired).not.toHaveBeenCalled();
    call.decide({ approved: true, by: 'socket' });
    call.armDeadline(1_000, expired);
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('forgets who was busy after one retry delay, with one retry pending at a time', () => {
    vi.useFakeTimers();
    const retry = vi.fn();
    const call = callIn('dispatched');
    call.retryWhenBusy(250, retry);
    vi.advanceTimersByTime(1_000);
    expect(retry).not.toHaveBeenCalled();
    call.requeueBusy('s1');
    call.retryWhenBusy(250, retry);
    call.retryWhenBusy(250, retry);
    vi.advanceTimersByTime(250);
    expect(retry).toHaveBeenCalledTimes(1);
    expect(call.busyFrom.size).toBe(0);
  });

  it('goes back to waiting when its session is lost while dispatched, and stays held (unassigned) when held', () => {
    const dispatched = callIn('dispatched');
    expect(dispatched.sessionLost()).toBe(true);
    expect(dispatched.state).toBe('waiting');
    expect(dispatched.sessionId).toBeUndefined();
    const held = callIn('dispatched');
    held.hold('client', undefined);
    expect(held.sessionLost()).toBe(false);
    expect(held.state).toBe('awaiting_approval');
    expect(held.sessionId).toBeUndefined();
    const done = callIn('dispatched');
    done.finish({ status: 'ok', output: '1' }, 's1');
    expect(done.sessionLost()).toBe(false);
    expect(done.sessionId).toBe('s1');
  });

  it('keeps the first outcome, stops its timers (arming none after) and resolves done with what the model reads', async () => {
    vi.useFakeTimers({ now: 0 });
    const expired = vi.fn();
    const call = callIn('dispatched');
    call.armDeadline(1_000, expired);
    vi.advanceTimersByTime(40);
    expect(
      call.finish({ status: 'ok', output: '42', widget: { type: 'Text' }, clientDurationMs: 7 }, 's1'),
    ).toBe(true);
    expect(call.finish({ status: 'timeout', output: 'late' }, undefined)).toBe(false);
    call.armDeadline(1_000, expired);
    vi.advanceTimersByTime(5_000);
    expect(expired).not.toHaveBeenCalled();
    await expect(call.done).resolves.toEqual({ status: 'ok', output: '42', widget: { type: 'Text' } });
    expect(call.toTranscript()).toMatchObject({
      state: 'done',
      status: 'ok',
      output: '42',
      widget: { type: 'Text' },
      clientDurationMs: 7,
      answeredBy: 's1',
      dispatchedTo: ['s1'],
      durationMs: 40,
    });
  });
});
