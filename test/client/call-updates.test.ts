import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallUpdates } from '../../src/client/call-updates';
import type { LeasedCall } from '../../src/client/lease-renewal';
import { MAX_TIMEOUT_MS } from '../../src/limits';
import { Redactor } from '../../src/logger';
import type { ClientFrame } from '../../src/wire/protocol';

afterEach(() => {
  // Spies first: a spy on the fake `setInterval`, restored after the real one is back, would put the fake back.
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function updates(features: string[] | undefined = ['progress', 'preliminary'], maxPayloadBytes = 1_048_576) {
  const sent: ClientFrame[] = [];
  const dropped: string[] = [];
  let writable = true;
  let now = 0;
  // The calls a call runner would hold, by id.
  const held = new Map<string, LeasedCall>();
  const call = (callId: string): LeasedCall => {
    let found = held.get(callId);
    if (found === undefined) {
      found = { callId, heardAt: undefined };
      held.set(callId, found);
    }
    return found;
  };
  const made = new CallUpdates({
    send: (frame) => {
      if (writable) sent.push(frame);
      return writable;
    },
    redactor: new Redactor(['s3cret']),
    maxPayloadBytes: () => maxPayloadBytes,
    widgetInvalid: ({ message }) => dropped.push(message),
    now: () => now,
    calls: held,
  });
  made.setWelcome({ features, heartbeatIntervalMs: 15_000, leaseMs: 3_000 });
  const progress = (callId: string, value: number, message?: string) =>
    made.progress({
      callId,
      runId: 'r1',
      toolName: 'export',
      progress: value,
      ...(message ? { message } : {}),
    });
  const preliminary = (callId: string, output: string, widget?: unknown) =>
    made.preliminary({
      callId,
      runId: 'r1',
      toolName: 'export',
      output,
      value: output,
      ...(widget === undefined ? {} : { widget: widget as never }),
    });
  return {
    made,
    call,
    sent,
    dropped,
    progress,
    preliminary,
    advance(ms: number) {
      now += ms;
      vi.advanceTimersByTime(ms);
    },
    setWritable(value: boolean) {
      writable = value;
    },
  };
}

describe('CallUpdates features', () => {
  it('reads a welcome from an older service that names only the retired agent_name as call_context', () => {
    const { made } = updates(['agent_name', 'progress']);
    expect(made.has('call_context')).toBe(true);
    expect(made.has('progress')).toBe(true);
    expect(made.has('steps')).toBe(false);
  });
});

describe('CallUpdates (progress)', () => {
  it('sends the first at once, then at most one per 250 ms per call, the newest replacing one that waits', () => {
    vi.useFakeTimers();
    const { progress, sent, advance } = updates();
    for (let i = 1; i <= 100; i++) progress('c1', i);
    progress('c2', 7);
    expect(sent).toEqual([
      { type: 'tool_progress', callId: 'c1', seq: 1, progress: 1 },
      { type: 'tool_progress', callId: 'c2', seq: 1, progress: 7 },
    ]);
    advance(249);
    expect(sent).toHaveLength(2);
    advance(1);
    expect(sent.at(-1)).toEqual({ type: 'tool_progress', callId: 'c1', seq: 100, progress: 100 });
    advance(1_000);
    expect(sent).toHaveLength(3);
    progress('c1', 101);
    expect(sent.at(-1)).toMatchObject({ seq: 101, progress: 101 });
  });

  it('sends the waiting one before the result, and redacts the message', () => {
    vi.useFakeTimers();
    const { made, progress, sent } = updates();
    progress('c1', 1);
    progress('c1', 2, 'token s3cret used');
    expect(sent).toHaveLength(1);
    made.beforeResult('c1');
    expect(sent.at(-1)).toEqual({
      type: 'tool_progress',
      callId: 'c1',
      seq: 2,
      progress: 2,
      message: 'token [redacted] used',
    });
    made.beforeResult('c1');
    expect(sent).toHaveLength(2);
  });

  it('sends the latest of each call again after a reconnect, until the result is acknowledged', () => {
    vi.useFakeTimers();
    const { made, progress, sent, setWritable } = updates();
    progress('c1', 1);
    setWritable(false);
    progress('c2', 5);
    setWritable(true);
    made.reconnected();
    expect(sent.slice(1)).toEqual([
      { type: 'tool_progress', callId: 'c1', seq: 1, progress: 1 },
      { type: 'tool_progress', callId: 'c2', seq: 1, progress: 5 },
    ]);
    made.forget('c1');
    made.reconnected();
    expect(sent.slice(3)).toEqual([{ type: 'tool_progress', callId: 'c2', seq: 1, progress: 5 }]);
  });

  it('sends nothing when the service did not take the feature', () => {
    vi.useFakeTimers();
    const { made, progress, sent } = updates([]);
    progress('c1', 1);
    made.reconnected();
    expect(sent).toEqual([]);
    expect(made.has('progress')).toBe(false);
  });
});

describe('CallUpdates (preliminary results)', () => {
  it('coalesces them apart from progress, and sends the waiting ones before the result', () => {
    vi.useFakeTimers();
    const { made, progress, preliminary, sent } = updates();
    preliminary('c1', 'one');
    progress('c1', 1);
    preliminary('c1', 'two');
    preliminary('c1', 'three');
    progress('c1', 2);
    expect(sent.map((f) => f.type)).toEqual(['tool_preliminary', 'tool_progress']);
    made.beforeResult('c1');
    expect(sent.slice(2)).toEqual([
      { type: 'tool_preliminary', callId: 'c1', seq: 3, output: 'three' },
      { type: 'tool_progress', callId: 'c1', seq: 2, progress: 2 },
    ]);
  });

  it('redacts and cuts the output to fit the frame, and drops a widget that does not fit', () => {
    vi.useFakeTimers();
    const { preliminary, sent, dropped, advance } = updates(['preliminary'], 2048);
    preliminary('c1', `s3cret ${'x'.repeat(5000)}`);
    const first = sent[0] as { output: string };
    expect(first.output.startsWith('[redacted] xxx')).toBe(true);
    expect(first.output).toMatch(/\[truncated: the full output was 5011 bytes\]$/);
    expect(JSON.stringify(sent[0]).length).toBeLessThanOrEqual(2048);
    advance(250);
    preliminary('c1', 'small', { type: 'Text', value: 'y'.repeat(4000) });
    expect(sent[1]).toEqual({ type: 'tool_preliminary', callId: 'c1', seq: 2, output: 'small' });
    expect(dropped).toEqual([
      "the preliminary result with its widget is 4102 bytes, over the service's limit of 2048; the widget was dropped",
    ]);
  });
});

describe('CallUpdates (lease)', () => {
  it('sends one lease frame per interval for the started calls that sent nothing else, and none when idle', () => {
    vi.useFakeTimers();
    const { made, call, progress, sent, advance } = updates(['lease', 'progress']);
    // leaseMs 3,000 and a 15 s heartbeat: every 1,000 ms.
    expect(made.leased).toBe(true);
    advance(1_000);
    expect(sent).toEqual([]);
    made.started(call('c1'));
    made.started(call('c2'));
    advance(1_000);
    expect(sent).toEqual([{ type: 'lease', callIds: ['c1', 'c2'] }]);
    advance(500);
    progress('c2', 1);
    advance(500);
    expect(sent.slice(1)).toEqual([
      { type: 'tool_progress', callId: 'c2', seq: 1, progress: 1 },
      { type: 'lease', callIds: ['c1'] },
    ]);
    made.ended(call('c1'));
    made.ended(call('c2'));
    advance(5_000);
    expect(sent).toHaveLength(3);
  });

  it('sets its interval once for calls that start and end one at a time, and stops it at the first idle turn', () => {
    vi.useFakeTimers();
    const setInterval = vi.spyOn(globalThis, 'setInterval');
    const clearInterval = vi.spyOn(globalThis, 'clearInterval');
    const { made, call, sent, advance } = updates(['lease']);
    for (const callId of ['c1', 'c2', 'c3']) {
      made.started(call(callId));
      made.ended(call(callId));
    }
    expect(setInterval).toHaveBeenCalledTimes(1);
    expect(clearInterval).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(1);
    advance(1_000);
    expect(sent).toEqual([]);
    expect(clearInterval).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('lists the ids in the order the calls arrived, and walks no further than the last started call', () => {
    vi.useFakeTimers();
    let now = 0;
    // Held in arrival order: c1, c2 and c3 have begun (c3 before c2), c4 waits for its context, then a queue.
    const held = new Map<string, LeasedCall>();
    for (const callId of ['c1', 'c2', 'c3', 'c4', ...Array.from({ length: 50 }, (_, n) => `q${n}`)])
      held.set(callId, { callId, heardAt: undefined });
    let visited = 0;
    const calls = {
      get: (callId: string) => held.get(callId),
      *values() {
        for (const call of held.values()) {
          visited += 1;
          yield call;
        }
      },
    };
    const sent: ClientFrame[] = [];
    const made = new CallUpdates({
      send: (frame) => sent.push(frame) > 0,
      redactor: new Redactor([]),
      maxPayloadBytes: () => 1_048_576,
      widgetInvalid: () => {},
      now: () => now,
      calls,
    });
    made.setWelcome({ features: ['lease'], heartbeatIntervalMs: 15_000, leaseMs: 3_000 });
    for (const callId of ['c1', 'c3', 'c2']) made.started(held.get(callId)!);
    now = 1_000;
    vi.advanceTimersByTime(1_000);
    expect(sent).toEqual([{ type: 'lease', callIds: ['c1', 'c2', 'c3'] }]);
    expect(visited).toBe(3);
    made.ended(held.get('c2')!);
    now = 2_000;
    vi.advanceTimersByTime(1_000);
    expect(sent[1]).toEqual({ type: 'lease', callIds: ['c1', 'c3'] });
    expect(visited).toBe(3 + 3);
    made.dispose();
  });

  it('renews every started call at once when the session resumes, then one interval later, and not on a new session', () => {
    vi.useFakeTimers();
    const { made, call, sent, advance } = updates(['lease']);
    made.started(call('c1'));
    made.started(call('c2'));
    advance(1_000);
    expect(sent).toEqual([{ type: 'lease', callIds: ['c1', 'c2'] }]);
    // The socket drops (that renewal may have died with it) and a new one resumes the session half an interval on:
    // the service leases the calls from the resume, and hears of them now, not an interval later.
    advance(500);
    made.reconnected(true);
    expect(sent.slice(1)).toEqual([{ type: 'lease', callIds: ['c1', 'c2'] }]);
    advance(999);
    expect(sent).toHaveLength(2);
    advance(1);
    expect(sent.slice(2)).toEqual([{ type: 'lease', callIds: ['c1', 'c2'] }]);
    // A new session knows none of them: nothing is sent at once.
    advance(500);
    made.reconnected(false);
    expect(sent).toHaveLength(3);
    made.dispose();
  });

  it('leases nothing when the service did not take the feature', () => {
    vi.useFakeTimers();
    const { made, call, sent, advance } = updates(['progress']);
    made.started(call('c1'));
    advance(60_000);
    expect(made.leased).toBe(false);
    expect(sent).toEqual([]);
  });

  it('leases nothing when the service announces the feature without its leaseMs (a welcome that lies)', () => {
    vi.useFakeTimers();
    const { made, call, sent, advance } = updates(['lease']);
    made.setWelcome({ features: ['lease'], heartbeatIntervalMs: 15_000 });
    made.started(call('c1'));
    advance(60_000);
    expect(made.leased).toBe(false);
    expect(sent).toEqual([]);
  });
});

describe('CallUpdates (a lease past the longest timer)', () => {
  it('renews once every 2,147,483,647 ms at most when the welcome gives leaseMs and heartbeatIntervalMs of 2^42', () => {
    vi.useFakeTimers();
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const { made, call, sent, advance } = updates(['lease']);
    made.setWelcome({ features: ['lease'], heartbeatIntervalMs: 2 ** 42, leaseMs: 2 ** 42 });
    made.started(call('c1'));
    advance(60_000);
    expect(made.leased).toBe(true);
    expect(intervals.mock.calls.map((args) => args[1])).toEqual([MAX_TIMEOUT_MS]);
    expect(sent).toEqual([]);
    made.dispose();
  });
});

describe('CallUpdates (questions)', () => {
  it('takes an answer whose status this version does not list as the question closed (cancelled), with its reason', async () => {
    const { made, sent } = updates(['questions']);
    const asked = made.ask({
      callId: 'c1',
      runId: 'r1',
      toolName: 'export',
      questionId: 'q1',
      question: 'Which warehouse?',
      signal: new AbortController().signal,
    });
    expect(sent).toMatchObject([{ type: 'question', callId: 'c1', questionId: 'q1' }]);
    made.answer({
      type: 'answer',
      callId: 'c1',
      questionId: 'q1',
      status: 'expired',
      reason: 'nobody answered',
    });
    await expect(asked).rejects.toMatchObject({
      name: 'QuestionError',
      code: 'cancelled',
      message: 'the service closed the question: nobody answered',
    });
  });
});
