/**
 * The ids of the calls that finished in a client, so that a call id runs at most once: the call runner
 * (./calls.ts) asks it for every `tool_call` it receives and ignores one for a remembered id.
 *
 * @module
 */

/**
 * Finished call ids are remembered, to refuse a re-delivery after the `ack`, in generations of this many: at least
 * the last 10,000 and at most the last 20,000 (see {@link FinishedIds}).
 */
const REMEMBERED_CALL_IDS = 10_000;

/** The ids a {@link FinishedIds} holds at most: two generations. Below 2^15, so a place in the ring fits 15 bits. */
const RING_IDS = 2 * REMEMBERED_CALL_IDS;
/** The low bits of a table word: the id's place in the ring, plus 1 (0 is a free word). */
const PLACE_BITS = 0x7fff;
/** The high bits of a table word: the same bits of the id's hash. */
const TAG_BITS = ~PLACE_BITS;
/** The first table, in words; it doubles while it would be more than a quarter full, up to {@link MAX_TABLE_WORDS}. */
const FIRST_TABLE_WORDS = 128;
/** 256 KB: at most 20,000 ids in it, under a third full. */
const MAX_TABLE_WORDS = 65_536;

/** A seed of this process's hashes of ids, so that a service cannot choose ids that all land in one place. */
const ID_HASH_SEED = (Math.random() * 0x1_0000_0000) >>> 0;

/**
 * The UTF-16 units of an id that {@link sampledIdHash} reads: its last 10. Those of a `call_` and a UUID (as services
 * make ids) are the last 10 hex digits of the UUID, 40 random bits; reading each unit (`charCodeAt`, ~25 instructions)
 * is most of what a hash costs: 16 units (the dash and 5 digits more) would cost ~150 instructions a call more for
 * bits the table does not need. Two of 20,000 such ids share a sample about once in 5,000 tables, and then only
 * share a hash: the table still tells them apart.
 */
const SAMPLED_UNITS = 10;

/**
 * The taken words a question or an insert may pass in a table of sampled hashes before the table hashes its ids
 * whole ({@link FinishedIds}): ids that differ only in units the sample leaves out share a sampled hash, and would
 * make one run of the table that each of them walks (quadratic). Ids of distinct samples, whose seeded hashes are as
 * good as whole ones, rarely pass this many: in a table under a third full (as it stays), linear probing's estimate
 * (a·e^(1-a))^48 at a = 1/3 is under 10^-10 an insert.
 */
const LONGEST_SAMPLED_PROBE = 48;

/**
 * A 32-bit hash of the units of `id` from `from` on and of its length, from this process's seed: FNV-1a's step on two
 * UTF-16 units at once (its multiply on the pair, then its high bits folded into the low ones), then murmur3's
 * finalizer, so that every bit of the hash depends on every unit read. Each step is a bijection of the state, so ids
 * of one length that differ in one unit read never share a hash.
 */
function seededHash(id: string, from: number): number {
  const length = id.length;
  let hash = ID_HASH_SEED ^ 0x811c9dc5;
  let i = from;
  for (; i + 1 < length; i += 2) {
    hash = Math.imul(hash ^ (id.charCodeAt(i) | (id.charCodeAt(i + 1) << 16)), 0x01000193);
    hash ^= hash >>> 15;
  }
  if (i < length) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  hash ^= length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/**
 * The hash of a call id that a {@link FinishedIds} takes first: of its length and its last {@link SAMPLED_UNITS}
 * units ({@link seededHash}), about a quarter of the cost of hashing a 41-unit id whole. Never negative (its sign
 * bit clear): a hash taken before a table turned to {@link fullIdHash} is told from one taken after.
 */
export function sampledIdHash(id: string): number {
  const length = id.length;
  return seededHash(id, length > SAMPLED_UNITS ? length - SAMPLED_UNITS : 0) & 0x7fff_ffff;
}

/**
 * The hash of a call id over all its units ({@link seededHash}), that a {@link FinishedIds} takes once ids sharing a
 * sampled hash have made a long run in its table. Always negative (its sign bit set).
 */
export function fullIdHash(id: string): number {
  return seededHash(id, 0) | 0x8000_0000;
}

/**
 * The ids of the calls that finished here, so that a call id runs at most once: a `tool_call` for one of them is
 * ignored. They are remembered in generations of {@link REMEMBERED_CALL_IDS}: when a generation is full, the one
 * before it is forgotten whole, so that the last 10,000 to 20,000 are known.
 *
 * Every new call asks, and nearly always about an id that is not here. A `Set` of strings answers by walking its
 * table's chain and comparing the strings on it: a few cache misses, in two generations, for a call that comes
 * after others have run (~1.5 µs). Here the ids are kept in the order they finished, in a ring, and found through
 * an open-addressing table of 32-bit words (linear probing), each holding an id's place in the ring and the high
 * bits of its hash: a question reads one run of words, and compares a string only when those bits match. The table
 * is made again from the ring, whose ids' hashes are kept beside them, when it grows (from {@link FIRST_TABLE_WORDS}
 * words, so that a client that runs few calls keeps little) and when a generation is forgotten; it grows in the
 * first calls, so that the code that makes it has run long before the first generation is forgotten (V8 then keeps
 * the optimised code of `add`).
 *
 * Ids are hashed by a sample of their units ({@link sampledIdHash}) until a question or an insert passes more than
 * {@link LONGEST_SAMPLED_PROBE} taken words: ids that differ only outside the sample (by chance, or chosen by a
 * service) share a hash, and only they make runs that long. From then on the table hashes ids whole
 * ({@link fullIdHash}, those it holds hashed again once), seeded: a service cannot choose ids that share a hash. So
 * however the ids are chosen, the first miss or insert that passes more than that many words ends the sampling (an
 * insert that fills the gap between two runs may join them into a longer one, which the next miss or insert in it
 * passes), and runs stay as short as under random hashes once ids are hashed whole (test/client/finished-ids*.test.ts
 * count the words each question reads).
 */
export class FinishedIds {
  /** The ids in the order they finished: the `n`th (from 0) at `n % RING_IDS`. */
  readonly #ring: string[] = [];
  /** The hash of each id in the ring, at the same place: a remake inserts them again without hashing the ids. */
  #hashes = new Int32Array(FIRST_TABLE_WORDS / 4);
  /** Open addressing: 0 free, else `TAG_BITS` of the id's hash with its place in the ring plus 1. */
  #table = new Int32Array(FIRST_TABLE_WORDS);
  /** Ids added so far. */
  #count = 0;
  /** The first id (by its number) remembered: the table holds the ids from this one to the last. */
  #oldest = 0;
  /** The number of ids at which the table is made again, before the next one is added. */
  #remakeAt = FIRST_TABLE_WORDS / 4;
  /** The ids are hashed whole ({@link fullIdHash}): a long run was read in the table of their sampled hashes. */
  #full = false;
  /** The hash of an id once they are hashed whole: {@link fullIdHash}, or the hash a test gave. */
  readonly #fullHash: (id: string) => number;
  /**
   * The hash of an id, as {@link FinishedIds.has} and {@link FinishedIds.add} take it: a call asked about on arrival
   * keeps it until it is added (hashing a call id costs about as much as the rest of a question). The hash function
   * itself, not a method around it: {@link sampledIdHash}, then {@link fullIdHash} once a long run was read.
   */
  hashOf: (id: string) => number;

  /** `hash`: for tests, to make ids collide (without it, {@link sampledIdHash} then {@link fullIdHash}). */
  constructor(hash?: (id: string) => number) {
    this.hashOf = hash ?? sampledIdHash;
    this.#fullHash = hash ?? fullIdHash;
  }

  /**
   * Whether `id` (of hash `hash`, {@link FinishedIds.hashOf}, taken now or kept from before the ids were hashed
   * whole) is one of the remembered ids. A question that passes a long run of sampled hashes turns the table to whole
   * ones (see {@link FinishedIds}).
   */
  has(id: string, hash: number = this.hashOf(id)): boolean {
    // A sampled hash taken before the ids were hashed whole (a call's, kept since it arrived) is taken again.
    if (hash >= 0 && this.#full) hash = this.hashOf(id);
    const tag = hash & TAG_BITS;
    const table = this.#table;
    const mask = table.length - 1;
    const first = hash & mask;
    for (let at = first; ; at = (at + 1) & mask) {
      const word = table[at] as number;
      if (word === 0) {
        if (((at - first) & mask) > LONGEST_SAMPLED_PROBE && !this.#full) this.#hashWhole();
        return false;
      }
      if ((word & TAG_BITS) === tag && this.#ring[(word & PLACE_BITS) - 1] === id) return true;
    }
  }

  /**
   * Remembers `id` (not remembered yet: a remembered id never runs again), of hash `hash` ({@link FinishedIds.hashOf}).
   * Returns its number: the ids added before it (see {@link FinishedIds.remembers}).
   */
  add(id: string, hash: number = this.hashOf(id)): number {
    const count = this.#count;
    if (count === this.#remakeAt) this.#remake();
    // A sampled hash taken before the ids were hashed whole (while its call ran) is taken again.
    if (hash >= 0 && this.#full) hash = this.hashOf(id);
    const place = count % RING_IDS;
    this.#ring[place] = id;
    this.#hashes[place] = hash;
    this.#count = count + 1;
    if (insert(this.#table, hash, place) > LONGEST_SAMPLED_PROBE && !this.#full) this.#hashWhole();
    return count;
  }

  /** Whether the id added as number `number` ({@link FinishedIds.add}) is still remembered. */
  remembers(number: number): boolean {
    return number >= this.#oldest;
  }

  /**
   * Forgets the generation before the last full one, if one has just filled, and makes the table again: larger,
   * while the ids kept and those to come before the next remake would fill more than a quarter of it.
   */
  #remake(): void {
    const count = this.#count;
    const generations = Math.floor(count / REMEMBERED_CALL_IDS);
    const oldest = Math.max(this.#oldest, (generations - 1) * REMEMBERED_CALL_IDS);
    let words = this.#table.length;
    while (words < MAX_TABLE_WORDS && (count - oldest) * 4 >= words) words *= 2;
    // The first generation fills with nothing to forget yet: the table stays as it is.
    if (oldest !== this.#oldest || words !== this.#table.length) {
      this.#oldest = oldest;
      this.#table = new Int32Array(words);
      if (this.#fill() > LONGEST_SAMPLED_PROBE && !this.#full) this.#hashWhole();
    }
    const nextGeneration = (generations + 1) * REMEMBERED_CALL_IDS;
    this.#remakeAt = words < MAX_TABLE_WORDS ? Math.min(nextGeneration, oldest + words / 4) : nextGeneration;
    // The hashes' ring holds every place written before the next remake (the places wrap at RING_IDS).
    const places = Math.min(RING_IDS, this.#remakeAt);
    if (this.#hashes.length < places) {
      const grown = new Int32Array(places);
      grown.set(this.#hashes);
      this.#hashes = grown;
    }
  }

  /** Inserts the ids remembered into the (empty) table; returns the most words an insert read. */
  #fill(): number {
    const table = this.#table;
    const hashes = this.#hashes;
    let longest = 0;
    for (let n = this.#oldest; n < this.#count; n++) {
      const place = n % RING_IDS;
      longest = Math.max(longest, insert(table, hashes[place] as number, place));
    }
    return longest;
  }

  /** Hashes the ids whole from now on ({@link fullIdHash}): those remembered again, and the table made again. */
  #hashWhole(): void {
    this.#full = true;
    const hashOf = this.#fullHash;
    this.hashOf = hashOf;
    const ring = this.#ring;
    const hashes = this.#hashes;
    for (let n = this.#oldest; n < this.#count; n++) {
      const place = n % RING_IDS;
      hashes[place] = hashOf(ring[place] as string);
    }
    this.#table.fill(0);
    this.#fill();
  }
}

/**
 * Puts the id at `place` in the ring, of hash `hash`, in the first free word from its own (linear probing). Returns
 * the words it passed.
 */
function insert(table: Int32Array, hash: number, place: number): number {
  const mask = table.length - 1;
  const first = hash & mask;
  let at = first;
  while (table[at] !== 0) at = (at + 1) & mask;
  table[at] = (hash & TAG_BITS) | (place + 1);
  return (at - first) & mask;
}
