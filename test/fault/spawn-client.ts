/**
 * A client script run in a child process (`node --import tsx <script>`), for the tests that kill one with SIGKILL:
 * its stdout read line by line, killed after the test if still alive.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { onCleanup } from './harness';

/** Spawns a client script; returns the process, its exit, and a way to wait for its stdout lines. */
export function spawnClient(script: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  let stderr = '';
  const waiters: Array<() => void> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<string | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  /** Resolves once `count` stdout lines start with `prefix`; rejects if the process exits first. */
  const waitFor = async (prefix: string, count = 1): Promise<string[]> => {
    for (;;) {
      const matching = lines.filter((line) => line.startsWith(prefix));
      if (matching.length >= count) return matching;
      if (child.exitCode !== null) throw new Error(`the client process exited early: ${stderr}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, exited, waitFor };
}
