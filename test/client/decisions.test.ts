/** `Decisions` (src/client/decisions.ts) on its own: how long a decision waits for the service's answer. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Decisions } from '../../src/client/decisions';
import { ApprovalError } from '../../src/index';
import { DECISION_ANSWER_TIMEOUT_MS } from '../../src/limits';
import type { ClientFrame } from '../../src/wire/protocol';

afterEach(() => {
  vi.useRealTimers();
});

function connected() {
  const sent: ClientFrame[] = [];
  const decisions = new Decisions(
    (frame) => {
      sent.push(frame);
      return true;
    },
    () => 1_048_576,
  );
  decisions.welcomed(['decisions']);
  return { decisions, sent };
}

describe('a decision the service never answers', () => {
  it('rejects with ApprovalError timeout once DECISION_ANSWER_TIMEOUT_MS have passed, the socket still open', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { decisions, sent } = connected();
    const decided = decisions.decide('c1', { approved: true });
    const outcome = decided.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    expect(sent).toEqual([{ type: 'approval', callId: 'c1', approved: true, requestId: 'd1' }]);
    vi.advanceTimersByTime(DECISION_ANSWER_TIMEOUT_MS - 1);
    await Promise.resolve();
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    vi.advanceTimersByTime(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(ApprovalError);
    expect(error).toMatchObject({ code: 'timeout' });
    expect((error as Error).message).toBe(
      'decide(): the service did not answer within 30000 ms, so whether the decision was applied is unknown',
    );
    // A late answer changes nothing.
    expect(
      decisions.handle({ type: 'approval_applied', requestId: 'd1', callId: 'c1', approved: true }),
    ).toBe(true);
  });

  it('keeps no timer once the service answered or the socket dropped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { decisions } = connected();
    const applied = decisions.decide('c1', { approved: true });
    const dropped = decisions.decide('c2', { approved: false });
    expect(vi.getTimerCount()).toBe(2);
    decisions.handle({ type: 'approval_applied', requestId: 'd1', callId: 'c1', approved: true });
    await expect(applied).resolves.toBeUndefined();
    decisions.disconnected();
    await expect(dropped).rejects.toMatchObject({ name: 'ConnectionError', code: 'disconnected' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
