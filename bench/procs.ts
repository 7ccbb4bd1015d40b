/**
 * `npx tsx bench/procs.ts`: why a client's CPU per call grows with the number of client processes sharing a core
 * (issue 28: 8 processes read 1.54× the floor's, 1 process 0.90–1.2×), measured two ways a busy machine moves little.
 *
 * `--mix F8,T1F7,F1T7,T8` (the default): sets of client processes, each set against its own driver, all pinned to
 * the subject core as in `npm run bench` (`T1F7`: 1 toolwire process and 7 floor processes; calls go to a set's
 * processes in turn, `--in-flight 64` in all, a comma list to vary it). Every set is warmed up alike (50,000 calls a
 * process, in 5 turns), then `--rounds 5` rounds of a 300 ms warm-up and a 700 ms window per set, the sets in a
 * rotated order. Each window prints every process's CPU per call and calls per wake-up (voluntary context switches,
 * /proc/<pid>/status). A mixed set gives toolwire's CPU per call over the floor's in the same window, among the same
 * neighbours: a ratio other helpers' load hits on both sides alike.
 *
 * `--cache-sim`: one process of each subject under callgrind with simulated caches (`--cache-sim=yes`: this VM has
 * no hardware cache counters), at `--in-flight 8` (what each of 8 processes has in flight), I1 32 KiB, D1 48 KiB
 * and the last level `--ll 262144,2097152` bytes: the core's 2 MiB L2 whole (1 process) or an eighth of it (8
 * processes taking turns on it), 16-way; a size between powers of two keeps 256 sets and takes more ways (`--ll
 * 294912`: 288 KiB, 18-way), to read how the misses fall as the cache grows. Prints misses per call over `--calls
 * 4000` after a warm-up (the second of two windows), the optimised JavaScript run at least once per 8 calls (in
 * 64-byte cache lines, by source file), and the functions with the most last-level misses (V8's code named by its
 * /tmp/perf-<pid>.map). `--keep DIR` copies each callgrind dump there (made if missing).
 * `--subjects floor,toolwire` picks the subjects. Each process takes ~2 minutes of one core.
 *
 * What it found at 6314462 is in bench/results/procs.md (written by hand: the runs print, nothing is written): about
 * half of the 8-process excess is toolwire's own (toolwire / floor in one window 1.26–1.32×, near its 1-process
 * ratio), half the pressure its processes' larger code put on the core's shared L2, which every neighbour pays (a
 * floor process among toolwire processes 1.36× its CPU among floor ones). At an eighth of the L2, toolwire misses
 * the last level ~560 times a call, the floor ~150; with the whole L2 both ~85.
 *
 * Not part of `npm run bench`.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadOptions, LoadResult } from './driver';
import { buildEntries, type EntryName } from './lib/build';
import { Callgrind } from './lib/instructions';
import { announced, Channel, type Reply } from './lib/ipc';
import { Pair, pinningCores, spawnEntry, stop } from './lib/session';
import type { Mark } from './subjects/harness';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? fallback : argv[index + 1]!;
};
const numbers = (text: string) => text.split(',').map(Number);
const log = (message: string) => process.stdout.write(`${message}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const entries = await buildEntries();
const cores = pinningCores();

/** One set of client processes against its own driver. */
interface ClientSet {
  name: string;
  kinds: Array<'floor' | 'toolwire'>;
  driver: Channel;
  clients: Channel[];
  processes: ChildProcess[];
}

/** `T1F7` → one toolwire and seven floor processes. */
function kindsOf(name: string): Array<'floor' | 'toolwire'> {
  const kinds: Array<'floor' | 'toolwire'> = [];
  for (const [, letter, count] of name.matchAll(/([FT])(\d+)/g))
    for (let i = 0; i < Number(count); i++) kinds.push(letter === 'F' ? 'floor' : 'toolwire');
  if (kinds.length === 0) throw new Error(`--mix: ${name} names no processes (write e.g. T1F7)`);
  return kinds;
}

async function startSet(name: string, processes: ChildProcess[]): Promise<ClientSet> {
  const kinds = kindsOf(name);
  const driverProcess = spawnEntry(entries.driver, ['--driver'], cores?.[0]);
  processes.push(driverProcess);
  await announced(driverProcess, 'driver');
  const driver = new Channel(driverProcess, 'driver');
  const { url } = await driver.request<Reply & { url: string }>('start', {
    kind: 'protocol',
    clients: kinds.length,
    frames: 'stub',
  });
  const clients: Channel[] = [];
  const own: ChildProcess[] = [];
  for (const kind of kinds) {
    const child = spawnEntry(entries[kind as EntryName], ['--url', url], cores?.[1], ['--expose-gc']);
    processes.push(child);
    own.push(child);
    await announced(child, kind);
    clients.push(new Channel(child, kind));
  }
  await driver.request('wait-client', {}, 30_000);
  // As bench/run.ts: settled before the warm-up (bench/subjects/harness.ts `settle`).
  for (const client of clients) await client.request('settle', {});
  return { name, kinds, driver, clients, processes: own };
}

/** Voluntary context switches of a process so far: the times it blocked and was woken. */
function wakeUps(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
}

async function runSet(set: ClientSet, options: LoadOptions) {
  const cpu = async () => {
    const marks: number[] = [];
    for (const client of set.clients)
      marks.push((await client.request<Reply & { mark: Mark }>('mark', { gc: false })).mark.cpuUs);
    return marks;
  };
  const wakesBefore = set.processes.map((child) => wakeUps(child.pid!));
  const before = await cpu();
  const { result } = await set.driver.request<Reply & { result: LoadResult }>('run', { options }, 600_000);
  const after = await cpu();
  const callsEach = result.completed / set.kinds.length;
  return {
    result,
    cpuPerCall: after.map((value, i) => (value - before[i]!) / callsEach),
    callsPerWake: set.processes.map((child, i) => callsEach / (wakeUps(child.pid!) - wakesBefore[i]!)),
  };
}

async function mix(): Promise<void> {
  const names = option('mix', 'F8,T1F7,F1T7,T8').split(',');
  const rounds = Number(option('rounds', '5'));
  const processes: ChildProcess[] = [];
  const mean = (values: number[]) => values.reduce((sum, x) => sum + x, 0) / values.length;
  try {
    const sets: ClientSet[] = [];
    for (const name of names) sets.push(await startSet(name, processes));
    for (let step = 0; step < 5; step++)
      for (const set of sets)
        await runSet(set, { tool: 'add', inFlight: 64, calls: Math.ceil((50_000 * set.kinds.length) / 5) });
    log(`warmed up; load ${load()}`);
    for (const inFlight of numbers(option('in-flight', '64'))) {
      for (let round = 0; round < rounds; round++) {
        for (const set of sets.map((_, i) => sets[(i + round) % sets.length]!)) {
          await runSet(set, { tool: 'add', inFlight, durationMs: 300 });
          const { result, cpuPerCall, callsPerWake } = await runSet(set, {
            tool: 'add',
            inFlight,
            durationMs: 700,
          });
          const of = (kind: string) => cpuPerCall.filter((_, i) => set.kinds[i] === kind);
          const toolwire = of('toolwire');
          const floor = of('floor');
          const ratio =
            toolwire.length > 0 && floor.length > 0 ? ` (${(mean(toolwire) / mean(floor)).toFixed(2)}×)` : '';
          log(
            `${set.name.padEnd(5)} @${inFlight} round ${round}: toolwire ${toolwire.length > 0 ? mean(toolwire).toFixed(1) : '-'} µs/call, floor ${floor.length > 0 ? mean(floor).toFixed(1) : '-'}${ratio}; ${Math.round(result.callsPerSecond)} calls/s, ${mean(callsPerWake).toFixed(1)} calls per wake-up; load ${load()}`,
          );
        }
      }
    }
  } finally {
    await Promise.all(processes.map((child) => stop(child)));
  }
}

/** Self cost of each function in a callgrind dump (`--dump-instr=yes`), by name, and the event names. */
function selfCosts(dump: string): { events: string[]; byFunction: Map<string, number[]> } {
  const names = new Map<string, string>();
  const byFunction = new Map<string, number[]>();
  let events: string[] = [];
  let current: number[] | undefined;
  let callCost = false;
  for (const line of dump.split('\n')) {
    if (line.startsWith('events:')) events = line.split(' ').slice(1);
    const named = /^(c?)fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      if (named[3] !== undefined) names.set(named[2]!, named[3]);
      if (named[1] === '') {
        const name = names.get(named[2]!) ?? '?';
        current = byFunction.get(name) ?? [];
        byFunction.set(name, current);
      }
    } else if (line.startsWith('calls=')) callCost = true;
    else if (/^(0x[0-9a-f]+|[+-]\d+|\*) /.test(line)) {
      // `instr line event…`; the line after `calls=` is the callee's inclusive cost, counted where it was spent.
      if (callCost) callCost = false;
      else if (current !== undefined)
        line
          .split(' ')
          .slice(2)
          .forEach((value, i) => {
            current![i] = (current![i] ?? 0) + Number(value);
          });
    }
  }
  return { events, byFunction };
}

/**
 * The optimised JavaScript run at least once per 8 calls (each instruction's count at least `calls / 8`), as the
 * 64-byte cache lines it spans, by the source file of each function (the bundle's source map names src/ files):
 * what a wake-up of 8 calls brings into the caches. Inlined code counts to the function it was inlined into.
 */
function hotCodeLines(
  dump: string,
  calls: number,
  pid: number,
): { total: number; byFile: Map<string, number> } {
  const counts = new Map<number, number>();
  let address = 0;
  let callCost = false;
  for (const line of dump.split('\n')) {
    if (line.startsWith('calls=')) {
      callCost = true;
      continue;
    }
    const cost = /^(0x[0-9a-f]+|[+-]\d+|\*) \S+ (\d+)/.exec(line);
    if (!cost) continue;
    const at = cost[1]!;
    if (at.startsWith('0x')) address = Number.parseInt(at, 16);
    else if (at !== '*') address += Number(at);
    // The line after `calls=` is the callee's inclusive cost: its address is the call's, its count not this code's.
    if (callCost) callCost = false;
    else counts.set(address, (counts.get(address) ?? 0) + Number(cost[2]));
  }
  const map = existsSync(`/tmp/perf-${pid}.map`)
    ? readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
        .split('\n')
        .filter((line) => line.includes(' JS:*'))
        .map((line) => {
          const [start, size, ...rest] = line.split(' ');
          return {
            start: Number.parseInt(start!, 16),
            size: Number.parseInt(size!, 16),
            name: rest.join(' '),
          };
        })
        .sort((a, b) => a.start - b.start)
    : [];
  const find = (address: number) => {
    let low = 0;
    let high = map.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const entry = map[middle]!;
      if (address < entry.start) high = middle - 1;
      else if (address >= entry.start + entry.size) low = middle + 1;
      else return entry;
    }
    return undefined;
  };
  const sourceMaps = new Map<string, SourceMap | undefined>();
  const fileOf = (name: string) => {
    const at = /(?:file:\/\/)?(\/\S+\.m?js):(\d+):(\d+)$/.exec(name);
    if (!at) return 'other';
    const [, bundle, line, column] = at;
    if (!sourceMaps.has(bundle!))
      sourceMaps.set(
        bundle!,
        existsSync(`${bundle}.map`)
          ? new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')))
          : undefined,
      );
    const source = sourceMaps.get(bundle!)?.findEntry(Number(line) - 1, Number(column) - 1);
    const file = source !== undefined && 'originalSource' in source ? source.originalSource : bundle!;
    return file.replace(/.*\/node_modules\//, 'node_modules/').replace(/.*\/(src|bench)\//, '$1/');
  };
  const lines = new Map<string, Set<number>>();
  for (const [address, count] of counts) {
    if (count < calls / 8) continue;
    const entry = find(address);
    if (entry === undefined) continue;
    const file = fileOf(entry.name);
    const set = lines.get(file) ?? new Set<number>();
    lines.set(file, set);
    set.add(address >> 6);
  }
  const byFile = new Map([...lines].map(([file, set]) => [file, set.size * 64] as [string, number]));
  return { total: [...byFile.values()].reduce((sum, bytes) => sum + bytes, 0), byFile };
}

/** Names V8's code by /tmp/perf-<pid>.map: callgrind names code it has no symbol for by its address. */
function jitNamer(pid: number): (name: string) => string {
  let map: Array<[number, number, string]> = [];
  try {
    map = readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [start, size, ...rest] = line.split(' ');
        return [Number.parseInt(start!, 16), Number.parseInt(size!, 16), rest.join(' ')] as [
          number,
          number,
          string,
        ];
      });
  } catch {}
  return (name) => {
    if (!name.startsWith('0x')) return name;
    const address = Number.parseInt(name, 16);
    return map.find(([start, size]) => address >= start && address < start + size)?.[2] ?? name;
  };
}

async function cacheSim(): Promise<void> {
  const calls = Number(option('calls', '4000'));
  const inFlight = Number(option('in-flight', '8'));
  for (const ll of numbers(option('ll', '262144,2097152'))) {
    for (const name of option('subjects', 'floor,toolwire').split(',') as Array<'floor' | 'toolwire'>) {
      const dir = mkdtempSync(join(tmpdir(), 'toolwire-cachesim-'));
      const counter = new (class extends Callgrind {
        override get wrapper(): string[] {
          const [valgrind, tool, ...rest] = super.wrapper;
          return [
            valgrind!,
            tool!,
            '--cache-sim=yes',
            '--I1=32768,8,64',
            '--D1=49152,12,64',
            `--LL=${ll},${Number.isInteger(Math.log2(ll)) ? 16 : ll / (256 * 64)},64`,
            '--dump-instr=yes',
            ...rest,
          ];
        }
      })(dir);
      const pair = await Pair.start(
        name,
        { entries, cores },
        {
          subjectWrapper: { command: counter.wrapper, startMs: 120_000 },
          subjectNodeFlags: ['--no-concurrent-recompilation', '--expose-gc', '--perf-basic-prof'],
        },
      );
      const pid = pair.subjectProcesses[0]!.pid!;
      try {
        counter.attach(pid);
        await pair.settle();
        await pair.load({ tool: 'add', inFlight: 64, calls: 60_000 });
        await pair.load({ tool: 'add', inFlight, calls: 10_000 });
        // The first window starts with the simulated caches empty: the second is the one read.
        for (let window = 0; window < 2; window++)
          await counter.count(() => pair.load({ tool: 'add', inFlight, calls }).then(() => undefined));
      } finally {
        await pair.close();
        counter.dispose();
      }
      const last = readdirSync(dir).sort().at(-1)!;
      const keep = option('keep', '');
      if (keep !== '') {
        mkdirSync(keep, { recursive: true });
        copyFileSync(join(dir, last), join(keep, `${name}-${ll}-${pid}.callgrind`));
      }
      const dump = readFileSync(join(dir, last), 'utf8');
      const { events, byFunction } = selfCosts(dump);
      const code = hotCodeLines(dump, calls, pid!);
      rmSync(dir, { recursive: true, force: true });
      const at = (event: string) => events.indexOf(event);
      const total = (event: string) =>
        [...byFunction.values()].reduce((sum, costs) => sum + (costs[at(event)] ?? 0), 0);
      const perCall = (event: string) => (total(event) / calls).toFixed(0);
      log(
        `${name} @${inFlight}, LL ${ll / 1024} KiB, per call: ${['Ir', 'I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw'].map((event) => `${event} ${perCall(event)}`).join(', ')}`,
      );
      const kib = (bytes: number) => (bytes / 1024).toFixed(1);
      const src = [...code.byFile].filter(([file]) => file.startsWith('src/')).sort(([, a], [, b]) => b - a);
      log(
        `  optimised JavaScript run per 8 calls (cache lines): ${kib(code.total)} KiB, src/ ${kib(src.reduce((sum, [, bytes]) => sum + bytes, 0))} KiB (${src
          .slice(0, 8)
          .map(([file, bytes]) => `${file.slice(4)} ${kib(bytes)}`)
          .join(', ')})`,
      );
      const named = jitNamer(pid);
      const lastLevel = (costs: number[]) =>
        ['ILmr', 'DLmr', 'DLmw'].reduce((sum, e) => sum + (costs[at(e)] ?? 0), 0);
      const top = [...byFunction.entries()].sort(([, a], [, b]) => lastLevel(b) - lastLevel(a)).slice(0, 15);
      for (const [fn, costs] of top)
        log(
          `  ${(lastLevel(costs) / calls).toFixed(1).padStart(6)} LL misses/call (I ${((costs[at('ILmr')] ?? 0) / calls).toFixed(1)})  ${named(fn.split("'")[0]!).slice(0, 100)}`,
        );
    }
  }
}

if (argv.includes('--cache-sim')) await cacheSim();
else await mix();
process.exit(0);
