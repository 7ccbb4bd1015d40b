/**
 * The outbox lets go of what the service acked, whatever the order of its acks: in a process of its own (run with
 * --expose-gc, ./fixtures/outbox-acks-child.ts), results are added and acked in hostile orders (one never acked,
 * pairs newest first, a window acked newest first, many never acked with re-deliveries), and after a full GC the
 * results acked that are still alive are counted: the queue's places not yet compacted, never the results acked.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnGcChild } from './gc-child';

const CHILD = fileURLToPath(new URL('./fixtures/outbox-acks-child.ts', import.meta.url));
const CYCLES = 50_000;

describe('the outbox, acked out of order for ever', () => {
  it(`keeps alive at most a few dozen of ${CYCLES.toLocaleString('en')} results acked, whatever the order`, async () => {
    const child = spawnGcChild(CHILD, { CYCLES: String(CYCLES) });
    await child.line('done');
    const counts = child.lines
      .filter((line) => line !== 'done')
      .map((line) => {
        const [name = '', held = '', alive = ''] = line.split(' ');
        return { name, held: Number(held), alive: Number(alive) };
      });
    expect(counts.map(({ name, held }) => [name, held])).toEqual([
      ['never-acks-one', 1],
      ['reverse-pairs', 0],
      ['window-newest-first', 64],
      ['many-stuck-lookups', 200],
    ]);
    // Places acked out of order wait for the next compaction: fewer than max(held, 32) of them.
    for (const { held, alive } of counts) expect(alive).toBeLessThan(Math.max(held, 32));
  }, 120_000);
});
