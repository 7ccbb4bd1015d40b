import { describe, expect, it } from 'vitest';
import {
  gatedInOneSlot,
  nextTask,
  parkedOnLocalApprover,
  parkedOnSocketApproval,
  parkers,
  releasedWhileSlotBusy,
  results,
} from './call-runner-harness';

describe('Approvals, in a call runner: parked calls', () => {
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

describe('Approvals', () => {
  it('asks the service again on a re-delivery and on a new socket while a decision is awaited, and never once decided', async () => {
    const { calls, call, sent, ran, start, release } = parkedOnSocketApproval();
    const asks = () => sent.filter((frame) => frame.type === 'approval_request');
    start();
    await nextTask();
    expect(asks()).toEqual([{ type: 'approval_request', callId: 'g1' }]);
    call('g1', 'gated'); // re-delivered after a reconnect, no decision yet
    calls.reconnected();
    expect(asks()).toHaveLength(3);
    release();
    await nextTask();
    expect(ran).toEqual(['g1']);
    calls.reconnected();
    call('g1', 'gated', { approved: true });
    expect(asks()).toHaveLength(3);
    expect(ran).toEqual(['g1']);
  });

  it('applies a decision once: a second approved re-delivery while the call waits in line changes nothing', async () => {
    const { calls, call, sent, ran } = await releasedWhileSlotBusy(parkedOnSocketApproval());
    call('g1', 'gated', { approved: true });
    expect(calls.queued).toBe(1);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent).sort()).toEqual(['g1:ok', 's1:cancelled']);
  });

  it('keeps the slot of a call whose local approver answers at once, and reports every request', () => {
    const requested: string[] = [];
    const { calls, call, sent, ran } = gatedInOneSlot({
      onApproval: () => true,
      events: {
        toolCall() {},
        toolResult() {},
        approvalRequested: (request) => requested.push(`${request.callId}:${request.toolName}`),
        widgetInvalid() {},
      },
    });
    call('g1', 'gated');
    expect(ran).toEqual(['g1']);
    expect(requested).toEqual(['g1:gated']);
    expect(sent).toEqual([expect.objectContaining({ type: 'tool_result', callId: 'g1', status: 'ok' })]);
    expect(calls.running).toBe(0);
  });
});

describe('Approvals: a request the service refuses', () => {
  it.each(['not_allowed', 'unknown_call'])(
    'ends a call waiting for the service decision cancelled when the service answers %s (its session is gone)',
    async (code) => {
      const { calls, sent, ran, start } = parkedOnSocketApproval();
      start();
      await nextTask();
      expect(sent.filter((frame) => frame.type === 'approval_request')).toHaveLength(1);
      calls.ack('g1', code);
      await nextTask();
      expect(ran).toEqual([]);
      expect(results(sent)).toEqual(['g1:cancelled']);
      expect(calls.running + calls.queued).toBe(0);
    },
  );
});
