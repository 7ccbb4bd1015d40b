/**
 * The feature `approval_waits` in a client (docs/protocol/approvals.md): the calls waiting for the local approver's
 * later answer (a person, say) are named to the service, and named again when they go on approved, one frame per
 * task; nothing for an answer given at once, for a call that ends while it waits, without the feature, or in a client
 * without `onApproval`.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalDecision } from '../../src/call/types';
import { tool } from '../../src/tool/tool';
import type { ClientFrame } from '../../src/wire/protocol';
import { nextTask, recording, taskAfterSettled } from './call-runner-harness';

const welcome = { features: ['approval_waits'], heartbeatIntervalMs: 15_000, sessionGraceMs: 60_000 };
const waitsOf = (sent: ClientFrame[]) => sent.filter((frame) => frame.type === 'approval_waits');

/** A tool that needs approval, and the calls it ran. */
function refundTool() {
  const ran: string[] = [];
  const refund = tool({
    name: 'refund',
    description: 'Refunds.',
    needsApproval: true,
    execute: (_input, ctx) => {
      ran.push(ctx.callId);
      return 'refunded';
    },
  });
  return { refund, ran };
}

/** An approver that answers `now` at once and leaves the others to a person, answered with `decide`. */
function person(now: readonly string[] = []) {
  const pending = new Map<string, (decision: ApprovalDecision) => void>();
  const onApproval = (request: { callId: string }) =>
    now.includes(request.callId)
      ? true
      : new Promise<ApprovalDecision>((resolve) => pending.set(request.callId, resolve));
  const decide = (callId: string, decision: ApprovalDecision) => pending.get(callId)?.(decision);
  return { onApproval, decide };
}

describe('approval_waits, in a call runner', () => {
  it('names the calls waiting for a person, those approved, and the waiting ones again on resume', async () => {
    const { refund, ran } = refundTool();
    const { onApproval, decide } = person(['c0']);
    const { calls, call, sent } = recording([refund], { onApproval });
    calls.welcomed(welcome);
    for (const callId of ['c0', 'c1', 'c2', 'c3']) call(callId, 'refund');
    await nextTask();
    // One frame for the task; the call the approver answered at once (c0) is never named.
    expect(ran).toEqual(['c0']);
    expect(waitsOf(sent)).toEqual([{ type: 'approval_waits', waiting: ['c1', 'c2', 'c3'] }]);
    decide('c1', true);
    // Rejected, c2 ends with its result: nothing more to say of it.
    decide('c2', false);
    await taskAfterSettled();
    expect(ran).toEqual(['c0', 'c1']);
    // Approved, c1 ran and ended within the task: its result tells the service, no `running` is needed.
    expect(waitsOf(sent)).toHaveLength(1);
    // Approved and still running at the end of its task: named as going on.
    decide('c3', true);
    expect(ran).toEqual(['c0', 'c1']);
    await nextTask();
    expect(ran).toEqual(['c0', 'c1', 'c3']);
    calls.dispose();
  });

  it('names a call approved that still runs at the end of its task as going on, and names waiting ones again on resume', async () => {
    let finish: (output: string) => void = () => {};
    const running = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const slow = tool({
      name: 'refund',
      description: 'Refunds.',
      needsApproval: true,
      execute: () => running,
    });
    const { onApproval, decide } = person();
    const { calls, call, sent } = recording([slow], { onApproval });
    calls.welcomed(welcome);
    for (const callId of ['c1', 'c2']) call(callId, 'refund');
    await nextTask();
    expect(waitsOf(sent)).toEqual([{ type: 'approval_waits', waiting: ['c1', 'c2'] }]);
    decide('c1', true);
    await taskAfterSettled();
    expect(waitsOf(sent).at(-1)).toEqual({ type: 'approval_waits', running: ['c1'] });
    // A resumed session counts every call as holding its slots again: the waiting one is named again.
    calls.welcomed({ ...welcome, resumed: true });
    await nextTask();
    expect(waitsOf(sent).at(-1)).toEqual({ type: 'approval_waits', waiting: ['c2'] });
    // A new session knows none of them, and is told of none that waited before it.
    calls.welcomed({ ...welcome, resumed: false });
    await nextTask();
    expect(waitsOf(sent)).toHaveLength(3);
    finish('refunded');
    calls.dispose();
  });

  it('names no call an async approver answers at once (a rule written as an async function)', async () => {
    const { refund, ran } = refundTool();
    const { calls, call, sent } = recording([refund], { onApproval: async () => true });
    calls.welcomed(welcome);
    for (const callId of ['c1', 'c2', 'c3']) call(callId, 'refund');
    await taskAfterSettled();
    expect(ran).toEqual(['c1', 'c2', 'c3']);
    expect(waitsOf(sent)).toEqual([]);
    calls.dispose();
  });

  it('names nothing without the feature', async () => {
    const { refund } = refundTool();
    const { onApproval } = person();
    const { calls, call, sent } = recording([refund], { onApproval });
    calls.welcomed({ ...welcome, features: [] });
    call('c1', 'refund');
    await nextTask();
    expect(calls.waiting).toBe(1);
    expect(waitsOf(sent)).toEqual([]);
    calls.dispose();
  });

  it('names nothing in a client without onApproval: the service holds the call it asks about', async () => {
    const { refund } = refundTool();
    const { calls, call, sent } = recording([refund]);
    calls.welcomed(welcome);
    call('c1', 'refund');
    await nextTask();
    expect(sent).toEqual([{ type: 'approval_request', callId: 'c1' }]);
    calls.dispose();
  });
});
