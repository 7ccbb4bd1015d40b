/**
 * A client process killed with SIGKILL in the middle of its calls. The stub keeps its session for
 * `sessionGraceMs`, then re-dispatches the calls, with the same call ids, to a surviving client: delivery across
 * processes is at least once. The tool makes its side effect idempotent with `ctx.idempotencyKey()`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { chargeTool } from './fixtures/charge-tool';
import { API_KEY, client, nextEvent, onCleanup, stub } from './harness';
import { spawnClient } from './spawn-client';

const DOOMED = fileURLToPath(new URL('./fixtures/doomed-client.ts', import.meta.url));
const spawnDoomed = (env: Record<string, string>) => spawnClient(DOOMED, env);

describe('a client process killed mid-call', () => {
  it('has its calls re-dispatched to a surviving client after the grace period; the idempotency key dedupes the side effect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-kill-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const ledgerPath = join(dir, 'ledger');
    const attemptsPath = join(dir, 'attempts');
    const server = await stub({
      sessionGraceMs: 300,
      model: scriptedModel([
        { toolCalls: ['A', 'B', 'C'].map((orderId) => ({ name: 'charge', arguments: { orderId } })) },
        ({ messages }) => ({
          text: messages
            .filter((m) => m.role === 'tool')
            .map((m) => m.content)
            .join(' | '),
        }),
      ]),
    });
    const doomed = spawnDoomed({
      TOOLWIRE_URL: server.url,
      TOOLWIRE_API_KEY: API_KEY,
      LEDGER: ledgerPath,
      ATTEMPTS: attemptsPath,
    });
    const [ready] = await doomed.waitFor('ready ');
    const doomedSession = ready!.slice('ready '.length);

    // The only client so far: it gets all three calls, charges each, and hangs.
    const runId = server.runs.start(
      { name: 'billing', instructions: '', tools: ['charge'] },
      'charge A, B, C',
    );
    const charged = await doomed.waitFor('charged ', 3);
    const callIds = charged.map((line) => line.slice('charged '.length)).sort();

    const survivor = client(server.url, { tools: [chargeTool({ ledgerPath, attemptsPath })] });
    await survivor.connect();
    const expired = nextEvent<{ sessionId: string }>(server.events, 'session_expired');
    const killedAt = Date.now();
    doomed.child.kill('SIGKILL');
    expect(await doomed.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await expired).toEqual({ sessionId: doomedSession });
    const transcript = await server.runs.waitFor(runId);
    const redispatchedAfterMs = Date.now() - killedAt;

    expect(transcript.status).toBe('completed');
    expect(transcript.toolCalls.map((call) => call.callId).sort()).toEqual(callIds);
    for (const call of transcript.toolCalls) {
      const orderId = (call.arguments as { orderId: string }).orderId;
      expect(call).toMatchObject({
        status: 'ok',
        output: `already charged ${orderId} (toolwire:${call.callId}:charge)`,
        dispatchedTo: [doomedSession, survivor.sessionId],
        answeredBy: survivor.sessionId,
      });
    }
    // At least once: every call ran in both processes…
    const attempts = readFileSync(attemptsPath, 'utf8').trim().split('\n').sort();
    expect(attempts).toEqual([...callIds, ...callIds].sort());
    // …and the idempotency key kept the side effect to exactly one per call.
    const ledger = readFileSync(ledgerPath, 'utf8').trim().split('\n').sort();
    expect(ledger).toEqual(callIds.map((callId) => `toolwire:${callId}:charge`));
    console.info(
      `[kill] 3 calls in flight at SIGKILL; sessionGraceMs 300; re-dispatched and answered ${redispatchedAfterMs} ms after the kill; executions 6, charges 3`,
    );
  });
});
