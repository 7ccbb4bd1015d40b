/**
 * A local `onApproval` whose promise never settles (a UI that never comes back, holding the answer function
 * forever) keeps nothing of a call that ended meanwhile (cancelled, or past its deadline).
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalDecision } from '../../src/call/types';
import { tool } from '../../src/tool/tool';
import { collected } from '../support/gc';
import { nextTask, recording, results } from './call-runner-harness';

describe('an abandoned local approver', () => {
  it('keeps nothing of a call cancelled while it waited', async () => {
    const held: Array<(decision: ApprovalDecision) => void> = [];
    const gated = tool({
      name: 'gated',
      description: 'Needs approval.',
      needsApproval: true,
      execute: () => 'ran',
    });
    const { calls, sent } = recording([gated], {
      onApproval: () => new Promise<ApprovalDecision>((resolve) => held.push(resolve)),
    });
    let ref: WeakRef<object> | undefined;
    (() => {
      const args = { big: new Array(10_000).fill('x') };
      ref = new WeakRef(args);
      calls.receive({ type: 'tool_call', callId: 'a1', runId: 'r1', toolName: 'gated', arguments: args });
    })();
    await nextTask();
    expect(held).toHaveLength(1);
    calls.cancel('a1', 'run_cancelled');
    await nextTask();
    expect(results(sent)).toEqual(['a1:cancelled']);
    calls.ack('a1');
    expect(await collected(ref!)).toBe(true);
    held[0]!(true); // a late approval: nothing runs
    await nextTask();
    expect(results(sent)).toEqual(['a1:cancelled']);
  });
});
