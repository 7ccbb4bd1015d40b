/**
 * A burst of events larger than `maxBufferedBytes` across a reconnect (issue: "a burst after reconnect can loop for
 * ever"): the client re-sends what it keeps at the pace the socket drains, results first, so the results go out
 * and the service records every event once, in order.
 *
 * The service is in memory (test/helpers/memory-socket.ts): it reads a fixed number of bytes every 10 ms, reports
 * what it has not read as the socket's `bufferedAmount`, and cuts the first socket while the burst is under way.
 * Fake timers drive it all.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, tool } from '../../src/index';
import { type MemoryPeer, memorySocketPair } from '../helpers/memory-socket';

const HIGH_WATER = 64 * 1024;
const MAX_BUFFERED = 256 * 1024;
/** What the service reads every {@link READ_EVERY_MS}: 3.2 MiB/s. */
const READ_BYTES = 32 * 1024;
const READ_EVERY_MS = 10;
const EVENTS_PER_CALL = 200;
/** Each event's data: 4,000 characters, so one call emits about 800 KB, over three times `maxBufferedBytes`. */
const DATA = 'x'.repeat(4_000);

interface ServiceState {
  sockets: number;
  /** Sockets the client dropped for not being read (close code 1006 from its side). */
  dropped: number;
  /** Per call, the `seq` of each event recorded, in order (a `seq` is recorded once, and only the next one). */
  recorded: Map<string, number[]>;
  /** Events that arrived with a gap before them (a `seq` past the next one): lost on the way. */
  gaps: number;
  /** Results received, per call: the outputs, in order. */
  results: Map<string, string[]>;
  /** Event frames that arrived after their call's result (the service ignores them). */
  afterResult: number;
}

/** An in-memory service that reads slowly, dispatches `calls` on the first socket and cuts it at `cutAtMs`. */
function slowService(calls: string[], cutAtMs: number) {
  const state: ServiceState = {
    sockets: 0,
    dropped: 0,
    recorded: new Map(),
    gaps: 0,
    results: new Map(),
    afterResult: 0,
  };
  const readers: Array<ReturnType<typeof setInterval>> = [];
  const pair = memorySocketPair({
    onConnection(peer: MemoryPeer) {
      state.sockets += 1;
      const socketNumber = state.sockets;
      const unread: string[] = [];
      let open = true;
      peer.onMessage = (text) => {
        unread.push(text);
        peer.bufferedAmount += Buffer.byteLength(text);
      };
      peer.onClose = (code) => {
        open = false;
        if (code === 1006 || code === 1008) state.dropped += 1;
      };
      const handle = (text: string) => {
        const frame = JSON.parse(text) as Record<string, unknown> & { type: string; callId?: string };
        const callId = frame.callId as string;
        if (frame.type === 'hello') {
          peer.send({
            type: 'welcome',
            sessionId: 'burst-session',
            resumed: socketNumber > 1,
            heartbeatIntervalMs: 15_000,
            maxPayloadBytes: 1_048_576,
            features: ['events'],
          });
          if (socketNumber === 1) {
            for (const id of calls) {
              peer.send({ type: 'tool_call', callId: id, runId: 'run-1', toolName: 'burst', arguments: {} });
            }
            setTimeout(() => {
              if (open) peer.fail();
            }, cutAtMs);
          }
        } else if (frame.type === 'ping') {
          peer.send({ type: 'pong', id: frame.id });
        } else if (frame.type === 'tool_event') {
          if (state.results.has(callId)) {
            state.afterResult += 1;
            return;
          }
          const seqs = state.recorded.get(callId) ?? [];
          state.recorded.set(callId, seqs);
          const seq = frame.seq as number;
          if (seq === seqs.length + 1) seqs.push(seq);
          else if (seq > seqs.length + 1) state.gaps += 1;
        } else if (frame.type === 'tool_result') {
          const outputs = state.results.get(callId) ?? [];
          state.results.set(callId, outputs);
          outputs.push(frame.output as string);
          peer.send({ type: 'ack', callId });
        }
      };
      readers.push(
        setInterval(() => {
          let budget = READ_BYTES;
          while (open && budget > 0 && unread.length > 0) {
            const text = unread.shift() as string;
            const bytes = Buffer.byteLength(text);
            budget -= bytes;
            peer.bufferedAmount -= bytes;
            handle(text);
          }
        }, READ_EVERY_MS),
      );
    },
  });
  return {
    state,
    WebSocket: pair.WebSocket,
    stop: () => {
      for (const reader of readers) clearInterval(reader);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a burst of events larger than maxBufferedBytes across a reconnect', () => {
  it('delivers every result, and every event once, in order', async () => {
    vi.useFakeTimers({ now: 0 });
    // Two calls: the first ends during the burst (its result waits in the outbox when the socket is cut); the
    // second is still running at the reconnect (its events are re-sent behind the results) and ends after it.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const burst = tool({
      name: 'burst',
      description: 'Emits a burst of events.',
      execute: async (_input, ctx) => {
        for (let n = 1; n <= EVENTS_PER_CALL; n++) ctx.emit('chunk', { n, data: DATA });
        if (ctx.callId === 'call-running') await released;
        return `done ${ctx.callId}`;
      },
    });
    const service = slowService(['call-done', 'call-running'], 40);
    const worker = new Client({
      url: 'ws://in-memory.test',
      apiKey: 'test-key',
      tools: [burst],
      WebSocket: service.WebSocket,
      highWaterMarkBytes: HIGH_WATER,
      maxBufferedBytes: MAX_BUFFERED,
    });
    const disconnects: number[] = [];
    worker.on('error', () => {});
    worker.on('disconnected', ({ code }) => disconnects.push(code));
    // The service reads (and so answers hello) on its timer.
    const connected = worker.connect();
    await vi.advanceTimersByTimeAsync(READ_EVERY_MS);
    await connected;
    const { state } = service;
    // Until the second socket is open and has read a little: then the running call ends.
    for (let i = 0; i < 200 && state.sockets < 2; i++) await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(100);
    release();
    // Before the fix, every new socket got the whole backlog at once and was dropped (1008) again: no result.
    for (let i = 0; i < 600 && state.results.size < 2; i++) await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(2_000);

    // One socket cut by the service (1006), and none dropped by the client for not being read (1008).
    expect(disconnects).toEqual([1006]);
    expect(state.sockets).toBe(2);
    expect(state.results).toEqual(
      new Map([
        ['call-done', ['done call-done']],
        ['call-running', ['done call-running']],
      ]),
    );
    const all = Array.from({ length: EVENTS_PER_CALL }, (_, i) => i + 1);
    expect(state.recorded).toEqual(
      new Map([
        ['call-done', all],
        ['call-running', all],
      ]),
    );
    expect(state.gaps).toBe(0);
    expect(state.afterResult).toBe(0);
    service.stop();
    await worker.close({ drain: false });
  });
});
