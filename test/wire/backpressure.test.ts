/**
 * The write budget of a socket (src/wire/backpressure.ts), over WebSockets that report `bufferedAmount` in every
 * way a runtime may: not at all, always 0, late (the value of the previous task), or truthfully. Whatever the
 * socket says, what the client writes to a service that stopped reading stays within `maxBufferedBytes`, then
 * the socket is dropped (1008) and the session resumed; against a service that reads, nothing is dropped.
 */
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/logger';
import { ERROR_FRAMES_PER_INTERVAL } from '../../src/wire/backpressure';
import { Connection, type ConnectionOptions } from '../../src/wire/connection';
import { type HeartbeatClock, systemClock } from '../../src/wire/heartbeat';
import type { ClientFrame } from '../../src/wire/protocol';
import type { WebSocketConstructor } from '../../src/wire/transport';

type Shape = 'no bufferedAmount' | 'always 0' | 'late' | 'truthful';
const SHAPES: Shape[] = ['no bufferedAmount', 'always 0', 'late', 'truthful'];

const SOFT = 1_024;
const HARD = 16_384;

/**
 * An in-memory service whose sockets have the `shape` given. It stops reading after `welcome` on the sockets
 * `stalls` picks (by number, from 1): what the client sends then waits unread (`unreadBytes`).
 */
function memoryService(shape: Shape, stalls: (n: number) => boolean) {
  const sockets: FakeSocket[] = [];
  const hellos: Array<string | undefined> = [];
  class FakeSocket {
    readyState = 0;
    protocol = 'toolwire.v1';
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    readonly n = sockets.push(this);
    stalled = false;
    unreadBytes = 0;
    /** Every frame the service read. */
    read: Array<{ type: string; [key: string]: unknown }> = [];
    #lateReport = 0;
    constructor() {
      queueMicrotask(() => {
        this.readyState = 1;
        this.onopen?.({});
      });
    }
    send(text: string): void {
      if (this.readyState !== 1) return;
      if (this.stalled) {
        this.unreadBytes += Buffer.byteLength(text);
        const now = this.unreadBytes;
        setTimeout(() => {
          this.#lateReport = now;
        }, 0);
        return;
      }
      const frame = JSON.parse(text) as { type: string; id?: string; sessionId?: string };
      this.read.push(frame);
      if (frame.type === 'ping') queueMicrotask(() => this.serve({ type: 'pong', id: frame.id }));
      if (frame.type !== 'hello') return;
      hellos.push(frame.sessionId);
      this.serve({
        type: 'welcome',
        sessionId: 's1',
        resumed: frame.sessionId !== undefined,
        heartbeatIntervalMs: 60_000,
        maxPayloadBytes: 65_536,
      });
      this.stalled = stalls(this.n);
    }
    /** The service sends one frame (a string is sent as it is). */
    serve(frame: unknown): void {
      if (this.readyState === 1)
        this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
    }
    close(): void {
      if (this.readyState === 3) return;
      this.readyState = 3;
      queueMicrotask(() => this.onclose?.({ code: 1006, reason: '' }));
    }
    reported(): number {
      return shape === 'always 0' ? 0 : shape === 'late' ? this.#lateReport : this.unreadBytes;
    }
  }
  if (shape !== 'no bufferedAmount') {
    Object.defineProperty(FakeSocket.prototype, 'bufferedAmount', {
      get(this: FakeSocket) {
        return this.reported();
      },
    });
  }
  return { sockets, hellos, WebSocket: FakeSocket as unknown as WebSocketConstructor };
}

function connection(WebSocket: WebSocketConstructor, clock: HeartbeatClock = systemClock, soft = SOFT) {
  const disconnects: Array<{ code: number; reason: string }> = [];
  const warnings: string[] = [];
  const options: ConnectionOptions = {
    url: 'ws://memory.test',
    apiKey: 'test-key',
    WebSocket,
    reconnect: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 3 },
    heartbeatIntervalMs: undefined,
    connectTimeoutMs: 5_000,
    highWaterMarkBytes: soft,
    maxBufferedBytes: HARD,
    heartbeatClock: clock,
    logger: { ...silentLogger, warn: (_fields: unknown, message?: string) => warnings.push(String(message)) },
    hello: () => ({ protocol: 1, sdk: { name: 'test', version: '0' }, tools: [] }),
    onWelcome: () => {},
    onFrame: () => {},
    onDisconnected: (code, reason) => disconnects.push({ code, reason }),
    onReconnecting: () => {},
    onClosed: () => {},
    onError: () => {},
    onUnsendable: () => {},
  };
  return { connection: new Connection(options), disconnects, warnings };
}

const result = (callId: string, output: string): ClientFrame => ({
  type: 'tool_result',
  callId,
  status: 'ok',
  output,
});

describe.each(SHAPES)('a WebSocket whose bufferedAmount is %s', (shape) => {
  it.each([
    ['pings', (n: number) => ({ type: 'ping', id: String(n) })],
    ['invalid frames', () => '{"type":"nope"}'],
    ['pings without id', () => ({ type: 'ping' })],
  ])(
    'a stalled service flooding %s: writes stay within maxBufferedBytes, then 1008 and a resume',
    async (_kind, frame) => {
      const service = memoryService(shape, (n) => n === 1);
      // 10 ms pass per frame: the rate of error frames is counted by this clock, not by how fast the loop runs.
      let now = 0;
      const clock = { ...systemClock, now: () => now };
      const { connection: link, disconnects } = connection(service.WebSocket, clock);
      await link.connect();
      const stalled = service.sockets[0]!;
      let n = 0;
      for (; n < 200_000 && disconnects.length === 0; n++) {
        now += 10;
        stalled.serve(frame(n));
      }
      // Each answer withheld counts its bytes: the hard limit is reached within 16,384 / 13 (`{"type":"pong"}`,
      // the smallest) frames past the soft limit, whatever the socket reports.
      expect(n).toBeLessThan(2_000);
      expect(disconnects).toEqual([{ code: 1008, reason: 'the service is not reading' }]);
      // Everything written to the stalled socket: within the hard limit (held answers are never written).
      expect(stalled.unreadBytes).toBeLessThanOrEqual(HARD);
      await expect.poll(() => service.hellos).toEqual([undefined, 's1']);
      expect(link.state).toBe('open');
      link.close();
    },
  );

  it('against a service that reads, 200 results of 1 kB go out within the soft limit, none dropped', async () => {
    const service = memoryService(shape, () => false);
    const { connection: link, disconnects } = connection(service.WebSocket);
    await link.connect();
    let peak = 0;
    for (let index = 0; index < 200; ) {
      // What the outbox does: write while the socket has room, else wait for it.
      if (link.bufferedAmount > SOFT) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      expect(link.send(result(`c${index}`, 'x'.repeat(1_000)))).toBe(true);
      peak = Math.max(peak, link.bufferedAmount);
      index += 1;
    }
    const socket = service.sockets[0]!;
    expect(socket.read.filter((frame) => frame.type === 'tool_result')).toHaveLength(200);
    expect(disconnects).toEqual([]);
    expect(service.sockets).toHaveLength(1);
    // One result over the soft limit at most (the check is made before each write).
    expect(peak).toBeLessThanOrEqual(SOFT + 1_100);
    link.close();
  });
});

describe.each(['no bufferedAmount', 'always 0'] as const)(
  'a WebSocket whose bufferedAmount is %s, written text of several bytes a character',
  (shape) => {
    it('counts each frame in UTF-8 bytes, not characters: the hard limit holds', async () => {
      const service = memoryService(shape, () => true);
      const { connection: link, disconnects } = connection(service.WebSocket, systemClock, HARD);
      await link.connect();
      const stalled = service.sockets[0]!;
      // 1,000 characters of 3 bytes each (and 4 bytes a pair): a frame of about 3,100 bytes, 1,100 UTF-16 units.
      const output = `${'€'.repeat(1_000)}${'😀'.repeat(25)}`;
      let sent = 0;
      while (disconnects.length === 0 && sent < 100 && link.send(result(`c${sent}`, output))) sent += 1;
      expect(disconnects).toEqual([{ code: 1008, reason: 'the service is not reading' }]);
      // Counted in characters, 16 such frames (about 50 kB) would have gone before the hard limit was seen.
      expect(sent).toBeLessThanOrEqual(Math.ceil(HARD / 3_100));
      expect(stalled.unreadBytes).toBeLessThanOrEqual(HARD + 3_200);
      link.close();
    });
  },
);

describe('error frames', () => {
  it(`answers at most ${ERROR_FRAMES_PER_INTERVAL} invalid frames per second, and logs how many went unanswered`, async () => {
    let now = 0;
    const clock: HeartbeatClock = { ...systemClock, now: () => now };
    const service = memoryService('truthful', () => false);
    const { connection: link, warnings } = connection(service.WebSocket, clock, HARD);
    await link.connect();
    const socket = service.sockets[0]!;
    for (let n = 0; n < 1_000; n++) socket.serve('{"type":"nope"}');
    const errors = () => socket.read.filter((frame) => frame.type === 'error').length;
    expect(errors()).toBe(ERROR_FRAMES_PER_INTERVAL);
    now += 999;
    socket.serve('not json');
    expect(errors()).toBe(ERROR_FRAMES_PER_INTERVAL);
    now += 1;
    // The service answers the client's probe ping: what was written is proven read.
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (let n = 0; n < 1_000; n++) socket.serve('{"type":"nope"}');
    expect(errors()).toBe(2 * ERROR_FRAMES_PER_INTERVAL);
    expect(warnings).toHaveLength(2 * ERROR_FRAMES_PER_INTERVAL);
    expect(warnings[ERROR_FRAMES_PER_INTERVAL]).toBe(
      'invalid frame from the service: unknown frame type "nope" (991 more invalid frames before it were not answered)',
    );
    expect(link.state).toBe('open');
    link.close();
    // The flood stopped: what went unanswered since the last line is told as the socket closes.
    expect(warnings.slice(2 * ERROR_FRAMES_PER_INTERVAL)).toEqual([
      `990 more invalid frames from the service were not answered (over ${ERROR_FRAMES_PER_INTERVAL} a second, or not read) before the socket closed`,
    ]);
  });
});

describe('a service that reads but answers pings without id, or not at all', () => {
  /** A service that reads every frame and answers `ping` as `pong` says (`'none'`: never). */
  function readingService(pong: 'id' | 'no id' | 'none') {
    const service = memoryService('always 0', () => false);
    const original = service.WebSocket;
    class Answering extends (original as unknown as new (
      ...args: unknown[]
    ) => {
      read: Array<{ type: string; id?: string }>;
      serve(frame: unknown): void;
      send(text: string): void;
    }) {
      override send(text: string): void {
        const frame = JSON.parse(text) as { type: string; id?: string };
        if (frame.type !== 'ping' || frame.id === undefined) {
          super.send(text);
          return;
        }
        // Read, and answered as `pong` says.
        this.read.push(frame);
        if (pong !== 'none')
          queueMicrotask(() => this.serve(pong === 'id' ? { type: 'pong', id: frame.id } : { type: 'pong' }));
      }
    }
    return { ...service, WebSocket: Answering as unknown as WebSocketConstructor };
  }

  async function writeResults(link: Connection, count: number): Promise<void> {
    for (let index = 0; index < count; index++) {
      while (link.bufferedAmount > SOFT) await new Promise((resolve) => setTimeout(resolve, 1));
      link.send(result(`c${index}`, 'x'.repeat(1_000)));
    }
  }

  it.each(['id', 'no id'] as const)(
    'a pong with %s proves the bytes before its ping read: nothing stalls',
    async (pong) => {
      const service = readingService(pong);
      const { connection: link, disconnects } = connection(service.WebSocket);
      await link.connect();
      await writeResults(link, 100);
      expect(service.sockets[0]!.read.filter((frame) => frame.type === 'tool_result')).toHaveLength(100);
      expect(disconnects).toEqual([]);
      link.close();
    },
  );

  it('a probe ping unanswered for two heartbeat intervals drops the socket (1008, logged) and resumes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'queueMicrotask'] });
    try {
      const service = readingService('none');
      const { connection: link, disconnects, warnings } = connection(service.WebSocket);
      const connected = link.connect();
      await vi.advanceTimersByTimeAsync(0);
      await connected;
      // Past half the soft limit unproven: a probe ping goes out, and writes wait for its answer.
      for (let index = 0; index < 3; index++) link.send(result(`c${index}`, 'x'.repeat(400)));
      expect(link.bufferedAmount).toBeGreaterThan(SOFT / 2);
      expect(service.sockets[0]!.read.filter((frame) => frame.type === 'ping')).toHaveLength(1);
      // The service keeps talking (the heartbeat stays content), but never answers the ping.
      for (let step = 0; step < 119; step++) {
        await vi.advanceTimersByTimeAsync(1_000);
        service.sockets[0]!.serve({ type: 'ack', callId: 'c0' });
      }
      expect(disconnects).toEqual([]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(disconnects).toEqual([{ code: 1008, reason: 'the service did not answer a ping' }]);
      expect(warnings).toEqual([
        'the service did not answer a ping in 120000 ms: 1506 bytes written are not proven read, and writes wait for that proof',
      ]);
      await vi.advanceTimersByTimeAsync(10);
      expect(service.hellos).toEqual([undefined, 's1']);
      link.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
