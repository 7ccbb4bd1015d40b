/**
 * Seed 004 (Relay-E), "Anatomy of a tool", "The ctx parameter" and "Dangerous tools — requiresApproval", run
 * through the Client against the stub with only the import line changed: `defineTool` comes from
 * `toolwire/compat`, and `ctx` has Relay-E's members with its meanings: the tenant and the end user come from the
 * service (the stub: an id derived from the API key that started the run, and the `userId` given to
 * `client.run()`), and reach nested runs.
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
 *   interface ToolContext { tenantId: string; userId?: string; sessionId?: string; runId?: string;
 *     config: Record<string, unknown>; logger: Logger; signal: AbortSignal; }
 */
import { createHash } from 'node:crypto';
import { Agent } from 'toolwire';
import { defineTool } from 'toolwire/compat';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runSeed } from './through-stub';

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
      'get_balance({"account":"a1"}) → invalid_arguments: Invalid arguments for get_balance: account_id: expected a string, received nothing',
      'get_balance({"account_id":"a1"}) → ok: {"account_id":"a1","balance_usd":4231.55,"currency":"USD"}',
      'transfer_funds({"from_account":"a1","to_account":"a2","amount_usd":5000}) → rejected: transfer_funds was not run: the user declined.',
    ]);
  });

  it('gives ctx the tenant and end user from the service, in nested runs too, and the rest of its members', async () => {
    const seen: Record<string, unknown>[] = [];
    const whoami = defineTool({
      name: 'whoami',
      description: 'Says whom the call acts for.',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        seen.push({
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          sessionId: typeof ctx.sessionId,
          runId: typeof ctx.runId,
          config: ctx.config,
          logger: typeof ctx.logger.info,
          signal: ctx.signal instanceof AbortSignal,
        });
        return `tenant ${ctx.tenantId}, user ${ctx.userId}`;
      },
    });
    const inner = new Agent({ name: 'Inner', tools: [whoami] });
    const outer = new Agent({
      name: 'Outer',
      tools: [whoami, inner.asTool({ toolDescription: 'Asks Inner.' })],
    });
    const lines = await runSeed({
      tools: [whoami],
      agent: outer,
      apiKeys: ['key-of-acme'],
      userId: 'user_42',
      context: { region: 'eu' },
      script: {
        Outer: [
          { toolCalls: [{ name: 'whoami', arguments: {} }] },
          { toolCalls: [{ name: 'Inner', arguments: { input: 'and you?' } }] },
          { text: 'done' },
        ],
        Inner: [{ toolCalls: [{ name: 'whoami', arguments: {} }] }, { text: 'inner done' }],
      },
    });
    const tenant = `t_${createHash('sha256').update('key-of-acme').digest('hex').slice(0, 16)}`;
    expect(lines).toEqual([
      `whoami({}) → ok: tenant ${tenant}, user user_42`,
      'Inner({"input":"and you?"}) → ok: inner done',
    ]);
    const member = {
      tenantId: tenant,
      userId: 'user_42',
      sessionId: 'string',
      runId: 'string',
      config: { region: 'eu' },
      logger: 'function',
      signal: true,
    };
    expect(seen).toEqual([member, member]);
  });
});
