/**
 * A tool written in the OpenAI Agents SDK's shape (the options of its `tool()`: `name`, `description`,
 * `parameters`, `strict`, `execute(input, runContext)`, `errorFunction(context, error)`,
 * `needsApproval(runContext, input, callId)`), run
 * for the hosted agent as it is. `@openai/agents` needs Node 22, so the shape is written out here rather than
 * imported; its `tool()` would return an object toolwire does not take (see the README's table).
 *
 * `strict: true` announces the schema OpenAI's strict function calling accepts: `note` becomes required and
 * nullable, and the `null` the model sends for it is taken out again before validation.
 * Run: npx tsx examples/from-openai-agents.ts
 */
import { Agent, type ToolContext } from 'toolwire';
import { z } from 'zod';
import { answerWithLastOutput, runExample } from './run-example';

interface Shop {
  shop: string;
}

const refundOrder = {
  name: 'refund_order',
  description: 'Refunds an order of the current shop.',
  parameters: z.object({ orderId: z.string(), note: z.string().optional() }),
  strict: true,
  // `runContext.context` is the run's context, as in the OpenAI Agents SDK.
  execute: async (input: { orderId: string; note?: string }, runContext?: ToolContext<Shop>) => {
    if (input.orderId === 'o_0') throw new Error('order o_0 was never paid');
    return `${runContext?.context.shop} refunded ${input.orderId}${input.note === undefined ? '' : ` (${input.note})`}`;
  },
  errorFunction: (_context: ToolContext<Shop>, error: unknown) =>
    `Could not refund: ${(error as Error).message}. Tell the customer.`,
  // `callId` third, as the OpenAI Agents SDK passes it.
  needsApproval: async (_context: ToolContext<Shop>, input: { orderId: string }, _callId?: string) =>
    input.orderId === 'o_big',
};

const agent = new Agent({ name: 'Support', instructions: 'Refund orders.', tools: [refundOrder] });
console.log(`announced: ${JSON.stringify(agent.tools[0]?.definition.parameters)}`);

await runExample({
  agent,
  input: 'Refund o_1, o_0 and o_big.',
  context: { shop: 'acme' } satisfies Shop,
  onApproval: (request) => (request.input as { orderId: string }).orderId !== 'o_big',
  script: [
    {
      toolCalls: [
        { name: 'refund_order', arguments: { orderId: 'o_1', note: null } },
        { name: 'refund_order', arguments: { orderId: 'o_0', note: 'late' } },
        { name: 'refund_order', arguments: { orderId: 'o_big', note: null } },
      ],
    },
    answerWithLastOutput,
  ],
});
