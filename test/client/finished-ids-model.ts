/**
 * The rule src/client/finished-ids.ts keeps, as two `Set`s: ids added in generations of 10,000, the newest
 * generation and the one before remembered. The model the finished ids' tests compare the table with.
 */
export class Generations {
  newest = new Set<string>();
  before = new Set<string>();
  /** The ids added so far: what `FinishedIds.add` returns for the next one. */
  count = 0;

  has(id: string): boolean {
    return this.newest.has(id) || this.before.has(id);
  }

  /** Adds `id`; returns its number (from 0), as `FinishedIds.add` does. */
  add(id: string): number {
    if (this.newest.size >= 10_000) {
      this.before = this.newest;
      this.newest = new Set();
    }
    this.newest.add(id);
    return this.count++;
  }
}
