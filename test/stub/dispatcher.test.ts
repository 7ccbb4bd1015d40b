/**
 * The dispatcher on its own (server-stub/dispatcher.ts), on fake timers: sessions with no socket under them, the
 * service's moves (a drop, a resume) made by hand, so what is asserted is the service's rule and not a race.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Call } from '../../server-stub/call';
import { gateOf } from '../../server-stub/definitions';
import { Dispatcher } from '../../server-stub/dispatcher';
import { FleetLimiter } from '../../server-stub/fleet';
import { silentLogger } from '../../server-stub/logger';
import { Run } from '../../server-stub/run';
import { Session } from '../../server-stub/session';
import type { Feature, ToolDefinition } from '../../src/wire/protocol';
import { toolDef } from './test-client';

afterEach(() => {
  vi.useRealTimers();
});

/** The stub's defaults scaled down, as a tester ran them: deadline 1 s, lease 6 s (three 2 s heartbeats). */
const OPTIONS = {
  callDeadlineMs: 1_000,
  leaseMs: 6_000,
  busyRetryMs: 250,
  handBackAgainMs: 1_000,
  maxCallDurationMs: 86_400_000,
  maxPayloadBytes: 1_048_576,
  logger: silentLogger,
};

/** A run of an agent with these tools, started over HTTP. */
function runOf(tools: string[]): Run {
  return new Run({
    id: 'run_1',
    agent: { name: 'a', instructions: 'i', tools },
    input: 'x',
    maxTurns: 3,
    depth: 0,
    startedBy: 'api',
  });
}

function harness(options: Partial<typeof OPTIONS> = {}) {
  const sessions = new Map<string, Session>();
  const dispatcher = new Dispatcher({ options: { ...OPTIONS, ...options }, sessions, emit: () => {} });
  const run = runOf(['work']);
  let calls = 0;
  return {
    dispatcher,
    /** A connected session offering `work`, with these features and limits. */
    session(features: Feature[], limits: { maxConcurrency?: number; maxQueue?: number } = {}): Session {
      const session = new Session(`s${sessions.size + 1}`, sessions.size + 1, undefined, 1 << 30, () => {});
      session.features = new Set(features);
      session.setTools([toolDef('work')]);
      session.maxConcurrency = limits.maxConcurrency;
      session.maxQueue = limits.maxQueue;
      sessions.set(session.id, session);
      return session;
    },
    /** The session ends for good, as the service ends it: its grace period ran out, or its client closed with 1000. */
    expire(session: Session): void {
      session.state = 'expired';
      sessions.delete(session.id);
      dispatcher.onSessionExpired(session);
    },
    /** A call of `work` the model asked for now. */
    submit(): Call {
      calls += 1;
      const call = new Call({
        callId: `call_${calls}`,
        modelCallId: `m${calls}`,
        run,
        toolName: 'work',
        arguments: {},
        turn: 1,
      });
      void dispatcher.submit(call);
      return call;
    },
  };
}

describe('Dispatcher: a resume renews the lease (docs/protocol/lease.md)', () => {
  it('keeps a leased call for leaseMs from the resume, though its lease from before the drop has run out', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const worker = session(['lease']);
    const call = submit();
    expect(call.state).toBe('dispatched');
    // The network drops at 2 s; the service keeps the detached session's call past its deadline and its lease.
    vi.advanceTimersByTime(2_000);
    worker.state = 'detached';
    vi.advanceTimersByTime(8_000);
    expect(call.state).toBe('dispatched');
    // 10 s: the session resumes. Its client's first renewal may come up to an interval later, or be lost.
    worker.state = 'connected';
    dispatcher.onSessionReady(worker, true);
    vi.advanceTimersByTime(5_999);
    expect(call.state).toBe('dispatched');
    // Never renewed since: the lease the resume gave runs out, and the deadline cuts the call.
    vi.advanceTimersByTime(1);
    expect(call.toTranscript()).toMatchObject({
      status: 'timeout',
      output: 'Error running work: timed out after 1000ms',
    });
  });

  it('keeps a leased call while the service closes the socket it found silent, past the lease', () => {
    vi.useFakeTimers({ now: 0 });
    const { session, submit } = harness();
    const worker = session(['lease']);
    // The socket under the session, as `ws` shows it: the service has sent its close frame (the client stopped
    // answering: its renewal due at 2 s never came) and waits up to a second for the handshake.
    const socket = { readyState: 1, OPEN: 1, CLOSING: 2, send: () => {} };
    worker.socket = socket as never;
    const call = submit();
    vi.advanceTimersByTime(5_800);
    socket.readyState = socket.CLOSING;
    // 6 s: the lease from the dispatch runs out while the socket closes; the call is kept as for a detached session.
    vi.advanceTimersByTime(700);
    expect(call.state).toBe('dispatched');
    worker.socket = undefined;
    worker.state = 'detached';
    vi.advanceTimersByTime(6_000);
    expect(call.state).toBe('dispatched');
  });

  it('leaves a call that was never leased (queued behind the running one) to its deadline on resume', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const worker = session(['lease'], { maxConcurrency: 1 });
    const running = submit();
    const queued = submit();
    expect([running.state, queued.state]).toEqual(['dispatched', 'dispatched']);
    worker.state = 'detached';
    vi.advanceTimersByTime(500);
    worker.state = 'connected';
    dispatcher.onSessionReady(worker, true);
    vi.advanceTimersByTime(500);
    expect(queued.toTranscript()).toMatchObject({ status: 'timeout' });
    expect(running.state).toBe('dispatched');
  });
});

describe('Dispatcher: a call queued behind the running one is leased once a slot frees for it (docs/protocol/lease.md)', () => {
  it('keeps it past its deadline while it runs, before its client names it', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const worker = session(['lease'], { maxConcurrency: 1 });
    const [first, second, third] = [submit(), submit(), submit()];
    // One slot and one round queued behind it; the third waits in the service.
    expect([first.state, second.state, third.state]).toEqual(['dispatched', 'dispatched', 'waiting']);
    vi.advanceTimersByTime(200);
    // The first ends: its client starts the second now, and is sent the third to queue behind it.
    dispatcher.onResult(worker, { type: 'tool_result', callId: first.callId, status: 'ok', output: 'done' });
    expect([second.activity.leaseUntil, third.activity.leaseUntil]).toEqual([6_200, 0]);
    // Past the deadline (1 s), before its client's first renewal could name it: the second runs on; the third,
    // queued all along, is cut.
    vi.advanceTimersByTime(1_000);
    expect(second.state).toBe('dispatched');
    expect(third.toTranscript()).toMatchObject({ status: 'timeout' });
  });
});

describe('Dispatcher: a call waiting for a worker when the last one offering its tool goes (docs/protocol/routing.md)', () => {
  it("keeps a call queued in the service waiting when its only worker's session expires, for the worker's next session", () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit, expire } = harness();
    const worker = session([], { maxConcurrency: 1, maxQueue: 0 });
    const running = submit();
    const queued = submit();
    expect([running.state, queued.state]).toEqual(['dispatched', 'waiting']);
    worker.state = 'detached';
    vi.advanceTimersByTime(300);
    expire(worker);
    // The call sent to the session and the call that was never sent wait alike (at-least-once, within the deadline).
    expect([running.state, queued.state]).toEqual(['waiting', 'waiting']);
    vi.advanceTimersByTime(300);
    // The worker is back in a new session: it takes both, one at a time.
    const back = session([], { maxConcurrency: 1, maxQueue: 0 });
    dispatcher.onSessionReady(back, false);
    const [first, second] = [queued, running].sort(
      (a, b) => Number(b.state === 'dispatched') - Number(a.state === 'dispatched'),
    );
    expect([first?.state, first?.sessionId, second?.state]).toEqual(['dispatched', back.id, 'waiting']);
    dispatcher.onResult(back, {
      type: 'tool_result',
      callId: first?.callId ?? '',
      status: 'ok',
      output: 'done',
    });
    expect([second?.state, second?.sessionId]).toEqual(['dispatched', back.id]);
    dispatcher.onResult(back, {
      type: 'tool_result',
      callId: second?.callId ?? '',
      status: 'ok',
      output: 'done',
    });
    expect([running, queued].map((call) => call.toTranscript().status)).toEqual(['ok', 'ok']);
  });

  it('keeps it waiting when the worker stops offering the tool, and ends it at its deadline', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const worker = session([], { maxConcurrency: 1, maxQueue: 0 });
    submit();
    const queued = submit();
    worker.setTools([]);
    dispatcher.retryWaiting();
    expect(queued.state).toBe('waiting');
    vi.advanceTimersByTime(1_000);
    expect(queued.toTranscript()).toMatchObject({
      status: 'timeout',
      output: 'Error running work: timed out after 1000ms',
    });
  });

  it('answers unknown_tool at once for a call of a tool no live session offers', () => {
    vi.useFakeTimers({ now: 0 });
    const { submit } = harness();
    expect(submit().toTranscript()).toMatchObject({
      status: 'unknown_tool',
      output: 'Tool "work" not found. No tools are available.',
    });
  });
});

describe('Dispatcher: a call handed back moves on at most every handBackAgainMs (docs/protocol/fleets.md)', () => {
  it('asks a call back again once it has waited that long on the worker it moved to, for a worker with room', async () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness({ handBackAgainMs: 300 });
    const features: Feature[] = ['key_waits', 'hand_back'];
    const frames = (worker: Session) => {
      const sent: string[][] = [];
      vi.spyOn(worker, 'send').mockImplementation((frame) => {
        if (frame.type === 'hand_back') sent.push([...frame.callIds]);
        return true;
      });
      return sent;
    };
    const w1 = session(features, { maxConcurrency: 3 });
    const askedOfW1 = frames(w1);
    const calls = [submit(), submit(), submit(), submit(), submit()];
    expect(calls.every((call) => call.sessionId === w1.id)).toBe(true);
    const ids = calls.map((call) => call.callId);
    dispatcher.keyWaits(w1, { type: 'key_waits', waiting: ids.slice(1) });
    // w2 joins with 2 slots: of w1's 4 waiting calls it is given 2, the last sent.
    const w2 = session(features, { maxConcurrency: 2 });
    const askedOfW2 = frames(w2);
    dispatcher.onSessionReady(w2, false);
    await Promise.resolve();
    expect(askedOfW1).toEqual([[ids[4], ids[3]]]);
    for (const callId of [ids[4], ids[3]] as string[])
      dispatcher.onResult(w1, {
        type: 'tool_result',
        callId,
        status: 'error',
        output: 'busy',
        retryable: true,
      });
    expect([calls[3]?.sessionId, calls[4]?.sessionId]).toEqual([w2.id, w2.id]);
    // Both wait there too (their key is busy on w2); w1's others run now, in all its slots.
    dispatcher.keyWaits(w2, { type: 'key_waits', waiting: [ids[3], ids[4]] as string[] });
    dispatcher.keyWaits(w1, { type: 'key_waits', running: ids.slice(1, 3) });
    // w3 joins with room: w2's calls moved a moment ago, so they stay for now.
    const w3 = session(features, { maxConcurrency: 2 });
    dispatcher.onSessionReady(w3, false);
    await Promise.resolve();
    vi.advanceTimersByTime(299);
    expect(askedOfW2).toEqual([]);
    // 300 ms after they were asked: one of the two moves on, to w3 (the one sent to w2 last).
    vi.advanceTimersByTime(1);
    expect(askedOfW2).toEqual([[ids[3]]]);
    expect(askedOfW1).toHaveLength(1);
  });
});

describe('Dispatcher: a call queued behind running ones is asked back for a worker with room (docs/protocol/routing.md)', () => {
  it('asks the call sent last past the slots, and asks again after handBackAgainMs when the worker did not answer', async () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness({ handBackAgainMs: 300 });
    const w1 = session(['hand_back'], { maxConcurrency: 1, maxQueue: 1 });
    const asked: string[][] = [];
    vi.spyOn(w1, 'send').mockImplementation((frame) => {
      if (frame.type === 'hand_back') asked.push([...frame.callIds]);
      return true;
    });
    // Alone, w1 takes its slot's call and one more round queued behind it.
    const [running, queued] = [submit(), submit()];
    expect([running.sessionId, queued.sessionId]).toEqual([w1.id, w1.id]);
    // w2 joins with a free slot, and nothing waits in the service: w1's queued call is asked back for it.
    const w2 = session(['hand_back'], { maxConcurrency: 1 });
    dispatcher.onSessionReady(w2, false);
    await Promise.resolve();
    expect(asked).toEqual([[queued.callId]]);
    // No answer (w1 may have begun it, taking its queue out of order): nothing more is asked until handBackAgainMs.
    vi.advanceTimersByTime(299);
    expect(asked).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(asked).toEqual([[queued.callId], [queued.callId]]);
    // Answered busy this time: it goes to w2, which starts it at once.
    dispatcher.onResult(w1, {
      type: 'tool_result',
      callId: queued.callId,
      status: 'error',
      output: 'busy',
      retryable: true,
    });
    expect(queued.sessionId).toBe(w2.id);
  });

  it('asks nothing of a worker whose queued call began: once the call before it ends, it is counted running', async () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const w1 = session(['hand_back'], { maxConcurrency: 1, maxQueue: 1 });
    const asked: string[][] = [];
    vi.spyOn(w1, 'send').mockImplementation((frame) => {
      if (frame.type === 'hand_back') asked.push([...frame.callIds]);
      return true;
    });
    const [first, second] = [submit(), submit()];
    dispatcher.onResult(w1, { type: 'tool_result', callId: first.callId, status: 'ok', output: 'done' });
    const w2 = session(['hand_back'], { maxConcurrency: 1 });
    dispatcher.onSessionReady(w2, false);
    await Promise.resolve();
    vi.advanceTimersByTime(5_000);
    expect(asked).toEqual([]);
    expect(second.sessionId).toBe(w1.id);
  });

  it('sends a call asked back that its worker began and held for its approval back there with the decision, once', async () => {
    // The soak's duplicate (test/fault/soak.ts): the worker began the call before it read the ask, ignored the ask,
    // and asked a person; the decision went to the worker it was asked back for, which ran it, and the first worker,
    // told on resume that the call was not its own, was then sent it again and ran it too.
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    /** The `tool_call`s a worker is written (none while its socket is down), and the calls it is asked back. */
    const frames = (worker: Session) => {
      const sent = { calls: [] as Array<{ callId: string; approved?: boolean }>, asked: [] as string[][] };
      vi.spyOn(worker, 'send').mockImplementation((frame) => {
        if (worker.state !== 'connected') return false;
        if (frame.type === 'tool_call') sent.calls.push({ callId: frame.callId, approved: frame.approved });
        if (frame.type === 'hand_back') sent.asked.push([...frame.callIds]);
        return true;
      });
      return sent;
    };
    const features: Feature[] = ['hand_back', 'owed_calls'];
    const w1 = session(features, { maxConcurrency: 1, maxQueue: 1 });
    const toW1 = frames(w1);
    const [, queued] = [submit(), submit()] as [Call, Call];
    const w2 = session(features, { maxConcurrency: 1 });
    const toW2 = frames(w2);
    dispatcher.onSessionReady(w2, false);
    await Promise.resolve();
    expect(toW1.asked).toEqual([[queued.callId]]);
    // w1 had begun it (its slot freed first): the ask is ignored, and its predicate asks a person about the call.
    dispatcher.hold(queued, 'client', undefined);
    await Promise.resolve();
    // Its socket drops; the person approves meanwhile. The decision waits for w1, which asked.
    w1.state = 'detached';
    expect(queued.decide({ approved: true, by: 'http' })).toBe(true);
    dispatcher.release(queued);
    expect(queued.sessionId).toBe(w1.id);
    expect(toW2.calls).toEqual([]);
    // w1 resumes: the call is owed there, and it goes there with its decision; w2 never gets it.
    w1.state = 'connected';
    toW1.calls.length = 0;
    expect(dispatcher.owedBy(w1)).toContain(queued.callId);
    dispatcher.onSessionReady(w1, true);
    expect(toW1.calls).toContainEqual({ callId: queued.callId, approved: true });
    expect(toW2.calls).toEqual([]);
    // Every call re-sent on the resume is one the session owes (a client drops the others, then runs them anew).
    const owed = dispatcher.owedBy(w1);
    for (const { callId } of toW1.calls) expect(owed).toContain(callId);
  });
});

describe('Dispatcher: a busy client (docs/protocol/routing.md#a-busy-client)', () => {
  it('offers the room a call answered busy held to the calls waiting behind it, and that call again later', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const worker = session([], { maxConcurrency: 1, maxQueue: 0 });
    const calls = [submit(), submit()];
    const states = () => calls.map((call) => call.state);
    expect(states()).toEqual(['dispatched', 'waiting']);
    // The client refuses the first (its callers waiting on nested runs fill it): the second goes at once, rather
    // than wait behind a call the client keeps refusing (the nested runs' calls it would take, in agents.test.ts).
    const [first, second] = calls as [Call, Call];
    dispatcher.onResult(worker, {
      type: 'tool_result',
      callId: first.callId,
      status: 'error',
      output: 'busy',
      retryable: true,
    });
    expect(states()).toEqual(['waiting', 'dispatched']);
    expect(second.sessionId).toBe(worker.id);
    // The refused one is offered again once the second ends.
    vi.advanceTimersByTime(250);
    expect(states()).toEqual(['waiting', 'dispatched']);
    dispatcher.onResult(worker, { type: 'tool_result', callId: second.callId, status: 'ok', output: 'done' });
    expect(states()).toEqual(['dispatched', 'done']);
  });
});

describe('Dispatcher: calls held for a person (docs/protocol/approvals.md)', () => {
  it('offers a worker a waiting call as soon as one of its calls is held for the approval it asked for', async () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const worker = session([], { maxConcurrency: 1, maxQueue: 1 });
    const calls = [submit(), submit(), submit()];
    // One slot and one more round: the third waits in the service.
    expect(calls.map((call) => call.state)).toEqual(['dispatched', 'dispatched', 'waiting']);
    // The client's predicate asks a human about the first (`approval_request`): it holds no slot now.
    dispatcher.hold(calls[0] as Call, 'client', undefined);
    await Promise.resolve();
    expect(calls.map((call) => call.state)).toEqual(['awaiting_approval', 'dispatched', 'dispatched']);
    expect(calls[2]?.sessionId).toBe(worker.id);
  });

  it('counts calls waiting for their client’s approver in no slot, within maxConcurrency + maxQueue, leased and never asked back', async () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = harness();
    const features: Feature[] = ['approval_waits', 'key_waits', 'hand_back', 'lease'];
    const worker = session(features, { maxConcurrency: 1, maxQueue: 3 });
    const askedBack: string[][] = [];
    vi.spyOn(worker, 'send').mockImplementation((frame) => {
      if (frame.type === 'hand_back') askedBack.push([...frame.callIds]);
      return true;
    });
    const calls = Array.from({ length: 6 }, () => submit());
    const ids = calls.map((call) => call.callId);
    const states = () => calls.map((call) => call.state);
    expect(states()).toEqual(['dispatched', 'dispatched', 'waiting', 'waiting', 'waiting', 'waiting']);
    // The first two wait for a person: two more are sent, and then the worker holds maxConcurrency + maxQueue.
    dispatcher.approvalWaits(worker, { type: 'approval_waits', waiting: ids.slice(0, 2) });
    expect(states()).toEqual(['dispatched', 'dispatched', 'dispatched', 'dispatched', 'waiting', 'waiting']);
    // Past their deadline (1 s): named by the frame, the waiting calls are leased (6 s), and so is the third, sent
    // into the free slot; the fourth, sent to queue behind it and never named, is cut, and so are the last two,
    // sent into its room past their deadline.
    vi.advanceTimersByTime(1_000);
    expect(states()).toEqual(['dispatched', 'dispatched', 'dispatched', 'done', 'done', 'done']);
    // A worker with room joins: nothing is asked back of the person's calls.
    const taker = session(features, { maxConcurrency: 2 });
    dispatcher.onSessionReady(taker, false);
    await Promise.resolve();
    expect(askedBack).toEqual([]);
    // Approved, they hold their slots again: the session is full, and their lease is renewed.
    vi.advanceTimersByTime(4_000);
    dispatcher.approvalWaits(worker, { type: 'approval_waits', running: ids.slice(0, 2) });
    vi.advanceTimersByTime(5_999);
    expect(calls.slice(0, 2).map((call) => call.state)).toEqual(['dispatched', 'dispatched']);
    vi.advanceTimersByTime(1);
    expect(calls.slice(0, 2).map((call) => call.state)).toEqual(['done', 'done']);
  });
});

describe('Dispatcher: fleet-wide limits (docs/protocol/fleet-limits.md)', () => {
  /** Sessions offering `tools` (each a name and its definition's extras), with a fleet limiter on fake time. */
  function fleetHarness(tools: Record<string, Partial<ToolDefinition>>) {
    const sessions = new Map<string, Session>();
    const fleet = new FleetLimiter(() => Date.now());
    // Deadlines longer than the windows waited for.
    const options = { ...OPTIONS, callDeadlineMs: 60_000 };
    const dispatcher = new Dispatcher({ options, sessions, emit: () => {}, fleet });
    const run = runOf(Object.keys(tools));
    let calls = 0;
    return {
      dispatcher,
      fleet,
      session(): Session {
        const session = new Session(`s${sessions.size + 1}`, sessions.size + 1, undefined, 1 << 30, () => {});
        session.features = new Set<Feature>(['fleet']);
        session.setTools(Object.entries(tools).map(([name, extra]) => ({ ...toolDef(name), ...extra })));
        vi.spyOn(session, 'send').mockReturnValue(true);
        sessions.set(session.id, session);
        return session;
      },
      submit(toolName: string): Call {
        calls += 1;
        const call = new Call({
          callId: `call_${calls}`,
          modelCallId: `m${calls}`,
          run,
          toolName,
          arguments: {},
          turn: 1,
        });
        void dispatcher.submit(call);
        return call;
      },
    };
  }

  it('holds an approved call to the limits as any other: a decision is not a dispatch', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, fleet, session, submit } = fleetHarness({
      work: { needsApproval: true, fleet: { concurrency: 1, perSecond: 100 } },
    });
    const w1 = session();
    session();
    const calls = [submit('work'), submit('work'), submit('work')];
    // Each is held for a person first, sent nowhere: the limits count nothing yet.
    expect(calls.map((call) => call.state)).toEqual([
      'awaiting_approval',
      'awaiting_approval',
      'awaiting_approval',
    ]);
    for (const call of calls) {
      call.decide({ approved: true, by: 'http' });
      dispatcher.release(call);
    }
    expect(calls.map((call) => call.state)).toEqual(['dispatched', 'waiting', 'waiting']);
    expect(fleet.inFlight(undefined, 'work')).toBe(1);
    dispatcher.onResult(w1, {
      type: 'tool_result',
      callId: calls[0]?.callId as string,
      status: 'ok',
      output: 'x',
    });
    vi.advanceTimersByTime(10);
    expect(calls.map((call) => call.state)).toEqual(['done', 'dispatched', 'waiting']);
    expect(fleet.inFlight(undefined, 'work')).toBe(1);
  });

  it('counts a call its worker held for a decision once, from its first dispatch', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, fleet, session, submit } = fleetHarness({ work: { fleet: { concurrency: 1 } } });
    const w1 = session();
    const call = submit('work');
    expect(call.state).toBe('dispatched');
    dispatcher.hold(call, 'client', undefined);
    call.decide({ approved: true, by: 'http' });
    dispatcher.release(call);
    expect(call.state).toBe('dispatched');
    expect(fleet.inFlight(undefined, 'work')).toBe(1);
    dispatcher.onResult(w1, { type: 'tool_result', callId: call.callId, status: 'ok', output: 'x' });
    expect(fleet.inFlight(undefined, 'work')).toBe(0);
  });

  it("sends a tool's waiting call when its own window allows, whatever another tool's window", () => {
    vi.useFakeTimers({ now: 0 });
    const { session, submit } = fleetHarness({
      slow: { fleet: { perSecond: 0.1 } },
      fast: { fleet: { perSecond: 1 } },
    });
    session();
    const slow = [submit('slow'), submit('slow')];
    const fast = [submit('fast'), submit('fast')];
    expect([...slow, ...fast].map((call) => call.state)).toEqual([
      'dispatched',
      'waiting',
      'dispatched',
      'waiting',
    ]);
    // fast's window lets one more start after 1 s; slow's only after 10 s.
    vi.advanceTimersByTime(1_000);
    expect(fast[1]?.state).toBe('dispatched');
    expect(slow[1]?.state).toBe('waiting');
    vi.advanceTimersByTime(9_000);
    expect(slow[1]?.state).toBe('dispatched');
  });

  it('tells the model a fleet limit held back a call whose deadline passed while it waited', () => {
    vi.useFakeTimers({ now: 0 });
    const { session, submit } = fleetHarness({ work: { fleet: { concurrency: 1 } } });
    session();
    const [running, held] = [submit('work'), submit('work')];
    vi.advanceTimersByTime(60_000);
    expect(running.result?.output).toBe('Error running work: timed out after 60000ms');
    expect(held.result?.output).toBe(
      "Error running work: timed out after 60000ms: the tool's fleet-wide limit (concurrency 1) held it back",
    );
  });

  it('sets no timer longer than a timer takes, however small perSecond is', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = fleetHarness({ rare: { fleet: { perSecond: 1e-8 } } });
    session();
    const retries = vi.spyOn(dispatcher, 'retryWaiting');
    const calls = [submit('rare'), submit('rare')];
    expect(calls.map((call) => call.state)).toEqual(['dispatched', 'waiting']);
    // A delay past the longest a timer takes fires after 1 ms instead, and again, every millisecond.
    vi.advanceTimersByTime(1_000);
    expect(retries).not.toHaveBeenCalled();
  });
});

describe('Dispatcher: workers that disagree on a definition (docs/protocol/routing.md)', () => {
  /** `refund` as an old worker announces it, and as a new one that takes one more argument. */
  const OLD: ToolDefinition = { ...toolDef('refund'), description: 'Refunds an order.' };
  const NEW: ToolDefinition = {
    ...OLD,
    parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
  };
  /** The old definition in other words: it takes the same arguments. */
  const REWORDED: ToolDefinition = { ...OLD, description: 'Refunds an order, in full.' };

  /** Sessions offering `refund` as each says, every frame sent kept; calls of `refund` shown a definition. */
  function disagreeing() {
    const sessions = new Map<string, Session>();
    const events: Array<{ kind: string; data: unknown }> = [];
    const dispatcher = new Dispatcher({
      options: OPTIONS,
      sessions,
      emit: (_run, kind, data) => events.push({ kind, data }),
    });
    const run = runOf(['refund']);
    const sent = new Map<Session, Array<Record<string, unknown>>>();
    let calls = 0;
    return {
      dispatcher,
      events,
      sent,
      session(
        definition: ToolDefinition,
        extra: { maxConcurrency?: number; localApprovals?: boolean; features?: Feature[] } = {},
      ): Session {
        const session = new Session(`s${sessions.size + 1}`, sessions.size + 1, undefined, 1 << 30, () => {});
        session.features = new Set(extra.features ?? []);
        session.setTools([definition]);
        session.maxConcurrency = extra.maxConcurrency;
        session.localApprovals = extra.localApprovals === true;
        const frames: Array<Record<string, unknown>> = [];
        sent.set(session, frames);
        vi.spyOn(session, 'send').mockImplementation((frame) => {
          frames.push(frame as never);
          return true;
        });
        sessions.set(session.id, session);
        return session;
      },
      /** A call of `refund` the model asked for after it was shown `shown` (a copy: compared by digest). */
      submit(shown: ToolDefinition): Call {
        calls += 1;
        const call = new Call({
          callId: `call_${calls}`,
          modelCallId: `m${calls}`,
          run,
          toolName: 'refund',
          arguments: {},
          turn: 1,
          shown: structuredClone(shown),
          gate: gateOf('refund', shown, [...sessions.values()]),
        });
        void dispatcher.submit(call);
        return call;
      },
    };
  }

  it('sends a call only to the sessions that take the arguments the model was shown while one is connected', () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, session, submit } = disagreeing();
    // The old worker is older and idle: only its other arguments keep the calls from it.
    const old = session(OLD, { maxConcurrency: 1 });
    const fresh = session(NEW, { maxConcurrency: 1 });
    const calls = [submit(NEW), submit(NEW), submit(NEW), submit(NEW)];
    // Two to the new worker (one running, one queued behind it: its room); the others wait for it, rather than
    // fail on a worker that would refuse their arguments (or drop one).
    expect(calls.map((call) => call.sessionId)).toEqual([fresh.id, fresh.id, undefined, undefined]);
    dispatcher.onResult(fresh, { type: 'tool_result', callId: 'call_1', status: 'ok', output: 'x' });
    expect(calls[2]?.sessionId).toBe(fresh.id);
    // A call shown the old definition goes the other way.
    expect(submit(OLD).sessionId).toBe(old.id);
    // No connected worker takes the new arguments: the old one is sent the call rather than let it wait.
    fresh.state = 'detached';
    dispatcher.retryWaiting();
    expect(calls[3]?.sessionId).toBe(old.id);
  });

  it('shares the calls among workers whose definitions differ only in words', () => {
    vi.useFakeTimers({ now: 0 });
    const { session, submit } = disagreeing();
    const old = session(OLD, { maxConcurrency: 1 });
    const fresh = session(REWORDED, { maxConcurrency: 1 });
    expect([submit(REWORDED), submit(REWORDED)].map((call) => call.sessionId).sort()).toEqual(
      [old.id, fresh.id].sort(),
    );
  });

  it.each([
    ['says so', 'does not', false],
    ['says so', 'does not, and it decides locally', true],
    ['does not', 'says so', false],
  ] as const)(
    "holds a call for a decision when the definition shown %s and the receiving worker's %s",
    (shownGate, _own, localApprovals) => {
      vi.useFakeTimers({ now: 0 });
      const { dispatcher, events, sent, session, submit } = disagreeing();
      const gated = { ...NEW, needsApproval: true, approvalReason: 'Refunds move money.' };
      const shown = shownGate === 'says so' ? gated : OLD;
      const worker = session(shownGate === 'says so' ? OLD : gated, { localApprovals });
      const call = submit(shown);
      expect(call.state).toBe('awaiting_approval');
      expect(sent.get(worker)).toEqual([]);
      expect(events.find((event) => event.kind === 'approval_requested')?.data).toEqual({
        callId: call.callId,
        toolName: 'refund',
        arguments: {},
        requestedBy: 'definition',
        reason: 'Refunds move money.',
      });
      call.decide({ approved: true, by: 'http' });
      dispatcher.release(call);
      expect(sent.get(worker)).toEqual([expect.objectContaining({ callId: call.callId, approved: true })]);
    },
  );

  it('sends a call undecided to a worker whose own definition needs approval and that decides locally', () => {
    vi.useFakeTimers({ now: 0 });
    const { sent, session, submit } = disagreeing();
    const worker = session({ ...NEW, needsApproval: true }, { localApprovals: true });
    const call = submit(OLD);
    expect(call.state).toBe('dispatched');
    expect(sent.get(worker)).toEqual([expect.not.objectContaining({ approved: expect.anything() })]);
  });

  it('hands back a call waiting for its key to a worker that agrees with what the model was shown, never to one that differs', async () => {
    vi.useFakeTimers({ now: 0 });
    const { dispatcher, sent, session, submit } = disagreeing();
    const features: Feature[] = ['key_waits', 'hand_back'];
    const holder = session(NEW, { maxConcurrency: 4, features });
    const calls = [submit(NEW), submit(NEW), submit(NEW), submit(NEW)];
    dispatcher.keyWaits(holder, { type: 'key_waits', waiting: calls.slice(1).map((call) => call.callId) });
    const handBacks = () => (sent.get(holder) ?? []).filter((frame) => frame.type === 'hand_back');
    // An old worker with room joins: it would take calls shown a definition it does not have.
    dispatcher.onSessionReady(session(OLD, { maxConcurrency: 2, features }), false);
    await Promise.resolve();
    expect(handBacks()).toEqual([]);
    // A new one joins: it takes its share.
    dispatcher.onSessionReady(session(NEW, { maxConcurrency: 2, features }), false);
    await Promise.resolve();
    expect(handBacks()).toEqual([{ type: 'hand_back', callIds: ['call_4'] }]);
  });
});
