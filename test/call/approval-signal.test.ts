/**
 * `ApprovalRequest.signal` as `invokeTool` gives it (src/call/approval.ts): it follows the call's `signal` while the
 * approver decides, and no longer once the decision has arrived; it is made only when read.
 */
import { describe, expect, it } from 'vitest';
import { signalState } from '../../src/call/approval-request';
import { invokeTool } from '../../src/call/invoke';
import type { ApprovalDecision, ApprovalRequest } from '../../src/call/types';
import { tool } from '../../src/tool/tool';

/** A tool that needs approval; `execute` waits for `proceed()` when `hold` is set. */
function gated(hold = false) {
  let proceed!: () => void;
  const held = new Promise<void>((resolve) => (proceed = resolve));
  const made = tool({
    name: 'refund',
    description: 'Refunds.',
    needsApproval: true,
    execute: async () => {
      if (hold) await held;
      return 'refunded';
    },
  });
  return { tool: made, proceed: () => proceed() };
}

/** An approver that keeps each request and answers when told. */
function later() {
  const requests: ApprovalRequest[] = [];
  const answers: Array<(decision: ApprovalDecision) => void> = [];
  const approve = (request: ApprovalRequest) => {
    requests.push(request);
    return new Promise<ApprovalDecision>((resolve) => answers.push(resolve));
  };
  return { approve, requests, answers };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ApprovalRequest.signal (invokeTool)', () => {
  it("aborts with the call signal's reason when the call is cancelled while the approver decides", async () => {
    const { approve, requests } = later();
    const controller = new AbortController();
    const pending = invokeTool(gated().tool, {}, { approve, signal: controller.signal });
    await tick();
    const { signal } = requests[0]!;
    const heard: unknown[] = [];
    signal.addEventListener('abort', () => heard.push(signal.reason));
    expect(signal.aborted).toBe(false);
    const reason = new Error('the user left');
    controller.abort(reason);
    expect(heard).toEqual([reason]);
    expect(signal.reason).toBe(reason);
    expect(await pending).toMatchObject({ status: 'cancelled' });
  });

  it('shows the abort on a signal first read after it', async () => {
    const { approve, requests } = later();
    const controller = new AbortController();
    const pending = invokeTool(gated().tool, {}, { approve, signal: controller.signal });
    await tick();
    const request = requests[0]!;
    expect(signalState(request)?.read).toBe(false);
    controller.abort(new Error('gone'));
    expect(request.signal.aborted).toBe(true);
    expect(request.signal.reason).toEqual(new Error('gone'));
    await pending;
  });

  it('is not aborted when the decision arrives, nor by a cancel of the call that follows it', async () => {
    const { approve, requests, answers } = later();
    const { tool: refund, proceed } = gated(true);
    const controller = new AbortController();
    const pending = invokeTool(refund, {}, { approve, signal: controller.signal });
    await tick();
    const { signal } = requests[0]!;
    answers[0]!(true);
    await tick();
    // `execute` runs: the decision was made, and a cancel now is the tool's (ctx.signal), not the approver's.
    controller.abort(new Error('too late'));
    proceed();
    expect(await pending).toMatchObject({ status: 'cancelled' });
    expect(signal.aborted).toBe(false);
  });

  it('is not aborted after a rejection, nor after an approver that throws', async () => {
    const seen: AbortSignal[] = [];
    const refund = gated().tool;
    const rejected = await invokeTool(
      refund,
      {},
      {
        approve: ({ signal }) => {
          seen.push(signal);
          return false;
        },
      },
    );
    expect(rejected.status).toBe('rejected');
    const failed = await invokeTool(
      refund,
      {},
      {
        approve: ({ signal }) => {
          seen.push(signal);
          throw new Error('no');
        },
      },
    );
    expect(failed.status).toBe('rejected');
    expect(seen.map((signal) => signal.aborted)).toEqual([false, false]);
  });

  it('is already aborted for an approver asked under a signal that aborted as it was asked', async () => {
    const controller = new AbortController();
    const seen: boolean[] = [];
    const result = await invokeTool(
      gated().tool,
      {},
      {
        signal: controller.signal,
        approve: (request) => {
          controller.abort(new Error('at once'));
          seen.push(request.signal.aborted);
          return true;
        },
      },
    );
    expect(seen).toEqual([true]);
    expect(result.status).toBe('cancelled');
  });

  it('is read-only, and never aborts without a signal to follow', async () => {
    const { approve, requests, answers } = later();
    const pending = invokeTool(gated().tool, {}, { approve });
    await tick();
    const request = requests[0]!;
    expect(() => {
      (request as { signal: unknown }).signal = undefined;
    }).toThrow(TypeError);
    expect(request.signal).toBe(request.signal);
    expect(Object.keys(request)).not.toContain('signal');
    expect(JSON.stringify(request)).not.toContain('signal');
    answers[0]!(true);
    expect(await pending).toMatchObject({ status: 'ok' });
    expect(request.signal.aborted).toBe(false);
  });

  it('asks nothing, so gives no signal, for a call an `always` decision covers', async () => {
    const requests: ApprovalRequest[] = [];
    const approve = (request: ApprovalRequest) => {
      requests.push(request);
      return { approved: true, always: true };
    };
    const refund = gated().tool;
    await invokeTool(refund, {}, { approve, runId: 'r1' });
    expect(await invokeTool(refund, {}, { approve, runId: 'r1' })).toMatchObject({ status: 'ok' });
    expect(requests).toHaveLength(1);
  });
});
