/**
 * The demo's tools: real queries on the SQLite database, scoped to the tenant in `ctx.context`.
 */
import type Database from 'better-sqlite3';
import { Agent, type Tool, tool } from 'toolwire';
import { z } from 'zod';

/** The run context the demo passes: which tenant's data the tools may touch. Never sent to the service. */
export interface DemoContext {
  tenant: string;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** The warehouses the export can go to. */
export const WAREHOUSES = ['Berlin', 'Lyon', 'Oslo'];
/** How long one batch of the export takes (it stands in for an upload), in milliseconds. */
const BATCH_MS = 120;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface OrderRow {
  id: string;
  status: string;
  total_cents: number;
  created_at: string;
  name: string;
  email: string;
}

/** Builds every tool of the demo on one database. */
export function demoTools(db: Database.Database) {
  const searchOrders = tool({
    name: 'search_orders',
    description:
      'Find orders by customer email. Returns at most `limit` orders (10 by default), newest first.',
    parameters: z.object({
      email: z.string().email().describe("The customer's email address"),
      status: z.enum(['open', 'shipped', 'refunded']).optional(),
      limit: z.number().int().min(1).max(50).default(10),
    }),
    execute: ({ email, status, limit }, { context }: { context: DemoContext }) => {
      const where = ['c.email = ?', 'o.tenant = ?'];
      const params: unknown[] = [email, context.tenant];
      if (status) {
        where.push('o.status = ?');
        params.push(status);
      }
      const sql = `FROM orders o JOIN customers c ON c.id = o.customer_id WHERE ${where.join(' AND ')}`;
      const { count } = db.prepare(`SELECT count(*) AS count ${sql}`).get(...params) as { count: number };
      const rows = db
        .prepare(
          `SELECT o.id, o.status, o.total_cents, o.created_at ${sql} ORDER BY o.created_at DESC LIMIT ?`,
        )
        .all(...params, limit) as OrderRow[];
      return {
        count,
        truncated: count > rows.length,
        orders: rows.map((row) => ({
          id: row.id,
          status: row.status,
          total: dollars(row.total_cents),
          date: row.created_at,
        })),
      };
    },
  });

  const showOrder = tool({
    name: 'show_order',
    description: 'Show one order to the user as a card. The id looks like ord_1234.',
    parameters: z.object({ id: z.string().regex(/^ord_\d+$/, 'must look like ord_1234') }),
    execute: ({ id }, { context }: { context: DemoContext }) => {
      const order = db
        .prepare(
          'SELECT o.id, o.status, o.total_cents, o.created_at, c.name, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ? AND o.tenant = ?',
        )
        .get(id, context.tenant) as OrderRow | undefined;
      if (!order) throw new Error(`no order ${id}`);
      const items = db
        .prepare('SELECT product, quantity, unit_cents FROM order_items WHERE order_id = ?')
        .all(id) as Array<{
        product: string;
        quantity: number;
        unit_cents: number;
      }>;
      const color =
        order.status === 'shipped' ? 'success' : order.status === 'refunded' ? 'neutral' : 'warning';
      return {
        id: order.id,
        status: order.status,
        total: dollars(order.total_cents),
        items: items.length,
        widget: {
          type: 'Card',
          title: `Order ${order.id}`,
          children: [
            { type: 'Badge', label: order.status, color },
            {
              type: 'Text',
              value: `${order.name} · ${items.length} items · ${dollars(order.total_cents)} · ${order.created_at}`,
            },
            {
              type: 'Table',
              columns: ['Product', 'Qty', 'Price'],
              rows: items.map((item) => [item.product, item.quantity, dollars(item.unit_cents)]),
            },
          ],
        },
      };
    },
  });

  const chargeCard = tool({
    name: 'charge_card',
    description: "Charge the customer's saved card for an order.",
    parameters: z.object({ orderId: z.string(), amountCents: z.number().int().positive() }),
    execute: ({ amountCents }) => {
      // The fictional payment provider declines everything over $100.
      if (amountCents > 10_000)
        throw new Error(`card_declined: insufficient funds for ${dollars(amountCents)}`);
      return { charged: dollars(amountCents) };
    },
    errorFunction: () => 'The charge failed. Ask the user to update their card.',
  });

  const issueRefund = tool({
    name: 'issue_refund',
    description: 'Refund an order in full. A human must approve every refund.',
    parameters: z.object({ orderId: z.string(), reason: z.string().min(3) }),
    needsApproval: true,
    execute: ({ orderId, reason }, ctx) => {
      const context = ctx.context as DemoContext;
      const order = db
        .prepare('SELECT total_cents FROM orders WHERE id = ? AND tenant = ?')
        .get(orderId, context.tenant) as { total_cents: number } | undefined;
      if (!order) throw new Error(`no order ${orderId}`);
      // The idempotency key makes a re-delivered call (at-least-once across processes) refund only once, while
      // a refund made earlier by another call is reported as such, never as a new one.
      const key = ctx.idempotencyKey('refund');
      const earlier = db.prepare('SELECT id, idempotency_key FROM refunds WHERE order_id = ?').get(orderId) as
        | { id: string; idempotency_key: string }
        | undefined;
      if (earlier && earlier.idempotency_key !== key) {
        return { refundId: earlier.id, amount: dollars(order.total_cents), status: 'already_refunded' };
      }
      db.prepare('INSERT OR IGNORE INTO refunds VALUES (?, ?, ?, ?, ?)').run(
        `re_${orderId}`,
        orderId,
        order.total_cents,
        reason,
        key,
      );
      db.prepare("UPDATE orders SET status = 'refunded' WHERE id = ?").run(orderId);
      return { refundId: `re_${orderId}`, amount: dollars(order.total_cents), status: 'refunded' };
    },
  });

  const customerStats = tool({
    name: 'customer_stats',
    description: 'Order statistics for one customer: number of orders, total spent, favourite product.',
    parameters: z.object({ email: z.string().email() }),
    execute: ({ email }, { context }: { context: DemoContext }) => {
      const stats = db
        .prepare(
          'SELECT count(*) AS orders, coalesce(sum(o.total_cents), 0) AS spent FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.email = ? AND o.tenant = ?',
        )
        .get(email, context.tenant) as { orders: number; spent: number };
      const favourite = db
        .prepare(
          'SELECT i.product, sum(i.quantity) AS n FROM order_items i JOIN orders o ON o.id = i.order_id JOIN customers c ON c.id = o.customer_id WHERE c.email = ? AND o.tenant = ? GROUP BY i.product ORDER BY n DESC, i.product LIMIT 1',
        )
        .get(email, context.tenant) as { product: string } | undefined;
      return {
        orders: stats.orders,
        spent: dollars(stats.spent),
        favouriteProduct: favourite?.product ?? null,
      };
    },
  });

  // A long call: asks where to export, then reports its progress batch by batch (an event each, and the count so
  // far as a preliminary result for the UI), however long past the service's per-call deadline it runs.
  const exportOrders = tool({
    name: 'export_orders',
    description: "Export the tenant's orders to a warehouse, in batches. Asks the user which warehouse.",
    parameters: z.object({ batchSize: z.number().int().min(1).max(500).default(50) }),
    async *execute({ batchSize }, ctx) {
      const { tenant } = ctx.context as DemoContext;
      const warehouse = await ctx.askQuestion('Which warehouse should the export go to?', {
        choices: WAREHOUSES,
      });
      const { count } = db.prepare('SELECT count(*) AS count FROM orders WHERE tenant = ?').get(tenant) as {
        count: number;
      };
      const batches = Math.ceil(count / batchSize);
      let exported = 0;
      for (let batch = 1; batch <= batches; batch++) {
        ctx.progress({
          progress: exported,
          total: count,
          message: `batch ${batch} of ${batches} to ${warehouse}`,
        });
        const rows = db
          .prepare('SELECT id FROM orders WHERE tenant = ? ORDER BY id LIMIT ? OFFSET ?')
          .all(tenant, batchSize, exported) as Array<{ id: string }>;
        await sleep(BATCH_MS);
        if (ctx.signal.aborted) return { warehouse, orders: exported, stopped: true };
        exported += rows.length;
        ctx.emit('batch.exported', { batch, orders: rows.length, lastId: rows.at(-1)?.id ?? null });
        yield {
          warehouse,
          exported,
          widget: { type: 'Badge', label: `${exported} of ${count} orders`, color: 'info' },
        };
      }
      ctx.progress({ progress: count, total: count, message: `all ${count} orders are in ${warehouse}` });
      return { warehouse, orders: count, batches };
    },
  });

  const researcher = new Agent({
    name: 'Researcher',
    instructions: 'Answer questions about customers using the database tools. Be brief.',
    tools: [customerStats],
  });
  const askResearcher = researcher.asTool({
    toolName: 'ask_researcher',
    toolDescription: 'Ask the research agent a question about a customer; it answers from the database.',
  });

  const support = new Agent({
    name: 'Support',
    instructions: 'You help customers with their orders. Use the tools; never guess.',
    tools: [searchOrders, showOrder, chargeCard, issueRefund, askResearcher] as Tool<never, unknown, never>[],
  });
  const operations = new Agent({
    name: 'Operations',
    instructions: 'You run data jobs for the team. Use the tools.',
    tools: [exportOrders],
  });
  return {
    support,
    researcher,
    operations,
    tools: { searchOrders, showOrder, chargeCard, issueRefund, customerStats, askResearcher, exportOrders },
  };
}
