/**
 * `handleSignals` in a real child process over the real stub: a call in flight when SIGTERM arrives completes,
 * its result is acknowledged, and then the process ends by the signal, as Node's default would; a second signal
 * while draining ends it at once; an application that listens for the signal itself keeps the decision.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import type { AgentDefinition } from '../../src/index';
import { API_KEY, stub } from '../fault/harness';
import { spawnClient } from '../fault/spawn-client';

const SIGNAL_CLIENT = fileURLToPath(new URL('./fixtures/signal-client.ts', import.meta.url));
const WORKER: AgentDefinition = { name: 'Worker', instructions: 'Work.', tools: ['slow'] };

/** The signal client against `url`, with a stdin pipe (a line on it lets its tool finish). */
const spawnSignalClient = (url: string, env: Record<string, string> = {}) =>
  spawnClient(SIGNAL_CLIENT, { TOOLWIRE_URL: url, TOOLWIRE_API_KEY: API_KEY, ...env }, { stdin: true });

async function started(env: Record<string, string> = {}) {
  const server = await stub({
    agents: [WORKER],
    model: scriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'worked' }]),
  });
  const worker = spawnSignalClient(server.url, env);
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
    expect(worker.lines).toContain('closed {"running":0,"queued":0,"waiting":0,"unacked":0}');
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
    expect(worker.lines).toContain('closed {"running":0,"queued":0,"waiting":0,"unacked":0}');
  });
});
