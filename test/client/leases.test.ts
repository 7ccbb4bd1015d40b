/**
 * The lease as the call runner keeps it (docs/protocol/lease.md): while the socket is down a started call stops by
 * the client's own clock once the session's grace period has passed — also a call that starts while it is down.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Execution } from '../../src/client/execution';
import { Leases } from '../../src/client/leases';

function setup() {
  const armed: Array<[string, number | undefined, boolean]> = [];
  const deadlines = {
    arm: (execution: Execution, deadlineMs: number | undefined, force = false) =>
      armed.push([execution.frame.callId, deadlineMs, force]),
    // The lease holds the call: no deadline of its own (recorded as one cleared).
    suspend: (execution: Execution) => armed.push([execution.frame.callId, undefined, false]),
  };
  const updates = { leased: true, sessionGraceMs: 10_000, started: () => {} };
  const leases = new Leases(updates, () => deadlines);
  const call = (callId: string) =>
    new Execution(
      { type: 'tool_call', callId, runId: 'r1', toolName: 't', arguments: {} },
      { finished() {} },
    );
  return { armed, leases, call };
}

describe('Leases', () => {
  it('gives a call that starts while the socket is down what is left of the grace period, by its own clock', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const { armed, leases, call } = setup();
      leases.disconnected([]);
      vi.advanceTimersByTime(4_000);
      const late = call('late');
      late.moveTo('running');
      leases.started(late);
      expect(armed).toEqual([
        ['late', undefined, false],
        ['late', 6_000, true],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the grace deadline of calls from a session that was not resumed (a new session does not lease them)', () => {
    // The client's clock stands still, so a loaded machine cannot take milliseconds off the grace period.
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { armed, leases, call } = setup();
    const running = call('c1');
    running.moveTo('running');
    leases.started(running);
    leases.disconnected([running]);
    leases.reconnected([running], false);
    expect(armed).toEqual([
      ['c1', undefined, false],
      ['c1', 10_000, true],
    ]);
    leases.reconnected([running], true);
    expect(armed).toEqual([
      ['c1', undefined, false],
      ['c1', 10_000, true],
      ['c1', undefined, false],
    ]);
  });

  it('leases a call started while connected (no deadline of its own)', () => {
    const { armed, leases, call } = setup();
    const running = call('c1');
    running.moveTo('running');
    leases.started(running);
    expect(armed).toEqual([['c1', undefined, false]]);
  });
});
