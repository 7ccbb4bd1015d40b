/**
 * `npx tsx bench/large-arguments.ts [--runs N] [-- node flags for the subjects]`: the CPU a call of 100 KB arguments
 * costs the floor and toolwire after each has run 64 calls in flight, as `npm run bench`'s argument rows meet them.
 *
 * Each run starts a pair per subject (settled as in bench/run.ts), answers `add` at 64 in flight for 2 s, then
 * `size` at 1 in flight with 1 KB, 10 KB and 100 KB arguments (3 windows of 700 ms each, after 300 ms), and prints
 * the client CPU µs a call of the three 100 KB windows. The report's "µs per KB of arguments, 100 KB" row read
 * 2.89–3.23× the floor from 27489738 on: here toolwire reads 600–1,300 µs against the floor's 140–350 in about 70% of
 * runs, and as the floor in the rest, or without the 64-in-flight phase; a process then runs a full mark-compact
 * every ~100 ms (`-- --trace-gc`, printed by the subject when bench/lib/session.ts passes its stdout through).
 * Not understood yet: see issue 28's note of 2026-12-07, late.
 *
 * Not part of `npm run bench`.
 *
 * @module
 */
import { buildEntries } from './lib/build';
import { Pair, pinningCores } from './lib/session';

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const nodeFlags = dashes === -1 ? [] : argv.slice(dashes + 1);
const runsAt = argv.indexOf('--runs');
const runs = runsAt === -1 ? 3 : Number(argv[runsAt + 1]);

const entries = await buildEntries();
for (let run = 0; run < runs; run++) {
  const line: string[] = [];
  for (const name of ['floor', 'toolwire'] as const) {
    const pair = await Pair.start(
      name,
      { entries, cores: pinningCores() },
      { subjectNodeFlags: ['--expose-gc', ...nodeFlags] },
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
