/**
 * Assemble seed, with only the import changed: `issueRefund` run once, recorded, then replayed with the recorded
 * results and no side effects ("During replay, tool calls are mocked by default"). Strict tsc checks this file
 * with the rest of the tests; it runs against the stub.
 */

import { Agent, Client, recordRun, replayTools, tool } from 'toolwire';
import { scriptedModel, silentLogger, startStubServer } from 'toolwire/server-stub';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

describe('seed: Assemble', () => {
  it('replays a recorded run without re-executing its side effects', async () => {
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
    const turns = [
      { toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'o_1', amount: 12.5 } }] },
      { text: 'refunded' },
    ];
    const stub = await startStubServer({ logger: silentLogger, model: scriptedModel([...turns, ...turns]) });
    const run = async (tools: (typeof issueRefund)[]) => {
      const client = new Client({ url: stub.url, apiKey: 'k', tools });
      await client.connect();
      try {
        return await client.run(
          new Agent({ name: 'refund-specialist', instructions: 'Refund.', tools }),
          'go',
        );
      } finally {
        await client.close();
      }
    };
    try {
      const live = await run([issueRefund]);
      const replayed = await run(replayTools(recordRun(live), [issueRefund]));
      expect(refunds).toEqual(['o_1']);
      expect(replayed.toolCalls.map((call) => [call.status, call.result])).toEqual([
        ['ok', { type: 'json', value: { refundId: 're_o_1', status: 'succeeded' } }],
      ]);
    } finally {
      await stub.close();
    }
  });
});
