/**
 * The proof ping of a socket's write budget (src/wire/backpressure.ts, docs/protocol/lifecycle.md "Heartbeat"): once
 * half the soft limit written is unproven, a ping asks the service to prove it read it, and a probe left unanswered
 * two heartbeat intervals drops the socket. Judged from when the ping is on the socket, never sooner; on a busy
 * process once the frames that arrived meanwhile are read; never past the longest timer; and not answered by pongs
 * the service sends unasked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMEOUT_MS } from '../../src/limits';
import { utf8Length } from '../../src/utf8';
import { Backpressure } from '../../src/wire/backpressure';

const SOFT = 1_000;
const INTERVAL = 100;

/** A budget over a socket that counts its own bytes (as every client socket does), written through `send`. */
function probing() {
  const written: string[] = [];
  const overflows: Array<{ message: string; reason: string | undefined }> = [];
  const afterIo: Array<() => void> = [];
  const budget: Backpressure = new Backpressure({
    softLimitBytes: SOFT,
    hardLimitBytes: 1_000_000,
    reported: () => 0,
    countsOwn: true,
    now: () => Date.now(),
    // As the link writes: kept for the frame rate, or on the socket (counted by `wrote`).
    write: (text, type) => budget.paces(text, type) || transmit(text),
    transmit: (paced) => transmit(paced.text),
    afterIo: (fn) => afterIo.push(fn),
    overflow: (message, reason) => overflows.push({ message, reason }),
  });
  function transmit(text: string): boolean {
    written.push(text);
    budget.wrote(utf8Length(text));
    return true;
  }
  const pings = () =>
    written.filter((text) => text.startsWith('{"type":"ping"')).map((text) => JSON.parse(text).id as string);
  /** A frame of `bytes` bytes, written as the link writes one. */
  const send = (bytes: number) =>
    budget.paces('x'.repeat(bytes), 'tool_result') || transmit('x'.repeat(bytes));
  return { budget, written, overflows, afterIo, pings, send };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('a proof ping', () => {
  it('waits at most the longest timer for its answer, however long the heartbeat interval', () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const { budget, overflows, pings, send } = probing();
    // welcome.heartbeatIntervalMs has no upper bound: twice it would overflow Node's timer, which then fires in 1 ms.
    budget.proofTimeout(2 * 2_000_000_000);
    send(SOFT / 2);
    expect(pings()).toEqual(['1']);
    const delays = setTimeoutSpy.mock.calls.map((call) => call[1] ?? 0);
    expect(Math.max(...delays)).toBe(MAX_TIMEOUT_MS);
    vi.advanceTimersByTime(60_000);
    expect(overflows).toEqual([]);
    budget.stop();
  });

  it('that waits for the frame rate is judged from when it is written, not from when it was asked for', () => {
    const { budget, written, overflows, pings, send } = probing();
    budget.proofTimeout(2 * INTERVAL);
    // 10 frames a second, a burst of 10 (8 usable, one taken by the hello): 7 small frames take what is left.
    budget.paceTo(10, 10);
    for (let n = 0; n < 7; n++) send(10);
    // The large frame waits for a token; once written, the probe it asks for waits for the next one.
    send(SOFT / 2);
    vi.advanceTimersByTime(100);
    expect(written.at(-1)).toHaveLength(SOFT / 2);
    expect(pings()).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(pings()).toEqual(['1']);
    // Two intervals after it was asked for, one after it was written: not yet judged.
    vi.advanceTimersByTime(2 * INTERVAL - 100);
    expect(overflows).toEqual([]);
    // Two intervals after it was written, unanswered: the socket is dropped.
    vi.advanceTimersByTime(100);
    expect(overflows).toEqual([
      {
        message:
          'the service did not answer a ping in 200 ms: 594 bytes written are not proven read, and writes wait for that proof',
        reason: 'the service did not answer a ping',
      },
    ]);
  });

  it('answered in time, after waiting for the frame rate, keeps the socket', () => {
    const { budget, overflows, pings, send } = probing();
    budget.proofTimeout(2 * INTERVAL);
    budget.paceTo(10, 10);
    for (let n = 0; n < 7; n++) send(10);
    send(SOFT / 2);
    vi.advanceTimersByTime(200);
    budget.ponged(pings()[0]);
    vi.advanceTimersByTime(10 * INTERVAL);
    expect(overflows).toEqual([]);
    expect(budget.pendingBytes).toBe(0);
    budget.stop();
  });

  it('judged by a late timer on a busy process waits for the frames already arrived: a pong among them keeps the socket', () => {
    for (const answered of [true, false]) {
      const { budget, overflows, afterIo, pings, send } = probing();
      budget.proofTimeout(2 * INTERVAL);
      send(SOFT / 2);
      // A synchronous tool blocks the process for 400 ms: the clock moves, the timer fires late.
      vi.setSystemTime(Date.now() + 400);
      vi.advanceTimersByTime(2 * INTERVAL);
      expect(overflows).toEqual([]);
      expect(afterIo).toHaveLength(1);
      // The pong the service sent meanwhile is read before the verdict.
      if (answered) budget.ponged(pings()[0]);
      for (const fn of afterIo) fn();
      expect(overflows.map((overflow) => overflow.reason)).toEqual(
        answered ? [] : ['the service did not answer a ping'],
      );
      budget.stop();
    }
  });

  it('is not answered by pongs without id the service sends unasked, and the drop says so', () => {
    for (const unasked of [false, true]) {
      const { budget, overflows, send } = probing();
      budget.proofTimeout(2 * INTERVAL);
      // A keep-alive of the service's own, before any ping: its id-less pongs answer nothing from now on.
      if (unasked) budget.ponged(undefined);
      send(SOFT / 2);
      budget.ponged(undefined);
      vi.advanceTimersByTime(2 * INTERVAL);
      if (!unasked) expect(overflows).toEqual([]);
      else
        expect(overflows).toEqual([
          {
            message:
              "the service did not answer a ping in 200 ms: 524 bytes written are not proven read, and writes wait for that proof; its pongs without id come unasked (a keep-alive), so they cannot prove it read what was written: a pong must answer a ping, with the ping's id",
            reason: 'the service did not answer a ping',
          },
        ]);
      budget.stop();
    }
  });

  it('is answered by a pong with its id after unasked pongs without one', () => {
    const { budget, overflows, pings, send } = probing();
    budget.proofTimeout(2 * INTERVAL);
    budget.ponged(undefined);
    send(SOFT / 2);
    budget.ponged(pings()[0]);
    vi.advanceTimersByTime(10 * INTERVAL);
    expect(overflows).toEqual([]);
    budget.stop();
  });
});
