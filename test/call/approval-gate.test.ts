/**
 * The gate and approval of one call, as the model and `execute` see them: edited arguments pass the policies
 * again (and are never put to an approver again), every observer gets a frozen copy of the arguments, the
 * "approver edited" note is bounded, blank policy texts get defaults, and a hung policy is named.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool } from '../../src/call/invoke';
import type { ApprovalRequest, CallPolicy } from '../../src/call/types';
import type { TimeoutError } from '../../src/errors';
import { type ToolContext, tool } from '../../src/tool/tool';
import { expectDefinitionError } from '../fixtures/schema/definition-error';

type Refund = { orderId: string; amount: number; lines?: string[] };

function refund(extra: Record<string, unknown> = {}) {
  const received: Refund[] = [];
  const made = tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({
      orderId: z.string(),
      amount: z.number().max(100),
      lines: z.array(z.string()).optional(),
    }),
    execute: (input: Refund) => {
      received.push(input);
      return `refunded ${input.amount} on ${input.orderId}`;
    },
    ...extra,
  } as never);
  return { made, received };
}

/** Blocks a refund over 50; asks for approval over 20. */
const limits: CallPolicy = (call) => {
  const { amount } = call.arguments as Refund;
  if (amount > 50) return { block: `Refunds over 50 need a manager (got ${amount}).` };
  if (amount > 20) return { requireApproval: 'over 20' };
  return undefined;
};

describe('edited arguments and the policies', () => {
  it('runs edited arguments through the policies again: a policy blocks an edit it would have blocked', async () => {
    const { made, received } = refund({ needsApproval: true });
    const seen: unknown[] = [];
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 10 },
      {
        policies: [(call) => void seen.push(call.arguments), limits],
        approve: () => ({ approved: true, arguments: { orderId: 'o1', amount: 90 } }),
      },
    );
    expect(result).toMatchObject({
      status: 'rejected',
      reason: 'blocked',
      output:
        'The approver edited the arguments of refund to {"orderId":"o1","amount":90}.\nRefunds over 50 need a manager (got 90).',
    });
    expect(seen).toEqual([
      { orderId: 'o1', amount: 10 },
      { orderId: 'o1', amount: 90 },
    ]);
    expect(received).toEqual([]);
  });

  it('does not ask again when a policy asks approval for the edited arguments: the edit was approved', async () => {
    const { made, received } = refund();
    let asked = 0;
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 30 },
      {
        policies: [limits],
        approve: () => {
          asked += 1;
          return { approved: true, arguments: { orderId: 'o1', amount: 40 } };
        },
      },
    );
    expect(asked).toBe(1);
    expect(result).toMatchObject({ status: 'ok' });
    expect(received).toEqual([{ orderId: 'o1', amount: 40 }]);
  });

  it('gives the same answer for an edit decided locally and one the service re-delivers', async () => {
    const { made } = refund({ needsApproval: true });
    const local = await invokeTool(
      made,
      { orderId: 'o1', amount: 10 },
      { policies: [limits], approve: () => ({ approved: true, arguments: { orderId: 'o1', amount: 90 } }) },
    );
    // The service path: the call comes back approved, with the edited arguments (docs/protocol/decisions.md).
    const { startCall } = await import('../../src/call/pipeline');
    const service = await new Promise((resolve) =>
      startCall(
        made as never,
        { orderId: 'o1', amount: 90 },
        { approved: true, argumentsEdited: true, policies: [limits] },
        { result: resolve },
      ),
    );
    expect(service).toMatchObject({ status: local.status, reason: local.reason, output: local.output });
  });
});

describe('what observers see of the arguments', () => {
  it('gives policies, the predicate and the approver a frozen copy: execute gets the validated arguments', async () => {
    const { made, received } = refund({
      needsApproval: (_ctx: ToolContext, input: Refund) => {
        expect(() => {
          input.amount = 99;
        }).toThrow(TypeError);
        return true;
      },
    });
    const requests: ApprovalRequest[] = [];
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 5, lines: ['a'] },
      {
        policies: [
          (call) => {
            const args = call.arguments as Refund;
            expect(() => args.lines?.push('smuggled')).toThrow(TypeError);
            expect(Object.isFrozen(args)).toBe(true);
          },
        ],
        approve: (request) => {
          requests.push(request);
          expect(() => {
            (request.input as Refund).orderId = 'o2';
          }).toThrow(TypeError);
          return true;
        },
      },
    );
    expect(result).toMatchObject({ status: 'ok', output: 'refunded 5 on o1' });
    expect(received).toEqual([{ orderId: 'o1', amount: 5, lines: ['a'] }]);
    expect(Object.isFrozen(received[0])).toBe(false);
    expect(requests[0]?.input).toEqual({ orderId: 'o1', amount: 5, lines: ['a'] });
  });

  it('blocks the call (not run) when a policy writes to the arguments', async () => {
    const { made, received } = refund();
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 5 },
      {
        policies: [
          (call) => {
            (call.arguments as Refund).amount = 1;
          },
        ],
      },
    );
    expect(result).toMatchObject({
      status: 'rejected',
      reason: 'blocked',
      output: 'refund was not run: a policy failed while checking the call.',
    });
    expect(result.error).toBeInstanceOf(TypeError);
    expect(received).toEqual([]);
  });
});

describe('the "approver edited" note', () => {
  it('names the edited fields instead of quoting an edit over 512 bytes of JSON', async () => {
    const { made } = refund({ needsApproval: true });
    const lines = Array.from({ length: 80 }, (_, index) => `line ${index}`);
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 5 },
      { approve: () => ({ approved: true, arguments: { orderId: 'o1', amount: 6, lines } }) },
    );
    const size = JSON.stringify({ orderId: 'o1', amount: 6, lines }).length;
    expect(size).toBeGreaterThan(512);
    expect(result.output).toBe(
      `The approver edited the arguments of refund (fields "orderId", "amount", "lines"; ${size} bytes of JSON, too long to show).\nrefunded 6 on o1`,
    );
  });

  it('tells the model the edited arguments the call ran with: not the fields the schema stripped', async () => {
    const { made, received } = refund({ needsApproval: true });
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 10 },
      { approve: () => ({ approved: true, arguments: { orderId: 'o1', amount: 5, evil: 'x' } }) },
    );
    expect(received).toEqual([{ orderId: 'o1', amount: 5 }]);
    expect(result).toMatchObject({
      status: 'ok',
      output: 'The approver edited the arguments of refund to {"orderId":"o1","amount":5}.\nrefunded 5 on o1',
    });
  });

  it('tells the model what a call the service sent with edited arguments ran with', async () => {
    const { made, received } = refund();
    const { startCall } = await import('../../src/call/pipeline');
    const result = await new Promise<{ output: string }>((resolve) =>
      startCall(
        made as never,
        { orderId: 'o1', amount: 5, evil: 'x' },
        { approved: true, argumentsEdited: true },
        { result: resolve },
      ),
    );
    expect(received).toEqual([{ orderId: 'o1', amount: 5 }]);
    expect(result.output).toBe(
      'The approver edited the arguments of refund to {"orderId":"o1","amount":5}.\nrefunded 5 on o1',
    );
  });

  it('keeps the tool output in what the model reads with an edit near the frame limit', async () => {
    const { made } = refund({ needsApproval: true });
    // About 1 MB of edited arguments, with the cap at 1 MiB (the default maxPayloadBytes).
    const lines = Array.from({ length: 10_400 }, (_, index) => `line ${index}`.padEnd(97, '.'));
    const maxOutputBytes = 1_048_576;
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 5 },
      { maxOutputBytes, approve: () => ({ approved: true, arguments: { orderId: 'o1', amount: 6, lines } }) },
    );
    const size = JSON.stringify({ orderId: 'o1', amount: 6, lines }).length;
    expect(size).toBeGreaterThan(1_040_000);
    expect(result).toMatchObject({
      status: 'ok',
      output: `The approver edited the arguments of refund (fields "orderId", "amount", "lines"; ${size.toLocaleString('en-US')} bytes of JSON, too long to show).\nrefunded 6 on o1`,
    });
  });

  it('takes at most half of a small maxOutputBytes', async () => {
    const { made } = refund({ needsApproval: true });
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 5 },
      { maxOutputBytes: 120, approve: () => ({ approved: true, arguments: { orderId: 'o2', amount: 6 } }) },
    );
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(120);
    expect(result.output).toContain('\nrefunded 6 on o2');
  });
});

describe('policy decisions with blank texts, and a hung policy', () => {
  it('blocks with a default text for block: "" and asks with a default reason for requireApproval: ""', async () => {
    const { made } = refund();
    const blocked = await invokeTool(
      made,
      { orderId: 'o1', amount: 5 },
      { policies: [() => ({ block: ' ' })] },
    );
    expect(blocked).toMatchObject({
      status: 'rejected',
      reason: 'blocked',
      output: 'refund was not run: a policy blocked it.',
    });
    const reasons: unknown[] = [];
    await invokeTool(
      made,
      { orderId: 'o1', amount: 5 },
      {
        policies: [() => ({ requireApproval: '' })],
        approve: (request) => {
          reasons.push(request.reason);
          return true;
        },
      },
    );
    expect(reasons).toEqual(['a policy requires approval']);
  });

  it('names the policy that hung in the timeout text and error', async () => {
    const { made } = refund({ timeoutMs: 20 });
    const result = await invokeTool(
      made,
      { orderId: 'o1', amount: 5 },
      { policies: [() => undefined, () => new Promise<undefined>(() => {})] },
    );
    expect(result).toMatchObject({
      status: 'timeout',
      output: 'Error running refund: timed out after 20ms in policy 2',
    });
    expect((result.error as TimeoutError).message).toBe('refund timed out after 20ms in policy 2');
  });
});

describe('retry.when answering a promise', () => {
  const flaky = (
    when: (error: unknown) => boolean | Promise<boolean>,
    extra: Record<string, unknown> = {},
  ) => {
    const runs: number[] = [];
    const made = tool({
      name: 'flaky',
      description: 'd',
      sideEffect: 'none',
      retry: { maxAttempts: 3, initialDelayMs: 0, when },
      execute: (_input: unknown, ctx: ToolContext) => {
        runs.push(ctx.attempt);
        if (ctx.attempt < 3) throw new Error('busy');
        return 'done';
      },
      ...extra,
    });
    return { made, runs };
  };

  it('retries when an async when resolves true, and not when it resolves false or rejects', async () => {
    const yes = flaky(async () => true);
    expect(await invokeTool(yes.made, {})).toMatchObject({ status: 'ok', output: 'done' });
    expect(yes.runs).toEqual([1, 2, 3]);
    const no = flaky(async () => false);
    expect(await invokeTool(no.made, {})).toMatchObject({ output: 'Error running flaky: busy' });
    expect(no.runs).toEqual([1]);
    const rejects = flaky(() => Promise.reject(new Error('when failed')));
    expect((await invokeTool(rejects.made, {})).output).toBe('Error running flaky: busy');
    expect(rejects.runs).toEqual([1]);
  });

  it('says no when an async when does not answer within timeoutMs, and ends cancelled on a cancel', async () => {
    const hung = flaky(() => new Promise<boolean>(() => {}), { timeoutMs: 20 });
    expect((await invokeTool(hung.made, {})).output).toBe('Error running flaky: busy');
    expect(hung.runs).toEqual([1]);
    const controller = new AbortController();
    const cancelled = flaky(() => {
      queueMicrotask(() => controller.abort());
      return new Promise<boolean>(() => {});
    });
    expect(await invokeTool(cancelled.made, {}, { signal: controller.signal })).toMatchObject({
      status: 'cancelled',
    });
    expect(cancelled.runs).toEqual([1]);
  });
});

describe('allowedAgentNames', () => {
  it('refuses an empty list at definition time, saying why', () => {
    expectDefinitionError(
      () => refund({ allowedAgentNames: [] }),
      'invalid_option',
      'tool "refund": allowedAgentNames must be a non-empty array of agent names (an empty list would let no agent call the tool; leave allowedAgentNames out to let every agent call it), got an array of 0 items',
    );
  });
});
