/**
 * Feature `owed_calls` (docs/protocol/calls-no-longer-held.md): a resume's `welcome` lists the calls the service is still owed a
 * result for by the session, and the client drops every call it holds that is not among them: their `cancel` was
 * lost with the socket. A call runner over a recording socket; every step waits for a task, never for time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QuestionError, tool } from '../../src/index';
import type { ClientFrame } from '../../src/wire/protocol';
import {
  nextTask,
  parkedOnSocketApproval,
  recording,
  recordsCalls,
  results,
  waitsForAbort,
} from './call-runner-harness';

const NOT_DISPATCHED =
  'cancelled by the service (not_dispatched): the call had already ended there, or gone to another worker';

/** A resume's `welcome`, with `owed` and the features the service took. */
const resumed = (owed: string[] | undefined, features = ['owed_calls']) => ({
  resumed: true,
  features,
  heartbeatIntervalMs: 60_000,
  ...(owed === undefined ? {} : { owed }),
});

/** The `tool_result` events of a call runner, as `callId:status`. */
function endings() {
  const ended: string[] = [];
  const events = {
    toolCall() {},
    toolResult(info: { callId: string; status: string }) {
      ended.push(`${info.callId}:${info.status}`);
    },
    approvalRequested() {},
    widgetInvalid() {},
  };
  return { ended, events };
}

/** A tool that records each call it starts and runs until let go (`letGo`) or aborted (`aborted`: the reasons). */
function gatedTool(name: string, needsApproval = false) {
  const started: string[] = [];
  const aborted: unknown[] = [];
  const gates = new Map<string, () => void>();
  const made = tool({
    name,
    description: 'Refunds an order, once let go.',
    needsApproval,
    execute: (_input, ctx) =>
      new Promise<string>((resolve) => {
        started.push(ctx.callId);
        gates.set(ctx.callId, () => resolve('refunded'));
        ctx.signal.addEventListener('abort', () => {
          aborted.push(ctx.signal.reason);
          resolve('stopped');
        });
      }),
  });
  return { tool: made, started, aborted, letGo: (callId: string) => gates.get(callId)?.() };
}

const toolResults = (sent: ClientFrame[]) => results(sent);

afterEach(() => {
  vi.useRealTimers();
});

describe('a resume whose welcome lists the calls owed (feature owed_calls)', () => {
  it('never starts a queued call left out of owed; the owed one queued behind it starts in its turn', async () => {
    const refund = gatedTool('refund');
    const { ended, events } = endings();
    const { calls, call, sent } = recording([refund.tool], { maxConcurrency: 1, events });
    call('c1', 'refund');
    call('c2', 'refund');
    call('c3', 'refund');
    await nextTask();
    expect(refund.started).toEqual(['c1']);
    expect(calls.queued).toBe(2);
    calls.welcomed(resumed(['c1', 'c3']));
    expect(calls.queued).toBe(1);
    refund.letGo('c1');
    await nextTask();
    refund.letGo('c3');
    await nextTask();
    expect(refund.started).toEqual(['c1', 'c3']);
    // No result for the dropped call: the service wants none.
    expect(toolResults(sent)).toEqual(['c1:ok', 'c3:ok']);
    expect(ended).toEqual(['c2:cancelled', 'c1:ok', 'c3:ok']);
  });

  it('starts no queued call while the socket is down, when a slot frees there: the resume says which may', async () => {
    // The run of c2 may be cancelled while the socket is down, its cancel lost: c2 waits for the resume's list.
    for (const owed of [['c3'], []]) {
      const refund = gatedTool('refund');
      const { calls, call, sent } = recording([refund.tool], { maxConcurrency: 1 });
      calls.welcomed({ ...resumed(undefined), resumed: false });
      call('c1', 'refund');
      call('c2', 'refund');
      call('c3', 'refund');
      await nextTask();
      calls.disconnected();
      refund.letGo('c1');
      await nextTask();
      expect(refund.started).toEqual(['c1']);
      expect(calls.queued).toBe(2);
      calls.welcomed(resumed(owed));
      await nextTask();
      expect(refund.started).toEqual(owed.length === 0 ? ['c1'] : ['c1', 'c3']);
      expect(calls.queued).toBe(0);
      // c1's result, sent again at the resume (no ack came); none for the dropped call.
      expect(new Set(toolResults(sent))).toEqual(new Set(['c1:ok']));
    }
  });

  it('starts no call its local approver approves while the socket is down: the resume says whether it is still owed', async () => {
    // The service may have given the call to another worker meanwhile, which asks its own approver and runs it: a
    // refund approved here while the socket was down would run twice.
    for (const owed of [['g1'], []]) {
      const answers: Array<(approved: boolean) => void> = [];
      const refund = gatedTool('refund', true);
      const { calls, sent } = recording([refund.tool], {
        onApproval: () => new Promise<boolean>((resolve) => answers.push(resolve)),
      });
      calls.welcomed({ ...resumed(undefined), resumed: false });
      calls.receive({ type: 'tool_call', callId: 'g1', runId: 'r1', toolName: 'refund', arguments: {} });
      await nextTask();
      expect(answers).toHaveLength(1);
      calls.disconnected();
      answers[0]!(true);
      await nextTask();
      await nextTask();
      expect(refund.started).toEqual([]);
      calls.welcomed(resumed(owed));
      await nextTask();
      await nextTask();
      expect(refund.started).toEqual(owed.length === 0 ? [] : ['g1']);
      refund.letGo('g1');
      await nextTask();
      expect(toolResults(sent)).toEqual(owed.length === 0 ? [] : ['g1:ok']);
    }
  });

  it('goes on with a call whose tool began while one approved with the socket down waits before it in line', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // `asker` began: its question times out (30 ms) while the one slot is busy, and it waits to go on.
    const went: string[] = [];
    const asker = tool({
      name: 'asker',
      description: 'Asks, then goes on.',
      execute: async (_input, ctx) => {
        const got = await ctx.askQuestion('Which warehouse?', { timeoutMs: 30 }).then(
          () => 'answered',
          (error: unknown) => (error instanceof QuestionError ? error.code : 'not a QuestionError'),
        );
        went.push(got);
        return got;
      },
    });
    const refund = gatedTool('refund', true);
    const busy = gatedTool('busy');
    const answers: Array<(approved: boolean) => void> = [];
    const { calls, call } = recording([asker, refund.tool, busy.tool], {
      maxConcurrency: 1,
      onQuestion: () => new Promise(() => {}),
      onApproval: () => new Promise<boolean>((resolve) => answers.push(resolve)),
    });
    calls.welcomed({ ...resumed(undefined), resumed: false });
    call('a1', 'asker');
    await nextTask();
    call('g1', 'refund');
    await nextTask();
    call('b1', 'busy');
    await nextTask();
    expect([busy.started, answers.length]).toEqual([['b1'], 1]);
    calls.disconnected();
    // g1 approved with the socket down: first in line, waiting for the resume's owed list.
    answers[0]?.(true);
    await nextTask();
    vi.advanceTimersByTime(30);
    await nextTask();
    // a1's question timed out: it is in line behind g1 for the slot b1 holds.
    busy.letGo('b1');
    await nextTask();
    await nextTask();
    expect([went, refund.started]).toEqual([['timeout'], []]);
    calls.welcomed(resumed(['a1', 'g1']));
    await nextTask();
    await nextTask();
    expect(refund.started).toEqual(['g1']);
    refund.letGo('g1');
    calls.abortAll('test over');
    calls.dispose();
  });

  it('starts queued calls while the socket is down with a service that lists none, and after a new session', async () => {
    for (const [first, next] of [
      [resumed(undefined, []), resumed(undefined, [])],
      [resumed(undefined), { ...resumed(undefined), resumed: false }],
    ] as const) {
      const refund = gatedTool('refund');
      const { calls, call } = recording([refund.tool], { maxConcurrency: 1 });
      calls.welcomed({ ...first, resumed: false });
      call('c1', 'refund');
      call('c2', 'refund');
      await nextTask();
      calls.disconnected();
      refund.letGo('c1');
      await nextTask();
      const downStarted = [...refund.started];
      calls.welcomed(next);
      await nextTask();
      expect({ downStarted, started: refund.started }).toEqual({
        downStarted: first.features.length === 0 ? ['c1', 'c2'] : ['c1'],
        started: ['c1', 'c2'],
      });
    }
  });

  it('aborts a running call left out of owed with the not_dispatched reason, sends nothing, and runs it anew if sent again', async () => {
    const reasons: unknown[] = [];
    const { ended, events } = endings();
    const { calls, call, sent } = recording(
      [waitsForAbort('refund', (_id, reason) => reasons.push(reason))],
      {
        events,
      },
    );
    call('r1', 'refund');
    await nextTask();
    expect(calls.running).toBe(1);
    calls.welcomed(resumed([]));
    await nextTask();
    expect(reasons).toEqual([
      expect.objectContaining({ name: 'AbortError', message: NOT_DISPATCHED, cause: 'not_dispatched' }),
    ]);
    expect(reasons[0]).toBeInstanceOf(DOMException);
    expect(ended).toEqual(['r1:cancelled']);
    expect(toolResults(sent)).toEqual([]);
    expect({ running: calls.running, unacked: calls.unacked }).toEqual({ running: 0, unacked: 0 });
    // Not remembered as finished: sent again (the only worker left, say), it runs anew.
    call('r1', 'refund');
    await nextTask();
    expect(calls.running).toBe(1);
  });

  it('drops a call waiting for its concurrency key: it never runs when the key frees', async () => {
    const ran: string[] = [];
    const gates: Array<() => void> = [];
    const keyed = tool({
      name: 'keyed',
      description: 'One call a customer at a time.',
      concurrency: { limit: 1, key: () => 'customer-1' },
      execute: async (_input, ctx) => {
        ran.push(ctx.callId);
        await new Promise<void>((resolve) => gates.push(resolve));
        return 'done';
      },
    });
    const { ended, events } = endings();
    const { calls, call, sent } = recording([keyed], { events });
    call('k1', 'keyed');
    call('k2', 'keyed');
    await nextTask();
    expect(ran).toEqual(['k1']);
    expect(calls.queued).toBe(1);
    calls.welcomed(resumed(['k1']));
    await nextTask();
    expect(calls.queued).toBe(0);
    gates[0]?.();
    await nextTask();
    await nextTask();
    expect(ran).toEqual(['k1']);
    expect(toolResults(sent)).toEqual(['k1:ok']);
    expect(ended).toEqual(['k2:cancelled', 'k1:ok']);
  });

  it('ends a call waiting for the answer to its question: it no longer counts in stats.waiting', async () => {
    const seen: string[] = [];
    const asker = tool({
      name: 'asker',
      description: 'Asks which warehouse.',
      execute: async (_input, ctx) => {
        try {
          return await ctx.askQuestion('Which warehouse?');
        } catch (error) {
          seen.push(String(error));
          return 'not exported';
        }
      },
    });
    const { calls, call, sent } = recording([asker]);
    calls.welcomed({ features: ['questions', 'owed_calls'], heartbeatIntervalMs: 60_000 });
    call('a1', 'asker');
    await nextTask();
    expect(calls.waiting).toBe(1);
    calls.welcomed(resumed([], ['questions', 'owed_calls']));
    await nextTask();
    expect(seen).toEqual(['QuestionError: the call was cancelled']);
    expect(calls.waiting).toBe(0);
    // Its question is not asked again on the new socket, and no result goes out.
    expect(sent.map((frame) => frame.type)).toEqual(['question', 'question_cancel']);
  });

  it('ends a call waiting for the decision it asked for, without asking again', async () => {
    const setup = parkedOnSocketApproval();
    setup.start();
    await nextTask();
    expect(setup.sent.map((frame) => frame.type)).toEqual(['approval_request']);
    setup.calls.welcomed(resumed([]));
    await nextTask();
    expect(setup.sent.map((frame) => frame.type)).toEqual(['approval_request']);
    expect(setup.calls.waiting).toBe(0);
    expect(setup.ran).toEqual([]);
  });

  it('leaves a finished call alone: its result, waiting for its ack, goes out again', async () => {
    const echo = recordsCalls('echo');
    const { calls, call, sent } = recording([echo.tool, waitsForAbort('refund')]);
    call('f1', 'echo');
    call('r1', 'refund');
    await nextTask();
    expect(toolResults(sent)).toEqual(['f1:ok']);
    // Neither is owed: the service recorded f1's result before the drop (its ack was lost) and r1 ended there.
    calls.welcomed(resumed([]));
    await nextTask();
    expect(toolResults(sent)).toEqual(['f1:ok', 'f1:ok']);
    expect(calls.unacked).toBe(1);
    calls.ack('f1');
    expect({ running: calls.running, unacked: calls.unacked }).toEqual({ running: 0, unacked: 0 });
  });

  it('ignores an owed id it does not hold, and takes its tool_call after the welcome; an owed call it holds is joined', async () => {
    const refund = gatedTool('refund');
    const { calls, call, sent } = recording([refund.tool]);
    call('c1', 'refund');
    await nextTask();
    // c2 was lost with the socket: owed, and sent again after the welcome.
    calls.welcomed(resumed(['c1', 'c2']));
    call('c1', 'refund');
    call('c2', 'refund');
    await nextTask();
    expect(refund.started).toEqual(['c1', 'c2']);
    refund.letGo('c1');
    refund.letGo('c2');
    await nextTask();
    expect(toolResults(sent)).toEqual(['c1:ok', 'c2:ok']);
  });

  it('resolves a drain waiting for the calls once the last one held is dropped', async () => {
    const { calls, call } = recording([waitsForAbort('refund')]);
    call('r1', 'refund');
    await nextTask();
    let drained = false;
    void calls.idle().then(() => {
      drained = true;
    });
    calls.welcomed(resumed([]));
    await nextTask();
    expect(drained).toBe(true);
  });
});

describe('a welcome that does not list the calls owed: every call is kept', () => {
  it.each([
    ['an older service (owed_calls not taken), even with a list', resumed([], [])],
    ['a service that took owed_calls but sent no list (unknown)', resumed(undefined)],
    ['a new session', { ...resumed([]), resumed: false }],
  ])('%s', async (_case, welcome) => {
    const refund = gatedTool('refund');
    const { calls, call, sent } = recording([refund.tool], { maxConcurrency: 1 });
    call('c1', 'refund');
    call('c2', 'refund');
    await nextTask();
    calls.welcomed(welcome);
    await nextTask();
    expect(refund.aborted).toEqual([]);
    refund.letGo('c1');
    await nextTask();
    refund.letGo('c2');
    await nextTask();
    expect(refund.started).toEqual(['c1', 'c2']);
    expect(toolResults(sent)).toEqual(['c1:ok', 'c2:ok']);
  });
});
