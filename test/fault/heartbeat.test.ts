/**
 * Dead-peer detection: how long after the service's last frame the client gives up on a silent socket, with the
 * default heartbeat (15 s) and a short one, and how long the reconnect takes.
 *
 * The exact figures come from fake timers over an in-memory socket (no network, no waiting). The measured ones
 * come from a real blackhole in the TCP proxy, printed, not asserted (speed is not a test result here); with
 * `TOOLWIRE_LONG=1` (`npm run test:soak`) the default heartbeat is measured for real too (about 30 s).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index';
import { memorySocketPair } from '../helpers/memory-socket';
import { recordingLogger } from './gateway';
import { client, nextEvent, proxyTo, stub } from './harness';

/**
 * An in-memory service (test/helpers/memory-socket.ts): answers hello with welcome and ping with pong, until told
 * to go silent. With `opens: false` the upgrade never completes; with `welcomes: false` it opens but never
 * answers hello.
 */
function silentPeer(heartbeatIntervalMs: number, behaviour: { opens?: boolean; welcomes?: boolean } = {}) {
  const peer = { silent: false, terminatedAt: [] as number[], sockets: 0, pings: 0 };
  const pair = memorySocketPair({
    open: behaviour.opens === false ? 'manual' : 'auto',
    onConnection(socket) {
      peer.sockets += 1;
      // Code 1006 is no close a client can ask for: it is the socket dropped (`terminate()`).
      socket.onClose = (code) => {
        if (code === 1006) peer.terminatedAt.push(Date.now());
      };
      socket.onMessage = (data) => {
        const frame = JSON.parse(data) as { type: string; id?: string };
        if (peer.silent || (frame.type === 'hello' && behaviour.welcomes === false)) return;
        if (frame.type === 'ping') peer.pings += 1;
        if (frame.type === 'hello') {
          socket.send({
            type: 'welcome',
            sessionId: 's1',
            resumed: false,
            heartbeatIntervalMs,
            maxPayloadBytes: 1_048_576,
          });
        } else if (frame.type === 'ping') {
          socket.send({ type: 'pong', id: frame.id });
        }
      };
    },
  });
  return { peer, WebSocket: pair.WebSocket };
}

afterEach(() => {
  vi.useRealTimers();
});

async function detectionAfterSilence(options: {
  announcedMs: number;
  clientMs?: number;
  pongsBeforeSilence: number;
}): Promise<number> {
  vi.useFakeTimers({ now: 0 });
  const { peer, WebSocket } = silentPeer(options.announcedMs);
  const worker = new Client({
    url: 'ws://in-memory.test',
    apiKey: 'test-key',
    tools: [],
    WebSocket,
    reconnect: false,
    ...(options.clientMs === undefined ? {} : { heartbeatIntervalMs: options.clientMs }),
  });
  worker.on('error', () => {});
  await worker.connect();
  const interval = Math.min(options.clientMs ?? options.announcedMs, options.announcedMs);
  // Let the peer answer some pings, then go silent right after its last pong.
  for (let i = 0; i < options.pongsBeforeSilence; i++) await vi.advanceTimersByTimeAsync(interval);
  expect(peer.pings).toBe(options.pongsBeforeSilence);
  const lastFrameAt = Date.now();
  peer.silent = true;
  while (peer.terminatedAt.length === 0) await vi.advanceTimersByTimeAsync(interval / 4);
  await worker.close({ drain: false });
  return (peer.terminatedAt[0] ?? Number.NaN) - lastFrameAt;
}

describe('dead-peer detection, exact (fake timers)', () => {
  it('gives up exactly 30,000 ms after the last frame with the default 15 s heartbeat (two intervals)', async () => {
    expect(await detectionAfterSilence({ announcedMs: 15_000, pongsBeforeSilence: 0 })).toBe(30_000);
    expect(await detectionAfterSilence({ announcedMs: 15_000, pongsBeforeSilence: 2 })).toBe(30_000);
  });

  it('gives up 200 ms after the last frame with a 100 ms heartbeat set on the client', async () => {
    expect(await detectionAfterSilence({ announcedMs: 15_000, clientMs: 100, pongsBeforeSilence: 3 })).toBe(
      200,
    );
  });

  it("pings at the service's interval when the client asks for a longer one: an idle socket is never closed 4008", async () => {
    expect(await detectionAfterSilence({ announcedMs: 1_000, clientMs: 60_000, pongsBeforeSilence: 0 })).toBe(
      2_000,
    );
  });

  it('pings no faster than the minimum interval (100 ms) when the service announces 1 ms, and says so', async () => {
    vi.useFakeTimers({ now: 0 });
    const { peer, WebSocket } = silentPeer(1);
    const logger = recordingLogger();
    const worker = new Client({
      url: 'ws://in-memory.test',
      apiKey: 'test-key',
      tools: [],
      WebSocket,
      logger,
    });
    await worker.connect();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(peer.pings).toBe(10);
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'the heartbeat interval of 1 ms is below the minimum of 100 ms; using 100 ms',
    ]);
    await worker.close({ drain: false });
  });

  it('accepts heartbeatIntervalMs: 1 on the client and pings every 100 ms instead, saying so', async () => {
    vi.useFakeTimers({ now: 0 });
    const { peer, WebSocket } = silentPeer(15_000);
    const logger = recordingLogger();
    const worker = new Client({
      url: 'ws://in-memory.test',
      apiKey: 'test-key',
      tools: [],
      heartbeatIntervalMs: 1,
      WebSocket,
      logger,
    });
    await worker.connect();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(peer.pings).toBe(10);
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'the heartbeat interval of 1 ms is below the minimum of 100 ms; using 100 ms',
    ]);
    await worker.close({ drain: false });
  });
});

/**
 * The event loop blocked `blockMs` of every `cycleMs` (a synchronous tool, a long GC). `clock.jump` is the fake
 * clock's model of a blocked loop: time passes, and every timer that fell due meanwhile runs once, late, at the end.
 */
async function busyFor(
  totalMs: number,
  blockMs: number,
  cycleMs: number,
  done: () => boolean,
): Promise<void> {
  const clock = (globalThis.setTimeout as unknown as { clock: { jump(ms: number): void } }).clock;
  for (let elapsed = 0; elapsed < totalMs && !done(); elapsed += cycleMs) {
    clock.jump(blockMs);
    await vi.advanceTimersByTimeAsync(cycleMs - blockMs);
  }
}

describe('dead-peer detection on a busy process (fake timers)', () => {
  it('notices a blackholed service within the documented bound with the loop blocked 600 ms of every 700', async () => {
    vi.useFakeTimers({ now: 0 });
    const { peer, WebSocket } = silentPeer(1_000);
    const worker = new Client({
      url: 'ws://in-memory.test',
      apiKey: 'test-key',
      tools: [],
      WebSocket,
      reconnect: false,
    });
    worker.on('error', () => {});
    await worker.connect();
    await busyFor(5_000, 600, 700, () => false);
    const lastFrameAt = Date.now();
    peer.silent = true;
    await busyFor(30_000, 600, 700, () => peer.terminatedAt.length > 0);
    const detectedMs = (peer.terminatedAt[0] ?? Number.POSITIVE_INFINITY) - lastFrameAt;
    console.info(
      `[heartbeat] 1 s interval, event loop blocked 600 ms of every 700: detected after ${detectedMs} ms`,
    );
    // Two intervals after the last frame, and one after the first ping that went unanswered, each checked at
    // the first moment the loop is free: here at most two blocks late.
    expect(detectedMs).toBeGreaterThanOrEqual(2_000);
    expect(detectedMs).toBeLessThanOrEqual(2_000 + 2 * 600);
    await worker.close({ drain: false });
  });

  it('keeps a live service on the same busy process', async () => {
    vi.useFakeTimers({ now: 0 });
    const { peer, WebSocket } = silentPeer(1_000);
    const worker = new Client({
      url: 'ws://in-memory.test',
      apiKey: 'test-key',
      tools: [],
      WebSocket,
      reconnect: false,
    });
    await worker.connect();
    await busyFor(60_000, 600, 700, () => false);
    expect(peer.terminatedAt).toEqual([]);
    // Pings go out by the clock, each at most one block late: at least one per 1,600 ms.
    expect(peer.pings).toBeGreaterThanOrEqual(Math.floor(60_000 / 1_600));
    await worker.close({ drain: false });
  });
});

describe('a handshake that never completes (fake timers)', () => {
  it('is reported as what it is, not as a heartbeat timeout', async () => {
    vi.useFakeTimers({ now: 0 });
    for (const [behaviour, message] of [
      [{ opens: false }, 'ws://in-memory.test: the WebSocket upgrade did not complete within 10000 ms'],
      [
        { welcomes: false },
        'ws://in-memory.test: no welcome within 10000 ms (the socket opened, but the service did not answer hello)',
      ],
    ] as const) {
      const { WebSocket } = silentPeer(1_000, behaviour);
      const worker = new Client({ url: 'ws://in-memory.test', apiKey: 'test-key', tools: [], WebSocket });
      const errors: Array<{ code: string; message: string }> = [];
      worker.on('error', (error) => errors.push(error as never));
      const connecting = worker.connect({ maxAttempts: 1 }).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(errors.map((error) => [error.code, error.message])).toEqual([['handshake_timeout', message]]);
      expect(await connecting).toMatchObject({
        code: 'unreachable',
        message: `cannot reach ws://in-memory.test after 1 attempt: ${message}`,
      });
    }
  });
});

/**
 * Blackholes the link between a client and a stub (heartbeat from the stub's options) and measures how long the
 * client takes to notice, and then to resume once traffic flows again.
 */
async function blackholeAndResume(stubOptions: Parameters<typeof stub>[0] = undefined) {
  const server = await stub(stubOptions);
  const proxy = await proxyTo(server);
  const worker = client(proxy.url);
  await worker.connect();
  const disconnected = nextEvent<{ code: number }>(worker, 'disconnected');
  const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
  const silentFrom = Date.now();
  proxy.blackhole(true);
  const { code } = await disconnected;
  const detectedMs = Date.now() - silentFrom;
  proxy.blackhole(false);
  expect(code).toBe(4008);
  expect(await resumed).toMatchObject({ resumed: true });
  return { detectedMs, reconnectMs: Date.now() - silentFrom - detectedMs };
}

describe('dead-peer detection over a real blackhole', () => {
  it('detects a blackholed service with a 100 ms heartbeat (close 4008) and resumes once traffic flows', async () => {
    const { detectedMs, reconnectMs } = await blackholeAndResume({ heartbeatIntervalMs: 100 });
    console.info(
      `[heartbeat] 100 ms interval: silent peer detected after ${detectedMs} ms, resumed ${reconnectMs} ms later`,
    );
  });

  it.runIf(process.env.TOOLWIRE_LONG === '1')(
    'detects a blackholed service with the default 15 s heartbeat (measured for real)',
    async () => {
      const { detectedMs, reconnectMs } = await blackholeAndResume();
      console.info(
        `[heartbeat] default 15 s interval: detected after ${detectedMs} ms, resumed ${reconnectMs} ms later`,
      );
    },
    60_000,
  );
});
