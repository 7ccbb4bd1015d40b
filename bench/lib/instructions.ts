/**
 * Instructions per call, counted by Valgrind's callgrind: a measure of a client's CPU that neighbours on a shared
 * machine do not move. CPU time on a busy VM swings by more than the 15% the targets allow (the floor's own CPU per
 * call read 35 µs one day and 78–133 µs on another); the instructions a process executes for the same calls do not
 * depend on what else runs. They are not time (a cache miss costs more than an add), so the report shows them
 * beside the CPU-time ratios, not instead of them.
 *
 * The subject runs under `valgrind --tool=callgrind --instr-atstart=no`: uninstrumented (about 5–10× slower) while
 * it starts and warms up, then `callgrind_control` switches counting on for the measured calls only and dumps the
 * count. Every thread is counted (V8's compiler and GC threads are part of a client's CPU, as in `cpuUsage()`).
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether `valgrind` and `callgrind_control` are on this machine (the bench skips the table without them). */
export function callgrindAvailable(): boolean {
  const probe = (command: string) =>
    spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  return process.platform === 'linux' && probe('valgrind') && probe('callgrind_control');
}

/** One subject process under callgrind: the command prefix to start it with, and the counter it reads. */
export class Callgrind {
  readonly #dir = mkdtempSync(join(tmpdir(), 'toolwire-callgrind-'));
  #pid: number | undefined;

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

  /** Instructions the subject executed (all threads) while `during` ran. */
  async count(during: () => Promise<void>): Promise<number> {
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
    const totals = /^totals: (\d+)/m.exec(readFileSync(join(this.#dir, dumped[0]!), 'utf8'));
    if (!totals) throw new Error('callgrind: the dump has no totals line');
    return Number(totals[1]);
  }

  /** Removes the dumps. */
  dispose(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #control(command: string): void {
    execFileSync('callgrind_control', [command, String(this.#pid)], { stdio: 'ignore', timeout: 30_000 });
  }
}
