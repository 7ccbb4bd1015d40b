/**
 * Writes seed.sql: fictional customers, orders and order items for the demo database, from a fixed PRNG seed
 * so the file is the same on every run. Run with `npx tsx examples/demo/make-seed.ts` (the output is committed).
 */
import { writeFileSync } from 'node:fs';

let state = 20261129;
function random(): number {
  // mulberry32: small, deterministic, good enough for fake data.
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const first = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Margaret',
  'Linus',
  'Radia',
  'Niklaus',
  'Hedy',
  'John',
  'Katherine',
  'Dennis',
  'Sophie',
  'Tim',
  'Joan',
  'Guido',
];
const last = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Hamilton',
  'Torvalds',
  'Perlman',
  'Wirth',
  'Lamarr',
  'Backus',
  'Johnson',
  'Ritchie',
  'Wilson',
  'Berners',
  'Clarke',
  'Rossum',
];
const products = [
  ['Mechanical keyboard', 8900],
  ['USB-C dock', 12900],
  ['27" monitor', 32900],
  ['Laptop stand', 3900],
  ['Noise-cancelling headphones', 24900],
  ['Webcam', 6900],
  ['Desk lamp', 4500],
  ['Ergonomic mouse', 5900],
  ['Standing desk', 49900],
  ['Cable kit', 1900],
  ['Microphone', 11900],
  ['Chair mat', 2900],
] as const;
const statuses = ['open', 'shipped', 'shipped', 'shipped', 'refunded'] as const;
const tenants = ['acme', 'globex'] as const;

const sql: string[] = [
  'CREATE TABLE customers (id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, city TEXT NOT NULL);',
  'CREATE TABLE orders (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL, total_cents INTEGER NOT NULL, created_at TEXT NOT NULL);',
  'CREATE TABLE order_items (order_id TEXT NOT NULL REFERENCES orders(id), product TEXT NOT NULL, quantity INTEGER NOT NULL, unit_cents INTEGER NOT NULL);',
  'CREATE TABLE refunds (id TEXT PRIMARY KEY, order_id TEXT NOT NULL UNIQUE REFERENCES orders(id), amount_cents INTEGER NOT NULL, reason TEXT NOT NULL, idempotency_key TEXT NOT NULL UNIQUE);',
  'CREATE INDEX orders_by_customer ON orders(customer_id);',
];
const cities = ['Lisbon', 'Oslo', 'Austin', 'Kyoto', 'Lagos', 'Montréal', 'Porto', 'Tallinn'];
const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
let orderNumber = 1000;
for (let id = 1; id <= 300; id++) {
  const name = `${pick(first)} ${pick(last)}`;
  const email = `${name.toLowerCase().replace(/[^a-z]+/g, '.')}.${id}@example.com`;
  const tenant = id % 7 === 0 ? tenants[1] : tenants[0];
  sql.push(
    `INSERT INTO customers VALUES (${id}, ${quote(tenant)}, ${quote(name)}, ${quote(email)}, ${quote(pick(cities))});`,
  );
  const count = Math.floor(random() * 5);
  for (let n = 0; n < count; n++) {
    const orderId = `ord_${++orderNumber}`;
    const items = 1 + Math.floor(random() * 3);
    let total = 0;
    const rows: string[] = [];
    for (let i = 0; i < items; i++) {
      const [product, price] = pick(products);
      const quantity = 1 + Math.floor(random() * 2);
      total += price * quantity;
      rows.push(
        `INSERT INTO order_items VALUES (${quote(orderId)}, ${quote(product)}, ${quantity}, ${price});`,
      );
    }
    const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
    const month = String(1 + Math.floor(random() * 11)).padStart(2, '0');
    sql.push(
      `INSERT INTO orders VALUES (${quote(orderId)}, ${quote(tenant)}, ${id}, ${quote(pick(statuses))}, ${total}, '2026-${month}-${day}');`,
      ...rows,
    );
  }
}
// The customer the scripted conversation is about: a known, stable row.
sql.push(
  "INSERT INTO customers VALUES (301, 'acme', 'Ada Lovelace', 'ada@example.com', 'London');",
  "INSERT INTO orders VALUES ('ord_7001', 'acme', 301, 'shipped', 42700, '2026-11-02');",
  "INSERT INTO order_items VALUES ('ord_7001', 'Mechanical keyboard', 1, 8900);",
  "INSERT INTO order_items VALUES ('ord_7001', '27\" monitor', 1, 32900);",
  "INSERT INTO order_items VALUES ('ord_7001', 'Cable kit', 1, 900);",
  "INSERT INTO orders VALUES ('ord_7002', 'acme', 301, 'open', 5900, '2026-11-20');",
  "INSERT INTO order_items VALUES ('ord_7002', 'Ergonomic mouse', 1, 5900);",
  "INSERT INTO customers VALUES (302, 'globex', 'Ada Lovelace', 'ada@globex.example.com', 'Geneva');",
  "INSERT INTO orders VALUES ('ord_9001', 'globex', 302, 'open', 12900, '2026-11-21');",
  "INSERT INTO order_items VALUES ('ord_9001', 'USB-C dock', 1, 12900);",
);
writeFileSync(new URL('./seed.sql', import.meta.url), `${sql.join('\n')}\n`);
console.log(`wrote ${sql.length} statements`);
