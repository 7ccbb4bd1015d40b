/**
 * `npx tsx bench/lib/heap-diff.ts before.heapsnapshot after.heapsnapshot [perCall]`: what the second heap
 * snapshot holds more than the first, by node type and name (constructor, closure, string…), largest first;
 * with `perCall`, counts and bytes divided by it (the calls `npm run bench:held -- --snapshot DIR` held).
 *
 * @module
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Count and self size by `type:name`. */
export function tally(file: string): Map<string, { count: number; bytes: number }> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]!]!;
    let name = data.strings[data.nodes[i + nameAt]!]!;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '';
    if (name.length > 60) name = `${name.slice(0, 60)}…`;
    const key = `${type}:${name}`;
    const entry = out.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += data.nodes[i + sizeAt]!;
    out.set(key, entry);
  }
  return out;
}

if (process.argv[1]?.endsWith('heap-diff.ts')) {
  const [beforeFile, afterFile, per = '1'] = process.argv.slice(2);
  const perCall = Number(per);
  const before = tally(beforeFile!);
  const after = tally(afterFile!);
  const rows = [...after]
    .map(([key, { count, bytes }]) => {
      const was = before.get(key) ?? { count: 0, bytes: 0 };
      return { key, count: (count - was.count) / perCall, bytes: (bytes - was.bytes) / perCall };
    })
    .filter((row) => Math.abs(row.bytes) >= 0.5 * (perCall > 1 ? 1 : 1000))
    .sort((a, b) => b.bytes - a.bytes);
  let total = 0;
  for (const row of rows) total += row.bytes;
  for (const row of rows.slice(0, 60))
    process.stdout.write(
      `${row.bytes.toFixed(1).padStart(9)} B ${row.count.toFixed(2).padStart(7)} × ${row.key}\n`,
    );
  process.stdout.write(`${total.toFixed(1).padStart(9)} B in all\n`);
}
