/**
 * `npx tsx bench/cold.ts`: where a cold worker's CPU goes (issue 28), for the floor and toolwire as `npm run bench`
 * starts them for its cold start (toolwire: the package as built, dist/node.js).
 *
 * Each of `--runs N` (default 2) fresh processes per subject prints, in this order:
 * - under callgrind (`--no-instructions` skips it): the instructions from the process's start to connected (dumped
 *   once the harness has said so), and over its first 1,000 calls at 64 in flight, V8's compilers' share apart
 *   (bench/lib/instructions.ts);
 * - without: CPU ms to connected, CPU µs a call over the first 1,000 calls, and the heap after a full GC at
 *   connected (a process of its own, so that the GC does not touch the calls' figures).
 *
 * `--keep-dumps DIR` copies the callgrind dumps there (`<subject>-start.<n>`, `<subject>-calls.<n>`).
 * `--no-build` takes dist/ and the bundles as they are. Not part of `npm run bench`; what it found at 0d5e6d0 is in
 * bench/results/cold.md (written by hand: the runs print, nothing is written).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEntries, buildPackagedSubject, OUT_DIR } from './lib/build';
import { compilerShare } from './lib/instructions';
import { Pair, pinningCores, type SpawnOptions } from './lib/session';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? fallback : argv[index + 1]!;
};
const runs = Number(option('runs', '2'));
const keep = option('keep-dumps', '');
const COLD_CALLS = 1_000;
const log = (message: string) => process.stdout.write(`${message}\n`);

const build = !argv.includes('--no-build');
const entries = build
  ? await buildEntries()
  : {
      driver: `${OUT_DIR}/driver.mjs`,
      floor: `${OUT_DIR}/floor.mjs`,
      toolwire: `${OUT_DIR}/toolwire.mjs`,
      socketio: `${OUT_DIR}/socketio.mjs`,
      mcp: `${OUT_DIR}/mcp.mjs`,
      'invoke-tool': `${OUT_DIR}/invoke-tool.mjs`,
    };
const packaged = build ? await buildPackagedSubject() : `${OUT_DIR}/toolwire-package.mjs`;
const spawnOptions: SpawnOptions = { entries: { ...entries, toolwire: packaged }, cores: pinningCores() };
const subjects = ['floor', 'toolwire'] as const;

/** Instructions of one callgrind dump, and V8's compilers' among them. */
function dumped(dir: string, seen: Set<string>, label: string): { total: number; compiler: number } {
  const fresh = readdirSync(dir).filter((name) => !seen.has(name) && name !== 'out');
  if (fresh.length !== 1) throw new Error(`callgrind: expected one dump, found ${fresh.length}`);
  seen.add(fresh[0]!);
  if (keep !== '') {
    mkdirSync(keep, { recursive: true });
    copyFileSync(join(dir, fresh[0]!), join(keep, `${label}.${fresh[0]!.replace(/^out\./, '')}`));
  }
  return compilerShare(readFileSync(join(dir, fresh[0]!), 'utf8'));
}

const millions = (n: number) => `${(n / 1e6).toFixed(1)} M`;

async function instructions(name: (typeof subjects)[number]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-cold-'));
  const pair = await Pair.start(name, spawnOptions, {
    // Counted from the start: Node's own start, module evaluation, the tools, the connect.
    subjectWrapper: {
      command: ['valgrind', '--tool=callgrind', '--quiet', `--callgrind-out-file=${join(dir, 'out')}`],
      startMs: 120_000,
    },
  });
  try {
    const pid = String(pair.subjectProcesses[0]!.pid);
    const control = (command: string) =>
      execFileSync('callgrind_control', [command, pid], { stdio: 'ignore', timeout: 30_000 });
    const seen = new Set<string>();
    control('--dump');
    const start = dumped(dir, seen, `${name}-start`);
    control('--zero');
    const run = await pair.load({ tool: 'add', inFlight: 64, calls: COLD_CALLS });
    control('--dump');
    const calls = dumped(dir, seen, `${name}-calls`);
    if (run.errors > 0) throw new Error(`${name}: ${run.errors} wrong results`);
    log(
      `${name.padEnd(8)} instructions to connected ${millions(start.total)} (compilers ${millions(start.compiler)}); ` +
        `first ${COLD_CALLS} calls ${Math.round(calls.total / run.completed)} a call ` +
        `(compilers ${Math.round(calls.compiler / run.completed)})`,
    );
  } finally {
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function cpu(name: (typeof subjects)[number]): Promise<void> {
  const pair = await Pair.start(name, spawnOptions);
  try {
    const startMs = (await pair.mark(false)).cpuUs / 1000;
    const run = await pair.load({ tool: 'add', inFlight: 64, calls: COLD_CALLS });
    log(
      `${name.padEnd(8)} CPU to connected ${startMs.toFixed(1)} ms; first ${COLD_CALLS} calls ${run.cpuUsPerCall.toFixed(1)} µs a call`,
    );
  } finally {
    await pair.close();
  }
  const heapPair = await Pair.start(name, spawnOptions, { subjectNodeFlags: ['--expose-gc'] });
  try {
    const { heapUsed } = await heapPair.mark(true);
    log(`${name.padEnd(8)} heap after GC at connected ${(heapUsed / 1024 / 1024).toFixed(2)} MiB`);
  } finally {
    await heapPair.close();
  }
}

for (let run = 0; run < runs; run++) {
  for (const name of subjects) {
    if (!argv.includes('--no-instructions')) await instructions(name);
    await cpu(name);
  }
}
