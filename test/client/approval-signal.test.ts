/**
 * `ApprovalRequest.signal` in a client's call runner: it aborts, with the reason `ctx.signal` would get, for each
 * way a call's decision stops being wanted here (the service's `cancel`, the deadline, a drain's hand-back, the
 * client closing, the service taking the call back), and never once the decision has arrived.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalDecision, ApprovalRequest } from '../../src/call/types';
import { DEADLINE_GRACE_MS } from '../../src/client/deadlines';
import type { ToolCallFrame } from '../../src/client/execution';
import { tool } from '../../src/tool/tool';
import { nextTask, type RunnerOptions, recording, results, waitsForAbort } from './call-runner-harness';

afterEach(() => {
  vi.useRealTimers();
});

/** What an abort reason says: its class name, message and cause. */
function why(signal: AbortSignal) {
  const reason = signal.reason as { name: string; message: string; cause: unknown };
  return { aborted: signal.aborted, name: reason?.name, message: reason?.message, cause: reason?.cause };
}

const gatedFrame: ToolCallFrame = {
  type: 'tool_call',
  callId: 'g1',
  runId: 'r1',
  toolName: 'gated',
  arguments: {},
};

/**
 * `gated` needs approval; `stuck` runs until aborted; one slot. Without `local`, the service is asked (the request
 * is the `approval_requested` event's); with it, a local approver that answers later (`answers`).
 */
function runner(local: boolean, overrides: Partial<RunnerOptions> & { writable?: () => boolean } = {}) {
  const requests: ApprovalRequest[] = [];
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
  const recorded = recording([gated, waitsForAbort('stuck')], {
    maxConcurrency: 1,
    events: {
      toolCall() {},
      toolResult() {},
      approvalRequested: (request, service) => {
        if (service === true) requests.push(request);
      },
      widgetInvalid() {},
    },
    ...(local
      ? {
          onApproval: (request: ApprovalRequest) => {
            requests.push(request);
            return new Promise<ApprovalDecision>((resolve) => answers.push(resolve));
          },
        }
      : {}),
    ...overrides,
  });
  return { ...recorded, requests, answers, ran };
}

describe.each([
  ['a local approver', true],
  ['the service', false],
])('ApprovalRequest.signal of a call waiting for %s', (_, local) => {
  it("aborts with the service's cancel reason", async () => {
    const { calls, call, requests, sent } = runner(local);
    call('g1', 'gated');
    await nextTask();
    const { signal } = requests[0]!;
    expect(signal.aborted).toBe(false);
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'run_cancelled' });
    expect(why(signal)).toEqual({
      aborted: true,
      name: 'AbortError',
      message: 'cancelled by the service (run_cancelled)',
      cause: 'run_cancelled',
    });
    await nextTask();
    expect(results(sent)).toEqual(['g1:cancelled']);
  });

  it('aborts when the client closes, its calls not handed back', async () => {
    const { calls, call, requests } = runner(local);
    call('g1', 'gated');
    await nextTask();
    calls.abortAll('client closing', true);
    expect(why(requests[0]!.signal)).toEqual({
      aborted: true,
      name: 'AbortError',
      message: 'cancelled (client closing)',
      cause: 'client closing',
    });
  });

  it('aborts when a drain hands the call back to the service', async () => {
    const { calls, call, requests, sent } = runner(local);
    call('g1', 'gated');
    await nextTask();
    calls.stopAccepting();
    expect(why(requests[0]!.signal)).toEqual({
      aborted: true,
      name: 'AbortError',
      message: 'the client is shutting down',
      cause: 'shutting_down',
    });
    await nextTask();
    expect(sent.filter((frame) => frame.type === 'tool_result')).toEqual([
      expect.objectContaining({ callId: 'g1', status: 'error', retryable: true }),
    ]);
  });

  it('aborts when the service says it no longer holds the call here (not_dispatched)', async () => {
    const { calls, call, requests } = runner(local);
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('g1', 'gated');
    await nextTask();
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    expect(why(requests[0]!.signal)).toMatchObject({ aborted: true, cause: 'not_dispatched' });
  });

  it('is not aborted once the decision arrived, even when the call is cancelled in line for its slot', async () => {
    const { calls, call, requests, answers, sent, ran } = runner(local);
    call('g1', 'gated');
    await nextTask();
    const { signal } = requests[0]!;
    call('s1', 'stuck'); // takes the one slot while g1 waits
    await nextTask();
    if (local) answers[0]!(true);
    else call('g1', 'gated', { approved: true });
    await nextTask();
    expect(calls.queued).toBe(1); // approved, in line for the slot
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'run_cancelled' });
    await nextTask();
    expect(ran).toEqual([]);
    expect(results(sent)).toEqual(['g1:cancelled']);
    expect(signal.aborted).toBe(false);
  });

  it('is not aborted when the approved call runs and ends', async () => {
    const { call, requests, answers, sent, ran } = runner(local);
    call('g1', 'gated');
    await nextTask();
    if (local) answers[0]!(true);
    else call('g1', 'gated', { approved: true });
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['g1:ok']);
    expect(requests[0]!.signal.aborted).toBe(false);
  });
});

describe('ApprovalRequest.signal and time', () => {
  it("aborts with a TimeoutError when the call passes the service's deadline while a local approver decides", async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    const { calls, requests, sent } = runner(true);
    calls.receive({ ...gatedFrame, deadlineMs: 5_000 });
    await nextTask();
    const { signal } = requests[0]!;
    // The client's own clock: the service's deadline, plus its grace.
    await vi.advanceTimersByTimeAsync(5_000 + DEADLINE_GRACE_MS - 1);
    expect(signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(why(signal)).toEqual({
      aborted: true,
      name: 'TimeoutError',
      message: 'the call passed its deadline',
      cause: 'deadline',
    });
    await nextTask();
    expect(results(sent)).toEqual(['g1:cancelled']);
  });

  it("aborts when the socket stays down past the session's grace period (the service gives the call to another worker)", async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    let up = true;
    const { calls, requests } = runner(true, { writable: () => up });
    const welcome = {
      features: ['lease'],
      leaseMs: 3_000,
      heartbeatIntervalMs: 15_000,
      sessionGraceMs: 60_000,
    };
    calls.welcomed(welcome);
    calls.receive({ ...gatedFrame, deadlineMs: 5_000 });
    await nextTask();
    const { signal } = requests[0]!;
    up = false;
    calls.disconnected();
    await vi.advanceTimersByTimeAsync(59_000);
    expect(signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(why(signal)).toEqual({
      aborted: true,
      name: 'AbortError',
      message:
        "the socket was down for the session's grace period: the service gives the call to another worker",
      cause: 'session_expired',
    });
  });
});

describe('ApprovalRequest.signal of a call the service takes back and sends again', () => {
  it('asks an approver that read the signal again, with a new request; its answer decides the call', async () => {
    const { calls, call, requests, answers, sent, ran } = runner(true);
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('g1', 'gated');
    await nextTask();
    const first = requests[0]!.signal; // read: the approver hears the prompt is moot
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    expect(first.aborted).toBe(true);
    call('g1', 'gated');
    await nextTask();
    expect(requests.map((request) => request.callId)).toEqual(['g1', 'g1']);
    const second = requests[1]!.signal;
    expect(second.aborted).toBe(false);
    // The first prompt's late answer decides nothing; the second's does.
    answers[0]!(false);
    await nextTask();
    expect(results(sent)).toEqual([]);
    answers[1]!(true);
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['g1:ok']);
    expect(second.aborted).toBe(false);
  });

  it('asks an approver that never read the signal once: its answer decides the call sent again', async () => {
    const { calls, call, requests, answers, sent, ran } = runner(true);
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('g1', 'gated');
    await nextTask();
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    call('g1', 'gated');
    await nextTask();
    expect(requests).toHaveLength(1);
    answers[0]!(true);
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['g1:ok']);
  });
});

describe('ApprovalRequest.signal of a prompt whose call came back unread', () => {
  it('is not aborted when first read after the call came back: its answer is wanted again', async () => {
    const { calls, call, requests, answers, sent, ran } = runner(true);
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('g1', 'gated');
    await nextTask();
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    call('g1', 'gated');
    await nextTask();
    expect(requests).toHaveLength(1);
    // A UI that reads the signal only when it shows the prompt: the call waits for this very answer.
    expect(requests[0]!.signal.aborted).toBe(false);
    answers[0]!(true);
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['g1:ok']);
    expect(requests[0]!.signal.aborted).toBe(false);
  });

  it('aborts with the cancel of the call that came back, read before it or after', async () => {
    for (const readFirst of [true, false]) {
      const { calls, call, requests, sent } = runner(true);
      calls.welcomed({ heartbeatIntervalMs: 60_000 });
      call('g1', 'gated');
      await nextTask();
      calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
      call('g1', 'gated');
      await nextTask();
      const early = readFirst ? requests[0]!.signal : undefined;
      calls.handle({ type: 'cancel', callId: 'g1', reason: 'run_cancelled' });
      expect(why(early ?? requests[0]!.signal)).toEqual({
        aborted: true,
        name: 'AbortError',
        message: 'cancelled by the service (run_cancelled)',
        cause: 'run_cancelled',
      });
      await nextTask();
      expect(results(sent)).toEqual(['g1:cancelled']);
    }
  });
});

describe('ApprovalRequest.signal and code that copies the request', () => {
  it('is not read by a listener that logs the request as JSON: the approver is still asked once', async () => {
    const logged: string[] = [];
    const { calls, call, requests, answers, sent, ran } = runner(true, {
      events: {
        toolCall() {},
        toolResult() {},
        approvalRequested: (request) => {
          logged.push(JSON.stringify(request));
        },
        widgetInvalid() {},
      },
    });
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('g1', 'gated');
    await nextTask();
    expect(JSON.parse(logged[0]!)).toEqual({
      callId: 'g1',
      runId: 'r1',
      toolName: 'gated',
      input: {},
      sideEffect: 'external',
    });
    expect({ ...requests[0]! }).not.toHaveProperty('signal');
    calls.handle({ type: 'cancel', callId: 'g1', reason: 'not_dispatched' });
    call('g1', 'gated');
    await nextTask();
    expect(requests).toHaveLength(1);
    answers[0]!(true);
    await nextTask();
    expect(ran).toEqual(['g1']);
    expect(results(sent)).toEqual(['g1:ok']);
  });
});
