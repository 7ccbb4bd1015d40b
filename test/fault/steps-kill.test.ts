/**
 * Durable steps across a SIGKILL: worker process 1 completes step A, then dies inside step B. The stub kept A's
 * result with the call and re-dispatches the call, after the grace period, to worker 2 with it: worker 2 skips
 * A (its body ran once overall) and runs B (its body ran twice: a crash inside a step means at least once).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { stepTool } from './fixtures/step-tool';
import { API_KEY, client, onCleanup, stub } from './harness';
import { spawnClient } from './spawn-client';

const STEPPING = fileURLToPath(new URL('./fixtures/stepping-client.ts', import.meta.url));

describe('durable steps across a killed worker', () => {
  it('re-dispatches the call with its completed step: the second worker skips A and runs B', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-steps-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const logPath = join(dir, 'steps');
    const server = await stub({
      sessionGraceMs: 300,
      model: scriptedModel([
        { toolCalls: [{ name: 'provision' }] },
        ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
      ]),
    });
    const worker1 = spawnClient(STEPPING, {
      TOOLWIRE_URL: server.url,
      TOOLWIRE_API_KEY: API_KEY,
      STEP_LOG: logPath,
    });
    const [ready] = await worker1.waitFor('ready ');
    const session1 = ready!.slice('ready '.length);
    const runId = server.runs.start({ name: 'onboarding', instructions: '', tools: ['provision'] }, 'go');
    const [inB] = await worker1.waitFor('in-b ');
    const callId = inB!.slice('in-b '.length);
    // Step A's result is with the call on the service before the worker dies.
    await vi.waitFor(() =>
      expect(server.runs.get(runId)?.toolCalls[0]?.steps).toEqual({
        'reserve-account': { accountId: 'acct_1' },
      }),
    );

    const worker2 = client(server.url, { tools: [stepTool({ logPath })] });
    await worker2.connect();
    worker1.child.kill('SIGKILL');
    expect(await worker1.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const transcript = await server.runs.waitFor(runId);

    expect(transcript.toolCalls[0]).toMatchObject({
      callId,
      status: 'ok',
      output: 'acct_1 sent',
      dispatchedTo: [session1, worker2.sessionId],
      answeredBy: worker2.sessionId,
      steps: { 'reserve-account': { accountId: 'acct_1' }, 'send-welcome': 'sent' },
    });
    const ran = readFileSync(logPath, 'utf8').trim().split('\n');
    const key = `toolwire:${callId}:welcome`;
    // A's body ran once overall; B's twice (the first run died inside it), with the same idempotency key.
    expect(ran).toEqual([`A ${callId}`, `B ${callId} ${key}`, `B ${callId} ${key}`]);
  });
});
