/**
 * The lease (docs/protocol/lease.md): a call whose client keeps it alive is not cut at the stub's per-call deadline.
 * Deadlines here are short and the "long" calls several times longer; what is asserted is how each call ended.
 */
import { describe, expect, it, vi } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { afterTest } from '../support/after-test';
import { agent, dropAndWait, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const script = () => scriptedModel([{ toolCalls: [{ name: 'export' }] }, { text: 'done' }]);

async function leasedCall(options: Parameters<typeof stub>[0], features: string[] | undefined = ['lease']) {
  const server = await stub({ model: script(), ...options });
  const client = track(
    await TestClient.connect(server.url, { tools: [toolDef('export')], ...(features ? { features } : {}) }),
  );
  client.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['export']), input: 'go' });
  const { runId } = await client.next('run_started');
  const call = await client.next('tool_call');
  return { server, client, runId, call };
}

/** Renews the lease `times` times, `everyMs` apart (what the SDK does on its own). */
async function renew(client: TestClient, callId: string, times: number, everyMs: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    client.send({ type: 'lease', callIds: [callId] });
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

describe('lease', () => {
  it('announces leaseMs and maxCallDurationMs in welcome only with the feature', async () => {
    const server = await stub({ leaseMs: 2_000, maxCallDurationMs: 60_000 });
    const leasing = track(await TestClient.connect(server.url, { features: ['lease'] }));
    expect(leasing.welcome).toMatchObject({ features: ['lease'], leaseMs: 2_000, maxCallDurationMs: 60_000 });
    const plain = track(await TestClient.connect(server.url, { features: [] }));
    expect(plain.welcome && 'leaseMs' in plain.welcome).toBe(false);
  });

  it('keeps a renewed call past its deadline, and records its result', async () => {
    // Deadline 50 ms, lease 1 s renewed every 100 ms for 600 ms: twelve deadlines long.
    const { server, client, runId, call } = await leasedCall({ callDeadlineMs: 50, leaseMs: 1_000 });
    await renew(client, call.callId, 6, 100);
    client.result(call.callId, 'exported');
    const result = await client.next('run_result');
    expect(result.toolCalls).toMatchObject([{ callId: call.callId, status: 'ok', output: 'exported' }]);
    expect(client.all('cancel')).toEqual([]);
    expect(server.runs.get(runId)?.status).toBe('completed');
  });

  it('cuts a call at its deadline when the client did not negotiate the lease', async () => {
    const { client, call } = await leasedCall({ callDeadlineMs: 50, leaseMs: 1_000 }, undefined);
    client.send({ type: 'lease', callIds: [call.callId] });
    const cancel = await client.next('cancel');
    expect(cancel).toEqual({ type: 'cancel', callId: call.callId, reason: 'deadline' });
    const result = await client.next('run_result');
    expect(result.toolCalls).toMatchObject([
      { status: 'timeout', output: 'Error running export: timed out after 50ms' },
    ]);
  });

  it('cuts a leased call once its lease runs out without renewal', async () => {
    const { client, call } = await leasedCall({ callDeadlineMs: 50, leaseMs: 1_000 });
    // No renewal: the lease from the dispatch holds for 1 s, then the deadline check cuts the call.
    const cancel = await client.next('cancel');
    expect(cancel).toEqual({ type: 'cancel', callId: call.callId, reason: 'deadline' });
    expect((await client.next('run_result')).toolCalls).toMatchObject([{ status: 'timeout' }]);
  });

  it('counts progress as a renewal', async () => {
    const { client, call } = await leasedCall({ callDeadlineMs: 50, leaseMs: 1_000 }, ['lease', 'progress']);
    for (let seq = 1; seq <= 6; seq++) {
      client.send({ type: 'tool_progress', callId: call.callId, seq, progress: seq });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    client.result(call.callId, 'exported');
    expect((await client.next('run_result')).toolCalls).toMatchObject([{ status: 'ok' }]);
  });

  it('cuts a leased call past maxCallDurationMs whatever its lease, and tells the model that limit', async () => {
    const { client, call } = await leasedCall({ callDeadlineMs: 50, leaseMs: 5_000, maxCallDurationMs: 300 });
    const renewing = renew(client, call.callId, 10, 100);
    const cancel = await client.next('cancel');
    expect(cancel.reason).toBe('deadline');
    await renewing;
    expect((await client.next('run_result')).toolCalls).toMatchObject([
      { status: 'timeout', output: 'Error running export: timed out after 300ms' },
    ]);
  });

  it('keeps a leased call while its session is detached, and the resumed session finishes it', async () => {
    const { server, client, call } = await leasedCall({
      callDeadlineMs: 50,
      leaseMs: 1_000,
      sessionGraceMs: 5_000,
    });
    await dropAndWait(server, client);
    // Detached well past the deadline and the lease: a drop is not a crash.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await client.reconnect();
    const redelivered = await client.next('tool_call', (frame) => frame.callId === call.callId);
    expect(redelivered.callId).toBe(call.callId);
    client.result(call.callId, 'exported');
    expect((await client.next('run_result')).toolCalls).toMatchObject([{ status: 'ok', output: 'exported' }]);
  });

  it('ends at once, timeout, a call whose deadline passed when its session expires', async () => {
    const server = await stub({ model: script(), callDeadlineMs: 50, leaseMs: 5_000, sessionGraceMs: 300 });
    const first = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['lease'] }),
    );
    const runId = server.runs.start(agent('a', ['export']), 'go');
    await first.next('tool_call');
    const second = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['lease'] }),
    );
    await first.drop();
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls).toMatchObject([
      {
        status: 'timeout',
        output: 'Error running export: timed out after 50ms: its worker was lost while it ran',
      },
    ]);
    // Ended at the expiry (300 ms), not when the dead session's lease (5 s) would have run out.
    expect(transcript.toolCalls[0]?.durationMs).toBeLessThan(2_000);
    expect(second.all('tool_call')).toEqual([]);
  });

  it('re-dispatches a leased call whose client vanished once the grace period ends, within its deadline', async () => {
    const server = await stub({
      model: script(),
      callDeadlineMs: 3_000,
      leaseMs: 1_000,
      sessionGraceMs: 300,
    });
    const first = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['lease'] }),
    );
    const owner = track(await TestClient.connect(server.url));
    owner.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['export']), input: 'go' });
    const call = await first.next('tool_call');
    const expired = once(server, 'session_expired');
    await first.drop();
    const second = track(
      await TestClient.connect(server.url, { tools: [toolDef('export')], features: ['lease'] }),
    );
    await expired;
    const again = await second.next('tool_call');
    expect(again.callId).toBe(call.callId);
    second.result(call.callId, 'exported by the second');
    expect((await owner.next('run_result')).toolCalls).toMatchObject([
      { status: 'ok', output: 'exported by the second' },
    ]);
  });

  it('cuts a call queued behind maxConcurrency at its deadline, timeout, while the running call is leased', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'work' }, { name: 'work' }] }, { text: 'done' }]),
      callDeadlineMs: 200,
      leaseMs: 5_000,
    });
    const work = tool({
      name: 'work',
      description: 'Works for 600 ms.',
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('worked'), 600)),
    });
    const client = new Client({
      url: server.url,
      apiKey: 'k',
      tools: [work],
      maxConcurrency: 1,
      maxQueue: 1,
    });
    afterTest(() => client.close({ drain: false }));
    await client.connect();
    const transcript = await server.runs.waitFor(server.runs.start(agent('a', ['work']), 'go'));
    // The running call outlives its deadline on its lease; the queued one is not leased yet: the deadline cuts it.
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([
      ['ok', 'worked'],
      ['timeout', 'Error running work: timed out after 200ms'],
    ]);
  });
});

describe('lease: a call waiting in the client behind a call whose result came while its tool runs on', () => {
  it('ends timeout, not cancelled, though the service leased it from dispatch', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, { text: 'done' }]),
      callDeadlineMs: 200,
      leaseMs: 5_000,
    });
    let returned!: () => void;
    const lingering = new Promise<void>((resolve) => {
      returned = resolve;
    });
    let calls = 0;
    const work = tool({
      name: 'work',
      description: 'The first call ignores its cancel until the test lets it return.',
      execute: async () => {
        calls += 1;
        if (calls === 1) await lingering;
        return 'worked';
      },
    });
    const client = new Client({ url: server.url, apiKey: 'k', tools: [work], maxConcurrency: 1 });
    afterTest(() => client.close({ drain: false }));
    await client.connect();
    const running = new Promise((resolve) => client.once('tool_call', resolve));
    const first = server.runs.start(agent('a', ['work']), 'go');
    await running;
    expect(server.runs.cancel(first)).toBe(true);
    // The service heard `cancelled` (its slot looks free) while the tool still holds the client's one slot.
    const second = server.runs.start(agent('a', ['work']), 'again');
    const transcript = await server.runs.waitFor(second);
    returned();
    // The second call was sent into what the service took for a free slot (leased from dispatch), and waited in
    // the client without ever starting: its deadline ended it as a timeout.
    expect(calls).toBe(1);
    // The model reads the deadline the call had, as the service counts it: not the time left when it was sent.
    expect(transcript.toolCalls.map((call) => [call.status, call.output])).toEqual([
      ['timeout', 'Error running work: timed out after 200ms'],
    ]);
  });

  it('ends at its deadline, not a second later, and the model reads that deadline', async () => {
    // Found with real workers: maxConcurrency 1, a tool with `timeoutMs: 500` deaf to its signal that runs 3 s, four
    // calls in one turn, callDeadlineMs 8000 and leaseMs 3000. Each timed-out tool keeps the one slot 2.5 s after its
    // result, while the service counts the call queued behind it as begun (leased). The last call, sent at +3.5 s
    // with 4,500 ms left, ended at +9 s, "timed out after 4500ms".
    const server = await stub({
      model: scriptedModel([
        { toolCalls: Array.from({ length: 4 }, (_, n) => ({ name: 'work', arguments: { n } })) },
        { text: 'done' },
      ]),
      callDeadlineMs: 8_000,
      leaseMs: 3_000,
    });
    const work = tool({
      name: 'work',
      description: 'Runs 3 s whatever its signal says.',
      timeoutMs: 500,
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('worked'), 3_000)),
    });
    const client = new Client({ url: server.url, apiKey: 'k', tools: [work], maxConcurrency: 1 });
    afterTest(() => client.close({ drain: false }));
    // The clock is fake from before the client connects (the socket is not): every figure below is exact.
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    });
    try {
      // Each step of the clock, then the frames it caused, to and fro over the socket (a few turns of the loop each).
      const settle = async () => {
        for (let turn = 0; turn < 20; turn++) {
          await vi.advanceTimersByTimeAsync(0);
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      let connected = false;
      void client.connect().then(() => {
        connected = true;
      });
      for (let step = 0; !connected && step < 100; step++) await settle();
      const startedAt = Date.now();
      const runId = server.runs.start(agent('a', ['work']), 'go');
      await settle();
      while (server.runs.get(runId)?.status === 'running' && Date.now() - startedAt < 20_000) {
        await vi.advanceTimersByTimeAsync(100);
        await settle();
      }
      const transcript = server.runs.get(runId);
      expect(transcript?.toolCalls.map((call) => [call.status, call.output, call.durationMs])).toEqual([
        ['timeout', 'Error running work: timed out after 500ms', 500],
        ['timeout', 'Error running work: timed out after 500ms', 3_500],
        ['timeout', 'Error running work: timed out after 500ms', 6_500],
        // Queued behind the third call's tool, which held the slot until +9 s: it never began, and ends at its
        // deadline, as the service counts it, whoever ends it.
        ['timeout', 'Error running work: timed out after 8000ms', 8_000],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
