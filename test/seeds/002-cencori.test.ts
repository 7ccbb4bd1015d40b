/**
 * Seed 002 (Cencori agents SDK, the primary contract): every tool example of its "Tools" page, run through the
 * Client. `tool` and `Agent` are toolwire's; `db` and `payments` are stand-ins the document leaves to the reader.
 *
 * Quoted from the document:
 *
 *   const searchOrders = tool({
 *       name: 'search_orders',
 *       description: 'Find orders by customer email. Returns at most 10.',
 *       parameters: z.object({
 *           email: z.string().email(),
 *           status: z.enum(['open', 'shipped', 'refunded']).optional(),
 *       }),
 *       execute: async ({ email, status }, { context }) => db.orders.search({ email, status, tenant: context.tenantId }),
 *   });
 *
 *   const charge = tool({
 *       name: 'charge_card',
 *       description: 'Charge the saved card.',
 *       parameters: z.object({ amount: z.number() }),
 *       execute: async ({ amount }) => payments.charge(amount),
 *       errorFunction: () => 'The charge failed. Ask the user to update their card.',
 *   });
 *
 *   const refund = tool({ name: 'issue_refund', description: '...', parameters, execute, needsApproval: true });
 *
 *   const showOrder = tool({ name: 'show_order', … execute: async ({ id }) => { … return { status, widget } } });
 *
 *   const researcher = new Agent({ name: 'Researcher', instructions: '...' });
 *   const writer = new Agent({ name: 'Writer', tools: [researcher.asTool({ toolDescription: 'Look up facts.' })] });
 *
 * As written, with only the import changed: `{ context }` is not annotated (the run context is loosely typed until
 * the app declares `AppContext`), and `writer` has no `instructions`. test/seeds/strict-tsc.test.ts compiles
 * this file under strict `tsc`, and the app-wide narrowing by declaration merging too.
 */

import { Agent, tool } from 'toolwire';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runSeed } from './through-stub';

const db = {
  orders: {
    search: async (query: { email: string; status?: string; tenant: string }) => [{ id: 'o_1', ...query }],
    find: async (id: string) => ({ id, status: 'shipped', items: [1, 2], total: '€40' }),
  },
};
const payments = {
  charge: async (_amount: number): Promise<string> => {
    throw new Error('card declined');
  },
};

describe('seed 002: Cencori', () => {
  it('runs search_orders, charge_card, issue_refund and show_order', async () => {
    const searchOrders = tool({
      name: 'search_orders',
      description: 'Find orders by customer email. Returns at most 10.',
      parameters: z.object({
        email: z.string().email(),
        status: z.enum(['open', 'shipped', 'refunded']).optional(),
      }),
      execute: async ({ email, status }, { context }) =>
        db.orders.search({ email, status, tenant: context.tenantId }),
    });
    const charge = tool({
      name: 'charge_card',
      description: 'Charge the saved card.',
      parameters: z.object({ amount: z.number() }),
      execute: async ({ amount }) => payments.charge(amount),
      errorFunction: () => 'The charge failed. Ask the user to update their card.',
    });
    const parameters = z.object({ orderId: z.string() });
    const execute = async ({ orderId }: { orderId: string }) => `refunded ${orderId}`;
    const refund = tool({
      name: 'issue_refund',
      description: '...',
      parameters,
      execute,
      needsApproval: true,
    });
    const showOrder = tool({
      name: 'show_order',
      description: 'Show an order to the user.',
      parameters: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        const order = await db.orders.find(id);
        return {
          status: order.status,
          widget: {
            type: 'Card',
            title: `Order ${order.id}`,
            children: [
              {
                type: 'Badge',
                label: order.status,
                color: order.status === 'shipped' ? 'success' : 'warning',
              },
              { type: 'Text', value: `${order.items.length} items · ${order.total}` },
            ],
          },
        };
      },
    });
    const lines = await runSeed({
      tools: [searchOrders, charge, refund, showOrder],
      context: { tenantId: 't_9' },
      onApproval: () => true,
      script: [
        { toolCalls: [{ name: 'search_orders', arguments: { email: 'not-an-email' } }] },
        {
          toolCalls: [
            { name: 'search_orders', arguments: { email: 'ada@example.com', status: 'open' } },
            { name: 'charge_card', arguments: { amount: 5 } },
            { name: 'issue_refund', arguments: { orderId: 'o_1' } },
            { name: 'show_order', arguments: { id: 'o_1' } },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(lines).toEqual([
      'search_orders({"email":"not-an-email"}) → invalid_arguments: Invalid arguments for search_orders: email: expected a string in the format "email", received "not-an-email"',
      'search_orders({"email":"ada@example.com","status":"open"}) → ok: [{"id":"o_1","email":"ada@example.com","status":"open","tenant":"t_9"}]',
      'charge_card({"amount":5}) → error: The charge failed. Ask the user to update their card.',
      'issue_refund({"orderId":"o_1"}) → ok: refunded o_1',
      'show_order({"id":"o_1"}) → ok: {"status":"shipped"}',
    ]);
  });

  it('runs an agent as a tool of another agent, the outer one without instructions', async () => {
    const researcher = new Agent({ name: 'Researcher', instructions: '...' });
    const writer = new Agent({
      name: 'Writer',
      tools: [researcher.asTool({ toolDescription: 'Look up facts.' })],
    });
    let firstMessages: unknown;
    const lines = await runSeed({
      inspect: (transcript) => {
        firstMessages = transcript?.messages.slice(0, 2);
      },
      tools: [],
      agent: writer,
      script: {
        Writer: [
          { toolCalls: [{ name: 'Researcher', arguments: { input: 'capital of Norway?' } }] },
          { text: 'ok' },
        ],
        Researcher: [{ text: 'Oslo' }],
      },
    });
    expect(lines).toEqual(['Researcher({"input":"capital of Norway?"}) → ok: Oslo']);
    // No instructions, no system message: the model's conversation starts with the input.
    expect(firstMessages).toMatchObject([{ role: 'user', content: 'go' }, { role: 'assistant' }]);
  });
});
