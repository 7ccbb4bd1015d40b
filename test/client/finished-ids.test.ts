/**
 * `FinishedIds` (src/client/finished-ids.ts): the finished call ids a call runner remembers, in generations of 10,000,
 * checked against two `Set`s that turn every 10,000 ids (what it answers must not differ), with ids whose hashes
 * collide often, so that the string comparisons and the long runs of the table are taken.
 */
import { describe, expect, it } from 'vitest';
import { FinishedIds, fullIdHash, sampledIdHash } from '../../src/client/finished-ids';
import { seededRandom as random } from '../support/tcp-proxy';
import { Generations } from './finished-ids-model';
import { countingReads } from './finished-ids-reads';

/** A hash with 2,048 values: every value is shared by many ids, in its table place and its high bits alike. */
function collidingHash(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) & 0x7ff;
  return Math.imul(hash, 0x9e3779b1);
}

describe('FinishedIds', () => {
  it.each([
    ['its own hash', undefined],
    ['a hash whose values collide', collidingHash],
  ])('answers as two generations of 10,000 would, over 45,000 ids (%s)', (_, hash) => {
    const ids = new FinishedIds(hash);
    const reference = new Generations();
    const next = random(7);
    const added: string[] = [];
    const wrong: string[] = [];
    let fresh = 0;
    for (let step = 0; step < 45_000; step++) {
      // Mostly new ids; sometimes one added before (remembered or forgotten), or one never added.
      const pick = next();
      let id: string;
      if (pick < 0.9 || added.length === 0) id = `call-${fresh++}`;
      else if (pick < 0.95) id = added[Math.floor(next() * added.length)] as string;
      else id = `never-${Math.floor(next() * 1_000_000)}`;
      if (ids.has(id) !== reference.has(id)) wrong.push(id);
      // As the runner does: an id it remembers is not run again, any other id runs and finishes.
      if (!reference.has(id) && !id.startsWith('never-')) {
        ids.add(id);
        reference.add(id);
        added.push(id);
      }
    }
    for (const id of added.slice(-25_000)) if (ids.has(id) !== reference.has(id)) wrong.push(id);
    expect(wrong).toEqual([]);
    expect(added.length).toBeGreaterThan(40_000);
  });

  it('remembers the last 10,000 to 20,000 ids, forgetting 10,000 at a time', () => {
    const ids = new FinishedIds();
    for (let i = 0; i < 20_001; i++) ids.add(`c${i}`);
    expect([ids.has('c20000'), ids.has('c10000'), ids.has('c9999'), ids.has('c0')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    for (let i = 20_001; i < 30_000; i++) ids.add(`c${i}`);
    expect([ids.has('c10000'), ids.has('c29999')]).toEqual([true, true]);
    ids.add('c30000');
    expect([ids.has('c10000'), ids.has('c19999'), ids.has('c20000'), ids.has('c30000')]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it.each([
    ['whole', fullIdHash, Number.POSITIVE_INFINITY],
    ['by their last 10 units', sampledIdHash, 10],
  ])('hashes ids of one length that differ in one unit it reads apart (%s)', (_, hashOf, read) => {
    for (const id of [
      'call_4f1c2a9e-7b3d-4c1a-9e2f-0a1b2c3d4e5f',
      'call_4f1c2a9e-7b3d-4c1a-9e2f-0a1b2c3d4e5',
    ]) {
      const hashes = new Set([hashOf(id)]);
      let changed = 0;
      for (let at = Math.max(0, id.length - read); at < id.length; at++)
        for (const unit of ['0', '7', 'f', '-', '\u00e9', '\ud83d'])
          if (id[at] !== unit) {
            hashes.add(hashOf(id.slice(0, at) + unit + id.slice(at + 1)));
            changed++;
          }
      expect(hashes.size).toBe(1 + changed);
    }
  });

  it('hashes ids whole once ids that share their sampled units make a long run, and keeps every run short', () => {
    // 41 units, as a `call_` and a UUID: only the 8 units after `call_` differ, the last 16 are the same.
    const idOf = (n: number) => `call_${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
    expect(new Set([idOf(1), idOf(2)].map(sampledIdHash)).size).toBe(1);
    const { ids, sampled, whole } = countingReads((ask) => {
      const ids = new FinishedIds();
      for (let n = 0; n < 10; n++) ids.add(idOf(n));
      expect(ids.hashOf).toBe(sampledIdHash);
      // The taken words each question passed, while the ids were hashed by their sample and once whole.
      const sampled: number[] = [];
      const whole: number[] = [];
      for (let n = 10; n < 15_000; n++) {
        const id = idOf(n);
        // As the runner does: the hash taken on arrival is the one the id is added under, when its call ends.
        const hash = ids.hashOf(id);
        const { found, passed } = ask(ids, id, hash);
        expect(found).toBe(false);
        if (passed !== undefined) (ids.hashOf === sampledIdHash ? sampled : whole).push(passed);
        ids.add(id, hash);
      }
      return { ids, sampled, whole };
    });
    // While sampled, every id lands in one run: questions pass up to 48 words, and the one that would pass more (or
    // the insert that makes the run longer) hashes the ids whole. Whole, in a table at most a third full: a few
    // words (without the switch, 14,000).
    expect([sampled.length > 0, Math.max(...sampled)]).toEqual([true, 48]);
    expect(whole.length).toBeGreaterThan(14_000);
    expect(Math.max(...whole)).toBeLessThanOrEqual(40);
    expect(ids.hashOf).toBe(fullIdHash);
    const wrong: number[] = [];
    for (let n = 0; n < 20_000; n++) if (ids.has(idOf(n)) !== n < 15_000) wrong.push(n);
    expect(wrong).toEqual([]);
  });

  it('takes again a sampled hash taken before the ids were hashed whole', () => {
    const ids = new FinishedIds();
    const idOf = (n: number) => `call_${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
    // A call arrives (its sampled hash taken), then others that share its sample finish while it runs.
    const early = idOf(99_999);
    const earlyHash = ids.hashOf(early);
    for (let n = 0; n < 100; n++) ids.add(idOf(n));
    expect(ids.hashOf).toBe(fullIdHash);
    ids.add(early, earlyHash);
    expect([ids.has(early), ids.has(idOf(0)), ids.has(idOf(100))]).toEqual([true, true, false]);
  });

  it('keeps hashing by the sample while ids differ in their last 10 units', () => {
    const ids = new FinishedIds();
    const next = random(11);
    const hex = () =>
      Math.floor(next() * 0x1_0000_0000)
        .toString(16)
        .padStart(8, '0');
    for (let n = 0; n < 30_000; n++)
      ids.add(`call_${hex()}-${hex().slice(4)}-4${hex().slice(5)}-${hex()}${hex()}`);
    expect(ids.hashOf).toBe(sampledIdHash);
  });

  it('tells apart ids of one hash, and the empty id', () => {
    const ids = new FinishedIds(() => 0x12345678);
    for (const id of ['a', 'b', '', 'ab']) ids.add(id);
    expect(['a', 'b', '', 'ab', 'ba', 'c'].map((id) => ids.has(id))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
