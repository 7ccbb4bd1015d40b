/**
 * The conversation the stub's scripted model plays in the demo. Turns that depend on earlier results are
 * functions of the messages, so the final answer quotes what the tools really returned.
 */
import type { ChatMessage, Script, ScriptInput } from 'toolwire/server-stub';

/** What the Operations agent is asked (`npm start -- --export`). */
export const EXPORT_INPUT = "Export today's orders to the warehouse.";

export const DEMO_INPUT =
  'Hi, this is ada@example.com. My keyboard order is wrong — can you check it and sort it out?';

const lastTool = (messages: readonly ChatMessage[]): string =>
  [...messages].reverse().find((message) => message.role === 'tool')?.content ?? '';

const toolOutputs = ({ messages }: ScriptInput): string[] =>
  messages.filter((message) => message.role === 'tool').map((message) => message.content);

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export const demoScript: Script = {
  Support: [
    {
      text: "Let me find Ada's orders.",
      toolCalls: [{ name: 'search_orders', arguments: { email: 'ada@example.com' } }],
    },
    // A sloppy id: the tool's schema refuses it and the model is told why.
    { toolCalls: [{ name: 'show_order', arguments: '{"id":"order 7001"}' }] },
    ({ messages }) =>
      lastTool(messages).startsWith('Invalid arguments')
        ? {
            text: 'The id format was wrong; retrying.',
            toolCalls: [{ name: 'show_order', arguments: { id: 'ord_7001' } }],
          }
        : { text: 'I could not show the order.' },
    { toolCalls: [{ name: 'charge_card', arguments: { orderId: 'ord_7001', amountCents: 42700 } }] },
    {
      text: 'The replacement charge failed, so I will refund the order instead.',
      toolCalls: [
        { name: 'issue_refund', arguments: { orderId: 'ord_7001', reason: 'Wrong keyboard delivered' } },
      ],
    },
    {
      toolCalls: [
        {
          name: 'ask_researcher',
          arguments: { input: 'What has ada@example.com bought from us, and what most often?' },
        },
      ],
    },
    (input) => {
      const [search = '', , shown = '', charge = '', refund = '', research = ''] = toolOutputs(input);
      const orders = parse(search);
      const order = parse(shown);
      const refunded = parse(refund);
      const refundLine =
        refunded.status === 'refunded'
          ? `I refunded ${String(refunded.amount)} (refund ${String(refunded.refundId)}).`
          : refunded.status === 'already_refunded'
            ? `That order was already refunded earlier (refund ${String(refunded.refundId)}), so nothing was charged back twice.`
            : `The refund was not made: ${refund}`;
      return {
        text: [
          `You have ${String(orders.count)} orders with us; order ${String(order.id)} is ${String(order.status)} (${String(order.total)}).`,
          `Charging your card for a replacement failed: ${charge}`,
          refundLine,
          `Our records: ${research}`,
        ].join(' '),
      };
    },
  ],
  Operations: [
    { text: 'Starting the export.', toolCalls: [{ name: 'export_orders', arguments: {} }] },
    ({ messages }) => {
      const result = parse(lastTool(messages));
      return result.warehouse === undefined
        ? { text: `The export did not finish: ${lastTool(messages)}` }
        : {
            text: `Exported ${String(result.orders)} orders to ${String(result.warehouse)} in ${String(result.batches)} batches.`,
          };
    },
  ],
  Researcher: [
    { toolCalls: [{ name: 'customer_stats', arguments: { email: 'ada@example.com' } }] },
    ({ messages }) => {
      const stats = parse(lastTool(messages));
      return {
        text: `Ada has placed ${String(stats.orders)} orders totalling ${String(stats.spent)}; her most bought product is ${String(stats.favouriteProduct)}.`,
      };
    },
  ],
};
