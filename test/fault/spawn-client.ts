/**
 * A client script run in a child process (`node --import tsx <script>`), for the tests that kill one or send it
 * a signal: its stdout read line by line, killed after the test if still alive.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { onCleanup } from './harness';

export interface SpawnOptions {
  /** Give the child a stdin pipe (`child.stdin`) to write to. @default false (ignored) */
  stdin?: boolean;
}

/** Spawns a client script; returns the process, its exit, its stdout lines and ways to wait for them. */
export function spawnClient(script: string, env: Record<string, string>, options: SpawnOptions = {}) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: [options.stdin === true ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  let stderr = '';
  const waiters: Array<() => void> = [];
  const wakeAll = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    wakeAll();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  /** How the process ended: its exit code, or the signal that ended it. */
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      wakeAll();
    }),
  );
  /** Resolves once `count` stdout lines start with `prefix`; rejects if the process exits first. */
  const waitFor = async (prefix: string, count = 1): Promise<string[]> => {
    for (;;) {
      const matching = lines.filter((line) => line.startsWith(prefix));
      if (matching.length >= count) return matching;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the client process exited before "${prefix}": ${lines.join('\n')}\n${stderr}`);
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  /** The first stdout line starting with `prefix`, once there is one; rejects if the process exits first. */
  const line = async (prefix: string): Promise<string> => (await waitFor(prefix))[0] as string;
  return { child, exited, lines, waitFor, line };
}
