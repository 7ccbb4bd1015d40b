/**
 * The lease keeps a call alive once its tool runs, not before: a call still waiting for its `context` (an async
 * `context` function that never settles) or in line for a slot keeps the service's deadline, even across a
 * reconnect, so it cannot hold its slot forever while the lease is renewed for it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEADLINE_GRACE_MS } from '../../src/client/deadlines';
import { nextTask, recording, results, waitsForAbort } from './call-runner-harness';

afterEach(() => {
  vi.useRealTimers();
});

const welcome = { features: ['lease'], leaseMs: 3_000, heartbeatIntervalMs: 15_000, sessionGraceMs: 60_000 };

describe('the lease and calls whose tool has not begun', () => {
  it('ends a call whose context never comes at its deadline, and leases only calls whose tool runs', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    });
    const { calls, sent } = recording([waitsForAbort('stuck')], {
      contextFor: (frame) => (frame.callId === 'c1' ? new Promise(() => {}) : undefined),
    });
    calls.welcomed(welcome);
    calls.receive({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'stuck',
      arguments: {},
      deadlineMs: 5_000,
    });
    calls.receive({
      type: 'tool_call',
      callId: 'c2',
      runId: 'r1',
      toolName: 'stuck',
      arguments: {},
      deadlineMs: 5_000,
    });
    await nextTask();
    calls.reconnected(); // a new socket: the lease goes on for the calls whose tool runs, only
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.filter((frame) => frame.type === 'lease')).toEqual([{ type: 'lease', callIds: ['c2'] }]);
    // The deadline, and the client's grace after it (the service's own cancel would come first).
    await vi.advanceTimersByTimeAsync(4_000 + DEADLINE_GRACE_MS);
    expect(results(sent)).toEqual(['c1:cancelled']); // as any call its deadline ends here
    expect(calls.running).toBe(1);
  });

  it('ends a call cancelled while its context is awaited, at once and without running it', async () => {
    const ran: string[] = [];
    const { calls, sent } = recording([waitsForAbort('stuck', (callId) => ran.push(callId))], {
      contextFor: () => new Promise(() => {}),
    });
    calls.receive({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'stuck', arguments: {} });
    await nextTask();
    expect(calls.running).toBe(1);
    calls.cancel('c1', 'run_cancelled');
    await nextTask();
    expect(results(sent)).toEqual(['c1:cancelled']);
    expect(calls.running).toBe(0);
    expect(ran).toEqual([]);
  });
});
