/**
 * What every subject process shares: the `hold` tool's pending promises, and the IPC commands the orchestrator
 * sends (`mark` for CPU and memory, `expect-held`, `release`, `snapshot` (a heap snapshot to a path), `exit`).
 *
 * @module
 */
import { writeHeapSnapshot } from 'node:v8';
import { announce, serve } from '../lib/ipc';

/** A subject's resource snapshot: cumulative CPU time (µs) and memory (bytes). */
/**
 * The API key of every toolwire client the bench makes: 51 characters, as long as an OpenAI key (`sk-` and 48;
 * project keys are longer). A client looks for its key in every text it sends; a text shorter than the key cannot
 * hold it, so a short key would have the bench count a search on every short output that no real worker makes.
 */
export const BENCH_API_KEY = 'sk-bench-0123456789abcdefghijklmnopqrstuvwxyzABCDEF';

export interface Mark {
  cpuUs: number;
  rss: number;
  heapUsed: number;
  external: number;
}

/** Calls of the `hold` tool, waiting until the orchestrator says `release`. */
export class Holds {
  #waiting: Array<() => void> = [];
  #target = Number.POSITIVE_INFINITY;
  #reached: (() => void) | undefined;

  /** Called by the `hold` tool: resolves on `release`. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      if (this.#waiting.length >= this.#target) this.#reached?.();
    });
  }

  /** Resolves once `count` calls are held. */
  expect(count: number): Promise<void> {
    if (this.#waiting.length >= count) return Promise.resolve();
    this.#target = count;
    return new Promise<void>((resolve) => {
      this.#reached = () => {
        this.#reached = undefined;
        this.#target = Number.POSITIVE_INFINITY;
        resolve();
      };
    });
  }

  /** Lets every held call finish. */
  release(): number {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
    return waiting.length;
  }
}

/** Reads CPU and memory; with `gc`, collects garbage first (needs `--expose-gc`). */
export function mark(gc: boolean): Mark {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (gc && collect) {
    collect();
    collect();
  }
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  return {
    cpuUs: cpu.user + cpu.system,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    external: memory.external,
  };
}

/**
 * Puts the process in the state a long-running one reaches after major GCs while idle: four full GCs from a timer,
 * outside any `process.nextTick` callback (needs `--expose-gc`). Node's tick object and ws's send options are object
 * literals with computed keys; V8 holds their literal's intermediate maps weakly and records one map per property or
 * gives up for good ("megamorphic"). Once they are collected with no such object alive, every later literal takes a
 * runtime call per property (Node 20-24). Whether a process gets there otherwise depends on where its first major GC
 * falls during start-up, which differs from run to run and from subject to subject: this makes it the same for all.
 * Measured under callgrind (7885a21): settled after 60,000 calls, floor and toolwire both took the runtime path then
 * (`Runtime_DefineKeyedOwnPropertyInLiteral`: 7.3 million instructions in 5,000 calls of toolwire); settled right
 * after connecting, as bench/run.ts does now, neither did (1,272 instructions), in every window counted.
 */
function settle(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  return new Promise((resolve) => {
    setTimeout(() => {
      for (let i = 0; i < 4; i++) collect?.();
      resolve();
    }, 10);
  });
}

/** Answers the orchestrator's commands, then announces the subject as ready with `fields`. */
export function runHarness(
  holds: Holds,
  close: () => Promise<void> | void,
  fields: Record<string, unknown> = {},
): void {
  serve(async (request) => {
    switch (request.cmd) {
      case 'mark':
        return { mark: mark(request.gc === true) };
      case 'settle':
        await settle();
        return {};
      case 'expect-held': {
        // The subject's own CPU from being told to expect the calls until it holds them all: the intake without the
        // driver's sending, the IPC round trips or another process's turn on the core, which its wall time includes.
        const before = mark(false).cpuUs;
        await holds.expect(Number(request.count));
        return { cpuUs: mark(false).cpuUs - before };
      }
      case 'snapshot':
        return { path: writeHeapSnapshot(String(request.path)) };
      case 'release':
        return { released: holds.release() };
      case 'exit':
        setTimeout(() => process.exit(0), 20);
        await close();
        return {};
      default:
        throw new Error(`unknown command ${request.cmd}`);
    }
  });
  announce({ ready: true, ...fields });
}

/** The argument the subject was started with, e.g. `--url ws://…`. */
export function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** Ends the process when the orchestrator goes away, so no subject outlives a failed run. */
export function exitWithParent(): void {
  process.on('disconnect', () => process.exit(0));
}
