/**
 * `FinishedIds` (src/client/finished-ids.ts) against a model (two generations of a `Set`), over long streams a runner
 * makes: calls that arrive (asked about, their
 * hash kept), run a while beside others and finish (added under the kept hash), re-deliveries, ids chosen to share
 * their sampled units, short, empty and surrogate ids, and the switch to whole hashes in a question, an insert and a
 * remake, at and around a generation's end.
 */
import { describe, expect, it } from 'vitest';
import { FinishedIds, fullIdHash, sampledIdHash } from '../../src/client/finished-ids';
import { tool } from '../../src/tool/tool';
import { seededRandom } from '../support/tcp-proxy';
import { recording } from './call-runner-harness';
import { Generations } from './finished-ids-model';
import { countingReads, type Question } from './finished-ids-reads';

/** 41 units like `call_` + a UUID; `tail` fixes the last 16 units (shared by every id of one tail). */
const sharedTail = (n: number, tail: string) =>
  `call_${n.toString(36).padStart(9, '0')}-${'x'.repeat(15 - tail.length)}${tail}`;

type Kind = (next: () => number, n: number) => string;
const KINDS: Record<string, Kind> = {
  uuid: (next) =>
    `call_${Math.floor(next() * 2 ** 52).toString(16)}-${Math.floor(next() * 2 ** 52).toString(16)}`,
  sharedTail: (next, n) => sharedTail(n, `t${Math.floor(next() * 3)}`),
  short: (_, n) => n.toString(36),
  empty: () => '',
  surrogates: (next, n) =>
    `${n.toString(36)}\ud83d\ude00${next() < 0.5 ? '\ud800' : '\udfff'}${'\ud83d\ude00'.repeat(8)}`,
  sameTailShort: (_, n) => `${'\ud83d'.repeat(n % 40)}abcdefghijklmnop`,
};

/**
 * A runner's stream: arrivals (has with a fresh hash), calls in flight finishing in any order (add with the hash
 * kept). `longest`: the most taken words a question passed (./finished-ids-reads.ts).
 */
function run(seed: number, steps: number, mix: string[]) {
  return countingReads((ask) => stream(ask, seed, steps, mix));
}

function stream(ask: Question, seed: number, steps: number, mix: string[]) {
  const next = seededRandom(seed);
  const ids = new FinishedIds();
  const model = new Generations();
  const inFlight = new Map<string, number>();
  const seen: string[] = [];
  const wrong: string[] = [];
  let n = 0;
  let longest = 0;
  let switchedAt = -1;
  for (let step = 0; step < steps; step++) {
    if (inFlight.size > 0 && (next() < 0.45 || inFlight.size > 64)) {
      // A call finishes: the oldest or any.
      const keys = [...inFlight.keys()];
      const id = keys[next() < 0.5 ? 0 : Math.floor(next() * keys.length)] as string;
      const hash = inFlight.get(id) as number;
      inFlight.delete(id);
      const numbers = [ids.add(id, hash), model.add(id)];
      if (numbers[0] !== numbers[1]) wrong.push(`add ${JSON.stringify(id)} ${numbers}`);
    } else {
      // A call arrives: new, re-delivered (finished long ago or just now), or new of an adversarial kind.
      const pick = next();
      const id =
        pick < 0.1 && seen.length > 0
          ? (seen[Math.floor(next() * seen.length)] as string)
          : pick < 0.15 && seen.length > 0
            ? (seen[seen.length - 1 - Math.floor(next() * Math.min(seen.length, 200))] as string)
            : (KINDS[mix[Math.floor(next() * mix.length)] as string] as Kind)(next, n++);
      if (inFlight.has(id)) continue;
      const hash = ids.hashOf(id);
      const { found, passed } = ask(ids, id, hash);
      if (passed !== undefined) longest = Math.max(longest, passed);
      const answers = [found, model.has(id)];
      if (answers[0] !== answers[1]) wrong.push(`has ${JSON.stringify(id)} ${answers}`);
      if (!answers[1]) {
        inFlight.set(id, hash);
        seen.push(id);
      }
    }
    if (switchedAt < 0 && ids.hashOf === fullIdHash) switchedAt = step;
  }
  // Every id ever seen, asked once more.
  for (const id of seen)
    if (!inFlight.has(id) && ids.has(id) !== model.has(id)) wrong.push(`end ${JSON.stringify(id)}`);
  return { wrong: wrong.slice(0, 10), switchedAt, longest, count: model.count };
}

describe('FinishedIds against two generations of a Set', () => {
  it.each([
    ['random ids only', ['uuid'], false],
    ['ids sharing their last 16 units', ['uuid', 'sharedTail'], true],
    ['short and empty ids', ['uuid', 'short', 'empty'], false],
    ['surrogate ids (the last 16 units shared)', ['uuid', 'surrogates'], true],
    ['every kind', ['uuid', 'sharedTail', 'short', 'empty', 'surrogates', 'sameTailShort'], true],
  ])('answers alike over 70,000 operations (%s)', (_, mix, switches) => {
    for (const seed of [1, 2]) {
      const result = run(seed, 70_000, mix);
      expect(result.wrong).toEqual([]);
      expect(result.count).toBeGreaterThan(25_000);
      expect(result.switchedAt >= 0).toBe(switches);
      // The hashes are seeded per process: runs merged by chance may pass 49 words for a while (56 seen); quadratic
      // growth would make questions pass thousands.
      expect(result.longest).toBeLessThanOrEqual(100);
    }
  });
});

describe('FinishedIds: the switch to whole hashes', () => {
  const idOf = (n: number) => sharedTail(n, 'same');

  it('switches in a question, and the calls that arrived before finish under their kept hashes', () => {
    const ids = new FinishedIds();
    const kept = new Map<string, number>();
    for (let n = 0; n < 49; n++) ids.add(idOf(n));
    expect(ids.hashOf).toBe(sampledIdHash);
    for (let n = 100; n < 110; n++) kept.set(idOf(n), ids.hashOf(idOf(n)));
    // The 49 share one place: a question about a 50th passes 49 taken words.
    expect(ids.has(idOf(49))).toBe(false);
    expect(ids.hashOf).toBe(fullIdHash);
    for (const [id, hash] of kept) ids.add(id, hash);
    const answers = [...Array(120).keys()].map((n) => ids.has(idOf(n)));
    expect(answers).toEqual([...Array(120).keys()].map((n) => n < 49 || (n >= 100 && n < 110)));
  });

  it.each([9_951, 9_990, 10_000, 10_020, 19_990, 20_000])(
    'switches in an insert near a generation end (%i ids before) and forgets by the same rule',
    (before) => {
      const ids = new FinishedIds();
      const model = new Generations();
      for (let n = 0; n < before; n++) {
        ids.add(`u${n}`);
        model.add(`u${n}`);
      }
      const kept = ids.hashOf(idOf(999_999));
      for (let n = 0; n < 60; n++) {
        expect(ids.add(idOf(n))).toBe(model.add(idOf(n)));
      }
      expect(ids.hashOf).toBe(fullIdHash);
      ids.add(idOf(999_999), kept);
      model.add(idOf(999_999));
      const probe = [...Array(before).keys()]
        .map((n) => `u${n}`)
        .concat([...Array(61).keys()].map(idOf), idOf(999_999));
      expect(probe.filter((id) => ids.has(id) !== model.has(id))).toEqual([]);
    },
  );

  it('answers a question asked with a sampled hash kept from before the switch', () => {
    const ids = new FinishedIds();
    const early = idOf(999);
    const hash = ids.hashOf(early);
    ids.add(early, hash);
    for (let n = 0; n < 60; n++) ids.add(idOf(n));
    expect(ids.hashOf).toBe(fullIdHash);
    // No caller asks so today (the runner asks with a hash it has just taken), but `has` takes a hash.
    expect(ids.has(early, hash)).toBe(true);
  });
});

describe('a call runner across the switch to whole hashes', () => {
  it('refuses as finished every call re-delivered after its ack, before and after the switch', async () => {
    const ran: string[] = [];
    const releases: Array<() => void> = [];
    const slow = tool({
      name: 'slow',
      description: 'Waits to be released.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => {
          ran.push(ctx.callId);
          releases.push(() => resolve('done'));
        }),
    });
    const fast = tool({
      name: 'fast',
      description: 'Returns at once.',
      execute: (_input, ctx) => {
        ran.push(ctx.callId);
        return 'ok';
      },
    });
    const { calls, call } = recording([slow, fast]);
    const idOf = (n: number) => sharedTail(n, 'same');
    // Slow calls arrive first (their sampled hashes kept), then 200 fast ones sharing their sample finish.
    for (let n = 0; n < 8; n++) call(idOf(1_000 + n), 'slow');
    for (let n = 0; n < 200; n++) call(idOf(n), 'fast');
    await flush();
    for (const release of releases) release();
    await flush();
    for (const id of [...ran]) calls.ack(id);
    expect(ran.length).toBe(208);
    // Every finished call, re-delivered: none runs again.
    for (const id of [...ran]) call(id, ran.indexOf(id) < 8 ? 'slow' : 'fast');
    await flush();
    expect(ran.length).toBe(208);
    call(idOf(5_000), 'fast');
    await flush();
    expect(ran.length).toBe(209);
  });
});

const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
