import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../server-stub/index';
import { Agent, type ApprovalRequest, tool } from '../../src/index';
import { useStubClients } from '../support/stub-client';

const { stub, connected } = useStubClients();

const oneRefund = () =>
  scriptedModel([
    { toolCalls: [{ name: 'refund', arguments: { orderId: 'order-7781', amount: 12 } }] },
    ({ messages }) => ({ text: messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '' }),
  ]);

const refundTool = (options: { allowedAgentNames?: string[] } = {}) => {
  const ran: string[] = [];
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ orderId: z.string(), amount: z.number() }),
    ...options,
    execute: ({ orderId, amount }) => {
      ran.push(orderId);
      return `refunded ${amount} on ${orderId}`;
    },
  });
  return { refund, ran };
};

describe('allowedAgentNames over the stub', () => {
  it("refuses a call from another agent's run before execute, and runs the listed agent's", async () => {
    const server = await stub({ model: oneRefund() });
    const { refund, ran } = refundTool({ allowedAgentNames: ['refund-specialist'] });
    const client = await connected(server.url, { tools: [refund] });
    const chat = await client.run(new Agent({ name: 'chat', instructions: 'Help.', tools: [refund] }), 'go');
    expect(chat.toolCalls[0]).toMatchObject({
      status: 'rejected',
      output: 'refund was not run: the agent "chat" is not allowed to call it.',
    });
    expect(ran).toEqual([]);
    const specialist = await client.run(
      new Agent({ name: 'refund-specialist', instructions: 'Refund.', tools: [refund] }),
      'go',
    );
    expect(specialist.finalOutput).toBe('refunded 12 on order-7781');
    expect(ran).toEqual(['order-7781']);
  });

  it('refuses every call when the service does not say which agent called (no feature agent_name)', async () => {
    const server = await stub({ model: oneRefund(), features: [] });
    const { refund, ran } = refundTool({ allowedAgentNames: ['refund-specialist'] });
    const client = await connected(server.url, { tools: [refund] });
    const agent = new Agent({ name: 'refund-specialist', instructions: 'Refund.', tools: [refund] });
    const result = await client.run(agent, 'go');
    expect(result.finalOutput).toBe(
      'refund was not run: the calling agent is unknown, and only some agents may call it.',
    );
    expect(ran).toEqual([]);
  });
});

describe('Client({ policies }) over the stub', () => {
  it('blocks a call with the text the policy gives, and the policy sees the call', async () => {
    const server = await stub({ model: oneRefund() });
    const { refund, ran } = refundTool();
    const seen: unknown[] = [];
    const client = await connected(server.url, {
      tools: [refund],
      policies: [
        (call) => {
          seen.push(call);
          return call.agentName === 'chat' ? { block: 'Refunds go through a specialist.' } : undefined;
        },
      ],
    });
    const agent = new Agent({ name: 'chat', instructions: 'Help.', tools: [refund] });
    const result = await client.run(agent, 'go', { context: { tenant: 't1' } });
    expect(result.toolCalls[0]).toMatchObject({
      status: 'rejected',
      output: 'Refunds go through a specialist.',
    });
    expect(ran).toEqual([]);
    expect(seen).toEqual([
      {
        toolName: 'refund',
        arguments: { orderId: 'order-7781', amount: 12 },
        callId: result.toolCalls[0]?.callId,
        runId: result.runId,
        agentName: 'chat',
        context: { tenant: 't1' },
      },
    ]);
  });

  it('sends a call to the service for approval with the policy reason, scrubbing redacted fields everywhere the client sends', async () => {
    const server = await stub({ model: oneRefund() });
    const { refund, ran } = refundTool();
    const client = await connected(server.url, {
      tools: [refund],
      policies: [
        () => ({ redact: ['orderId'] }),
        async (call) =>
          (call.arguments as { amount: number }).amount > 10
            ? { requireApproval: 'refunds over 10' }
            : undefined,
      ],
    });
    const requested: ApprovalRequest[] = [];
    const reasons: unknown[] = [];
    client.on('approval_requested', (request) => requested.push(request));
    client.on('run_event', (event) => {
      if (event.kind !== 'approval_requested') return;
      reasons.push(event.reason);
      void client.decide(event.callId, true);
    });
    const result = await client.run(
      new Agent({ name: 'chat', instructions: 'Help.', tools: [refund] }),
      'go',
    );
    expect(reasons).toEqual(['refunds over 10']);
    expect(requested).toMatchObject([
      { reason: 'refunds over 10', input: { orderId: '[redacted]', amount: 12 } },
    ]);
    expect(ran).toEqual(['order-7781']);
    expect(result.finalOutput).toBe('refunded 12 on [redacted]');
    expect(JSON.stringify(server.runs.get(result.runId)?.toolCalls[0]?.output)).not.toContain('order-7781');
  });

  it('blocks with a generic text when a policy throws, and logs what it threw', async () => {
    const server = await stub({ model: oneRefund() });
    const { refund, ran } = refundTool();
    const warned: unknown[] = [];
    const logger = { debug() {}, info() {}, warn: (fields: unknown) => warned.push(fields), error() {} };
    const client = await connected(server.url, {
      tools: [refund],
      logger,
      policies: [
        () => {
          throw new Error('policy store unreachable');
        },
      ],
    });
    const result = await client.run(
      new Agent({ name: 'chat', instructions: 'Help.', tools: [refund] }),
      'go',
    );
    expect(result.toolCalls[0]).toMatchObject({
      status: 'rejected',
      output: 'refund was not run: a policy failed while checking the call.',
    });
    expect(ran).toEqual([]);
    expect(warned).toContainEqual(
      expect.objectContaining({ error: expect.objectContaining({ message: 'policy store unreachable' }) }),
    );
  });
});
