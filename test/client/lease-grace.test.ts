/**
 * A leased call stopped by its session's grace period (docs/protocol/lease.md): the service has given it to
 * another worker by then, or sends it here again on a resume that came after this side's clock ran out, so its end
 * is no result: nothing is sent for it, on this socket or a later one, and the call runs again if it comes back
 * (answered busy while its first run's tool still runs; its local approver not asked twice).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ToolCallFrame } from '../../src/client/execution';
import { tool } from '../../src/index';
import { nextTask, recording, results, waitsForAbort } from './call-runner-harness';

afterEach(() => {
  vi.useRealTimers();
});

const welcome = { features: ['lease'], leaseMs: 3_000, heartbeatIntervalMs: 15_000, sessionGraceMs: 60_000 };
const exportCall: ToolCallFrame = {
  type: 'tool_call',
  callId: 'c1',
  runId: 'r1',
  toolName: 'export',
  arguments: {},
  deadlineMs: 5_000,
};

/** Timers and `performance.now()` that move only when the test says. */
function fakeTimers() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
}

function lostWorker() {
  fakeTimers();
  const aborted: string[] = [];
  const ended: Array<{ status: string; output: string }> = [];
  let up = true;
  const { calls, sent } = recording(
    [waitsForAbort('export', (callId, reason) => aborted.push(`${callId}: ${String(reason)}`))],
    {
      writable: () => up,
      events: {
        toolCall() {},
        toolResult: (info) => ended.push({ status: info.status, output: info.output }),
        approvalRequested() {},
        widgetInvalid() {},
      },
    },
  );
  calls.welcomed(welcome);
  const drop = () => {
    up = false;
    calls.disconnected();
  };
  const reconnect = (resumed: boolean) => {
    up = true;
    calls.welcomed({ ...welcome, resumed });
  };
  return { calls, sent, aborted, ended, drop, reconnect };
}

describe("a leased call past its session's grace period", () => {
  it('sends no result for it on a resume, and runs it again when the service sends it again', async () => {
    const { calls, sent, aborted, ended, drop, reconnect } = lostWorker();
    calls.receive(exportCall);
    await nextTask();
    drop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(aborted).toEqual([
      "c1: AbortError: the socket was down for the session's grace period: the service gives the call to another worker",
    ]);
    expect(ended).toEqual([
      {
        status: 'cancelled',
        output:
          "export was stopped here: the socket was down for the session's grace period, and the service gives the call to another worker",
      },
    ]);
    expect(calls.running).toBe(0);
    // The service had not given up on the session yet (it noticed the drop later): it resumes, and sends the call
    // again, which runs here anew instead of being answered `cancelled` from the outbox.
    reconnect(true);
    await nextTask();
    expect(results(sent)).toEqual([]);
    calls.receive(exportCall);
    await nextTask();
    expect(calls.running).toBe(1);
    calls.cancel('c1', 'run_cancelled');
    await nextTask();
    expect(results(sent)).toEqual(['c1:cancelled']);
  });

  it('sends no result for it on a new session either (the service gave it to another worker)', async () => {
    const { calls, sent, aborted, drop, reconnect } = lostWorker();
    calls.receive(exportCall);
    await nextTask();
    drop();
    await vi.advanceTimersByTimeAsync(30_000);
    // A new session (the old one expired on the service side, which counted from an earlier drop): the call is
    // the service's now, and still stops at the end of the grace this side counts.
    // (connected again, a second later, as any deadline here: src/client/deadlines.ts).
    reconnect(false);
    await vi.advanceTimersByTimeAsync(31_000);
    expect(aborted).toHaveLength(1);
    await nextTask();
    expect(results(sent)).toEqual([]);
    expect(calls.running).toBe(0);
  });

  it('runs on a call the service gives this process again on a new session, and sends its result', async () => {
    const { calls, sent, aborted, drop, reconnect } = lostWorker();
    calls.receive(exportCall);
    await nextTask();
    drop();
    await vi.advanceTimersByTimeAsync(30_000);
    // The old session expired on the service side, which gave the call to this process's new session: it is owed
    // here again, and joins the call still running.
    reconnect(false);
    calls.receive(exportCall);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(aborted).toEqual([]);
    expect(calls.running).toBe(1);
    calls.cancel('c1', 'run_cancelled');
    await nextTask();
    expect(results(sent)).toEqual(['c1:cancelled']);
  });

  it('answers busy when it comes again while its tool, deaf to its signal, still runs, and runs it once that returned', async () => {
    fakeTimers();
    const starts: number[] = [];
    let letGo!: () => void;
    const stubborn = tool({
      name: 'export',
      description: 'Runs to its end whatever its signal says.',
      execute: async () => {
        starts.push(starts.length + 1);
        if (starts.length === 1) await new Promise<void>((resolve) => (letGo = resolve));
        return `run ${starts.length}`;
      },
    });
    let up = true;
    const { calls, sent } = recording([stubborn], { writable: () => up });
    calls.welcomed(welcome);
    calls.receive(exportCall);
    await nextTask();
    up = false;
    calls.disconnected();
    await vi.advanceTimersByTimeAsync(60_000);
    up = true;
    calls.welcomed({ ...welcome, resumed: true });
    calls.receive(exportCall);
    await nextTask();
    expect(starts).toEqual([1]);
    expect(sent.filter((frame) => frame.type === 'tool_result')).toEqual([
      expect.objectContaining({ callId: 'c1', status: 'error', retryable: true }),
    ]);
    letGo();
    await nextTask();
    calls.receive(exportCall);
    await nextTask();
    expect(starts).toEqual([1, 2]);
    expect(results(sent)).toEqual(['c1:error', 'c1:ok']);
  });

  it('asks its local approver once when it waited for the answer and comes again', async () => {
    fakeTimers();
    const asked: string[] = [];
    const answers: Array<(approved: boolean) => void> = [];
    const ran: string[] = [];
    const gated = tool({
      name: 'export',
      description: 'Needs approval.',
      needsApproval: true,
      execute: (_input, ctx) => {
        ran.push(ctx.callId);
        return 'exported';
      },
    });
    let up = true;
    const { calls, sent } = recording([gated], {
      writable: () => up,
      onApproval: (request) => {
        asked.push(request.callId);
        return new Promise<boolean>((resolve) => answers.push(resolve));
      },
    });
    calls.welcomed(welcome);
    calls.receive(exportCall);
    await nextTask();
    up = false;
    calls.disconnected();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.waiting).toBe(0);
    up = true;
    calls.welcomed({ ...welcome, resumed: true });
    calls.receive(exportCall);
    await nextTask();
    expect(asked).toEqual(['c1']);
    answers[0]!(true);
    await nextTask();
    expect(ran).toEqual(['c1']);
    expect(results(sent)).toEqual(['c1:ok']);
  });

  it('keeps sending the result of a call that resumed in time', async () => {
    const { calls, sent, aborted, drop, reconnect } = lostWorker();
    calls.receive(exportCall);
    await nextTask();
    drop();
    await vi.advanceTimersByTimeAsync(30_000);
    reconnect(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(aborted).toEqual([]);
    calls.cancel('c1', 'run_cancelled');
    await nextTask();
    expect(results(sent)).toEqual(['c1:cancelled']);
  });
});
