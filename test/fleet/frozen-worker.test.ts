/**
 * A worker frozen past the service's grace period (`SIGSTOP`, a paused VM, an event loop blocked by a synchronous
 * tool): its call goes to another worker, and the frozen one cannot stop its copy by its own clock, which starts
 * when it notices the drop, once thawed. A call whose tool finished while it was frozen has its result sent then:
 * the first result the service gets for a call still in progress is the call's, and the other worker's copy is
 * cancelled (docs/guide/long-running.md, docs/protocol/tool-calls.md#answers-to-a-tool_result), so the run goes on
 * with a finished result rather than wait for a second one. (A call still running when it comes back is stopped
 * at the first frame naming it: test/stub/not-dispatched.test.ts.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { stub } from '../fault/harness';
import { AGENT, keyFile, worker, workTurns } from './helpers';

describe('a worker frozen past the grace period', () => {
  it("has the result it finished while frozen taken; the other worker's copy is cancelled", async () => {
    const server = await stub({
      apiKeys: ['fleet-key-1'],
      agents: [AGENT],
      model: scriptedModel(workTurns(1)),
      heartbeatIntervalMs: 100,
      sessionGraceMs: 300,
    });
    const key = keyFile('fleet-key-1');
    // Its tool freezes the process (no frame read or written) until this file exists, then returns at once.
    const thaw = join(key.path, '..', 'thaw');
    const frozen = await worker(server, key.path, { WORKER: 'a', BLOCK_UNTIL: thaw });
    // The other worker would take 20 s: the frozen one's result comes first.
    const other = await worker(server, key.path, { WORKER: 'b', DELAY_MS: '20000', LOG_ABORTS: '1' });
    const expired = new Promise((resolve) => server.events.once('session_expired', resolve));
    // Both idle: the call goes to the older session, the frozen worker's.
    const runId = server.runs.start('Fleet', 'go', { apiKey: 'fleet-key-1' });
    const [ran] = await frozen.waitFor('ran ');
    // Silent, its socket is closed and its session expires: the call goes to the other worker.
    await expired;
    expect(await other.waitFor('ran ')).toEqual([ran]);
    writeFileSync(thaw, '');
    const transcript = await server.runs.waitFor(runId);
    const [call] = transcript.toolCalls;
    expect(call).toMatchObject({ status: 'ok', output: 'a:0' });
    // Answered by the thawed worker's new session: neither the expired session nor the other worker's.
    expect(call?.dispatchedTo).toHaveLength(2);
    expect(call?.dispatchedTo).not.toContain(call?.answeredBy);
    // The other worker's copy is told to stop (`cancel { reason: 'redispatched' }`).
    expect(await other.waitFor('aborted ')).toEqual([`aborted ${call?.callId}`]);
  }, 30_000);
});
