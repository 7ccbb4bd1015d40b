/**
 * `npx tsx bench/redact.ts`: the time `Redactor.text` takes on 10 KB texts, with 1, 4 and 16 secrets (keys of 51
 * characters like bench/subjects/harness.ts's, the first given, the others learned): plain English, JSON holding
 * escapes (`\n`, `\"`, `\/`, `\u00e9`) and percent-encoded URLs, base64, and English holding the first key (as
 * written and JSON-escaped in a URL). Prints the median of a few rounds in µs per text; asserts nothing.
 *
 * Flags: `--ms N` (time per round and case, default 150), `--rounds N` (default 5).
 *
 * @module
 */
import { Redactor } from '../src/redact';
import { median } from './lib/stats';
import { BENCH_API_KEY } from './subjects/harness';

const argv = process.argv.slice(2);
const option = (name: string) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? undefined : argv[index + 1];
};
const roundMs = Number(option('ms') ?? 150);
const rounds = Number(option('rounds') ?? 5);
const SIZE = 10_240;

/** A deterministic generator (mulberry32), so every run measures the same texts. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const next = random(7);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;

const WORDS = (
  'the of and to in is was that for it with as his on be at by had are but from or have an they which one you ' +
  'were all her she there would their we him been has when who will more no if out so said what up its about ' +
  'into than them can only other new some could time these two may then do first any my now such like our over ' +
  'man me even most made after also did many before must through back years where much your way well down ' +
  'should because each just those people how too little state good very make world still own see men work long ' +
  'get here between both life being under never day same another know while last might us great old year off ' +
  'come since against go came right used take three'
).split(' ');

function english(): string {
  let out = '';
  while (out.length < SIZE) {
    const sentence = Array.from({ length: 6 + Math.floor(next() * 12) }, () => pick(WORDS)).join(' ');
    out += `${sentence[0]?.toUpperCase()}${sentence.slice(1)}. `;
  }
  return out.slice(0, SIZE);
}

function json(): string {
  const rows: unknown[] = [];
  while (JSON.stringify(rows).length < SIZE) {
    rows.push({
      id: rows.length,
      title: `"${pick(WORDS)}" ${pick(WORDS)} café`,
      body: `${english().slice(0, 120)}\n\t${pick(WORDS)} ${pick(WORDS)}\n`,
      url: `https://example.com/search?q=${encodeURIComponent(`${pick(WORDS)} ${pick(WORDS)} & ${pick(WORDS)}`)}`,
      path: 'C:\\Users\\me\\file.txt',
    });
  }
  return JSON.stringify(rows).slice(0, SIZE);
}

function base64(): string {
  const bytes = new Uint8Array((SIZE * 3) / 4);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
  return Buffer.from(bytes).toString('base64').slice(0, SIZE);
}

function holdingKey(): string {
  const text = english();
  const third = Math.floor(SIZE / 3);
  const escaped = JSON.stringify(JSON.stringify({ url: `https://x.example/?key=${BENCH_API_KEY}` }));
  return `${text.slice(0, third)} key ${BENCH_API_KEY} ${text.slice(third, 2 * third)} ${escaped} ${text.slice(2 * third)}`;
}

const alnum = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const keys = [
  BENCH_API_KEY,
  ...Array.from(
    { length: 15 },
    () => `sk-live-${Array.from({ length: 43 }, () => pick([...alnum])).join('')}`,
  ),
];

const texts: Array<[string, string]> = [
  ['10 KB English', english()],
  ['10 KB JSON with \\ and %', json()],
  ['10 KB base64', base64()],
  ['10 KB holding the key', holdingKey()],
];

function redactor(count: number): Redactor {
  const out = new Redactor([keys[0] as string]);
  for (const key of keys.slice(1, count)) out.learn(key);
  return out;
}

/** µs per call of `redactor.text(text)`, over about `roundMs`. */
function time(subject: Redactor, text: string): number {
  let sink = 0;
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < roundMs) {
    for (let i = 0; i < 10; i++) sink += subject.text(text).length;
    calls += 10;
    elapsed = performance.now() - start;
  }
  if (sink === -1) console.log(sink);
  return (elapsed * 1000) / calls;
}

const counts = [1, 4, 16];
const subjects = counts.map(redactor);
const samples = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, text] of texts) {
    subjects.forEach((subject, index) => {
      const label = `${name}|${counts[index]}`;
      samples.set(label, [...(samples.get(label) ?? []), time(subject, text)]);
    });
  }
}
const format = (us: number) => (us >= 100 ? us.toFixed(0) : us.toFixed(1)).padStart(9);
console.log(
  `${'µs per text (median)'.padEnd(28)}${counts.map((count) => `${count} key${count > 1 ? 's' : ''}`.padStart(9)).join('')}`,
);
for (const [name, text] of texts) {
  const row = counts.map((count) => format(median(samples.get(`${name}|${count}`) ?? [])));
  const changed = subjects[0]?.text(text) !== text ? ' (redacted)' : '';
  console.log(`${name.padEnd(28)}${row.join('')}${changed}`);
}
