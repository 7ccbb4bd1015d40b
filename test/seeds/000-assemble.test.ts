/**
 * Seed 000 (Assemble SDK), "Defining a tool" and "Approvals and sensitive fields", run through the Client.
 *
 * Quoted from the document (`tool` there is `@assemble-dev/sdk`'s; here it is toolwire's `tool()`):
 *
 *   export const issueRefund = tool({
 *     name: "issueRefund",
 *     description: "Issues a refund for an order",
 *     inputSchema: z.object({ orderId: z.string().min(1), amount: z.number().positive() }),
 *     outputSchema: z.object({ refundId: z.string(), status: z.literal("succeeded") }),
 *     allowedAgentNames: ["refund-specialist"],
 *     execute: async (input) =>
 *       await Promise.resolve({
 *         refundId: `re_${input.orderId}`,
 *         status: "succeeded" as const,
 *       }),
 *   });
 *
 * It runs as written: `allowedAgentNames` is the allowlist of calling agents (the service names the agent on each
 * `tool_call`), `inputSchema` is read as `parameters`, and `outputSchema` checks what `execute` returns.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, type RunResult, tool } from '../../src/index';
import { recordRun, replayTools } from '../../src/testing';
import { runSeed } from './through-stub';

describe('seed 000: Assemble', () => {
  it('runs as written, allowedAgentNames included: the listed agent runs it, another agent is refused', async () => {
    const issueRefund = tool({
      name: 'issueRefund',
      description: 'Issues a refund for an order',
      inputSchema: z.object({ orderId: z.string().min(1), amount: z.number().positive() }),
      outputSchema: z.object({ refundId: z.string(), status: z.literal('succeeded') }),
      allowedAgentNames: ['refund-specialist'],
      execute: async (input) =>
        await Promise.resolve({
          refundId: `re_${input.orderId}`,
          status: 'succeeded' as const,
        }),
    });
    const script = [
      { toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'o_1', amount: 12.5 } }] },
      { text: 'done' },
    ];
    const allowed = await runSeed({
      tools: [issueRefund],
      agent: new Agent({ name: 'refund-specialist', instructions: 'Refund.', tools: [issueRefund] }),
      script,
    });
    expect(allowed).toEqual([
      'issueRefund({"orderId":"o_1","amount":12.5}) → ok: {"refundId":"re_o_1","status":"succeeded"}',
    ]);
    const other = await runSeed({ tools: [issueRefund], script });
    expect(other).toEqual([
      'issueRefund({"orderId":"o_1","amount":12.5}) → rejected: issueRefund was not run: the agent "Seed" is not allowed to call it.',
    ]);
  });

  it('runs the tool without allowedAgentNames: input validated, output validated', async () => {
    const issueRefund = tool({
      name: 'issueRefund',
      description: 'Issues a refund for an order',
      inputSchema: z.object({ orderId: z.string().min(1), amount: z.number().positive() }),
      outputSchema: z.object({ refundId: z.string(), status: z.literal('succeeded') }),
      execute: async (input) =>
        await Promise.resolve({
          refundId: `re_${input.orderId}`,
          status: 'succeeded' as const,
        }),
    });
    const lines = await runSeed({
      tools: [issueRefund],
      script: [
        { toolCalls: [{ name: 'issueRefund', arguments: { orderId: '', amount: -5 } }] },
        { toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'o_1', amount: 12.5 } }] },
        { text: 'done' },
      ],
    });
    expect(lines).toEqual([
      'issueRefund({"orderId":"","amount":-5}) → invalid_arguments: Invalid arguments for issueRefund: orderId: expected a string of at least 1 character, received a string of 0 characters; amount: expected a number > 0, received -5',
      'issueRefund({"orderId":"o_1","amount":12.5}) → ok: {"refundId":"re_o_1","status":"succeeded"}',
    ]);
  });

  it('holds a requiresApproval: true tool for a human, as the document says', async () => {
    // "Set requiresApproval: true to force a human decision on every call".
    const issueRefund = tool({
      name: 'issueRefund',
      description: 'Issues a refund for an order',
      inputSchema: z.object({ orderId: z.string().min(1), amount: z.number().positive() }),
      requiresApproval: true,
      execute: async (input) => ({ refundId: `re_${input.orderId}`, status: 'succeeded' as const }),
    });
    expect(issueRefund.definition.needsApproval).toBe(true);
    const lines = await runSeed({
      tools: [issueRefund],
      onApproval: (request) => (request.input as { orderId: string }).orderId !== 'o_2',
      script: [
        {
          toolCalls: [
            { name: 'issueRefund', arguments: { orderId: 'o_1', amount: 1 } },
            { name: 'issueRefund', arguments: { orderId: 'o_2', amount: 1 } },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(lines).toEqual([
      'issueRefund({"orderId":"o_1","amount":1}) → ok: {"refundId":"re_o_1","status":"succeeded"}',
      'issueRefund({"orderId":"o_2","amount":1}) → rejected: issueRefund was not run: the user declined.',
    ]);
  });

  it('replays a recorded run with the recorded results and no side effects', async () => {
    const refunds: string[] = [];
    const issueRefund = tool({
      name: 'issueRefund',
      description: 'Issues a refund for an order',
      inputSchema: z.object({ orderId: z.string().min(1), amount: z.number().positive() }),
      outputSchema: z.object({ refundId: z.string(), status: z.literal('succeeded') }),
      execute: async (input) => {
        refunds.push(input.orderId);
        return await Promise.resolve({ refundId: `re_${input.orderId}`, status: 'succeeded' as const });
      },
    });
    const script = [
      { toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'o_1', amount: 12.5 } }] },
      { text: 'refunded' },
    ];
    const line =
      'issueRefund({"orderId":"o_1","amount":12.5}) → ok: {"refundId":"re_o_1","status":"succeeded"}';
    let live: RunResult | undefined;
    expect(await runSeed({ tools: [issueRefund], script, inspect: (_, result) => (live = result) })).toEqual([
      line,
    ]);
    let replayed: RunResult | undefined;
    const tools = replayTools(recordRun(live!), [issueRefund]);
    expect(await runSeed({ tools, script, inspect: (_, result) => (replayed = result) })).toEqual([line]);
    expect(refunds).toEqual(['o_1']);
    expect(replayed?.toolCalls.map((call) => call.result)).toEqual([
      { type: 'json', value: { refundId: 're_o_1', status: 'succeeded' } },
    ]);
  });
});
