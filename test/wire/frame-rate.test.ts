/**
 * The service's frame rate (`welcome.maxFramesPerSecond`, `maxFrameBurst`; docs/protocol/limits.md), kept by a
 * socket's write budget (src/wire/backpressure.ts): whatever the client writes at once reaches an in-memory service
 * within the rate, judged by the stub's own token bucket (server-stub/rate-limiter.ts), in order and all of it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../server-stub/rate-limiter';
import { silentLogger } from '../../src/logger';
import { FRAME_BURST_RESERVE } from '../../src/wire/backpressure';
import { Connection } from '../../src/wire/connection';
import type { ClientFrame } from '../../src/wire/protocol';
import type { WebSocketConstructor } from '../../src/wire/transport';

const RATE = 100;
const BURST = 20;
/** What the client writes at once on a new socket: the burst less its reserve, less the hello. */
const AT_ONCE = BURST - Math.floor(BURST * FRAME_BURST_RESERVE) - 1;

/**
 * An in-memory service that says `welcome` with `rate` (none: an older service) and meters every frame it reads
 * with the stub's bucket, started when the socket is made (as the stub's, at the upgrade).
 */
function memoryService(rate: { maxFramesPerSecond?: number; maxFrameBurst?: number }) {
  const read: Array<{ frame: { type: string; callId?: string }; at: number }> = [];
  const refused: number[] = [];
  class FakeSocket {
    readyState = 0;
    protocol = 'toolwire.v1';
    bufferedAmount = 0;
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    readonly limiter = new RateLimiter(
      rate.maxFramesPerSecond ?? RATE,
      rate.maxFrameBurst ?? rate.maxFramesPerSecond ?? BURST,
      Date.now(),
    );
    constructor() {
      queueMicrotask(() => {
        this.readyState = 1;
        this.onopen?.({});
      });
    }
    send(text: string): void {
      const frame = JSON.parse(text) as { type: string; id?: string };
      read.push({ frame, at: Date.now() });
      if (!this.limiter.take(Date.now())) refused.push(read.length - 1);
      if (frame.type === 'ping') this.serve({ type: 'pong', id: frame.id });
      if (frame.type === 'hello')
        this.serve({
          type: 'welcome',
          sessionId: 's1',
          resumed: false,
          heartbeatIntervalMs: 600_000,
          maxPayloadBytes: 65_536,
          ...rate,
        });
    }
    serve(frame: unknown): void {
      queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(frame) }));
    }
    close(): void {
      this.readyState = 3;
    }
  }
  return { read, refused, WebSocket: FakeSocket as unknown as WebSocketConstructor };
}

async function connected(rate: { maxFramesPerSecond?: number; maxFrameBurst?: number }) {
  const service = memoryService(rate);
  const disconnects: number[] = [];
  const connection = new Connection({
    url: 'ws://memory.test',
    apiKey: 'test-key',
    WebSocket: service.WebSocket,
    reconnect: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 1 },
    heartbeatIntervalMs: undefined,
    connectTimeoutMs: 5_000,
    highWaterMarkBytes: 1_048_576,
    maxBufferedBytes: 16_777_216,
    heartbeatClock: undefined,
    logger: silentLogger,
    hello: () => ({ protocol: 1, sdk: { name: 'test', version: '0' }, tools: [] }),
    onWelcome: () => {},
    onFrame: () => {},
    onDisconnected: (code) => disconnects.push(code),
    onReconnecting: () => {},
    onClosed: () => {},
    onError: () => {},
    onUnsendable: () => {},
  });
  const open = connection.connect();
  await vi.advanceTimersByTimeAsync(0);
  await open;
  return { service, connection, disconnects };
}

const approval = (n: number): ClientFrame => ({ type: 'approval', callId: `c${n}`, approved: true });
const approvals = (read: ReturnType<typeof memoryService>['read']) =>
  read.filter((entry) => entry.frame.type === 'approval').map((entry) => entry.frame.callId);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the frame rate the service announced', () => {
  it('paces a burst of 50 decisions to it: the burst less its reserve at once, then one per 10 ms, in order, none refused', async () => {
    const { service, connection, disconnects } = await connected({
      maxFramesPerSecond: RATE,
      maxFrameBurst: BURST,
    });
    const at = Date.now();
    const timers = vi.getTimerCount();
    for (let n = 0; n < 50; n++) expect(connection.send(approval(n))).toBe(true);
    // One timer for all that wait, none per frame.
    expect(vi.getTimerCount()).toBe(timers + 1);
    // The hello took one of the burst; a quarter of it is kept in reserve.
    expect(approvals(service.read)).toHaveLength(AT_ONCE);
    // Waiting frames count as unsent: the outbox and the call updates wait behind them.
    expect(connection.bufferedAmount).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(10);
    expect(approvals(service.read)).toHaveLength(AT_ONCE + 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(approvals(service.read)).toEqual(Array.from({ length: 50 }, (_, n) => `c${n}`));
    expect(service.read.at(-1)?.at).toBe(at + (50 - AT_ONCE) * 10);
    expect(service.refused).toEqual([]);
    expect(disconnects).toEqual([]);
    // Once all are written, a frame goes out at once again (the bucket refills).
    await vi.advanceTimersByTimeAsync(1_000);
    connection.send(approval(50));
    expect(approvals(service.read).at(-1)).toBe('c50');
    connection.close();
  });

  it('keeps the order of every frame written while some wait, whichever writer wrote it', async () => {
    const { service, connection } = await connected({ maxFramesPerSecond: RATE, maxFrameBurst: BURST });
    for (let n = 0; n < 20; n++) connection.send(approval(n));
    connection.send({ type: 'tool_result', callId: 'r1', status: 'ok', output: 'x' });
    await vi.advanceTimersByTimeAsync(1_000);
    const types = service.read.map((entry) => entry.frame.type);
    expect(types.slice(1)).toEqual([...Array.from({ length: 20 }, () => 'approval'), 'tool_result']);
    expect(service.refused).toEqual([]);
    connection.close();
  });

  it('takes one second of frames as the burst when the service gives only the rate', async () => {
    const { service, connection } = await connected({ maxFramesPerSecond: 20 });
    for (let n = 0; n < 30; n++) connection.send(approval(n));
    // A burst of 20, 5 of it in reserve, one taken by the hello.
    expect(approvals(service.read)).toHaveLength(14);
    await vi.advanceTimersByTimeAsync(16 * 50 - 1);
    expect(approvals(service.read)).toHaveLength(29);
    await vi.advanceTimersByTimeAsync(1);
    expect(approvals(service.read)).toHaveLength(30);
    expect(service.refused).toEqual([]);
    connection.close();
  });

  it('paces nothing for a service that announces no rate: everything is written at once, no timer', async () => {
    const { service, connection } = await connected({});
    // The heartbeat's.
    const timers = vi.getTimerCount();
    for (let n = 0; n < 50; n++) connection.send(approval(n));
    expect(approvals(service.read)).toHaveLength(50);
    expect(vi.getTimerCount()).toBe(timers);
    connection.close();
  });
});
