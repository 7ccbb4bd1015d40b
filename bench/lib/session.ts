/**
 * A benchmark session: one driver process and one subject process, each pinned to its own core where
 * `taskset` allows, linked over loopback and commanded over IPC.
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { LoadOptions, LoadResult } from '../driver';
import type { Mark } from '../subjects/harness';
import type { EntryName } from './build';
import { announced, Channel, type Reply } from './ipc';

/** The subjects, in table order. */
export const SUBJECTS = ['floor', 'toolwire', 'socketio', 'mcp'] as const;
/** One of {@link SUBJECTS}. */
export type SubjectName = (typeof SUBJECTS)[number];

/** Display names. */
export const SUBJECT_LABELS: Record<SubjectName, string> = {
  floor: 'floor (bare ws)',
  toolwire: 'toolwire Client',
  socketio: 'Socket.IO emitWithAck',
  mcp: 'MCP SDK (Streamable HTTP)',
};

const DRIVER_KIND = { floor: 'protocol', toolwire: 'protocol', socketio: 'socketio', mcp: 'mcp' } as const;

/** Cores for the driver and the subject, or `undefined` when pinning is not possible here. */
export function pinningCores(): [number, number] | undefined {
  if (process.platform !== 'linux' || availableParallelism() < 2) return undefined;
  const probe = spawnSync('taskset', ['-c', '1', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? [0, 1] : undefined;
}

/** How to start child processes. */
export interface SpawnOptions {
  /** Bundled entry points by name (see build.ts). */
  entries: Record<EntryName, string>;
  /** Cores for [driver, subject], or none. */
  cores: [number, number] | undefined;
}

/**
 * Starts a bundled entry point as a child with an IPC channel, pinned to `core` when given, under `wrapper` (a
 * command prefix that runs the program in its own process, e.g. valgrind) when given. Its standard output is dropped
 * unless `stdout` is `'inherit'` (what a V8 flag such as `--trace-gc` prints goes there).
 */
export function spawnEntry(
  file: string,
  args: string[],
  core: number | undefined,
  nodeFlags: string[] = [],
  wrapper: string[] = [],
  stdout: 'ignore' | 'inherit' = 'ignore',
): ChildProcess {
  const command = [...wrapper, process.execPath, ...nodeFlags, file, ...args];
  if (core !== undefined) command.unshift('taskset', '-c', String(core));
  return spawn(command[0]!, command.slice(1), { stdio: ['ignore', stdout, 'inherit', 'ipc'] });
}

/** Asks a child to exit, and kills it if it has not within `graceMs`. */
export function stop(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (child.connected) child.send({ id: -1, cmd: 'exit' });
    else child.kill('SIGTERM');
  });
}

/** Options of a {@link Pair}. */
export interface PairOptions {
  /** Extra arguments for the subject (e.g. `--max-concurrency 10000`). */
  subjectArgs?: string[];
  /** Node flags for the subject (e.g. `--expose-gc`, `--cpu-prof`). */
  subjectNodeFlags?: string[];
  /** Pass the subject's standard output through (what `--trace-gc` and the like print). @default false */
  subjectStdout?: boolean;
  /** A command prefix for the subject (bench/lib/instructions.ts: valgrind), and how long it may take to start. */
  subjectWrapper?: { command: string[]; startMs: number };
  /** Decode every frame the subject sends with `decodeClientFrame` (protocol subjects). */
  validate?: boolean;
  /** Subject processes against the one driver (protocol subjects; the scaling's 1 to 8 clients). @default 1 */
  clients?: number;
  /** What the protocol driver's `tool_call`s carry (bench/driver.ts `FrameKind`). @default 'stub' */
  frames?: 'plain' | 'stub';
}

/** A driver and a subject, connected. */
export class Pair {
  private constructor(
    readonly name: SubjectName,
    readonly driver: Channel,
    readonly subjects: Channel[],
    readonly processes: ChildProcess[],
    /** The subjects' processes, in the order of {@link subjects}. */
    readonly subjectProcesses: ChildProcess[],
    /** The first subject's `hello`, in bytes, as the driver received it (protocol subjects). */
    readonly helloBytes: number,
    /** The first subject's connect time, ms: from opening the socket (toolwire: `new Client`) to `welcome`. */
    readonly connectMs: number,
  ) {}

  /** The (first) subject. */
  get subject(): Channel {
    return this.subjects[0]!;
  }

  /** Starts both processes and waits until the subject is connected and ready. */
  static async start(
    name: SubjectName,
    spawnOptions: SpawnOptions,
    options: PairOptions = {},
  ): Promise<Pair> {
    const { entries, cores } = spawnOptions;
    const processes: ChildProcess[] = [];
    const subjectProcesses: ChildProcess[] = [];
    try {
      const startSubject = async (url: string | undefined) => {
        const child = spawnEntry(
          entries[name],
          [...(url === undefined ? [] : ['--url', url]), ...(options.subjectArgs ?? [])],
          cores?.[1],
          options.subjectNodeFlags,
          options.subjectWrapper?.command,
          options.subjectStdout ? 'inherit' : 'ignore',
        );
        processes.push(child);
        subjectProcesses.push(child);
        const ready = await announced<Reply & { url?: string; connectMs?: number }>(
          child,
          `subject ${name}`,
          options.subjectWrapper?.startMs,
        );
        return { channel: new Channel(child, `subject ${name}`), url: ready.url, connectMs: ready.connectMs };
      };
      const startDriver = async () => {
        const child = spawnEntry(entries.driver, ['--driver'], cores?.[0]);
        processes.push(child);
        await announced(child, 'driver');
        return new Channel(child, 'driver');
      };
      const kind = DRIVER_KIND[name];
      let driver: Channel;
      const subjects: Channel[] = [];
      let connectMs = Number.NaN;
      if (kind === 'mcp') {
        const started = await startSubject(undefined);
        subjects.push(started.channel);
        driver = await startDriver();
        await driver.request('start', { kind, url: started.url });
      } else {
        const clients = options.clients ?? 1;
        driver = await startDriver();
        const { url } = await driver.request<Reply & { url: string }>('start', {
          kind,
          validate: options.validate === true,
          clients,
          frames: options.frames ?? 'stub',
        });
        for (let i = 0; i < clients; i++) {
          const started = await startSubject(url);
          subjects.push(started.channel);
          if (i === 0) connectMs = started.connectMs ?? Number.NaN;
        }
      }
      const { helloBytes } = await driver.request<Reply & { helloBytes?: number }>(
        'wait-client',
        {},
        options.subjectWrapper?.startMs ?? 30_000,
      );
      return new Pair(name, driver, subjects, processes, subjectProcesses, helloBytes ?? 0, connectMs);
    } catch (error) {
      await Promise.all(processes.map((child) => stop(child, 500)));
      throw error;
    }
  }

  /** The subject's CPU and memory now (after a full GC when `gc` and the subject runs with `--expose-gc`). */
  async mark(gc = false): Promise<Mark> {
    return (await this.subject.request<Reply & { mark: Mark }>('mark', { gc })).mark;
  }

  /**
   * Has every subject process collect garbage while idle, outside any nextTick callback (harness `settle`;
   * `--expose-gc`).
   */
  async settle(): Promise<void> {
    for (const subject of this.subjects) await subject.request('settle', {});
  }

  /**
   * Runs load and returns the driver's measurements, the subjects' CPU per call (all of them together), and any
   * protocol faults.
   */
  async load(options: LoadOptions): Promise<LoadResult & { cpuUsPerCall: number; faults: string[] }> {
    const cpu = async () => {
      let sum = 0;
      for (const subject of this.subjects)
        sum += (await subject.request<Reply & { mark: Mark }>('mark', { gc: false })).mark.cpuUs;
      return sum;
    };
    const before = await cpu();
    const { result, faults } = await this.driver.request<Reply & { result: LoadResult; faults: string[] }>(
      'run',
      { options },
      600_000,
    );
    const after = await cpu();
    return { ...result, cpuUsPerCall: (after - before) / Math.max(1, result.completed), faults };
  }

  /** The text of the last `tool_result` the driver received (protocol subjects; '' for the others). */
  async lastResult(): Promise<string> {
    return (await this.driver.request<Reply & { text: string }>('last-result', {})).text;
  }

  /**
   * Sends `count` calls of the `hold` tool and waits until the subject holds them all; `measure` runs then;
   * finally releases them and waits for every result.
   */
  async hold<T>(
    count: number,
    measure: () => Promise<T>,
  ): Promise<{
    measured: T;
    completed: number;
    errors: number;
    faults: string[];
    holdMs: number;
    holdCpuUs: number;
  }> {
    const started = performance.now();
    const held = this.subject.request<Reply & { cpuUs: number }>('expect-held', { count }, 120_000);
    await this.driver.request('hold', { count });
    const { cpuUs: holdCpuUs } = await held;
    const holdMs = performance.now() - started;
    const measured = await measure();
    await this.subject.request('release');
    const { result, faults } = await this.driver.request<Reply & { result: LoadResult; faults: string[] }>(
      'collect',
      {},
      120_000,
    );
    return { measured, completed: result.completed, errors: result.errors, faults, holdMs, holdCpuUs };
  }

  /** Stops both processes. */
  async close(): Promise<void> {
    await Promise.all(this.processes.map((child) => stop(child)));
  }
}
