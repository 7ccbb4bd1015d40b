/**
 * Answers held by a socket's write budget (src/wire/backpressure.ts) go out once the socket drains, whatever the
 * soft limit and the size of the answers: more held answers than the soft limit has room for, answers larger
 * than the limit, a limit of 1 byte. A held answer is judged on the bytes in the socket, never on the other
 * answers held beside it (they are not in the socket).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Backpressure, ERROR_FRAMES_PER_INTERVAL, MAX_HELD_ANSWERS } from '../../src/wire/backpressure';

/** A socket whose unsent bytes the test sets; each write adds its bytes (the test empties it). */
function budgetOn(softLimitBytes: number, now: () => number = () => 0) {
  const socket = {
    unsent: 0,
    writes: [] as Array<{ text: string; type: string }>,
    overflows: [] as string[],
  };
  const budget = new Backpressure({
    softLimitBytes,
    hardLimitBytes: Number.MAX_SAFE_INTEGER,
    reported: () => socket.unsent,
    countsOwn: false,
    now,
    write: (text, type) => {
      socket.writes.push({ text, type });
      socket.unsent += Buffer.byteLength(text);
      return true;
    },
    transmit: () => true,
    overflow: (message) => socket.overflows.push(message),
  });
  return { budget, socket };
}

const busyText = (callId: string, size: number) =>
  JSON.stringify({ type: 'tool_result', callId, status: 'error', output: 'b'.repeat(size), retryable: true });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('held answers', () => {
  const limits = [1, 10, 100, 199, 200, 201, 1_024, 16_384];
  const sizes = [1, 100, 1_000, 20_000];
  const counts = [1, 3, 200];
  for (const soft of limits) {
    for (const size of sizes) {
      for (const count of counts) {
        it(`all ${count} busy answers of ${size} bytes held over a soft limit of ${soft} go out once the socket drains`, () => {
          const { budget, socket } = budgetOn(soft);
          socket.unsent = soft + 1;
          for (let i = 0; i < count; i++) expect(budget.busy(`c${i}`, busyText(`c${i}`, size))).toBe(true);
          budget.ping('p1', JSON.stringify({ type: 'pong', id: 'p1' }));
          expect(socket.writes).toEqual([]);
          expect(budget.held).toBe(count + 1);
          // The service reads everything between two looks: every look writes until the socket is over the limit.
          for (let look = 0; look <= count + 1 && budget.held > 0; look++) {
            socket.unsent = 0;
            vi.advanceTimersByTime(20);
          }
          expect(budget.held).toBe(0);
          expect(socket.writes.map((write) => write.type)).toEqual([
            'pong',
            ...Array.from({ length: count }, () => 'tool_result'),
          ]);
          expect(socket.writes.slice(1).map((write) => JSON.parse(write.text).callId)).toEqual(
            Array.from({ length: count }, (_, i) => `c${i}`),
          );
          expect(socket.overflows).toEqual([]);
        });
      }
    }
  }

  it('a socket that stays over the soft limit keeps the answers held (nothing written)', () => {
    const { budget, socket } = budgetOn(100);
    socket.unsent = 101;
    for (let i = 0; i < 5; i++) budget.busy(`c${i}`, busyText(`c${i}`, 10));
    vi.advanceTimersByTime(1_000);
    expect(socket.writes).toEqual([]);
    expect(budget.held).toBe(5);
    expect(budget.pendingBytes).toBe(101 + 5 * Buffer.byteLength(busyText('c0', 10)));
  });

  it('one busy answer more than MAX_HELD_ANSWERS drops the socket: no call is left without an answer', () => {
    // Dropped, that answer's call would wait for its deadline: its bytes alone are far from the hard limit.
    const { budget, socket } = budgetOn(100);
    socket.unsent = 101;
    for (let i = 0; i < MAX_HELD_ANSWERS; i++) budget.busy(`c${i}`, busyText(`c${i}`, 10));
    expect(socket.overflows).toEqual([]);
    // Another answer for a call already held replaces it: nothing is left unanswered.
    budget.busy('c0', busyText('c0', 10));
    expect(socket.overflows).toEqual([]);
    budget.busy('one-more', busyText('one-more', 10));
    expect(socket.overflows).toEqual([
      'the service is not reading, and 1000 "busy" answers wait to be written: one more cannot be held',
    ]);
    budget.busy('and-another', busyText('and-another', 10));
    expect(socket.overflows).toHaveLength(1);
    expect(socket.writes).toEqual([]);
  });
});

describe('error answers over the soft limit', () => {
  it('are logged but not sent, within the rate of error lines, and counted for the next one sent', () => {
    const { budget, socket } = budgetOn(100);
    socket.unsent = 101;
    // Logged (a numeric pong id, say, is how the log explains a stall), never written while the service does not read.
    expect(budget.mayAnswerError(50)).toEqual({ unanswered: 0, send: false });
    expect(budget.mayAnswerError(50)).toEqual({ unanswered: 1, send: false });
    for (let n = 2; n < ERROR_FRAMES_PER_INTERVAL; n++) budget.mayAnswerError(50);
    // Past the rate: neither logged nor sent.
    expect(budget.mayAnswerError(50)).toBeUndefined();
    socket.unsent = 0;
    vi.advanceTimersByTime(0);
    expect(budget.mayAnswerError(50)).toBeUndefined();
    expect(socket.writes).toEqual([]);
  });

  it('are sent once the socket has room, saying how many went unanswered', () => {
    let now = 0;
    const { budget, socket } = budgetOn(100, () => now);
    socket.unsent = 101;
    budget.mayAnswerError(50);
    budget.mayAnswerError(50);
    socket.unsent = 0;
    now = 1_000;
    expect(budget.mayAnswerError(50)).toEqual({ unanswered: 2, send: true });
    expect(budget.mayAnswerError(50)).toEqual({ unanswered: 0, send: true });
  });
});
