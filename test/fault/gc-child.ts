/**
 * A client script run in a process of its own with `--expose-gc` (so that its memory is measured alone), spoken
 * to over line-based stdio: the script prints lines (`ready`, `held 1234`) and reads commands, one per line.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { onCleanup, until } from './harness';

/** The running script: the lines it printed so far, and ways to wait for one and to send it one. */
export interface GcChild {
  /** Every whole stdout line so far (a test may remove the ones it consumed). */
  readonly lines: string[];
  /** Sends `line` (a newline is added). */
  write(line: string): void;
  /**
   * The first line that is `wanted` (or passes it), once printed; rejects when the script exits without it
   * (with its stderr) or after `timeoutMs` (default 120,000).
   */
  line(wanted: string | ((line: string) => boolean), timeoutMs?: number): Promise<string>;
}

/** Starts `script` (a .ts file, run with tsx) with `env` over this process's; killed when the test ends. */
export function spawnGcChild(script: string, env: Record<string, string>): GcChild {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  let stderr = '';
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    lines,
    write: (line) => child.stdin.write(`${line}\n`),
    async line(wanted, timeoutMs = 120_000) {
      const test = typeof wanted === 'string' ? (line: string) => line === wanted : wanted;
      await until(
        () => {
          if (child.exitCode !== null && !lines.some(test)) throw new Error(`the client exited: ${stderr}`);
          return lines.some(test);
        },
        true,
        timeoutMs,
      );
      return lines.find(test) as string;
    },
  };
}
