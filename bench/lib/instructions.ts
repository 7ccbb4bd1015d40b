/**
 * Instructions per call, counted by Valgrind's callgrind: a measure of a client's CPU that neighbours on a shared
 * machine do not move. CPU time on a busy VM swings by more than the 15% the targets allow (the floor's own CPU per
 * call read 35 µs one day and 78–133 µs on another); the instructions a process executes for the same calls do not
 * depend on what else runs. They are not time (a cache miss costs more than an add), so the report shows them
 * beside the CPU-time ratios, not instead of them.
 *
 * The subject runs under `valgrind --tool=callgrind --instr-atstart=no`: uninstrumented (about 5–10× slower) while
 * it starts and warms up, then `callgrind_control` switches counting on for the measured calls only and dumps the
 * count. Every thread is counted (V8's GC threads are part of a client's CPU, as in `cpuUsage()`). The work of V8's
 * optimising compiler is counted apart ({@link Counted.compiler}): it is the warm-up's, not a call's, and it falls in
 * the first windows after the calls in flight change, differently in every run (measured at 98dadd3, toolwire at 1
 * in flight, three windows of 5,000 calls in a row: 86,855, 76,164 and 74,724 instructions a call, of which 10,393,
 * 2,256 and 11 TurboFan's; 76,462, 73,907 and 74,713 without it).
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether `valgrind` and `callgrind_control` are on this machine (the bench skips the table without them). */
export function callgrindAvailable(): boolean {
  const probe = (command: string) =>
    spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  return process.platform === 'linux' && probe('valgrind') && probe('callgrind_control');
}

/** What one counted window executed. */
export interface Counted {
  /** Instructions of every thread. */
  total: number;
  /** Of them, those of V8's optimising compiler (TurboFan and its graph zones, Sparkplug, Maglev): see {@link compilerShare}. */
  compiler: number;
}

/** Functions of V8's compilers, by their C++ names (the `node` binary keeps its symbols). */
const COMPILER =
  /v8::internal::(?:compiler::|maglev::|baseline::|Zone::|ZoneList|OptimizedCompilationJob|TurbofanCompilationJob)/;

/**
 * The instructions of a callgrind dump (`--tool=callgrind`, the one event `Ir`), and the share of them spent in
 * functions of V8's compilers: each function's self cost (a cost line after `calls=` is the callee's inclusive
 * cost, counted where it was spent). Names are compressed: `fn=(id) name` the first time, `fn=(id)` after; `cfn=`
 * names one too.
 */
export function compilerShare(dump: string): Counted {
  const names = new Map<string, string>();
  let total = 0;
  let compiler = 0;
  let inCompiler = false;
  let callCost = false;
  // A cost line is its positions (`line`, or `instr line` with `--dump-instr=yes`) and then the one event.
  let positions = 1;
  for (const line of dump.split('\n')) {
    if (line.startsWith('positions:')) positions = line.split(' ').length - 1;
    const named = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      const name = named[2] ?? names.get(named[1]!) ?? '';
      if (named[2] !== undefined) names.set(named[1]!, named[2]);
      if (line.startsWith('fn=')) inCompiler = COMPILER.test(name);
    } else if (line.startsWith('calls=')) callCost = true;
    else if (/^[0-9+*-]/.test(line)) {
      if (callCost) callCost = false;
      else {
        const cost = Number(line.split(' ')[positions] ?? 0);
        total += cost;
        if (inCompiler) compiler += cost;
      }
    }
  }
  return { total, compiler };
}

/** One subject process under callgrind: the command prefix to start it with, and the counter it reads. */
export class Callgrind {
  readonly #dir = mkdtempSync(join(tmpdir(), 'toolwire-callgrind-'));
  #pid: number | undefined;

  /** With `keepIn`, each dump is also copied to that directory (`<pid>.<n>`), for `callgrind_annotate`. */
  constructor(readonly keepIn?: string) {}

  /** The command that starts the subject under callgrind, counting nothing until {@link count}. */
  get wrapper(): string[] {
    return [
      'valgrind',
      '--tool=callgrind',
      '--instr-atstart=no',
      '--quiet',
      `--callgrind-out-file=${join(this.#dir, 'out')}`,
    ];
  }

  /** The process to count (the subject's pid: valgrind runs the program in its own process). */
  attach(pid: number): void {
    this.#pid = pid;
  }

  /** Instructions the subject executed (all threads) while `during` ran, and those of V8's compilers among them. */
  async count(during: () => Promise<void>): Promise<Counted> {
    if (this.#pid === undefined) throw new Error('callgrind: no process attached');
    const before = new Set(readdirSync(this.#dir));
    this.#control('--zero');
    this.#control('--instr=on');
    try {
      await during();
      this.#control('--dump');
    } finally {
      this.#control('--instr=off');
    }
    const dumped = readdirSync(this.#dir).filter((name) => !before.has(name) && name !== 'out');
    if (dumped.length !== 1) throw new Error(`callgrind: expected one dump, found ${dumped.length}`);
    const dump = readFileSync(join(this.#dir, dumped[0]!), 'utf8');
    if (this.keepIn !== undefined) {
      mkdirSync(this.keepIn, { recursive: true });
      copyFileSync(
        join(this.#dir, dumped[0]!),
        join(this.keepIn, `${this.#pid}.${dumped[0]!.replace(/^out\./, '')}`),
      );
    }
    const totals = /^totals: (\d+)/m.exec(dump);
    if (!totals) throw new Error('callgrind: the dump has no totals line');
    const counted = compilerShare(dump);
    if (counted.total !== Number(totals[1]))
      throw new Error(
        `callgrind: the dump's functions add up to ${counted.total}, its totals line says ${totals[1]}`,
      );
    return counted;
  }

  /** Removes the dumps. */
  dispose(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #control(command: string): void {
    execFileSync('callgrind_control', [command, String(this.#pid)], { stdio: 'ignore', timeout: 30_000 });
  }
}
