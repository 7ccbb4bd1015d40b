/**
 * A TCP proxy on loopback for fault injection (Debian has no toxiproxy server here, and its npm client needs
 * one). It sits between a client and the stub and can:
 *
 * - drop every connection at once (`dropAll`), as a network failure would;
 * - cut a connection in the middle of a frame (`cutMidFrame`): all but the last byte of the next chunk is
 *   forwarded, then both sides are destroyed, so the receiver holds a frame it can never finish;
 * - blackhole traffic (`blackhole`): bytes are swallowed, connections stay open, only a heartbeat notices;
 * - delay (`delay`) and throttle (`throttle`) what it forwards, order always kept;
 * - drop connections at random points (`chaos`), from a seeded generator so a failing schedule replays;
 * - record every byte forwarded (`record`).
 *
 * Its own tests are in test/fault/tcp-proxy.test.ts.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface ProxyOptions {
  /** Target port on 127.0.0.1. */
  targetPort: number;
  /** Keep a copy of everything forwarded in each direction. @default false */
  record?: boolean;
}

/** `up`: client to target; `down`: target to client. */
export type Direction = 'up' | 'down';

/** Random faults, see {@link TcpProxy.chaos}. Durations in milliseconds. */
export interface ChaosOptions {
  /** Seed of the generator that picks every delay and fault. */
  seed: number;
  /** Each fault comes after a delay drawn uniformly from `[min, max]`. */
  everyMs: readonly [min: number, max: number];
  /** Share of faults that cut mid-frame (the rest drop the connection cleanly). @default 0 */
  cutRatio?: number;
}

/** What the proxy did so far. */
export interface ProxyStats {
  /** Connections accepted. */
  accepted: number;
  /** Connections destroyed by `dropAll` or `chaos` (each pair counts once). */
  dropped: number;
  /** Connections cut mid-frame by `cutMidFrame` or `chaos`. */
  cut: number;
  /** Bytes forwarded, per direction. */
  bytes: Record<Direction, number>;
  /** Bytes swallowed while blackholed. */
  swallowed: number;
  /** Writes made while throttled (each at most `bytesPerSecond / 50` bytes). */
  throttledWrites: number;
}

export interface TcpProxy {
  /** `ws://127.0.0.1:PORT` of the proxy. */
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  readonly stats: ProxyStats;
  /** Destroys every open connection (both sides), as a network failure would. Returns how many. */
  dropAll(): number;
  /**
   * Arms a cut: the next chunk in `direction` (either, when omitted) is forwarded without its last byte, then
   * that connection is destroyed. Resolves with the number of bytes forwarded of that chunk.
   */
  cutMidFrame(direction?: Direction): Promise<number>;
  /**
   * While on, bytes are swallowed (in `direction` only, when given) and connections stay open. New connections
   * are blackholed too.
   */
  blackhole(on: boolean, direction?: Direction): void;
  /** Adds this many milliseconds before forwarding each chunk. */
  delay(ms: number): void;
  /** Forwards at most this many bytes per second in each direction of each connection; `0` lifts the limit. */
  throttle(bytesPerSecond: number): void;
  /** Drops or cuts connections at seeded random intervals until the returned function is called. */
  chaos(options: ChaosOptions): () => void;
  /** Everything forwarded (when `record`), decoded as latin1 so any byte survives. */
  recorded(direction?: Direction): string;
  close(): Promise<void>;
}

/** mulberry32: a small seeded generator of numbers in `[0, 1)`. The same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Ticks per second of the throttle: each tick writes at most `bytesPerSecond / THROTTLE_TICKS` bytes. */
const THROTTLE_TICKS = 50;

interface Pair {
  inbound: Socket;
  outbound: Socket;
  pipes: Pipe[];
}

/**
 * One direction of one connection: a FIFO of chunks, each written when its delay has passed and the throttle
 * allows. Order is always kept.
 */
class Pipe {
  readonly #to: Socket;
  readonly #proxy: ProxyState;
  readonly #queue: Array<{ at: number; data: Buffer }> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(to: Socket, proxy: ProxyState) {
    this.#to = to;
    this.#proxy = proxy;
  }

  push(data: Buffer): void {
    this.#queue.push({ at: Date.now() + this.#proxy.delayMs, data });
    this.#pump();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.length = 0;
  }

  #pump(): void {
    if (this.#timer !== undefined) return;
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      const wait = head.at - Date.now();
      if (wait > 0) {
        this.#schedule(wait);
        return;
      }
      const rate = this.#proxy.bytesPerSecond;
      if (rate > 0) {
        const slice = Math.max(1, Math.floor(rate / THROTTLE_TICKS));
        const part = head.data.subarray(0, slice);
        head.data = head.data.subarray(part.length);
        if (head.data.length === 0) this.#queue.shift();
        this.#proxy.stats.throttledWrites += 1;
        this.#write(part);
        if (this.#queue.length > 0) this.#schedule(1000 / THROTTLE_TICKS);
        return;
      }
      this.#queue.shift();
      this.#write(head.data);
    }
  }

  #schedule(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, ms);
  }

  #write(data: Buffer): void {
    if (this.#to.writable) this.#to.write(data);
  }
}

interface ProxyState {
  delayMs: number;
  bytesPerSecond: number;
  stats: ProxyStats;
}

export async function startTcpProxy(options: ProxyOptions): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  const recorded: Record<Direction, Buffer[]> = { up: [], down: [] };
  const state: ProxyState = {
    delayMs: 0,
    bytesPerSecond: 0,
    stats: { accepted: 0, dropped: 0, cut: 0, bytes: { up: 0, down: 0 }, swallowed: 0, throttledWrites: 0 },
  };
  const holed: Record<Direction, boolean> = { up: false, down: false };
  const cuts: Array<{ direction: Direction | undefined; done: (bytes: number) => void }> = [];
  const chaosTimers = new Set<ReturnType<typeof setTimeout>>();

  const destroy = (pair: Pair) => {
    if (!pairs.delete(pair)) return false;
    for (const pipe of pair.pipes) pipe.stop();
    pair.inbound.destroy();
    pair.outbound.destroy();
    return true;
  };

  const forward = (pair: Pair, direction: Direction, from: Socket, pipe: Pipe) => {
    from.on('data', (chunk: Buffer) => {
      if (!pairs.has(pair)) return;
      if (holed[direction]) {
        state.stats.swallowed += chunk.length;
        return;
      }
      const cutIndex = cuts.findIndex((cut) => cut.direction === undefined || cut.direction === direction);
      if (cutIndex >= 0 && chunk.length >= 2) {
        const [cut] = cuts.splice(cutIndex, 1);
        // Everything but the last byte: whatever frame ends in this chunk can never be completed.
        const part = chunk.subarray(0, chunk.length - 1);
        const to = direction === 'up' ? pair.outbound : pair.inbound;
        for (const other of pair.pipes) other.stop();
        state.stats.bytes[direction] += part.length;
        if (options.record) recorded[direction].push(Buffer.from(part));
        state.stats.cut += 1;
        pairs.delete(pair);
        to.write(part, () => {
          pair.inbound.destroy();
          pair.outbound.destroy();
        });
        cut?.done(part.length);
        return;
      }
      state.stats.bytes[direction] += chunk.length;
      if (options.record) recorded[direction].push(Buffer.from(chunk));
      pipe.push(chunk);
    });
  };

  const server: Server = createServer((inbound) => {
    state.stats.accepted += 1;
    const outbound = connect(options.targetPort, '127.0.0.1');
    const up = new Pipe(outbound, state);
    const down = new Pipe(inbound, state);
    const pair: Pair = { inbound, outbound, pipes: [up, down] };
    pairs.add(pair);
    for (const socket of [inbound, outbound]) {
      socket.setNoDelay(true);
      socket.on('error', () => destroy(pair));
      socket.on('close', () => destroy(pair));
    }
    forward(pair, 'up', inbound, up);
    forward(pair, 'down', outbound, down);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const cutMidFrame = (direction?: Direction) =>
    new Promise<number>((done) => cuts.push({ direction, done }));

  const dropAll = () => {
    let count = 0;
    for (const pair of [...pairs]) if (destroy(pair)) count += 1;
    state.stats.dropped += count;
    return count;
  };

  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    get accepted() {
      return state.stats.accepted;
    },
    get open() {
      return pairs.size;
    },
    get stats() {
      return state.stats;
    },
    dropAll,
    cutMidFrame,
    blackhole(on, direction) {
      if (direction !== 'down') holed.up = on;
      if (direction !== 'up') holed.down = on;
    },
    delay(ms) {
      state.delayMs = ms;
    },
    throttle(bytesPerSecond) {
      state.bytesPerSecond = bytesPerSecond;
    },
    chaos({ seed, everyMs, cutRatio = 0 }) {
      const random = seededRandom(seed);
      let stopped = false;
      const next = () => {
        if (stopped) return;
        const [min, max] = everyMs;
        const timer = setTimeout(
          () => {
            chaosTimers.delete(timer);
            if (stopped) return;
            if (random() < cutRatio) {
              // A cut waits for the next chunk; one already armed and unused is not stacked.
              if (cuts.length === 0 && pairs.size > 0) void cutMidFrame();
            } else dropAll();
            next();
          },
          min + Math.floor(random() * (max - min + 1)),
        );
        chaosTimers.add(timer);
      };
      next();
      return () => {
        stopped = true;
        for (const timer of chaosTimers) clearTimeout(timer);
        chaosTimers.clear();
        cuts.length = 0;
      };
    },
    recorded: (direction) =>
      Buffer.concat(direction ? recorded[direction] : [...recorded.up, ...recorded.down]).toString('latin1'),
    close() {
      for (const timer of chaosTimers) clearTimeout(timer);
      chaosTimers.clear();
      for (const pair of [...pairs]) destroy(pair);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
