/**
 * The feature `key_waits` in a client (docs/protocol/fleets.md): the calls waiting for their concurrency key's turn
 * are named to the service, and named again when they go on, one frame per task; nothing for calls that never wait,
 * nor without the feature. And `hand_back`: the calls asked back that have not begun (waiting for their key, or
 * queued for a slot) are answered busy.
 */
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/tool/tool';
import type { ClientFrame } from '../../src/wire/protocol';
import { keyedTool } from '../support/keyed-tool';
import { nextTask, recording, recordsCalls, taskAfterSettled } from './call-runner-harness';

const welcome = { features: ['key_waits'], heartbeatIntervalMs: 15_000, sessionGraceMs: 60_000 };
const keyWaitsOf = (sent: ClientFrame[]) => sent.filter((frame) => frame.type === 'key_waits');

/** `tool_call`s of the keyed tool `work` for `tenant`, numbered `ns`: call ids `<tenant><n>`. */
function sendCalls(calls: ReturnType<typeof recording>['calls'], tenant: string, ns: number[]): void {
  for (const n of ns)
    calls.receive({
      type: 'tool_call',
      callId: `${tenant}${n}`,
      runId: 'r1',
      toolName: 'work',
      arguments: { tenant, n },
    });
}

describe('key_waits, in a call runner', () => {
  it('names the calls that wait for their key, those that go on, and the waiting ones again on resume', async () => {
    const { work, started, release } = keyedTool(1);
    const plain = recordsCalls('plain');
    const { calls, sent } = recording([work, plain.tool]);
    calls.welcomed(welcome);
    sendCalls(calls, 'a', [0, 1, 2]);
    sendCalls(calls, 'b', [0]);
    calls.receive({ type: 'tool_call', callId: 'p1', runId: 'r1', toolName: 'plain', arguments: {} });
    await nextTask();
    expect(started).toEqual(['a0', 'b0']);
    // One frame for the task; the calls that did not wait (a0, b0, the plain call) are never named.
    expect(keyWaitsOf(sent)).toEqual([{ type: 'key_waits', waiting: ['a1', 'a2'] }]);
    release('a0');
    await taskAfterSettled();
    expect(started).toEqual(['a0', 'b0', 'a1']);
    expect(keyWaitsOf(sent).at(-1)).toEqual({ type: 'key_waits', running: ['a1'] });
    // A resumed session counts every call as holding its slots again: the waiting one is named again.
    calls.welcomed({ ...welcome, resumed: true });
    await nextTask();
    expect(keyWaitsOf(sent).at(-1)).toEqual({ type: 'key_waits', waiting: ['a2'] });
    expect(keyWaitsOf(sent)).toHaveLength(3);
    // A call that ends while it waits is not named again: its result tells the service.
    calls.cancel('a2', 'user');
    release('a1');
    release('b0');
    await nextTask();
    expect(keyWaitsOf(sent)).toHaveLength(3);
    calls.dispose();
  });

  it('hands back the calls the service asks for (hand_back) that still wait for their key, and no other', async () => {
    const { work, started, release } = keyedTool(1);
    const { calls, sent } = recording([work]);
    calls.welcomed({ ...welcome, features: ['key_waits', 'hand_back'] });
    sendCalls(calls, 'a', [0, 1, 2]);
    await nextTask();
    expect(started).toEqual(['a0']);
    // a0 runs, a2 waits, c9 is not held here: only a2 goes back.
    calls.handle({ type: 'hand_back', callIds: ['a0', 'a2', 'c9'] });
    await nextTask();
    expect(sent.filter((frame) => frame.type === 'tool_result')).toEqual([
      {
        type: 'tool_result',
        callId: 'a2',
        status: 'error',
        output: 'Error running work: the client is busy; try again later',
        retryable: true,
      },
    ]);
    // Not finished here: sent again, it is a new call, and it waits for its key again.
    calls.receive({
      type: 'tool_call',
      callId: 'a2',
      runId: 'r1',
      toolName: 'work',
      arguments: { tenant: 'a', n: 2 },
    });
    release('a0');
    await nextTask();
    release('a1');
    await nextTask();
    expect(started).toEqual(['a0', 'a1', 'a2']);
    release('a2');
    calls.dispose();
  });

  it('keeps a waiting call its own approver approved through a promise: a person would be asked again', async () => {
    const asked: string[] = [];
    const { work, started, release } = keyedTool(1, (n) => n !== 2);
    const { calls, sent } = recording([work], {
      // a1 waits for a person (a promise); a policy answers the others at once.
      onApproval: (request) => {
        asked.push(request.callId);
        return request.callId === 'a1' ? Promise.resolve(true) : true;
      },
    });
    calls.welcomed({ ...welcome, features: ['key_waits', 'hand_back'] });
    sendCalls(calls, 'a', [0, 1, 2, 3]);
    await nextTask();
    expect(started).toEqual(['a0']);
    expect(asked).toEqual(['a0', 'a1', 'a3']);
    // a1 stays; a2 needed no approval and a3's policy answers anywhere alike: they go back.
    calls.handle({ type: 'hand_back', callIds: ['a1', 'a2', 'a3'] });
    await nextTask();
    const results = sent.filter((frame) => frame.type === 'tool_result');
    expect(results.map((frame) => frame.callId).sort()).toEqual(['a2', 'a3']);
    release('a0');
    await nextTask();
    expect(started).toEqual(['a0', 'a1']);
    expect(asked).toEqual(['a0', 'a1', 'a3']);
    release('a1');
    calls.dispose();
  });

  it('keeps such a call through a drain too: it runs here once its key is free', async () => {
    const asked: string[] = [];
    const { work, started, release } = keyedTool(1, () => true);
    const { calls, sent } = recording([work], {
      onApproval: (request) => {
        asked.push(request.callId);
        return request.callId === 'a1' ? Promise.resolve(true) : true;
      },
    });
    calls.welcomed({ ...welcome, features: ['key_waits', 'hand_back'] });
    sendCalls(calls, 'a', [0, 1, 2]);
    await nextTask();
    expect(started).toEqual(['a0']);
    // The worker stops (SIGTERM, a deploy): a2 goes back to the service; a1, which a person approved, stays.
    calls.stopAccepting();
    await nextTask();
    const results = sent.filter((frame) => frame.type === 'tool_result');
    expect(results.map((frame) => frame.callId)).toEqual(['a2']);
    release('a0');
    await nextTask();
    expect(started).toEqual(['a0', 'a1']);
    expect(asked).toEqual(['a0', 'a1', 'a2']);
    release('a1');
    calls.dispose();
  });

  it('resolves a drain whose last call, waiting for its context when the client stops, is handed back', async () => {
    // Two clients of one process share the tool's gate: `x`'s call holds the key, `y` drains.
    const { work, started, release } = keyedTool(1);
    let contextReady: (value: unknown) => void = () => {};
    const x = recording([work]);
    const y = recording([work], {
      contextFor: () =>
        new Promise((resolve) => {
          contextReady = resolve;
        }),
    });
    y.calls.welcomed({ ...welcome, features: ['key_waits', 'hand_back'] });
    sendCalls(x.calls, 'a', [0]);
    sendCalls(y.calls, 'a', [1]);
    await nextTask();
    y.calls.stopAccepting();
    let drained = false;
    void y.calls.idle().then(() => {
      drained = true;
    });
    // Its tool has not begun: the stop hands it back at once, and its context, come later, runs nothing (nor does
    // a `hand_back` the service sends for it meanwhile).
    contextReady({});
    await nextTask();
    expect(y.calls.queued).toBe(0);
    y.calls.handle({ type: 'hand_back', callIds: ['a1'] });
    await nextTask();
    expect(y.sent.filter((frame) => frame.type === 'tool_result')).toEqual([
      {
        type: 'tool_result',
        callId: 'a1',
        status: 'error',
        output: 'Error running work: the client is shutting down; try again later',
        retryable: true,
      },
    ]);
    expect(drained).toBe(true);
    expect(started).toEqual(['a0']);
    release('a0');
    x.calls.dispose();
    y.calls.dispose();
  });

  it('sends nothing new when the service did not take the feature', async () => {
    const { work, started } = keyedTool(1);
    const { calls, sent } = recording([work]);
    calls.welcomed({ ...welcome, features: [] });
    sendCalls(calls, 'a', [0, 1, 2]);
    await nextTask();
    expect(started).toEqual(['a0']);
    expect(keyWaitsOf(sent)).toEqual([]);
    calls.abortAll('test over');
    calls.dispose();
  });
});

describe('hand_back of calls queued for a slot, in a call runner', () => {
  it('answers busy each call asked for that waits for its first slot, runs it never, and keeps the others', async () => {
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const work = tool({
      name: 'work',
      description: 'Runs until the test lets it end.',
      execute: (_input, ctx) => {
        started.push(ctx.callId);
        return new Promise<string>((resolve) => gates.set(ctx.callId, () => resolve(ctx.callId)));
      },
    });
    const { calls, sent } = recording([work], { maxConcurrency: 1 });
    // No tool with `concurrency`, no `key_waits`: the queue alone.
    calls.welcomed({ ...welcome, features: ['hand_back'] });
    for (const callId of ['q0', 'q1', 'q2'])
      calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'work', arguments: {} });
    await nextTask();
    expect([started, calls.queued]).toEqual([['q0'], 2]);
    // q0 runs, q2 waits in line, z9 is not held here: only q2 goes back.
    calls.handle({ type: 'hand_back', callIds: ['q0', 'q2', 'z9'] });
    await nextTask();
    expect(sent.filter((frame) => frame.type === 'tool_result')).toEqual([
      {
        type: 'tool_result',
        callId: 'q2',
        status: 'error',
        output: 'Error running work: the client is busy; try again later',
        retryable: true,
      },
    ]);
    expect(calls.queued).toBe(1);
    gates.get('q0')?.();
    await nextTask();
    expect(started).toEqual(['q0', 'q1']);
    gates.get('q1')?.();
    await nextTask();
    expect(started).toEqual(['q0', 'q1']);
    expect(calls.queued).toBe(0);
    calls.dispose();
  });
});
