/**
 * `npm run bench:held`: only the held-calls memory measure of `npm run bench` (issue 20's target), for the floor
 * and toolwire, in a few seconds. Each repetition starts a fresh pair (subject with `--expose-gc`), warms it up
 * with calls of `add`, collects garbage, holds 10,000 calls of `hold` and collects again: heap + external per
 * call held, as the full bench measures it (minus its 100,000-call leak run), and the time per call to take them in
 * (wall, and the subject's own CPU). Prints medians; writes nothing.
 * Each measure is made for both kinds of `tool_call` (bench/driver.ts `FrameKind`): `stub`, as the stub sends them
 * to a client of default options (features taken, `agentName` and `sessionId` on each call: issue 20's target is
 * for these), and `plain` (no features, no call context).
 *
 * Flags: `--reps N` (default 3), `--held N` (default 10,000), `--only floor,toolwire`, `--frames stub,plain`
 * (default both), `--snapshot DIR` (the subject writes a heap snapshot before and while holding, for a diff by
 * constructor: bench/lib/heap-diff.ts).
 *
 * @module
 */
import { buildEntries } from './lib/build';
import { Pair, pinningCores, type SubjectName } from './lib/session';
import { median } from './lib/stats';

const argv = process.argv.slice(2);
const option = (name: string) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? undefined : argv[index + 1];
};
const reps = Number(option('reps') ?? 3);
const heldCalls = Number(option('held') ?? 10_000);
const subjects = (option('only')?.split(',') ?? ['floor', 'toolwire']) as SubjectName[];
const frameKinds = (option('frames')?.split(',') ?? ['stub', 'plain']) as Array<'stub' | 'plain'>;
const snapshotDir = option('snapshot');
const WARMUP_CALLS = 30_000;

const entries = await buildEntries();
const spawnOptions = { entries, cores: pinningCores() };
const samples = new Map<string, number[]>();
for (let rep = 0; rep < reps; rep++) {
  for (const name of rep % 2 === 0 ? subjects : [...subjects].reverse()) {
    for (const frames of frameKinds) {
      const label = `${name} (${frames} frames)`;
      const pair = await Pair.start(name, spawnOptions, {
        subjectNodeFlags: ['--expose-gc'],
        subjectArgs: name === 'toolwire' ? ['--max-concurrency', String(heldCalls)] : [],
        frames,
      });
      try {
        await pair.load({ tool: 'add', inFlight: 64, calls: WARMUP_CALLS });
        const snapshot = async (moment: string) => {
          if (snapshotDir !== undefined && rep === 0)
            await pair.subject.request(
              'snapshot',
              { path: `${snapshotDir}/${name}-${frames}-${moment}.heapsnapshot` },
              120_000,
            );
        };
        await snapshot('before');
        const after = await pair.mark(true);
        const held = await pair.hold(heldCalls, async () => {
          const mark = await pair.mark(true);
          await snapshot('held');
          return mark;
        });
        if (held.errors > 0 || held.completed !== heldCalls)
          throw new Error(
            `${name}: ${held.completed}/${heldCalls} held calls came back, ${held.errors} wrong`,
          );
        const perCall =
          (held.measured.heapUsed + held.measured.external - after.heapUsed - after.external) / heldCalls;
        const intakeUs = (held.holdMs * 1000) / heldCalls;
        const intakeCpuUs = held.holdCpuUs / heldCalls;
        for (const [figure, value] of [
          ['B per held call (heap + external)', perCall],
          ['µs per call to take them in (wall)', intakeUs],
          ['µs of subject CPU per call taken in', intakeCpuUs],
        ] as const) {
          const key = `${label}: ${figure}`;
          samples.set(key, [...(samples.get(key) ?? []), value]);
        }
        process.stderr.write(
          `rep ${rep + 1} ${label}: ${perCall.toFixed(0)} B/call, intake ${intakeUs.toFixed(1)} µs/call wall, ${intakeCpuUs.toFixed(1)} µs CPU\n`,
        );
      } finally {
        await pair.close();
      }
    }
  }
}
for (const [name, values] of samples)
  process.stdout.write(
    `${name}: ${median(values).toFixed(1)} (${values.map((v) => v.toFixed(1)).join(', ')})\n`,
  );
