/**
 * What a call keeps once its result is written and waits for the service's ack: the result, its ids and tool
 * name, never its arguments or kept steps. A service that never acks would otherwise hold every call's arguments
 * (1,016 results of calls with 1 MiB arguments held 980 MiB) while the outbox bound counts result bytes only.
 */
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/index';
import { recordingLogger } from '../fault/gateway';
import { collectedAll } from '../support/gc';
import { recording, statuses } from './call-runner-harness';

/** 1,000 calls of `tiny`, each with ~10 KB arguments and ~10 KB kept steps: weak references to those. */
function receiveLargeCalls(calls: ReturnType<typeof recording>['calls']): Array<WeakRef<object>> {
  const kept: Array<WeakRef<object>> = [];
  for (let i = 0; i < 1_000; i++) {
    const args = { data: 'x'.repeat(10_000) + i };
    const steps = { fetched: { rows: 'y'.repeat(10_000) + i } };
    kept.push(new WeakRef(args), new WeakRef(steps));
    calls.receive({
      type: 'tool_call',
      callId: `c${i}`,
      runId: 'r1',
      toolName: 'tiny',
      arguments: args,
      steps,
    });
  }
  return kept;
}

const tiny = tool({ name: 'tiny', description: 'Answers at once.', execute: () => 'ok' });

describe('a result waiting for its ack', () => {
  it('keeps none of the large arguments and kept steps of 1,000 calls answered and never acked', async () => {
    const logger = recordingLogger();
    const { calls, sent } = recording([tiny], { logger });
    // In a function of its own: a suspended test keeps no variable of the loop's last turn.
    const kept = receiveLargeCalls(calls);
    expect(calls.unacked).toBe(1_000);
    expect(statuses(sent)).toHaveLength(1_000);
    // Collected until every one goes (or 10 full collections pass: one still held then is held for good).
    await collectedAll(kept);
    const held = kept.flatMap((ref, index) => (ref.deref() === undefined ? [] : [index]));
    expect(held).toEqual([]);
    // Still answered from the outbox, without running again; its arguments, not kept, are not compared.
    calls.receive({ type: 'tool_call', callId: 'c7', runId: 'r1', toolName: 'tiny', arguments: {} });
    expect(statuses(sent.slice(1_000))).toEqual(['c7:ok']);
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });
});
