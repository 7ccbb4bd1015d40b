import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approvalRequired, invokeTool, ToolDefinitionError, tool } from '../../src/index';

const refund = (extra: Record<string, unknown> = {}) =>
  tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ orderId: z.string(), amount: z.number().max(100) }),
    execute: ({ orderId, amount }: { orderId: string; amount: number }) => `refunded ${amount} on ${orderId}`,
    ...extra,
  } as never);

describe('approval policies', () => {
  it('announces approvalRequired as needsApproval with its reason', () => {
    const t = refund({ needsApproval: approvalRequired('Refunds move money.') });
    expect(t.definition).toMatchObject({ needsApproval: true, approvalReason: 'Refunds move money.' });
  });

  it('gives the approver the reason of approvalRequired and of a predicate', async () => {
    const reasons: unknown[] = [];
    const approve = (request: { reason?: string }) => {
      reasons.push(request.reason);
      return true;
    };
    await invokeTool(
      refund({ needsApproval: approvalRequired('Refunds move money.') }),
      { orderId: 'o1', amount: 5 },
      { approve },
    );
    await invokeTool(
      refund({
        needsApproval: (_ctx: unknown, input: { amount: number }) => ({
          required: input.amount > 10,
          reason: 'over 10',
        }),
      }),
      { orderId: 'o1', amount: 50 },
      { approve },
    );
    const skipped = await invokeTool(
      refund({ needsApproval: () => ({ required: false, reason: 'never' }) }),
      { orderId: 'o1', amount: 50 },
      { approve },
    );
    expect(reasons).toEqual(['Refunds move money.', 'over 10']);
    expect(skipped.status).toBe('ok');
  });

  it("announces approvalRequired's side-effect class and gives it to the approver", async () => {
    const note = refund({ needsApproval: approvalRequired('Notes are durable.', 'idempotent') });
    expect(note.definition).toMatchObject({ needsApproval: true, sideEffect: 'idempotent' });
    const asked: unknown[] = [];
    await invokeTool(note, { orderId: 'o1', amount: 5 }, { approve: (request) => asked.push(request) > 0 });
    expect(asked).toEqual([
      expect.objectContaining({ reason: 'Notes are durable.', sideEffect: 'idempotent', toolName: 'refund' }),
    ]);
    // Without a class of its own the policy's default is the tool's default: external.
    expect(refund({ needsApproval: approvalRequired('Refunds move money.') }).definition.sideEffect).toBe(
      'external',
    );
    // A tool's own class wins over the policy's default, and is what the approver is told.
    const own = refund({ needsApproval: approvalRequired('Reads only.'), sideEffect: 'none' });
    expect(own.definition.sideEffect).toBe('none');
    asked.length = 0;
    await invokeTool(own, { orderId: 'o1', amount: 5 }, { approve: (request) => asked.push(request) > 0 });
    expect(asked).toEqual([expect.objectContaining({ sideEffect: 'none' })]);
  });

  it('refuses a tool whose sideEffect differs from its approvalRequired class', () => {
    expect(() =>
      refund({ needsApproval: approvalRequired('Notes are durable.', 'idempotent'), sideEffect: 'none' }),
    ).toThrowError(
      new ToolDefinitionError(
        'conflicting_options',
        `tool "refund": sideEffect is 'none', but needsApproval is approvalRequired(…, 'idempotent'); give the class once`,
      ),
    );
    // The same class twice is fine; the policy's class also allows retry.
    expect(
      refund({
        needsApproval: approvalRequired('Notes are durable.', 'idempotent'),
        sideEffect: 'idempotent',
        retry: { maxAttempts: 2 },
      }).definition.sideEffect,
    ).toBe('idempotent');
  });

  it('refuses an approvalRequired with an empty reason at definition time', () => {
    expect(() => refund({ needsApproval: approvalRequired('') })).toThrow(/needsApproval must be/);
  });

  it('runs edited arguments, validated again, and tells the model', async () => {
    const t = refund({ needsApproval: true });
    const edited = await invokeTool(
      t,
      { orderId: 'o1', amount: 90 },
      {
        approve: () => ({ approved: true, arguments: { orderId: 'o1', amount: 40 } }),
      },
    );
    expect(edited).toMatchObject({
      status: 'ok',
      output:
        'The approver edited the arguments of refund to {"orderId":"o1","amount":40}.\nrefunded 40 on o1',
    });
    const invalid = await invokeTool(
      t,
      { orderId: 'o1', amount: 90 },
      {
        approve: () => ({ approved: true, arguments: { orderId: 'o1', amount: 400 } }),
      },
    );
    expect(invalid.status).toBe('invalid_arguments');
    expect(invalid.output).toMatch(
      /^refund was not run: the arguments the approver edited are invalid: amount: /,
    );
  });

  it('remembers always for the rest of the run, per tool, and accepts alwaysReject', async () => {
    const t = refund({ needsApproval: true });
    let asked = 0;
    const approve = () => {
      asked += 1;
      return { approved: false, reason: 'no refunds today', alwaysReject: true };
    };
    const first = await invokeTool(t, { orderId: 'o1', amount: 1 }, { approve, runId: 'r1' });
    const second = await invokeTool(t, { orderId: 'o2', amount: 1 }, { approve, runId: 'r1' });
    const otherRun = await invokeTool(t, { orderId: 'o3', amount: 1 }, { approve, runId: 'r2' });
    expect(asked).toBe(2);
    expect(second).toMatchObject({ status: 'rejected', reason: 'declined', output: first.output });
    expect(otherRun.status).toBe('rejected');
  });
});

describe('allowlist and policies', () => {
  it('refuses a call from an agent outside allowedAgentNames before anything else', async () => {
    const t = refund({ allowedAgentNames: ['refund-specialist'], needsApproval: true });
    const refused = await invokeTool(
      t,
      { orderId: 'o1', amount: 1 },
      { agentName: 'chat', approve: () => true },
    );
    expect(refused).toMatchObject({
      status: 'rejected',
      reason: 'not_allowed',
      output: 'refund was not run: the agent "chat" is not allowed to call it.',
    });
    const unknown = await invokeTool(t, { orderId: 'o1', amount: 1 }, { approve: () => true });
    expect(unknown.output).toBe(
      'refund was not run: the calling agent is unknown, and only some agents may call it.',
    );
    const ok = await invokeTool(
      t,
      { orderId: 'o1', amount: 1 },
      { agentName: 'refund-specialist', approve: () => true },
    );
    expect(ok.status).toBe('ok');
  });

  it('blocks, requires approval, redacts, and blocks when a policy throws', async () => {
    const t = refund();
    const blocked = await invokeTool(
      t,
      { orderId: 'o1', amount: 1 },
      { policies: [() => ({ block: 'Refunds are frozen.' })] },
    );
    expect(blocked).toMatchObject({ status: 'rejected', reason: 'blocked', output: 'Refunds are frozen.' });
    const requests: unknown[] = [];
    const required = await invokeTool(
      t,
      { orderId: 'order-secret', amount: 1 },
      {
        policies: [() => ({ redact: ['orderId'] }), async () => ({ requireApproval: 'policy says so' })],
        approve: (request) => {
          requests.push(request);
          return true;
        },
      },
    );
    expect(requests).toMatchObject([
      { reason: 'policy says so', input: { orderId: '[redacted]', amount: 1 } },
    ]);
    expect(required).toMatchObject({ status: 'ok', output: 'refunded 1 on [redacted]' });
    const failing = await invokeTool(
      t,
      { orderId: 'o1', amount: 1 },
      {
        policies: [
          () => {
            throw new Error('db down');
          },
        ],
      },
    );
    expect(failing).toMatchObject({
      status: 'rejected',
      reason: 'blocked',
      output: 'refund was not run: a policy failed while checking the call.',
    });
    expect((failing.error as Error).message).toBe('db down');
  });
});
