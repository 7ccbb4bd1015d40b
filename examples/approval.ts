/**
 * Approvals: a tool that always needs a human, and one whose predicate decides per call. Here `onApproval`
 * plays the human in this process; without it the service asks its own UI. Run: npx tsx examples/approval.ts
 */
import { Agent, tool } from 'toolwire';
import { z } from 'zod';
import { runExample } from './run-example';

const deleteUser = tool({
  name: 'delete_user',
  description: 'Delete a user account.',
  parameters: z.object({ userId: z.string() }),
  needsApproval: true,
  execute: ({ userId }) => `deleted ${userId}`,
});

const transfer = tool({
  name: 'transfer',
  description: 'Transfer money.',
  parameters: z.object({ amountEur: z.number().positive() }),
  needsApproval: (_ctx, { amountEur }) => amountEur > 1_000,
  execute: ({ amountEur }) => `transferred €${amountEur}`,
});

await runExample({
  agent: new Agent({ name: 'Admin', instructions: 'Do admin work.', tools: [deleteUser, transfer] }),
  input: 'Delete user u_42, send €50 and then €5,000.',
  script: [
    {
      toolCalls: [
        { name: 'delete_user', arguments: { userId: 'u_42' } },
        { name: 'transfer', arguments: { amountEur: 50 } },
        { name: 'transfer', arguments: { amountEur: 5_000 } },
      ],
    },
    { text: 'Done what was allowed.' },
  ],
  onApproval: (request) => {
    const approved = request.toolName === 'delete_user';
    console.log(
      `human asked about ${request.toolName} ${JSON.stringify(request.input)}: ${approved ? 'yes' : 'no'}`,
    );
    return approved ? true : { approved: false, reason: 'over the daily limit' };
  },
});
