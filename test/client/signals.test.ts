/**
 * `handleSignals` in a real child process over the real stub: a call in flight when SIGTERM arrives completes,
 * its result is acknowledged, and then the process ends by the signal, as Node's default would; a second signal
 * while draining ends it at once; an application that listens for the signal itself keeps the decision.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import type { AgentDefinition } from '../../src/index';
import { API_KEY, onCleanup, stub } from '../fault/harness';

const SIGNAL_CLIENT = fileURLToPath(new URL('./fixtures/signal-client.ts', import.meta.url));
const WORKER: AgentDefinition = { name: 'Worker', instructions: 'Work.', tools: ['slow'] };

function spawnClient(url: string, env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SIGNAL_CLIENT], {
    env: { ...process.env, TOOLWIRE_URL: url, TOOLWIRE_API_KEY: API_KEY, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const lines: string[] = [];
  let stderr = '';
  let buffer = '';
  const waiters: Array<() => void> = [];
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
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters.splice(0)) wake();
    }),
  );
  /** Resolves with the first stdout line starting with `prefix`; rejects if the process exits first. */
  const line = async (prefix: string): Promise<string> => {
    for (;;) {
      const found = lines.find((item) => item.startsWith(prefix));
      if (found !== undefined) return found;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the client exited before "${prefix}": ${lines.join('\n')}\n${stderr}`);
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, exited, line, lines };
}

async function started(env: Record<string, string> = {}) {
  const server = await stub({
    agents: [WORKER],
    model: scriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'worked' }]),
  });
  const worker = spawnClient(server.url, env);
  await worker.line('ready');
  const runId = server.runs.start('Worker', 'go');
  const callId = (await worker.line('started ')).slice('started '.length);
  return { server, worker, runId, callId };
}

describe('Client({ handleSignals: true })', () => {
  it('on SIGTERM lets the call in flight finish, has its result acked, then ends by SIGTERM', async () => {
    const { server, worker, runId, callId } = await started();
    worker.child.kill('SIGTERM');
    expect(await worker.line('log info received SIGTERM')).toBe(
      'log info received SIGTERM: draining (calls in flight finish, at most 30000 ms), then exiting',
    );
    worker.child.stdin?.write('go\n');
    expect(await worker.exited).toEqual({ code: null, signal: 'SIGTERM' });
    // Closed only once the result was acknowledged: nothing running, queued or unacked.
    expect(worker.lines).toContain('closed {"running":0,"queued":0,"unacked":0}');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map(({ callId: id, status, output }) => ({ id, status, output }))).toEqual([
      { id: callId, status: 'ok', output: 'done' },
    ]);
    expect(transcript.status).toBe('completed');
  });

  it('ends at once on a second signal while draining', async () => {
    const { worker } = await started();
    worker.child.kill('SIGTERM');
    await worker.line('log info received SIGTERM');
    worker.child.kill('SIGINT');
    expect(await worker.exited).toEqual({ code: null, signal: 'SIGINT' });
    expect(worker.lines).toContain('log warn received SIGINT again while draining: exiting now');
    expect(worker.lines.filter((line) => line.startsWith('closed '))).toEqual([]);
  });

  it('leaves the exit to an application that listens for the signal too', async () => {
    const { worker } = await started({ APP_LISTENS: '1' });
    worker.child.kill('SIGTERM');
    await worker.line('app SIGTERM');
    await worker.line('log info received SIGTERM');
    worker.child.stdin?.write('go\n');
    worker.child.stdin?.end();
    // Drained and closed; nothing keeps the process alive, and nothing killed it.
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(worker.lines).toContain('closed {"running":0,"queued":0,"unacked":0}');
  });
});
