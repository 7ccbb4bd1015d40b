import { describe, expect, it } from 'vitest';
import type { ApprovalDecision } from '../../src/call/types';
import { approvalRequired, Client, type ClientOptions, tool } from '../../src/index';
import { memorySocketPair } from '../helpers/memory-socket';
import { afterTest } from '../support/after-test';
import {
  gatedInOneSlot,
  nextTask,
  parkedOnLocalApprover,
  parkedOnSocketApproval,
  parkers,
  recording,
  releasedWhileSlotBusy,
  results,
  waitsForAbort,
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
    'ends a call waiting for the service decision with no result when the service answers %s (its session is gone)',
    async (code) => {
      const { calls, sent, ran, start } = parkedOnSocketApproval();
      start();
      await nextTask();
      expect(sent.filter((frame) => frame.type === 'approval_request')).toHaveLength(1);
      calls.ack('g1', code);
      await nextTask();
      expect(ran).toEqual([]);
      // A `cancelled` result would be taken as the call's, from any session: the call, decided meanwhile and
      // running on another worker, would end `cancelled` there while its tool ran (the model told it did not).
      expect(results(sent)).toEqual([]);
      expect(calls.running + calls.queued).toBe(0);
    },
  );

  it('is not remembered as finished: the call sent here again, decided, runs once', async () => {
    const { calls, sent, ran, start, call } = parkedOnSocketApproval();
    start();
    await nextTask();
    calls.ack('g1', 'not_allowed');
    await nextTask();
    call('g1', 'gated', { approved: true });
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['g1:ok']);
  });
});

/**
 * The service takes back a call before its decision (`cancel { reason: 'not_dispatched' }`,
 * docs/protocol/calls-no-longer-held.md), then sends it here again (the only worker left, say): a person may have the first
 * prompt on screen. The call is put to its local approver once, and that answer decides it; one the service's
 * human decides comes back decided.
 */
describe('Approvals: a call the service took back before its decision', () => {
  /** A runner whose `gated` tool needs approval, asked of a local approver that answers later (`answers`). */
  function askingLater(maxConcurrency = 16) {
    const asked: string[] = [];
    const requested: string[] = [];
    const answers: Array<(decision: ApprovalDecision) => void> = [];
    const ran: string[] = [];
    const gated = tool({
      name: 'gated',
      description: 'Needs approval.',
      needsApproval: true,
      execute: (_input, ctx) => {
        ran.push(ctx.callId);
        return 'ran';
      },
    });
    const other = tool({ name: 'other', description: 'Answers at once.', execute: () => 'other' });
    const runner = recording([gated, other, waitsForAbort('stuck')], {
      maxConcurrency,
      onApproval: (request) => {
        asked.push(request.callId);
        return new Promise<ApprovalDecision>((resolve) => answers.push(resolve));
      },
      events: {
        toolCall() {},
        toolResult() {},
        approvalRequested: (request) => requested.push(request.callId),
        widgetInvalid() {},
      },
    });
    runner.calls.welcomed({ heartbeatIntervalMs: 60_000 });
    return { ...runner, asked, requested, answers, ran };
  }

  it('asks once about the call sent again while the first answer is to come; that answer decides it', async () => {
    const { calls, call, sent, asked, requested, answers, ran } = askingLater(1);
    call('g1', 'gated');
    await nextTask();
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    await nextTask();
    expect(calls.waiting).toBe(0);
    call('g1', 'gated');
    await nextTask();
    expect(asked).toEqual(['g1']);
    expect(requested).toEqual(['g1']);
    // It waits for the first answer, without its slot: another call runs meanwhile.
    expect({ waiting: calls.waiting, running: calls.running }).toEqual({ waiting: 1, running: 0 });
    call('o1', 'other');
    await nextTask();
    answers[0]!(true);
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['o1:ok', 'g1:ok']);
    expect({ waiting: calls.waiting, running: calls.running }).toEqual({ waiting: 0, running: 0 });
  });

  it('decides the call sent again by the answer given while it was away, without asking again', async () => {
    const { calls, call, sent, asked, answers, ran } = askingLater();
    call('g1', 'gated');
    await nextTask();
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    await nextTask();
    answers[0]!({ approved: false, reason: 'not this one' });
    await nextTask();
    expect(results(sent)).toEqual([]);
    call('g1', 'gated');
    await nextTask();
    expect(asked).toEqual(['g1']);
    expect(ran).toEqual([]);
    expect(sent).toEqual([
      expect.objectContaining({
        callId: 'g1',
        status: 'rejected',
        output: 'gated was not run: the user declined. Reason: not this one',
      }),
    ]);
  });

  it('keeps an approval the call had not gone on with (it waited in line for a slot) for the call sent again', async () => {
    const { calls, call, sent, asked, answers, ran } = askingLater(1);
    call('g1', 'gated');
    await nextTask();
    call('s1', 'stuck');
    answers[0]!(true);
    await nextTask();
    expect(calls.queued).toBe(1);
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    call('g1', 'gated');
    await nextTask();
    expect(asked).toEqual(['g1']);
    expect(ran).toEqual([]);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['s1:cancelled', 'g1:ok']);
    expect(calls.running).toBe(0);
  });

  it('ends a call the service approved, taken back in line for a slot, without a result: it runs once sent again', async () => {
    const { calls, call, sent, ran } = await releasedWhileSlotBusy(parkedOnSocketApproval());
    expect(calls.queued).toBe(1);
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    await nextTask();
    expect(results(sent)).toEqual([]);
    // Sent again decided while the slot is still taken: it waits for it, and runs once.
    call('g1', 'gated', { approved: true });
    await nextTask();
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['s1:cancelled', 'g1:ok']);
    expect(sent.filter((frame) => frame.type === 'approval_request')).toHaveLength(1);
  });

  it('asks nothing again about a call taken back while the service decided it: it comes again decided', async () => {
    const { calls, call, sent, ran, start } = parkedOnSocketApproval();
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    start();
    await nextTask();
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    await nextTask();
    // The service holds the call for its human (one prompt, there), and sends it decided.
    call('g1', 'gated', { approved: true });
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(sent.map((frame) => frame.type)).toEqual(['approval_request', 'tool_result']);
    expect(results(sent)).toEqual(['g1:ok']);
  });

  it("runs on the service's decision when the call comes back decided, whatever the local approver answered", async () => {
    for (const [local, service] of [
      [false, true],
      [true, false],
    ] as const) {
      const { calls, call, sent, asked, answers, ran } = askingLater();
      call('g1', 'gated');
      await nextTask();
      calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
      answers[0]!(local);
      await nextTask();
      // Another worker's human decided it on the service; it comes back with that decision, and nothing is asked.
      call('g1', 'gated', { approved: service });
      await nextTask();
      expect(asked).toEqual(['g1']);
      expect(ran).toEqual(service ? ['g1'] : []);
      expect(results(sent)).toEqual([service ? 'g1:ok' : 'g1:rejected']);
    }
  });

  it('keeps waiting for the first answer when the call is taken back and sent again twice', async () => {
    const { calls, call, sent, asked, answers, ran } = askingLater();
    call('g1', 'gated');
    await nextTask();
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    call('g1', 'gated');
    await nextTask();
    // Taken back again before the answer came: the second time too, it waits for that answer.
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    call('g1', 'gated');
    await nextTask();
    expect(asked).toEqual(['g1']);
    answers[0]!(true);
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['g1:ok']);
  });
});

/**
 * A call of a tool whose own definition needs approval that the service sends undecided (it went by another
 * worker's definition, or holds nothing), to a real client over an in-memory socket
 * (docs/protocol/approvals.md, "Held calls and decisions").
 */
describe('Approvals: an undecided call of a tool whose own definition needs approval', () => {
  /** A client offering `refund` gated by `needsApproval`, connected in memory; `frames` are what it sent. */
  async function connectedWith(needsApproval: unknown, extra: Partial<ClientOptions> = {}) {
    const ran: Array<{ callId: string; approved: boolean }> = [];
    const refund = tool({
      name: 'refund',
      description: 'Refunds an order.',
      needsApproval: needsApproval as never,
      execute: (_input, ctx) => {
        ran.push({ callId: ctx.callId, approved: ctx.approved });
        return 'refunded';
      },
    });
    const frames: Array<Record<string, unknown> & { type: string }> = [];
    const waiters: Array<{ type: string; resolve: (frame: Record<string, unknown>) => void }> = [];
    const pair = memorySocketPair({
      onConnection(peer) {
        peer.onMessage = (text) => {
          const frame = JSON.parse(text) as Record<string, unknown> & { type: string };
          frames.push(frame);
          const index = waiters.findIndex((waiter) => waiter.type === frame.type);
          if (index >= 0) waiters.splice(index, 1)[0]?.resolve(frame);
          if (frame.type === 'hello')
            peer.send({
              type: 'welcome',
              sessionId: 's1',
              resumed: false,
              heartbeatIntervalMs: 60_000,
              maxPayloadBytes: 65_536,
            });
        };
      },
    });
    const client = new Client({
      url: 'ws://toolwire.test/v1/ws',
      apiKey: 'key-123456',
      WebSocket: pair.WebSocket,
      tools: [refund],
      reconnect: false,
      ...extra,
    });
    afterTest(() => client.close({ drain: false }));
    await client.connect();
    const peer = await pair.nextPeer();
    const next = (type: string) =>
      new Promise<Record<string, unknown>>((resolve) => waiters.push({ type, resolve }));
    const call = (extraFields: Record<string, unknown> = {}) =>
      peer.send({
        type: 'tool_call',
        callId: 'c1',
        runId: 'r1',
        toolName: 'refund',
        arguments: {},
        ...extraFields,
      });
    return { client, frames, next, call, ran };
  }

  it.each([
    ['true', true, undefined],
    ['approvalRequired(reason)', approvalRequired('Refunds move money.'), 'Refunds move money.'],
    ['a predicate that says so', () => true, undefined],
  ])(
    'asks the service with approval_request for needsApproval %s, and runs it only once approved',
    async (_name, needsApproval, reason) => {
      const { frames, next, call, ran } = await connectedWith(needsApproval);
      const asked = next('approval_request');
      call();
      expect(await asked).toEqual({
        type: 'approval_request',
        callId: 'c1',
        ...(reason === undefined ? {} : { reason }),
      });
      expect(ran).toEqual([]);
      expect(frames.filter((frame) => frame.type === 'tool_result')).toEqual([]);
      const result = next('tool_result');
      call({ approved: true });
      expect(await result).toMatchObject({ callId: 'c1', status: 'ok', output: 'refunded' });
      expect(ran).toEqual([{ callId: 'c1', approved: true }]);
    },
  );

  it('ends the call rejected, never run, when the decision it asked for declines it', async () => {
    const { next, call, ran } = await connectedWith(true);
    const asked = next('approval_request');
    call();
    await asked;
    const result = next('tool_result');
    call({ approved: false, reason: 'not today' });
    expect(await result).toMatchObject({
      callId: 'c1',
      status: 'rejected',
      output: 'refund was not run: the user declined. Reason: not today',
    });
    expect(ran).toEqual([]);
  });

  it('asks its own approver instead when it has onApproval, and sends no approval_request', async () => {
    const requests: string[] = [];
    const { frames, next, call, ran } = await connectedWith(true, {
      onApproval: (request) => {
        requests.push(request.callId);
        return false;
      },
    });
    const result = next('tool_result');
    call();
    expect(await result).toMatchObject({ callId: 'c1', status: 'rejected' });
    expect(requests).toEqual(['c1']);
    expect(ran).toEqual([]);
    expect(frames.filter((frame) => frame.type === 'approval_request')).toEqual([]);
  });

  it('runs an undecided call at once when its predicate says this input needs no approval', async () => {
    const { frames, next, call, ran } = await connectedWith(() => false);
    const result = next('tool_result');
    call();
    expect(await result).toMatchObject({ callId: 'c1', status: 'ok' });
    expect(ran).toEqual([{ callId: 'c1', approved: false }]);
    expect(frames.filter((frame) => frame.type === 'approval_request')).toEqual([]);
  });
});
