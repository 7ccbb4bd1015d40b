/**
 * Seed 004 (Relay-E), "Anatomy of a tool" and "Dangerous tools — requiresApproval", run through the Client.
 * `defineTool` (their package) is toolwire's `tool()` under their name: it takes the definition as written,
 * `inputSchema` and `requiresApproval` included, and infers `execute`'s input from the schema.
 *
 * Quoted from the document:
 *
 *   defineTool({
 *     name: "get_balance",
 *     description: "Return the current balance for a user's account.",
 *     inputSchema: z.object({
 *       account_id: z.string().describe("Account identifier"),
 *     }),
 *     execute: async ({ account_id }, ctx) => {
 *       return { account_id, balance_usd: 4231.55, currency: "USD" };
 *     },
 *   });
 *
 *   defineTool({
 *     name: "transfer_funds",
 *     description: "Transfer funds between two accounts.",
 *     requiresApproval: true,
 *     inputSchema: z.object({
 *       from_account: z.string(),
 *       to_account: z.string(),
 *       amount_usd: z.number().positive(),
 *     }),
 *     execute: async (input) => ({
 *       transfer_id: `xfer_${crypto.randomUUID()}`,
 *       status: "pending_approval",
 *       ...input,
 *     }),
 *   });
 *
 * The document's `ctx.tenantId` would be `ctx.context.tenantId` in toolwire (the example does not read it).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool } from '../../src/index';
import { runSeed } from './through-stub';

const defineTool = tool;

describe('seed 004: Relay-E', () => {
  it('runs get_balance, tells the model about bad input, and holds transfer_funds for approval', async () => {
    const getBalance = defineTool({
      name: 'get_balance',
      description: "Return the current balance for a user's account.",
      inputSchema: z.object({
        account_id: z.string().describe('Account identifier'),
      }),
      // biome-ignore lint/correctness/noUnusedFunctionParameters: quoted as written; the example does not read ctx.
      execute: async ({ account_id }, ctx) => {
        return { account_id, balance_usd: 4231.55, currency: 'USD' };
      },
    });
    const transferFunds = defineTool({
      name: 'transfer_funds',
      description: 'Transfer funds between two accounts.',
      requiresApproval: true,
      inputSchema: z.object({
        from_account: z.string(),
        to_account: z.string(),
        amount_usd: z.number().positive(),
      }),
      execute: async (input) => ({
        transfer_id: `xfer_${crypto.randomUUID()}`,
        status: 'pending_approval',
        ...input,
      }),
    });
    expect(getBalance.definition.parameters).toEqual({
      type: 'object',
      properties: { account_id: { type: 'string', description: 'Account identifier' } },
      required: ['account_id'],
    });
    expect(transferFunds.definition.needsApproval).toBe(true);
    const lines = await runSeed({
      tools: [getBalance, transferFunds],
      onApproval: (request) => (request.input as { amount_usd: number }).amount_usd < 1000,
      script: [
        { toolCalls: [{ name: 'get_balance', arguments: { account: 'a1' } }] },
        {
          toolCalls: [
            { name: 'get_balance', arguments: { account_id: 'a1' } },
            { name: 'transfer_funds', arguments: { from_account: 'a1', to_account: 'a2', amount_usd: 5000 } },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(lines).toEqual([
      'get_balance({"account":"a1"}) → invalid_arguments: Invalid arguments for get_balance: account_id: Invalid input: expected string, received undefined',
      'get_balance({"account_id":"a1"}) → ok: {"account_id":"a1","balance_usd":4231.55,"currency":"USD"}',
      'transfer_funds({"from_account":"a1","to_account":"a2","amount_usd":5000}) → rejected: transfer_funds was not run: the user declined.',
    ]);
  });
});
