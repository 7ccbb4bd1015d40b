/**
 * `npm run bench`: toolwire's client against the raw `ws` floor and against its peers, in one run.
 *
 * Every scenario is repeated (`--reps`, default 3) and the repetitions are interleaved (each repetition runs
 * every subject, in a rotated order), so that a noisy moment hits all subjects alike; the table shows medians.
 * Driver and subject run in separate processes pinned to separate cores where `taskset` allows.
 *
 * Flags: `--reps N`, `--quick` (1 repetition, short runs: a smoke test), `--only floor,toolwire`,
 * `--no-write` (do not write bench/results/latest.md), `--profile <subject>` (one CPU-profiled session of
 * that subject, 4 s at `--in-flight N`, default 64; prints the hottest functions and keeps the .cpuprofile
 * in bench/.profiles), `--no-instructions` (skip the callgrind table: it needs valgrind and takes ~3 minutes),
 * `--instructions-only` (only the callgrind counts, each window printed: `--windows N`, default 2, of `--calls N`,
 * default 5,000; `--in-flight 1,64` for those numbers in flight only; `--keep-dumps DIR` copies the dumps there as
 * `<pid>.<n>`, and has V8 write /tmp/perf-<pid>.map, which names the JavaScript code in them).
 *
 * @module
 */
import { execSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { SCHEMA_KINDS, type SchemaKindName } from './invoke-tool';
import { buildEntries, buildPackagedSubject, ROOT } from './lib/build';
import { bundleSizes, peerBundles } from './lib/bundle-size';
import { Callgrind, callgrindAvailable } from './lib/instructions';
import { announced, Channel, type Reply } from './lib/ipc';
import { hottest } from './lib/profile';
import {
  Pair,
  pinningCores,
  type SpawnOptions,
  SUBJECTS,
  type SubjectName,
  spawnEntry,
  stop,
} from './lib/session';
import { median } from './lib/stats';
import { type Figures, renderReport } from './report';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? undefined : argv[index + 1];
};

const quick = flag('quick');
const reps = Number(option('reps') ?? (quick ? 1 : 3));
const only = option('only')?.split(',') as SubjectName[] | undefined;
const subjects = SUBJECTS.filter((name) => !only || only.includes(name));
const CONCURRENCIES = [1, 64, 512] as const;
const WARMUP_MS = quick ? 300 : 700;
const RUN_MS = quick ? 500 : 1_200;
const MEMORY_CALLS = quick ? 20_000 : 100_000;
const HELD_CALLS = quick ? 2_000 : 10_000;
/** Calls before the memory baseline: enough for V8's young generation to reach its steady size. */
const MEMORY_WARMUP_CALLS = quick ? 10_000 : 30_000;
const MICRO_BUDGET_MS = quick ? 200 : 400;
/** The scaling table (issue 20): floor and toolwire only, each figure a ratio to the floor of the same rep. */
const SCALING_SUBJECTS = subjects.filter((name) => name === 'floor' || name === 'toolwire');
const SCALING_TOOLS = 1_000;
const ARG_BYTES = [1_000, 10_000, 100_000, 1_000_000] as const;
const CLIENTS = [1, 2, 4, 8] as const;
const SCALING_RUN_MS = quick ? 300 : 700;
/** Warm-up of each argument size, at 1 in flight. */
const SCALING_WARMUP_MS = quick ? 150 : 300;
/**
 * Calls each client process of the scaling gets to warm up, whatever the number of processes: about what a process
 * of the throughput table has answered at 64 in flight before its measured run there (its two 700 ms warm-ups at
 * 64), so that 1, 2, 4 and 8 processes are as warm as that one (the driver hands calls to the processes in turn).
 * With 10,000 the one process of this table read 1.34x the floor where the throughput table's read 1.16x in the
 * same run: still warming up. A fleet's cold workers are the cold start's figure.
 */
const SCALING_WARMUP_CALLS_PER_CLIENT = quick ? 2_000 : 50_000;
/** The client processes' warm-ups are taken in turns of this many steps (see `clientScaling`). */
const SCALING_WARMUP_STEPS = 5;
/** The cold start: the first calls a process answers after `connect()`, at 64 in flight. */
const COLD_CALLS = 1_000;
/**
 * Instructions per call (bench/lib/instructions.ts): one process per subject under callgrind, settled and warmed up
 * with as many calls as V8 needs to finish optimising either client (toolwire's last hot functions are optimised
 * after 40,000–45,000 calls; a window counted before holds ~7,000 instructions per call of TurboFan), then at each
 * number in flight a warm-up and {@link INSTRUCTION_WINDOWS} counted windows, V8's compilers counted apart (a change
 * of calls in flight still has them optimise some functions again in the first windows). The subject optimises on
 * its main thread (`--no-concurrent-recompilation`): under valgrind a background compiler thread gets so little time
 * that optimised code arrives tens of thousands of calls late, at a different call for every run. MCP is left out (an
 * HTTP request per call, minutes under valgrind).
 */
const INSTRUCTION_SUBJECTS = subjects.filter((name) => name !== 'mcp');
const INSTRUCTION_WARMUP_CALLS = quick ? 5_000 : 60_000;
const INSTRUCTION_LEVEL_WARMUP_CALLS = quick ? 1_000 : 10_000;
const INSTRUCTION_CALLS = Number(option('calls') ?? (quick ? 500 : 5_000));
const INSTRUCTION_WINDOWS = Number(option('windows') ?? (quick ? 1 : 2));
/** MCP opens an HTTP request per call: 100,000 calls would take minutes, 10,000 held ones as many sockets. */
const MEMORY_SUBJECTS = subjects.filter((name) => name !== 'mcp');

const began = performance.now();
const log = (message: string) =>
  process.stderr.write(`[${((performance.now() - began) / 1000).toFixed(1).padStart(5)} s] ${message}\n`);
const rotate = <T>(items: readonly T[], by: number) => items.map((_, i) => items[(i + by) % items.length]!);

/**
 * One concurrency's warm-up and measured run on each pair, the pairs in turn: the windows of every subject at one
 * concurrency lie within seconds of each other, so a ratio to the floor compares like moments of a shared machine.
 */
async function throughputRound(
  pairs: readonly Pair[],
  inFlight: number,
  record: (name: SubjectName) => (key: string, value: number) => void,
): Promise<void> {
  for (const pair of pairs) {
    // Each concurrency is measured after a warm-up at that concurrency: the code paths differ (a frame per call
    // at 1 in flight, batches and a queue at 64), and a run started right after a switch measures V8 still
    // optimising them (a larger client takes longer), not the steady state a long-lived process runs at.
    await pair.load({ tool: 'add', inFlight, durationMs: WARMUP_MS });
    const run = await pair.load({ tool: 'add', inFlight, durationMs: RUN_MS });
    const put = record(pair.name);
    if (run.errors > 0 || run.faults.length > 0) {
      const failed = `${pair.name} @${inFlight}: ${run.errors} wrong results; ${run.faults.slice(0, 3).join('; ')}`;
      // MCP opens an HTTP request per call: at 512 in flight on a loaded machine some fail to connect (`fetch
      // failed`). That run of the peer is left out (—), said in the log; toolwire and the floor must be right.
      if (pair.name !== 'mcp') throw new Error(failed);
      log(`  ${failed}: left out`);
      // NaN keeps the repetitions aligned for the paired ratios; medians skip it.
      for (const key of ['calls/s', 'p50', 'p99', 'cpu', 'driver']) put(`${key}@${inFlight}`, Number.NaN);
      continue;
    }
    put(`calls/s@${inFlight}`, run.callsPerSecond);
    put(`p50@${inFlight}`, run.latency.p50Us);
    put(`p99@${inFlight}`, run.latency.p99Us);
    put(`cpu@${inFlight}`, run.cpuUsPerCall);
    put(`driver@${inFlight}`, run.driverCpuUs);
  }
}

/** Argument sizes at 1 in flight (µs per KB), on a pair already started. */
async function argumentScaling(pair: Pair, record: (key: string, value: number) => void): Promise<void> {
  for (const argBytes of ARG_BYTES) {
    await pair.load({ tool: 'size', inFlight: 1, argBytes, durationMs: SCALING_WARMUP_MS });
    const run = await pair.load({ tool: 'size', inFlight: 1, argBytes, durationMs: SCALING_RUN_MS });
    if (run.errors > 0 || run.faults.length > 0) {
      throw new Error(`${pair.name} size ${argBytes}: ${run.errors} wrong results; ${run.faults.join('; ')}`);
    }
    record(`us-per-kb@${argBytes}`, run.latency.p50Us / (argBytes / 1000));
  }
}

/** A client announcing {@link SCALING_TOOLS} tools: its hello and its connect time. */
async function toolScaling(
  name: SubjectName,
  spawnOptions: SpawnOptions,
  record: (key: string, value: number) => void,
): Promise<void> {
  const pair = await Pair.start(name, spawnOptions, { subjectArgs: ['--tools', String(SCALING_TOOLS)] });
  try {
    record(`hello-bytes@${SCALING_TOOLS}`, pair.helloBytes);
    record(`connect-ms@${SCALING_TOOLS}`, pair.connectMs);
  } finally {
    await pair.close();
  }
}

/**
 * 1 to 8 client processes against one driver, 64 calls in flight in all: calls/s and CPU per call. At each number of
 * processes the subjects' sets run side by side and take turns, as in {@link throughputRound}: their warm-ups in
 * {@link SCALING_WARMUP_STEPS} steps and then each measured run after a short warm-up, so that no set idles long
 * before its window (8 floor processes idle for the ~10 s of toolwire's warm-up read 31 µs a call in their next
 * window, 17 µs from the third on) and the windows of a ratio lie seconds apart. Before, the subjects ran one after
 * the other, minutes apart: the 8-process ratio read 1.29× and 1.62× in two runs of the same code.
 */
async function clientScaling(
  names: readonly SubjectName[],
  spawnOptions: SpawnOptions,
  record: (name: SubjectName) => (key: string, value: number) => void,
): Promise<void> {
  for (const clients of CLIENTS) {
    const pairs: Pair[] = [];
    try {
      for (const name of names) {
        const pair = await Pair.start(name, spawnOptions, { clients, subjectNodeFlags: ['--expose-gc'] });
        pairs.push(pair);
        // Before the warm-up: the collections also drop code V8 compiled, which the warm-up then compiles again.
        await pair.settle();
      }
      const stepCalls = Math.ceil((SCALING_WARMUP_CALLS_PER_CLIENT * clients) / SCALING_WARMUP_STEPS);
      for (let step = 0; step < SCALING_WARMUP_STEPS; step++)
        for (const pair of pairs) await pair.load({ tool: 'add', inFlight: 64, calls: stepCalls });
      for (const pair of pairs) {
        await pair.load({ tool: 'add', inFlight: 64, durationMs: SCALING_WARMUP_MS });
        const run = await pair.load({ tool: 'add', inFlight: 64, durationMs: SCALING_RUN_MS });
        if (run.errors > 0 || run.faults.length > 0) {
          throw new Error(`${pair.name} × ${clients}: ${run.errors} wrong results; ${run.faults.join('; ')}`);
        }
        record(pair.name)(`clients-calls/s@${clients}`, run.callsPerSecond);
        record(pair.name)(`clients-cpu@${clients}`, run.cpuUsPerCall);
      }
    } finally {
      for (const pair of pairs) await pair.close();
    }
  }
}

/**
 * A fresh process: the CPU it spent from its start to connected (Node's own start, module evaluation, the tools'
 * definitions, the connect), then CPU per call over its first {@link COLD_CALLS} calls at 64 in flight. toolwire's
 * process loads the built package (`coldOptions`), not the bundle of src/ the other scenarios run.
 */
async function coldStart(
  name: SubjectName,
  spawnOptions: SpawnOptions,
  record: (key: string, value: number) => void,
): Promise<void> {
  const pair = await Pair.start(name, spawnOptions);
  try {
    record('startup-cpu-ms', (await pair.mark(false)).cpuUs / 1000);
    const run = await pair.load({ tool: 'add', inFlight: 64, calls: COLD_CALLS });
    if (run.errors > 0 || run.faults.length > 0) {
      throw new Error(`${name} cold: ${run.errors} wrong results; ${run.faults.join('; ')}`);
    }
    record('cold-cpu', run.cpuUsPerCall);
  } finally {
    await pair.close();
  }
}

/** One process under callgrind: user-space instructions per call at each number in flight. */
async function instructionSession(
  name: SubjectName,
  spawnOptions: SpawnOptions,
  record: (key: string, value: number) => void,
  concurrencies: readonly number[] = CONCURRENCIES,
): Promise<void> {
  const keepDumps = option('keep-dumps');
  const counter = new Callgrind(keepDumps);
  const pair = await Pair.start(name, spawnOptions, {
    subjectWrapper: { command: counter.wrapper, startMs: 120_000 },
    // With the dumps kept, V8 writes /tmp/perf-<pid>.map too: the names of the JavaScript code in them.
    subjectNodeFlags: [
      '--no-concurrent-recompilation',
      '--expose-gc',
      ...(keepDumps === undefined ? [] : ['--perf-basic-prof']),
    ],
  });
  try {
    counter.attach(pair.subjectProcesses[0]!.pid!);
    // Settled first, as in the throughput rounds, so that the counts and the CPU times measure one state of V8.
    // Settled after the warm-up, both subjects took the runtime path for their literals (bench/subjects/harness.ts
    // `settle`: ~13,000 instructions a call more for each) and V8 optimised toolwire's code again inside the
    // windows, differently in each (at 512 in flight 62k, 69k, 56k, 55k a call in four windows in a row; settled
    // first 46.2k, 46.6k, 46.2k, 46.0k, and within 1.5% for every subject and number in flight).
    await pair.settle();
    await pair.load({ tool: 'add', inFlight: 64, calls: INSTRUCTION_WARMUP_CALLS });
    for (const inFlight of concurrencies) {
      await pair.load({ tool: 'add', inFlight, calls: INSTRUCTION_LEVEL_WARMUP_CALLS });
      for (let window = 0; window < INSTRUCTION_WINDOWS; window++) {
        let failed = '';
        const counted = await counter.count(async () => {
          const run = await pair.load({ tool: 'add', inFlight, calls: INSTRUCTION_CALLS });
          if (run.errors > 0 || run.faults.length > 0)
            failed = `${run.errors} wrong; ${run.faults.join('; ')}`;
        });
        if (failed) throw new Error(`${name} under callgrind @${inFlight}: ${failed}`);
        // The optimising compiler's work is the warm-up's (bench/lib/instructions.ts): counted apart.
        record(`instr@${inFlight}`, (counted.total - counted.compiler) / INSTRUCTION_CALLS);
        record(`instr-compiler@${inFlight}`, counted.compiler / INSTRUCTION_CALLS);
      }
    }
  } finally {
    await pair.close();
    counter.dispose();
  }
}

async function memorySession(pair: Pair, record: (key: string, value: number) => void): Promise<void> {
  await pair.load({ tool: 'add', inFlight: 64, calls: MEMORY_WARMUP_CALLS });
  const base = await pair.mark(true);
  const run = await pair.load({ tool: 'add', inFlight: 64, calls: MEMORY_CALLS });
  if (run.errors > 0) throw new Error(`${pair.name}: ${run.errors} wrong results`);
  const after = await pair.mark(true);
  const held = await pair.hold(HELD_CALLS, () => pair.mark(true));
  record('hold-us', (held.holdMs * 1000) / HELD_CALLS);
  record('hold-cpu-us', held.holdCpuUs / HELD_CALLS);
  if (held.errors > 0 || held.completed !== HELD_CALLS) {
    throw new Error(
      `${pair.name}: ${held.completed}/${HELD_CALLS} held calls came back, ${held.errors} wrong`,
    );
  }
  record('rss-after', after.rss);
  record('rss-growth', after.rss - base.rss);
  record('heap-growth', after.heapUsed + after.external - base.heapUsed - base.external);
  record('held-rss', (held.measured.rss - after.rss) / HELD_CALLS);
  record(
    'held-heap',
    (held.measured.heapUsed + held.measured.external - after.heapUsed - after.external) / HELD_CALLS,
  );
}

async function microSession(
  spawnOptions: SpawnOptions,
  kind: SchemaKindName,
  record: (key: string, value: number) => void,
): Promise<void> {
  const child = spawnEntry(spawnOptions.entries['invoke-tool'], ['--micro'], spawnOptions.cores?.[1]);
  try {
    await announced(child, 'invoke-tool');
    const channel = new Channel(child, 'invoke-tool');
    const result = await channel.request<
      Reply & { invokeUs: number; invokeCpuUs: number; libraryUs?: number }
    >('measure', { kind, budgetMs: MICRO_BUDGET_MS });
    record('invoke', result.invokeUs);
    record('invoke-cpu', result.invokeCpuUs);
    if (result.libraryUs !== undefined) record('library', result.libraryUs);
  } finally {
    await stop(child);
  }
}

async function profile(spawnOptions: SpawnOptions, name: SubjectName, inFlight: number): Promise<void> {
  const dir = `${ROOT}bench/.profiles`;
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  const pair = await Pair.start(name, spawnOptions, {
    subjectNodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=100'],
  });
  try {
    await pair.load({ tool: 'add', inFlight: 64, durationMs: 1_000 });
    const run = await pair.load({ tool: 'add', inFlight, durationMs: 4_000 });
    log(
      `${name} @${inFlight}: ${Math.round(run.callsPerSecond)} calls/s, ${run.cpuUsPerCall.toFixed(1)} µs CPU/call`,
    );
  } finally {
    await pair.close();
  }
  const file = readdirSync(dir).find((entry) => !before.has(entry) && entry.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile was written');
  process.stdout.write(`${hottest(`${dir}/${file}`, 30)}\nprofile: bench/.profiles/${file}\n`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const entries = await buildEntries();
  const cores = pinningCores();
  const spawnOptions: SpawnOptions = { entries, cores };
  const profiled = option('profile') as SubjectName | undefined;
  if (profiled) {
    await profile(spawnOptions, profiled, Number(option('in-flight') ?? 64));
    return;
  }
  if (flag('instructions-only')) {
    const inFlight = option('in-flight')?.split(',').map(Number) ?? [...CONCURRENCIES];
    for (const name of INSTRUCTION_SUBJECTS) {
      await instructionSession(
        name,
        spawnOptions,
        (key, value) => log(`${name} ${key}: ${Math.round(value)}`),
        inFlight,
      );
    }
    return;
  }
  // The cold start's toolwire is the package as built (dist/node.js), as a user's worker loads it.
  const coldOptions: SpawnOptions = SCALING_SUBJECTS.includes('toolwire')
    ? { ...spawnOptions, entries: { ...entries, toolwire: await buildPackagedSubject() } }
    : spawnOptions;
  const loadBefore = loadavg();
  // Read now: the run takes minutes, and src/ may be edited meanwhile (the bundles were built from it as it is now).
  const commit = gitDescribe();
  const samples = new Map<string, number[]>();
  const recorder = (prefix: string) => (key: string, value: number) => {
    const id = `${prefix}:${key}`;
    samples.set(id, [...(samples.get(id) ?? []), value]);
  };

  for (let rep = 0; rep < reps; rep++) {
    log(`repetition ${rep + 1}/${reps}`);
    // Every subject's pair is started first and idles between its turns, so that each concurrency's windows
    // lie together (throughputRound).
    const pairs: Pair[] = [];
    try {
      for (const name of rotate(subjects, rep)) {
        const pair = await Pair.start(name, spawnOptions, { subjectNodeFlags: ['--expose-gc'] });
        pairs.push(pair);
        recorder(name)('hello-bytes@0', pair.helloBytes);
        recorder(name)('connect-ms@0', pair.connectMs);
      }
      log(`  throughput: ${pairs.map((pair) => pair.name).join(', ')}`);
      for (const pair of pairs) {
        // The state a long-running process reaches (bench/subjects/harness.ts `settle`), the same for every subject;
        // before the warm-up, since the collections also drop code V8 compiled (4 processes, 64 in flight: toolwire
        // 22.1 µs a call settled after its warm-up, 13.0 before, 13.1 not settled; the floor 12.2, 11.2, 11.3).
        await pair.settle();
        await pair.load({ tool: 'add', inFlight: 64, durationMs: WARMUP_MS });
      }
      for (const inFlight of CONCURRENCIES) await throughputRound(pairs, inFlight, recorder);
      for (const pair of pairs) {
        if ((SCALING_SUBJECTS as readonly SubjectName[]).includes(pair.name))
          await argumentScaling(pair, recorder(pair.name));
      }
    } finally {
      for (const pair of pairs) await pair.close();
    }
    for (const name of rotate(MEMORY_SUBJECTS, rep)) {
      log(`  memory: ${name}`);
      const pair = await Pair.start(name, spawnOptions, {
        subjectNodeFlags: ['--expose-gc'],
        subjectArgs: name === 'toolwire' ? ['--max-concurrency', String(HELD_CALLS)] : [],
      });
      try {
        await memorySession(pair, recorder(name));
      } finally {
        await pair.close();
      }
    }
    for (const name of rotate(SCALING_SUBJECTS, rep)) {
      log(`  cold start: ${name}`);
      await coldStart(name, coldOptions, recorder(name));
    }
    for (const name of rotate(SCALING_SUBJECTS, rep)) {
      log(`  scaling: ${name}`);
      await toolScaling(name, spawnOptions, recorder(name));
    }
    log(`  client processes: ${rotate(SCALING_SUBJECTS, rep).join(', ')}`);
    await clientScaling(rotate(SCALING_SUBJECTS, rep), spawnOptions, recorder);
    log('  invokeTool');
    for (const kind of rotate(SCHEMA_KINDS, rep)) await microSession(spawnOptions, kind, recorder(kind));
  }
  const countInstructions = !flag('no-instructions') && callgrindAvailable();
  if (countInstructions) {
    for (const name of INSTRUCTION_SUBJECTS) {
      log(`instructions per call (callgrind): ${name}`);
      await instructionSession(name, spawnOptions, recorder(name));
    }
  } else if (!flag('no-instructions')) {
    log('instructions per call: skipped (valgrind with callgrind_control is not installed)');
  }
  const bundles = await bundleSizes();
  const peerSizes = await peerBundles();

  const figures: Figures = {
    value: (id) => median(samples.get(id) ?? []),
    ratio: (numerator, denominator) => {
      const top = samples.get(numerator) ?? [];
      const bottom = samples.get(denominator) ?? [];
      return median(top.slice(0, bottom.length).map((value, rep) => value / bottom[rep]!));
    },
    ratioSpread: (numerator, denominator) => {
      const top = samples.get(numerator) ?? [];
      const bottom = samples.get(denominator) ?? [];
      const ratios = top
        .slice(0, bottom.length)
        .map((value, rep) => value / bottom[rep]!)
        .filter(Number.isFinite);
      return ratios.length < 2 ? 0 : (Math.max(...ratios) - Math.min(...ratios)) / median(ratios);
    },
    spread: (id) => {
      const values = (samples.get(id) ?? []).filter(Number.isFinite);
      return values.length < 2 ? 0 : (Math.max(...values) - Math.min(...values)) / median(values);
    },
    subjects,
    memorySubjects: MEMORY_SUBJECTS,
    scalingSubjects: SCALING_SUBJECTS,
    scaling: { tools: SCALING_TOOLS, argBytes: [...ARG_BYTES], clients: [...CLIENTS] },
    concurrencies: [...CONCURRENCIES],
    bundles,
    peerBundles: peerSizes,
    coldCalls: COLD_CALLS,
    scalingWarmupCalls: SCALING_WARMUP_CALLS_PER_CLIENT,
    heldCalls: HELD_CALLS,
    memoryWarmupCalls: MEMORY_WARMUP_CALLS,
    memoryCalls: MEMORY_CALLS,
    instructions: countInstructions
      ? {
          subjects: INSTRUCTION_SUBJECTS,
          warmupCalls: INSTRUCTION_WARMUP_CALLS,
          levelWarmupCalls: INSTRUCTION_LEVEL_WARMUP_CALLS,
          calls: INSTRUCTION_CALLS,
          windows: INSTRUCTION_WINDOWS,
        }
      : undefined,
  };
  const report = renderReport(figures, {
    date: new Date().toISOString(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
    pinning: cores
      ? `driver on core ${cores[0]}, subject on core ${cores[1]} (taskset)`
      : 'none (taskset unavailable)',
    load: `${loadBefore.map((x) => x.toFixed(2)).join(' ')} at start, ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} at end (1/5/15 min)`,
    commit,
    reps,
    runMs: RUN_MS,
    durationS: (Date.now() - started) / 1000,
    quick,
  });
  process.stdout.write(report);
  if (!flag('no-write') && !quick && !only) {
    mkdirSync(`${ROOT}bench/results`, { recursive: true });
    writeFileSync(`${ROOT}bench/results/latest.md`, report);
    log('written to bench/results/latest.md');
  }
}

function gitDescribe(): string {
  try {
    const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain -- src', { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} (src/ modified)` : commit;
  } catch {
    return 'unknown';
  }
}

await main();
