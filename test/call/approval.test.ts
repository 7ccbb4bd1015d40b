import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { invokeTool } from '../../src/call/invoke';
import { startCall } from '../../src/call/pipeline';
import type { ApprovalRequest, ToolCallResult } from '../../src/call/types';
import { type ToolContext, tool } from '../../src/tool/tool';

const refundTool = (
  needsApproval: boolean | ((ctx: ToolContext, input: { amount: number }) => boolean | Promise<boolean>),
) => {
  const execute = vi.fn(
    (input: { amount: number }, ctx: ToolContext) => `refunded ${input.amount} (approved: ${ctx.approved})`,
  );
  const refund = tool({
    name: 'issue_refund',
    description: 'Refunds an order.',
    parameters: z.object({ amount: z.number() }),
    needsApproval,
    execute,
  });
  return { refund, execute };
};

describe('approval', () => {
  it('runs a tool that needs no approval without asking, with ctx.approved false', async () => {
    const { refund } = refundTool(false);
    const approve = vi.fn(() => true);
    expect(await invokeTool(refund, { amount: 5 }, { approve })).toMatchObject({
      status: 'ok',
      output: 'refunded 5 (approved: false)',
    });
    expect(approve).not.toHaveBeenCalled();
  });

  it('asks approve with the call and its validated input, then runs with ctx.approved true', async () => {
    const { refund } = refundTool(true);
    const approve = vi.fn((_request: ApprovalRequest) => true);
    const result = await invokeTool(refund, '{"amount":5}', { callId: 'c1', runId: 'r1', approve });
    expect(result).toMatchObject({ status: 'ok', output: 'refunded 5 (approved: true)' });
    expect(approve).toHaveBeenCalledWith({
      callId: 'c1',
      runId: 'r1',
      toolName: 'issue_refund',
      input: { amount: 5 },
      sideEffect: 'external',
    });
  });

  it('accepts { approved: true } from an async approver', async () => {
    const { refund } = refundTool(true);
    const result = await invokeTool(refund, { amount: 1 }, { approve: async () => ({ approved: true }) });
    expect(result.status).toBe('ok');
  });

  it('gives status rejected and says the user declined', async () => {
    const { refund, execute } = refundTool(true);
    expect(await invokeTool(refund, { amount: 5 }, { approve: () => false })).toEqual({
      status: 'rejected',
      reason: 'declined',
      output: 'issue_refund was not run: the user declined.',
      durationMs: expect.any(Number),
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it('adds the reason of a rejection', async () => {
    const { refund } = refundTool(true);
    const result = await invokeTool(
      refund,
      { amount: 500 },
      { approve: () => ({ approved: false, reason: 'Too large; ask a manager.' }) },
    );
    expect(result.output).toBe(
      'issue_refund was not run: the user declined. Reason: Too large; ask a manager.',
    );
  });

  it('rejects when approval is needed and no approver is available', async () => {
    const { refund, execute } = refundTool(true);
    expect(await invokeTool(refund, { amount: 5 })).toMatchObject({
      status: 'rejected',
      output: "issue_refund was not run: it needs a human's approval, and no approver is available.",
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it('rejects when the approver fails', async () => {
    const { refund, execute } = refundTool(true);
    const approve = () => Promise.reject(new Error('approval service unreachable'));
    expect(await invokeTool(refund, { amount: 5 }, { approve })).toMatchObject({
      status: 'rejected',
      output: 'issue_refund was not run: approval could not be obtained (approval service unreachable).',
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it.each([
    ['undefined', undefined, 'undefined'],
    ['a string', 'yes', '"yes"'],
    ['null', null, 'null'],
    ['a number', 1, '1'],
    ['an object whose approved is not a boolean', { approved: 'true' }, '{"approved":"true"}'],
    ['an object without approved', { reason: 'fine' }, '{"reason":"fine"}'],
  ])(
    'does not run, and says approval could not be obtained, when the approver returns %s',
    async (_, returned, shown) => {
      const { refund, execute } = refundTool(true);
      const approve = () => returned as never;
      expect(await invokeTool(refund, { amount: 5 }, { approve })).toMatchObject({
        status: 'rejected',
        output: `issue_refund was not run: approval could not be obtained (the approver returned ${shown} instead of true, false or { approved: boolean }).`,
      });
      expect(execute).not.toHaveBeenCalled();
    },
  );

  it('shortens a long invalid answer from the approver', async () => {
    const { refund } = refundTool(true);
    const approve = () => ({ reason: 'x'.repeat(500) }) as never;
    const result = await invokeTool(refund, { amount: 5 }, { approve });
    expect(result.output).toBe(
      `issue_refund was not run: approval could not be obtained (the approver returned {"reason":"${'x'.repeat(88)}… instead of true, false or { approved: boolean }).`,
    );
  });

  it('names the approver when it throws something without a message', async () => {
    const { refund } = refundTool(true);
    const approve = () => Promise.reject(undefined);
    expect((await invokeTool(refund, { amount: 5 }, { approve })).output).toBe(
      'issue_refund was not run: approval could not be obtained (the approver threw undefined).',
    );
  });

  it('runs without asking when options.approved is true (already approved by a human)', async () => {
    const { refund } = refundTool(true);
    const approve = vi.fn(() => false);
    expect(await invokeTool(refund, { amount: 5 }, { approved: true, approve })).toMatchObject({
      status: 'ok',
      output: 'refunded 5 (approved: true)',
    });
    expect(approve).not.toHaveBeenCalled();
  });

  it('rejects without asking when options.approved is false, with the earlier reason', async () => {
    const { refund, execute } = refundTool(true);
    const approve = vi.fn(() => true);
    // The reason of a decided tool_call: a host's option (the client's), through startCall.
    const result = await new Promise<ToolCallResult>((resolve) =>
      startCall(
        refund,
        { amount: 5 },
        { approved: false, rejectionReason: 'Not today.', approve },
        { result: resolve },
      ),
    );
    expect(result).toMatchObject({
      status: 'rejected',
      output: 'issue_refund was not run: the user declined. Reason: Not today.',
    });
    expect(approve).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  });

  it('evaluates a needsApproval predicate with ctx and the validated input', async () => {
    const predicate = vi.fn((_ctx: ToolContext, input: { amount: number }) => input.amount > 100);
    const { refund } = refundTool(predicate);
    const approve = vi.fn(() => false);
    expect((await invokeTool(refund, { amount: 5 }, { approve })).status).toBe('ok');
    expect((await invokeTool(refund, { amount: 500 }, { approve })).status).toBe('rejected');
    expect(approve).toHaveBeenCalledTimes(1);
    expect(predicate.mock.calls[0]?.[0]).toMatchObject({ toolName: 'issue_refund' });
    expect(predicate.mock.calls[0]?.[1]).toEqual({ amount: 5 });
  });

  it('awaits an async predicate', async () => {
    const { refund } = refundTool(async () => true);
    expect((await invokeTool(refund, { amount: 5 })).status).toBe('rejected');
  });

  it('gives an error result naming the needsApproval check, running nothing, when the predicate throws', async () => {
    const down = new Error('policy service down');
    const { refund, execute } = refundTool(() => {
      throw down;
    });
    expect(await invokeTool(refund, { amount: 5 }, { approve: () => true })).toMatchObject({
      status: 'error',
      output: 'Error running issue_refund: needsApproval threw: policy service down',
      error: down,
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it('names the needsApproval check when the predicate rejects, or throws a value with no message', async () => {
    const { refund: rejecting } = refundTool(() => Promise.reject(new Error('lookup failed')));
    expect(await invokeTool(rejecting, { amount: 5 }, { approve: () => true })).toMatchObject({
      status: 'error',
      output: 'Error running issue_refund: needsApproval threw: lookup failed',
    });
    const { refund: bare } = refundTool(() => {
      throw undefined;
    });
    expect(await invokeTool(bare, { amount: 5 }, { approve: () => true })).toMatchObject({
      status: 'error',
      output: 'Error running issue_refund: needsApproval threw: it threw undefined',
    });
  });

  it('does not ask for approval when the arguments are invalid', async () => {
    const { refund } = refundTool(true);
    const approve = vi.fn(() => true);
    expect((await invokeTool(refund, { amount: 'lots' }, { approve })).status).toBe('invalid_arguments');
    expect(approve).not.toHaveBeenCalled();
  });

  it('runs nothing when the call is cancelled while waiting, even if approval arrives later', async () => {
    const { refund, execute } = refundTool(true);
    const controller = new AbortController();
    let grant: ((decision: boolean) => void) | undefined;
    const pending = invokeTool(
      refund,
      { amount: 5 },
      {
        signal: controller.signal,
        approve: () =>
          new Promise<boolean>((resolve) => {
            grant = resolve;
          }),
      },
    );
    await vi.waitFor(() => expect(grant).toBeDefined());
    controller.abort();
    grant?.(true);
    expect(await pending).toMatchObject({
      status: 'cancelled',
      output: 'Error running issue_refund: the call was cancelled',
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(execute).not.toHaveBeenCalled();
  });

  it('runs nothing when approval and cancellation arrive together', async () => {
    const { refund, execute } = refundTool(true);
    const controller = new AbortController();
    const result = await invokeTool(
      refund,
      { amount: 5 },
      {
        signal: controller.signal,
        approve: () => {
          controller.abort();
          return true;
        },
      },
    );
    expect(result.status).toBe('cancelled');
    expect(execute).not.toHaveBeenCalled();
  });
});
