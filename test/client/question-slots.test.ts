/**
 * A call waiting for a question gives its concurrency slot up, and whatever ends the wait (an answer, a
 * refusal, a throw, the question's own `timeoutMs`, a cancel) brings it back in a slot before the tool goes on:
 * never over `maxConcurrency`. A local `onQuestion` that never settles is abandoned when the question times out.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { QuestionReply, QuestionRequest } from '../../src/call/types';
import type { CallRunner } from '../../src/client/calls';
import { QuestionError } from '../../src/errors';
import { tool } from '../../src/tool/tool';
import { nextTask, recording, results, waitsForAbort } from './call-runner-harness';

afterEach(() => {
  vi.useRealTimers();
});

/**
 * `asker` asks a question (timing out after 30 ms) and then records what it got in `went`; it then waits until
 * `finish()` so that it still holds its slot; `stuck` runs until cancelled. One slot.
 */
function askerInOneSlot(onQuestion: (request: QuestionRequest) => QuestionReply | Promise<QuestionReply>) {
  const went: string[] = [];
  const gates: Array<() => void> = [];
  const asker = tool({
    name: 'asker',
    description: 'Asks, then goes on.',
    execute: async (_input, ctx) => {
      const got = await ctx.askQuestion('Which warehouse?', { timeoutMs: 30 }).then(
        (answer) => `answer ${String(answer)}`,
        (error: unknown) => (error instanceof QuestionError ? error.code : 'not a QuestionError'),
      );
      went.push(got);
      await new Promise<void>((resolve) => gates.push(resolve));
      return got;
    },
  });
  const recorded = recording([asker, waitsForAbort('stuck')], { maxConcurrency: 1, onQuestion });
  return { ...recorded, went, finish: () => gates.shift()?.() };
}

describe('questions and concurrency slots', () => {
  it('a question that times out while every slot is busy goes on only once a slot is free', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { calls, call, sent, went, finish } = askerInOneSlot(() => new Promise<QuestionReply>(() => {}));
    call('a1', 'asker');
    await nextTask();
    expect(calls.running).toBe(0); // parked: the slot is free
    call('s1', 'stuck');
    await nextTask();
    expect(calls.running).toBe(1);
    vi.advanceTimersByTime(30);
    await nextTask();
    expect(went).toEqual([]); // timed out, but in line for the slot `s1` holds
    expect(calls.running).toBe(1);
    expect(calls.queued).toBe(1);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(went).toEqual(['timeout']);
    expect(calls.running).toBe(1);
    finish();
    await nextTask();
    expect(results(sent)).toEqual(['s1:cancelled', 'a1:ok']);
    expect(calls.running).toBe(0);
    expect(calls.queued).toBe(0);
  });

  it('a question that times out while a slot is free takes it back before the tool goes on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { calls, call, went, finish } = askerInOneSlot(() => new Promise<QuestionReply>(() => {}));
    call('a1', 'asker');
    await nextTask();
    expect(calls.running).toBe(0);
    vi.advanceTimersByTime(30);
    await nextTask();
    expect(went).toEqual(['timeout']);
    expect(calls.running).toBe(1);
    finish();
    await nextTask();
    expect(calls.running).toBe(0);
  });

  it.each([
    ['an answer', () => ({ answer: 'Lyon' }), 'answer Lyon'],
    ['a refusal', () => ({ declined: true as const }), 'declined'],
    [
      'a throw',
      () => {
        throw new Error('no UI');
      },
      'failed',
    ],
  ])('%s given later, while every slot is busy, goes on only once a slot is free', async (_, reply, got) => {
    const replies: Array<() => void> = [];
    const { calls, call, went, finish } = askerInOneSlot(
      () =>
        new Promise<QuestionReply>((resolve, reject) =>
          replies.push(() => {
            try {
              resolve(reply());
            } catch (error) {
              reject(error);
            }
          }),
        ),
    );
    call('a1', 'asker');
    await nextTask();
    call('s1', 'stuck');
    await nextTask();
    replies[0]!();
    await nextTask();
    expect(went).toEqual([]);
    expect(calls.running).toBe(1);
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(went).toEqual([got]);
    expect(calls.running).toBe(1);
    finish();
    await nextTask();
    expect(calls.running).toBe(0);
  });

  it.each([
    ['the service cancels it', (calls: CallRunner) => calls.cancel('a1', 'user pressed stop')],
    ['the service no longer holds it', (calls: CallRunner) => calls.cancel('a1', 'not_dispatched')],
    ['its run is aborted', (calls: CallRunner) => calls.cancelRun('r1', 'stop')],
    ['its deadline passes', () => vi.advanceTimersByTime(60_000)],
    ['its tool’s timeoutMs passes', () => vi.advanceTimersByTime(5_000)],
  ])(
    'rejects the answered question cancelled, and the tool runs on to its finally, when %s while it waits in line for a slot',
    async (_, end) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const went: string[] = [];
      const asker = tool({
        name: 'asker',
        description: 'Asks, then answers with the answer.',
        timeoutMs: 5_000,
        execute: async (_input, ctx) => {
          try {
            return `answer ${String(await ctx.askQuestion('Which warehouse?'))}`;
          } catch (error) {
            went.push(error instanceof QuestionError ? `${error.code}: ${error.message}` : String(error));
            throw error;
          } finally {
            went.push(`finally, signal aborted: ${ctx.signal.aborted}`);
          }
        },
      });
      const { calls, call } = recording([asker, waitsForAbort('stuck')], {
        maxConcurrency: 1,
        onQuestion: () => Promise.resolve('Lyon'),
      });
      calls.welcomed({ heartbeatIntervalMs: 60_000 });
      call('a1', 'asker', { deadlineMs: 60_000 });
      call('s1', 'stuck', { runId: 'r2' });
      await nextTask();
      // Answered, and in line for the slot `s1` holds.
      expect([calls.running, calls.queued]).toEqual([1, 1]);
      end(calls);
      await nextTask();
      expect(went).toEqual(['cancelled: the call was cancelled', 'finally, signal aborted: true']);
      expect([calls.running, calls.queued, calls.waiting]).toEqual([1, 0, 0]);
      calls.cancel('s1', 'done with it');
      await nextTask();
      expect(calls.running).toBe(0);
      calls.dispose();
    },
  );

  it('abandons a local onQuestion that never settles: its late answer has no effect', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let late: ((reply: QuestionReply) => void) | undefined;
    let signal: AbortSignal | undefined;
    const { calls, call, sent, went, finish } = askerInOneSlot(
      (request) =>
        new Promise<QuestionReply>((resolve) => {
          late = resolve;
          signal = request.signal;
        }),
    );
    call('a1', 'asker');
    await nextTask();
    vi.advanceTimersByTime(30);
    await nextTask();
    expect(signal?.aborted).toBe(true);
    expect(went).toEqual(['timeout']);
    expect(calls.running).toBe(1);
    late!({ answer: 'Lyon' });
    await nextTask();
    expect(went).toEqual(['timeout']);
    expect(calls.running).toBe(1);
    finish();
    await nextTask();
    expect(results(sent)).toEqual(['a1:ok']);
    expect(calls.running).toBe(0);
  });
});
