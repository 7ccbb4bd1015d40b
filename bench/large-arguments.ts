/**
 * `npx tsx bench/large-arguments.ts [--runs N] [--only floor|toolwire] [--floor-heap-like-toolwire]
 * [--subject-output] [-- node flags for the subjects]`: the CPU a call of 100 KB arguments costs the floor and
 * toolwire after each has run 64 calls in flight, as `npm run bench`'s argument rows meet them.
 *
 * Each run starts a pair per subject (settled as in bench/run.ts), answers `add` at 64 in flight for 2 s, then
 * `size` at 1 in flight with 1 KB, 10 KB and 100 KB arguments (3 windows of 700 ms each, after 300 ms), and prints
 * the client CPU µs a call of the three 100 KB windows.
 *
 * What it shows (issue 28, 2026-12-08): in about half the runs toolwire reads 450–750 µs a call against the floor's
 * 160–350, with V8 running a full mark-compact every ~60 ms (`--subject-output -- --trace-gc`). It is V8's heap
 * sizing, met by a process of toolwire's heap shape, not toolwire's work a call:
 * - `-- --trace-gc-verbose`: the first full collection after the settle's lands in the 100 KB phase, when the old
 *   generation grows slowly; V8 then sets its next limit at the smallest step (factor 1.1, "mutator" ~130 B/ms), and
 *   incremental marking starts again right after each collection while the young generation is at its 16 MB;
 * - `--floor-heap-like-toolwire` preloads bench/lib/heap-like-toolwire.cjs into the floor (9 MB kept alive and a
 *   ring of call-id strings, nothing of toolwire's code): the floor then meets the same loop (23–32 full collections
 *   in the phase) and reads up to 570 µs; with the ring alone (`BALLAST_MB=0`), never.
 * Whether a run meets it turns on when the first full collection comes: toolwire's old generation gains ~11 MB of
 * dead finished ids between the settle and the 100 KB phase, around where V8 starts marking.
 *
 * Not part of `npm run bench`.
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
import { buildEntries } from './lib/build';
import { Pair, pinningCores } from './lib/session';

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const ownArguments = dashes === -1 ? argv : argv.slice(0, dashes);
const nodeFlags = dashes === -1 ? [] : argv.slice(dashes + 1);
const option = (name: string) => {
  const at = ownArguments.indexOf(name);
  return at === -1 ? undefined : ownArguments[at + 1];
};
const runs = Number(option('--runs') ?? 3);
const only = option('--only');
const subjects = (['floor', 'toolwire'] as const).filter((name) => only === undefined || name === only);
const heapLikeToolwire = ownArguments.includes('--floor-heap-like-toolwire')
  ? ['-r', fileURLToPath(new URL('./lib/heap-like-toolwire.cjs', import.meta.url))]
  : [];

const entries = await buildEntries();
for (let run = 0; run < runs; run++) {
  const line: string[] = [];
  for (const name of subjects) {
    const pair = await Pair.start(
      name,
      { entries, cores: pinningCores() },
      {
        subjectNodeFlags: ['--expose-gc', ...(name === 'floor' ? heapLikeToolwire : []), ...nodeFlags],
        subjectStdout: ownArguments.includes('--subject-output'),
      },
    );
    try {
      await pair.settle();
      await pair.load({ tool: 'add', inFlight: 64, durationMs: 2000 });
      const cpu: number[] = [];
      for (const argBytes of [1_000, 10_000, 100_000]) {
        for (let window = 0; window < 3; window++) {
          await pair.load({ tool: 'size', inFlight: 1, argBytes, durationMs: 300 });
          const measured = await pair.load({ tool: 'size', inFlight: 1, argBytes, durationMs: 700 });
          if (argBytes === 100_000) cpu.push(Math.round(measured.cpuUsPerCall));
        }
      }
      line.push(`${name} ${cpu.join(' ')}`);
    } finally {
      await pair.close();
    }
  }
  process.stdout.write(`run ${run + 1}: client CPU µs a call at 100 KB: ${line.join(' | ')}\n`);
}
