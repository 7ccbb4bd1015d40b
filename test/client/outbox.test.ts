import { describe, expect, it, vi } from 'vitest';
import type { ToolCallResult } from '../../src/call/types';
import { HeldResult, Outbox, type ToolResultFrame } from '../../src/client/outbox';
import { ConnectionError } from '../../src/errors';
import type { Widget } from '../../src/tool/widget';
import { encodeFrame } from '../../src/wire/codec';
import { type ClientFrame, utf8Length } from '../../src/wire/protocol';
import { callIds, nextTask, recording, recordsCalls } from './call-runner-harness';
import { fakeSocket, outboxOn } from './outbox-harness';

describe('Outbox, in a call runner', () => {
  it('keeps results for a socket that is not writable and writes them all, in order, once it is', () => {
    let open = false;
    const { calls, call, sent } = recording([recordsCalls('echo').tool], { writable: () => open });
    call('c1', 'echo');
    call('c2', 'echo');
    expect(sent).toEqual([]);
    expect(calls.unacked).toBe(2);
    open = true;
    call('c3', 'echo'); // written after the two older ones, not before them
    expect(callIds(sent)).toEqual(['c1', 'c2', 'c3']);
    call('c4', 'echo');
    expect(sent).toHaveLength(4);
  });
});

/** What the call runner hands the outbox for a call's result. */
const callFrame = (callId: string): HeldResult => new HeldResult(callId, 'r1', 'echo', {});
const ok = (output: string, widget?: Widget): ToolCallResult => ({
  status: 'ok',
  output,
  widget,
  durationMs: 0,
});
const ids = (sent: ClientFrame[]) => sent.map((frame) => (frame as { callId: string }).callId);

describe('Outbox', () => {
  it('holds results while the socket buffers more than highWaterMarkBytes, and writes them in order once it has room', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const socket = fakeSocket();
      const { outbox } = outboxOn(socket);
      socket.bufferedAmount = 1_001;
      outbox.add(callFrame('c1'), ok('one'), 3);
      outbox.add(callFrame('c2'), ok('two'), 4);
      expect(socket.sent).toEqual([]);
      vi.advanceTimersByTime(5);
      expect(socket.sent).toEqual([]); // still full: it looks again later
      socket.bufferedAmount = 1_000;
      vi.advanceTimersByTime(5);
      expect(socket.sent).toEqual([
        { type: 'tool_result', callId: 'c1', status: 'ok', output: 'one', durationMs: 3 },
        { type: 'tool_result', callId: 'c2', status: 'ok', output: 'two', durationMs: 4 },
      ]);
      outbox.add(callFrame('c3'), ok('three'), 0);
      expect(ids(socket.sent)).toEqual(['c1', 'c2', 'c3']);
      outbox.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('holds a result that would take the socket past maxBufferedBytes until the socket is empty', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const socket = fakeSocket(1_100);
      const { outbox } = outboxOn(socket, { maxBufferedBytes: 1_100 });
      outbox.add(callFrame('c1'), ok('x'.repeat(2_000)), 0); // cut to 1,100 bytes: written on the empty socket
      expect(utf8Length(encodeFrame(socket.sent[0] as ClientFrame))).toBeLessThanOrEqual(1_100);
      socket.bufferedAmount = 500; // under highWaterMarkBytes, but 500 + ~1,100 is past maxBufferedBytes
      outbox.add(callFrame('c2'), ok('y'.repeat(2_000)), 0);
      expect(ids(socket.sent)).toEqual(['c1']);
      vi.advanceTimersByTime(5);
      expect(ids(socket.sent)).toEqual(['c1']);
      socket.bufferedAmount = 0;
      vi.advanceTimersByTime(5);
      expect(ids(socket.sent)).toEqual(['c1', 'c2']);
      socket.bufferedAmount = 500; // a small result fits beside what is unread
      outbox.add(callFrame('c3'), ok('z'), 0);
      expect(ids(socket.sent)).toEqual(['c1', 'c2', 'c3']);
      outbox.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes every result held again, once, on a new socket, and forgets a result once acked', () => {
    const socket = fakeSocket();
    const { outbox } = outboxOn(socket);
    outbox.add(callFrame('c1'), ok('one'), 0);
    outbox.add(callFrame('c2'), ok('two'), 0);
    outbox.ack('c1');
    expect(outbox.size).toBe(1);
    outbox.reconnected();
    outbox.flush();
    expect(ids(socket.sent)).toEqual(['c1', 'c2', 'c2']);
  });

  it("keeps the call runner's HeldResult as the result held: one object for the call and its result", () => {
    const socket = fakeSocket();
    const { outbox } = outboxOn(socket);
    const held = new HeldResult('c1', 'r1', 'echo', { a: 1 });
    const frame = outbox.add(held, ok('one'), 2);
    expect(outbox.callOf('c1')).toBe(held);
    expect(held.frame).toBe(frame);
    expect([held.callId, held.runId, held.toolName, held.arguments]).toEqual(['c1', 'r1', 'echo', { a: 1 }]);
    outbox.add(callFrame('c2'), ok('two'), 0);
    expect(ids(socket.sent)).toEqual(['c1', 'c2']);
    expect(JSON.parse(encodeFrame(socket.sent[0] as ClientFrame))).toStrictEqual({
      type: 'tool_result',
      callId: 'c1',
      status: 'ok',
      output: 'one',
      durationMs: 2,
    });
  });

  it('writes a result again when its call is re-delivered, and only while it holds the result', () => {
    const socket = fakeSocket();
    const { outbox } = outboxOn(socket);
    outbox.add(callFrame('c1'), ok('one'), 0);
    expect(outbox.resend('c1')).toBe(true);
    outbox.ack('c1');
    expect(outbox.resend('c1')).toBe(false);
    expect(ids(socket.sent)).toEqual(['c1', 'c1']);
  });

  it('redacts the output before cutting it to the frame limit, so no piece of a secret is left', () => {
    const socket = fakeSocket(1_024);
    const { outbox } = outboxOn(socket, { redact: ['secret-key-0123456789'] });
    const output = `${'a'.repeat(490)}secret-key-0123456789${'b'.repeat(2_000)}`;
    const frame = outbox.add(callFrame('c1'), ok(output), 0);
    expect(frame.output).not.toContain('secret');
    expect(frame.output).not.toContain('0123');
    expect(frame.output).toMatch(/\[truncated: the full output was \d+ bytes\]$/);
    expect(utf8Length(encodeFrame(frame))).toBeLessThanOrEqual(1_024);
  });

  it('drops a widget that would take the result over the frame limit, and says why', () => {
    const socket = fakeSocket(1_024);
    const { outbox, dropped } = outboxOn(socket);
    const frame = outbox.add(callFrame('c1'), ok('small', { type: 'Text', value: 'y'.repeat(2_000) }), 0);
    expect(frame).toEqual({
      type: 'tool_result',
      callId: 'c1',
      status: 'ok',
      output: 'small',
      durationMs: 0,
    });
    expect(dropped).toEqual([
      {
        toolName: 'echo',
        callId: 'c1',
        path: 'widget',
        message: expect.stringMatching(
          /^the result with its widget is \d+ bytes, over the service's limit of 1024; the widget was dropped$/,
        ),
      },
    ]);
  });
});

describe('Outbox: bytes held', () => {
  /** The size the outbox counts for a frame, and the frame's real size: the count is never below it. */
  const real = (frame: ClientFrame) => utf8Length(encodeFrame(frame));

  it('counts the bytes of every result held, through each path that adds, changes or removes one', () => {
    const socket = fakeSocket(4_096);
    const { outbox } = outboxOn(socket, { maxBytes: 5_000 });
    // Added: counted at least at its real size, and within 106 + 6 per unit of the call id above it.
    const first = outbox.add(callFrame('c1'), ok('é'.repeat(1_000)), 1);
    expect(outbox.bytes).toBeGreaterThanOrEqual(real(first));
    expect(outbox.bytes - real(first)).toBeLessThanOrEqual(106 + 6 * 2);
    expect(outbox.full).toBe(false);
    const second = outbox.add(callFrame('c2'), ok('"'.repeat(1_500)), 1);
    expect(outbox.bytes).toBeGreaterThanOrEqual(real(first) + real(second));
    expect(outbox.full).toBe(true);
    // Replaced by its error result (unsendable): counted at the replacement's size.
    expect(outbox.unsendable(second, 'send_failed')).toBe('replaced');
    expect(outbox.full).toBe(false);
    const afterReplace = outbox.bytes;
    expect(afterReplace).toBeLessThan(real(first) + 1_000);
    // Cut again to a smaller limit after a reconnect: counted at the new size (both are written again).
    socket.maxPayloadBytes = 1_024;
    outbox.reconnected();
    const [cut, replacement] = socket.sent.slice(-2) as [ClientFrame, ClientFrame];
    expect(replacement).toMatchObject({ callId: 'c2', status: 'error' });
    expect(outbox.bytes).toBeLessThan(afterReplace);
    expect(outbox.bytes).toBeGreaterThanOrEqual(real(cut) + real(replacement));
    expect(outbox.bytes - real(cut) - real(replacement)).toBeLessThanOrEqual(2 * (106 + 6 * 2));
    // Acked (or dropped): nothing left.
    outbox.ack('c1');
    outbox.ack('c1');
    outbox.ack('c2');
    expect(outbox.bytes).toBe(0);
    expect(outbox.size).toBe(0);
  });

  it("counts a result's part as its JSON, whether it is its kind alone or has a value", () => {
    const { outbox } = outboxOn(fakeSocket());
    const plain = outbox.add(callFrame('c1'), ok('"é"'), 1);
    const bare = outbox.bytes;
    outbox.ack('c1');
    // The same result with a part: its kind alone (a plain result), then with a value (a projected one).
    for (const [callId, part] of [
      ['c2', { type: 'json' }],
      ['c3', { type: 'error-text' }],
      ['c4', { type: 'json', value: { shown: 'ü', n: 1 } }],
    ] as const) {
      const before = outbox.bytes;
      outbox.add(callFrame(callId), ok('"é"'), 1, part);
      // Call ids of the same length: the rest of the frame counts the same.
      expect(callId.length).toBe(plain.callId.length);
      expect(outbox.bytes - before - bare).toBe(utf8Length(JSON.stringify([undefined, undefined, part])));
    }
  });
});

/** The calls of `Map`'s lookups and changes (every `Map`'s) made while `run` runs. */
function mapOperations(run: () => void): number {
  const spies = (['get', 'set', 'has', 'delete'] as const).map((name) => vi.spyOn(Map.prototype, name));
  try {
    run();
    return spies.reduce((count, spy) => count + spy.mock.calls.length, 0);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** `held`, counting the reads of its `sentOn` in `reads.count` (what a walk of the outbox reads of each result). */
function countingReads(held: HeldResult, reads: { count: number }): HeldResult {
  let sentOn = held.sentOn;
  Object.defineProperty(held, 'sentOn', {
    get: () => {
      reads.count += 1;
      return sentOn;
    },
    set: (value: number) => {
      sentOn = value;
    },
  });
  return held;
}

describe('Outbox: acks', () => {
  /** Results held at once in the tests of the worst cases: a lookup for each that walked the outbox would be n². */
  const n = 4_000;
  const held = (count: number) => Array.from({ length: count }, (_, i) => `c${i}`);

  it('matches each ack against the oldest result held, with no Map, while 64 are held', () => {
    const socket = fakeSocket();
    const { outbox } = outboxOn(socket);
    for (let i = 0; i < 64; i++) outbox.add(callFrame(`c${i}`), ok('x'), 0);
    const operations = mapOperations(() => {
      for (let i = 64; i < 1_064; i++) {
        outbox.ack(`c${i - 64}`);
        outbox.add(callFrame(`c${i}`), ok('x'), 0);
      }
    });
    expect(operations).toBe(0);
    expect(outbox.size).toBe(64);
    expect(ids(socket.sent)).toEqual(held(1_064));
  });

  it('forgets results acked in reverse, duplicated or unknown, and writes the rest oldest first on a new socket', () => {
    const socket = fakeSocket();
    const { outbox } = outboxOn(socket);
    for (const callId of held(6)) outbox.add(callFrame(callId), ok('x'), 0);
    const one = outbox.bytes / 6;
    for (const callId of ['c4', 'c2', 'c4', 'nope', 'c0', 'c0', 'c5']) outbox.ack(callId);
    expect(outbox.size).toBe(2);
    expect(outbox.bytes).toBe(2 * one);
    expect(outbox.callOf('c1')?.callId).toBe('c1');
    expect([outbox.callOf('c2'), outbox.statusOf('c3')]).toEqual([undefined, 'ok']);
    socket.sent.length = 0;
    outbox.reconnected();
    expect(ids(socket.sent)).toEqual(['c1', 'c3']);
    outbox.add(callFrame('c6'), ok('x'), 0);
    expect(outbox.close()).toEqual(['c1', 'c3', 'c6']);
    expect([outbox.size, outbox.bytes]).toEqual([0, 0]);
  });

  it(`takes a bounded number of Map operations for ${n} results acked in reverse, or among unknown and duplicate acks`, () => {
    const { outbox } = outboxOn(fakeSocket());
    for (const callId of held(n)) outbox.add(callFrame(callId), ok('x'), 0);
    const reversed = mapOperations(() => {
      for (const callId of held(n).reverse()) outbox.ack(callId);
    });
    expect([outbox.size, outbox.bytes]).toEqual([0, 0]);
    expect(reversed).toBeLessThanOrEqual(4 * n);
    // With n results never acked, each result added is followed by an ack for an id never held and one for the
    // result before it, acked already.
    for (const callId of held(n)) outbox.add(callFrame(callId), ok('x'), 0);
    const mixed = mapOperations(() => {
      for (let i = 0; i < n; i++) {
        outbox.add(callFrame(`d${i}`), ok('x'), 0);
        outbox.ack(`unknown${i}`);
        outbox.ack(`d${i - 1}`);
      }
    });
    expect(outbox.size).toBe(n + 1);
    expect(mixed).toBeLessThanOrEqual(8 * n);
  });

  it(`writes each of ${n} results held again once when its call is re-delivered, without walking the outbox for each`, () => {
    const socket = fakeSocket();
    const { outbox } = outboxOn(socket);
    const reads = { count: 0 };
    for (const callId of held(n)) outbox.add(countingReads(callFrame(callId), reads), ok('x'), 0);
    outbox.reconnected();
    socket.sent.length = 0;
    reads.count = 0;
    const operations = mapOperations(() => {
      for (const callId of held(n).reverse()) expect(outbox.resend(callId)).toBe(true);
    });
    expect(ids(socket.sent)).toEqual(held(n).reverse());
    expect(reads.count).toBeLessThanOrEqual(4 * n);
    expect(operations).toBeLessThanOrEqual(4 * n);
  });
});

describe('Outbox: acks, in a call runner', () => {
  it('does not ask the outbox about a new call, only about one whose result it may hold', () => {
    const echo = recordsCalls('echo');
    const { calls, call, sent } = recording([echo.tool]);
    const callOf = vi.spyOn(Outbox.prototype, 'callOf');
    try {
      for (let i = 0; i < 50; i++) call(`c${i}`, 'echo');
      expect(callOf).not.toHaveBeenCalled();
      calls.ack('c10');
      call('c10', 'echo'); // acked: ignored
      call('c20', 'echo'); // held: written again
      expect(echo.ran).toHaveLength(50);
      expect(callIds(sent.slice(50))).toEqual(['c20']);
      expect(calls.unacked).toBe(49);
    } finally {
      callOf.mockRestore();
    }
  });

  it('forgets the results an ack frame names in any order, with duplicates and unknown ids, and resends the rest in order', () => {
    const echo = recordsCalls('echo');
    const { calls, call, sent } = recording([echo.tool]);
    for (const callId of ['c1', 'c2', 'c3', 'c4', 'c5']) call(callId, 'echo');
    calls.handle({ type: 'ack', callId: 'c4', callIds: ['c2', 'c4', 'x', 'c1'] });
    expect(calls.unacked).toBe(2);
    calls.handle({
      type: 'tool_call',
      callId: 'c6',
      runId: 'r1',
      toolName: 'echo',
      arguments: {},
      acks: ['c5', 'c5'],
    });
    expect(calls.unacked).toBe(2);
    sent.length = 0;
    calls.reconnected();
    expect(callIds(sent)).toEqual(['c3', 'c6']);
    for (const callId of ['c1', 'c3']) call(callId, 'echo'); // acked: ignored; held: written again
    expect(callIds(sent)).toEqual(['c3', 'c6', 'c3']);
    expect(echo.ran).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
  });

  it('answers from the outbox a call whose result is held while 20,000 later calls finished (their ids forgotten)', async () => {
    const echo = recordsCalls('echo');
    const { calls, call, sent } = recording([echo.tool]);
    call('first', 'echo');
    for (let i = 0; i < 20_001; i++) {
      call(`c${i}`, 'echo');
      await nextTask();
      calls.ack(`c${i}`);
    }
    expect(calls.unacked).toBe(1);
    call('first', 'echo');
    await nextTask();
    expect(echo.ran.filter((callId) => callId === 'first')).toHaveLength(1);
    expect(callIds(sent.slice(-1))).toEqual(['first']);
  });
});

describe('Outbox: a result dropped while it is written', () => {
  it('returns the error result that replaced it when the socket refuses both at once, and holds nothing', () => {
    const sent: ClientFrame[] = [];
    const socket = {
      writable: true,
      bufferedAmount: 0,
      maxPayloadBytes: 1_048_576,
      // As the client's socket does with a frame over the service's limit: reported at once, not sent.
      send(frame: ClientFrame): boolean {
        if ((frame as { callId?: string }).callId === 'c1') {
          outbox.unsendable(frame as ToolResultFrame, 'frame_too_large');
          return false;
        }
        sent.push(frame);
        return true;
      },
    };
    const { outbox } = outboxOn(socket);
    expect(outbox.add(callFrame('c1'), ok('one'), 2)).toEqual({
      type: 'tool_result',
      callId: 'c1',
      status: 'error',
      output: 'The result of echo could not be delivered: it was larger than the service accepts.',
      durationMs: 2,
    });
    expect([outbox.size, outbox.bytes, sent]).toEqual([0, 0, []]);
    expect(outbox.add(callFrame('c2'), ok('two'), 0)).toMatchObject({ callId: 'c2', output: 'two' });
    expect(ids(sent)).toEqual(['c2']);
  });

  it("tells the tool_result event the error result's text, not an empty output", () => {
    const outputs: string[] = [];
    const echo = recordsCalls('echo');
    const { calls } = recording([echo.tool], {
      socket: {
        writable: true,
        bufferedAmount: 0,
        maxPayloadBytes: 1_048_576,
        send(frame) {
          if (frame.type !== 'tool_result' || frame.callId !== 'c1') return true;
          calls.unsendable(frame, new ConnectionError('frame_too_large', 'over the limit'));
          return false;
        },
      },
      events: {
        toolCall() {},
        toolResult: (info) => outputs.push(info.output),
        approvalRequested() {},
        widgetInvalid() {},
      },
    });
    calls.receive({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'echo', arguments: {} });
    expect([outputs, calls.unacked]).toEqual([
      ['The result of echo could not be delivered: it was larger than the service accepts.'],
      0,
    ]);
  });
});
