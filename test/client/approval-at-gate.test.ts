import { describe, expect, it, vi } from 'vitest';
import type { ApprovalDecision, ApprovalRequest } from '../../src/call/types';
import { keyedTool } from '../support/keyed-tool';
import { gatedInOneSlot, nextTask, recording, results } from './call-runner-harness';

const welcome = { heartbeatIntervalMs: 60_000, sessionGraceMs: 60_000 };

/** g2 (needs approval) on tenant a, a1 (no approval) holding a's key: g2, once approved, waits at a's gate. */
function setup(onRequest: (request: ApprovalRequest) => void = () => {}) {
  const asked: string[] = [];
  const requests: ApprovalRequest[] = [];
  const answers: Array<(decision: ApprovalDecision) => void> = [];
  const keyed = keyedTool(1, (n) => n === 2);
  const { calls, sent } = recording([keyed.work], {
    maxConcurrency: 4,
    onApproval: (request) => {
      asked.push(request.callId);
      requests.push(request);
      onRequest(request);
      return new Promise<ApprovalDecision>((resolve) => answers.push(resolve));
    },
  });
  calls.welcomed(welcome);
  const send = (callId: string, n: number, tenant = 'a') =>
    calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'work', arguments: { tenant, n } });
  const takeBack = (callId: string) => calls.handle({ type: 'cancel', callId, reason: 'not_dispatched' });
  /** g2 sent (its approver asked), then a1, which runs and holds key a: g2, once approved, waits behind it. */
  const askedBehindA1 = async () => {
    send('g2', 2);
    await nextTask();
    send('a1', 1);
    await nextTask();
  };
  return { ...keyed, calls, sent, asked, requests, answers, send, takeBack, askedBehindA1 };
}

/**
 * A call of a tool with `concurrency` approved by the local approver's later answer takes its slot, then waits at
 * its key's gate: its answer is used only when its tool begins (src/client/approvals.ts `atGate`, `begins`), so
 * taken back before that and sent again, it is not asked again.
 */
describe('An approved call taken back at its key', () => {
  it.each([
    ['told not_dispatched', 'cancel'],
    ['left out of a resumed session', 'resume'],
  ] as const)('keeps the answer for the call sent again when %s', async (_, how) => {
    const t = setup();
    await t.askedBehindA1();
    t.answers[0]!(true);
    await nextTask();
    // Approved, it waits at its key's gate behind a1: its tool has not begun, and it waits for no decision.
    expect(t.started).toEqual(['a1']);
    expect(t.calls.waiting).toBe(0);
    if (how === 'cancel') t.takeBack('g2');
    else t.calls.welcomed({ ...welcome, features: ['owed_calls'], resumed: true, owed: ['a1'] });
    await nextTask();
    expect(results(t.sent)).toEqual([]);
    t.send('g2', 2);
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'a2']);
    t.release('a2');
    await nextTask();
    expect(results(t.sent)).toEqual(['a1:ok', 'g2:ok']);
    expect(t.asked).toEqual(['g2']);
  });

  it('asks again about a call taken back once its tool began: its answer was used', async () => {
    const t = setup();
    await t.askedBehindA1();
    t.answers[0]!(true);
    await nextTask();
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'a2']);
    t.takeBack('g2');
    t.release('a2'); // deaf to its signal, it returns
    await nextTask();
    t.send('g2', 2);
    await nextTask();
    expect(t.asked).toEqual(['g2', 'g2']);
    expect(results(t.sent)).toEqual(['a1:ok']);
  });

  it('asks once an approver that read request.signal: it never aborted (the answer had come)', async () => {
    const t = setup((request) => void request.signal);
    await t.askedBehindA1();
    t.answers[0]!(true);
    await nextTask();
    expect(t.started).toEqual(['a1']);
    t.takeBack('g2');
    await nextTask();
    // The approver was never told the prompt was moot.
    expect(t.requests[0]!.signal.aborted).toBe(false);
    t.send('g2', 2);
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'a2']);
  });

  it('asks once an approver that read request.signal and approved a call taken back in line for a slot', async () => {
    const asked: string[] = [];
    const answers: Array<(decision: boolean) => void> = [];
    const { calls, call, sent, ran } = gatedInOneSlot({
      onApproval: (request) => {
        asked.push(request.callId);
        void request.signal;
        return new Promise<boolean>((resolve) => answers.push(resolve));
      },
    });
    calls.welcomed(welcome);
    call('g1', 'gated');
    await nextTask();
    call('s1', 'stuck'); // takes the one slot while g1 waits
    await nextTask();
    answers[0]!(true);
    await nextTask();
    expect(calls.queued).toBe(1); // approved, in line for the slot
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    await nextTask();
    call('g1', 'gated');
    await nextTask();
    expect(asked).toEqual(['g1']);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['s1:cancelled', 'g1:ok']);
  });

  it('a rejection that comes after the take-back decides the call sent again: one prompt, no run', async () => {
    const t = setup();
    await t.askedBehindA1();
    t.takeBack('g2');
    await nextTask();
    t.send('g2', 2);
    await nextTask();
    t.answers[0]!(false);
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    expect(results(t.sent)).toEqual(['g2:rejected']);
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1']);
  });

  it('a rejected call taken back is not run nor asked again when re-sent', async () => {
    const t = setup();
    await t.askedBehindA1();
    t.answers[0]!(false);
    await nextTask();
    t.takeBack('g2');
    await nextTask();
    t.send('g2', 2);
    await nextTask();
    t.release('a1');
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    expect(t.started).toEqual(['a1']);
  });

  it('edited arguments that change the key are kept for the call sent again', async () => {
    const t = setup();
    t.send('g2', 2);
    await nextTask();
    t.send('a1', 1);
    t.send('b1', 1, 'b');
    await nextTask();
    t.answers[0]!({ approved: true, arguments: { tenant: 'b', n: 2 } });
    await nextTask();
    expect(t.started).toEqual(['a1', 'b1']);
    t.takeBack('g2');
    await nextTask();
    t.send('g2', 2); // the service sends the original arguments
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'b1']); // not in a's lane
    t.release('b1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'b1', 'b2']);
    t.release('b2');
    await nextTask();
    expect(results(t.sent)).toEqual(['a1:ok', 'b1:ok', 'g2:ok']);
  });

  it('always: true, taken back at the gate: asked once, run once; a later call is not asked', async () => {
    const t = setup();
    await t.askedBehindA1();
    t.answers[0]!({ approved: true, always: true });
    await nextTask();
    t.takeBack('g2');
    await nextTask();
    t.send('g2', 2);
    await nextTask();
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'a2']);
    t.release('a2');
    await nextTask();
    t.send('g3', 2, 'c');
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    expect(t.started).toEqual(['a1', 'a2', 'c2']);
  });

  it('taken back twice at the gate: asked once, run once', async () => {
    const t = setup();
    await t.askedBehindA1();
    t.answers[0]!(true);
    await nextTask();
    for (let i = 0; i < 3; i++) {
      t.takeBack('g2');
      await nextTask();
      t.send('g2', 2);
      await nextTask();
    }
    expect(t.asked).toEqual(['g2']);
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'a2']);
    t.release('a2');
    await nextTask();
    expect(results(t.sent)).toEqual(['a1:ok', 'g2:ok']);
  });

  it('a new session (not resumed) loses the call at its gate: sent again, it is asked once', async () => {
    const t = setup();
    await t.askedBehindA1();
    t.answers[0]!(true);
    await nextTask();
    t.calls.welcomed({ ...welcome, features: ['owed_calls'] });
    await nextTask();
    t.send('g2', 2);
    await nextTask();
    t.release('a1'); // the first session's a1, deaf to its signal, returns
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    expect(t.started).toEqual(['a1', 'a2']);
  });

  it('granted at once, taken back while running and sent again: asked again (its answer was used)', async () => {
    const t = setup();
    t.send('g2', 2);
    await nextTask();
    t.answers[0]!(true);
    await nextTask();
    expect(t.started).toEqual(['a2']);
    t.takeBack('g2');
    t.release('a2');
    await nextTask();
    t.send('g2', 2);
    await nextTask();
    expect(t.asked).toEqual(['g2', 'g2']);
  });

  it('cancelled at the gate, then sent again with its id: not asked nor run again', async () => {
    const t = setup();
    await t.askedBehindA1();
    t.answers[0]!(true);
    await nextTask();
    t.calls.handle({ type: 'cancel', callId: 'g2', reason: 'run_cancelled' });
    await nextTask();
    t.send('g2', 2);
    await nextTask();
    t.release('a1');
    await nextTask();
    expect(t.asked).toEqual(['g2']);
    expect(t.started).toEqual(['a1']);
  });

  it('a drain keeps the approved call at its key; it runs here once, asked once', async () => {
    const t = setup();
    t.calls.welcomed({ ...welcome, features: ['key_waits', 'hand_back'] });
    await t.askedBehindA1();
    t.answers[0]!(true);
    await nextTask();
    t.calls.stopAccepting();
    t.calls.handle({ type: 'hand_back', callIds: ['g2'] });
    await nextTask();
    expect(results(t.sent)).toEqual([]);
    t.release('a1');
    await nextTask();
    expect(t.started).toEqual(['a1', 'a2']);
    expect(t.asked).toEqual(['g2']);
  });
});

/**
 * A keyed call whose deadline passes while it waits for its approver (its tool began: the grace applies) and
 * that, approved, waits at its key's gate: its tool has not begun, so it stops at once, not a grace later.
 */
describe('An approved call waiting at its key past its deadline', () => {
  it('ends timeout as soon as it waits at its key, not DEADLINE_GRACE_MS later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const t = setup();
      t.calls.receive({
        type: 'tool_call',
        callId: 'g2',
        runId: 'r1',
        toolName: 'work',
        arguments: { tenant: 'a', n: 2 },
        deadlineMs: 1_000,
      });
      await nextTask();
      t.send('a1', 1);
      await nextTask();
      expect(t.started).toEqual(['a1']);
      // Past its deadline while its approver answers: it began, so the grace keeps it.
      vi.advanceTimersByTime(1_100);
      await nextTask();
      expect(results(t.sent)).toEqual([]);
      t.answers[0]!(true);
      await nextTask();
      // Approved, it waits behind a1 at key a: its tool has not begun, and its deadline has passed.
      vi.advanceTimersByTime(10);
      await nextTask();
      expect(results(t.sent)).toEqual(['g2:timeout']);
      t.calls.abortAll('test over');
      t.calls.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
