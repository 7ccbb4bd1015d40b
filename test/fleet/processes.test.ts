/**
 * Fleet behaviour across real worker processes against one stub: a rolling deploy pins each run to one build,
 * and rotating the API key under load loses and repeats no call.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { stub } from '../fault/harness';
import { AGENT, keyFile, worker, workTurns } from './helpers';

/** The worker that answered each call of a run (its results read `<worker>:<n>`). */
async function answeredBy(server: Awaited<ReturnType<typeof stub>>, runId: string): Promise<string[]> {
  const transcript = await server.runs.waitFor(runId);
  expect(transcript.status).toBe('completed');
  return transcript.toolCalls.map((call) => {
    expect(call.status).toBe('ok');
    return (call.output ?? '').split(':')[0] as string;
  });
}

describe('two worker processes of two builds', () => {
  it('sends every call of a run to the current build, and keeps an older run on its own build', async () => {
    const server = await stub({
      apiKeys: ['fleet-key-1'],
      agents: [AGENT],
      model: scriptedModel(workTurns(6)),
    });
    const key = keyFile('fleet-key-1');
    await worker(server, key.path, { WORKER: 'old', BUILD_ID: 'b1', DELAY_MS: '20' });
    server.setCurrentBuild('b1');
    const before = server.runs.start('Fleet', 'go', { apiKey: 'fleet-key-1' });
    await worker(server, key.path, { WORKER: 'new', BUILD_ID: 'b2', DELAY_MS: '20' });
    server.setCurrentBuild('b2');
    const after = server.runs.start('Fleet', 'go', { apiKey: 'fleet-key-1' });
    expect(new Set(await answeredBy(server, before))).toEqual(new Set(['old']));
    expect(new Set(await answeredBy(server, after))).toEqual(new Set(['new']));
    expect(server.sessions().map((session) => session.buildId)).toEqual(['b1', 'b2']);
  }, 30_000);

  it('pins a run no client started to the first build that takes one of its calls', async () => {
    const server = await stub({
      apiKeys: ['fleet-key-1'],
      agents: [AGENT],
      model: scriptedModel(workTurns(8)),
    });
    const key = keyFile('fleet-key-1');
    await worker(server, key.path, { WORKER: 'a', BUILD_ID: 'b1', DELAY_MS: '10' });
    await worker(server, key.path, { WORKER: 'b', BUILD_ID: 'b2', DELAY_MS: '10' });
    const runId = server.runs.start('Fleet', 'go', { apiKey: 'fleet-key-1' });
    const answered = new Set(await answeredBy(server, runId));
    expect(answered.size).toBe(1);
  }, 30_000);
});

describe('rotating the API key under load', () => {
  it('loses and repeats no call: both workers resume their sessions with the new key', async () => {
    const server = await stub({
      apiKeys: ['fleet-key-1'],
      agents: [AGENT],
      model: scriptedModel(workTurns(40, 4)),
    });
    const key = keyFile('fleet-key-1');
    const workers = [
      await worker(server, key.path, { WORKER: 'a', DELAY_MS: '30', MAX_CONCURRENCY: '4' }),
      await worker(server, key.path, { WORKER: 'b', DELAY_MS: '30', MAX_CONCURRENCY: '4' }),
    ];
    const runs = [0, 1, 2].map(() => server.runs.start('Fleet', 'go', { apiKey: 'fleet-key-1' }));
    // Under load: some calls run, most wait. The new key is written, then the old one revoked.
    await workers[0]?.waitFor('ran ');
    key.write('fleet-key-2');
    server.setApiKeys([{ key: 'fleet-key-2', tenant: 'fleet-key-1' }]);
    const outputs = await Promise.all(runs.map((runId) => answeredBy(server, runId)));
    expect(outputs.flat()).toHaveLength(120);
    for (const spawned of workers) await spawned.waitFor('connected true');
    // Each call ran once, in one process.
    const ran = workers.flatMap((spawned) => spawned.lines.filter((line) => line.startsWith('ran ')));
    expect(ran).toHaveLength(120);
    expect(new Set(ran).size).toBe(120);
    expect(server.sessions()).toHaveLength(2);
  }, 60_000);
});
