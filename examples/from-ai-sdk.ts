/**
 * Tools written for the AI SDK, run for the hosted agent unchanged: `ai`'s own `tool()`, given in a record keyed by
 * tool name. `execute(input, options)` gets the AI SDK's `toolCallId`, `abortSignal` and `experimental_context`
 * (the run's context, which never leaves this process); `toModelOutput` decides what the model reads.
 * Run: npx tsx examples/from-ai-sdk.ts
 */
import { tool } from 'ai';
import { Agent } from 'toolwire';
import { z } from 'zod';
import { answerWithLastOutput, runExample } from './run-example';

const accounts: Record<string, { owner: string; balanceEur: number; notes: string }> = {
  acc_1: { owner: 'Ada', balanceEur: 1200, notes: 'internal: VIP, do not mention' },
};

// Exactly as an AI SDK project writes it: nothing here is toolwire's.
const getBalance = tool({
  description: 'The balance of an account of the current customer.',
  inputSchema: z.object({ accountId: z.string().describe('Account id, e.g. acc_1') }),
  execute: async ({ accountId }, { toolCallId, abortSignal, experimental_context }) => {
    abortSignal?.throwIfAborted();
    const { tenant } = experimental_context as { tenant: string };
    const account = accounts[accountId];
    if (account === undefined) throw new Error(`no account ${accountId} for ${tenant}`);
    console.log(`execute ${toolCallId}: ${accountId} for ${tenant}`);
    return account;
  },
  // The model reads a summary; the full record stays here.
  toModelOutput: ({ output }) => ({ type: 'text', value: `${output.owner}: €${output.balanceEur}` }),
});

const convert = tool({
  description: 'Converts euros to another currency.',
  inputSchema: z.object({ eur: z.number(), to: z.enum(['USD', 'NOK']) }),
  execute: async ({ eur, to }) => ({ amount: Math.round(eur * (to === 'USD' ? 1.1 : 11.5)), currency: to }),
});

await runExample({
  agent: new Agent({
    name: 'Banker',
    instructions: 'Answer questions about balances.',
    tools: { get_balance: getBalance, convert },
  }),
  input: 'How much does Ada have, in dollars?',
  context: { tenant: 'bank-eu' },
  script: [
    { toolCalls: [{ name: 'get_balance', arguments: { accountId: 'acc_1' } }] },
    { toolCalls: [{ name: 'convert', arguments: { eur: 1200, to: 'USD' } }] },
    answerWithLastOutput,
  ],
});
