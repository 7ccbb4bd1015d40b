/**
 * Dead-peer detection by the clock. The client pings every interval; the peer is given up on once it has been
 * silent for two intervals **and** a ping sent after its last frame has gone one interval unanswered. On a process
 * whose timers run on time the second condition always holds first, so a silent peer is given up on exactly two
 * intervals after its last frame. On a busy process (a synchronous tool, a long GC) timers run late: time is read
 * from the clock at each wake-up, never counted in ticks, so a late wake-up still pings and still judges; and
 * the verdict waits until the I/O already waiting has been read, so frames that arrived during the block count.
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../limits';
import type { Logger } from '../logger';
import { MIN_HEARTBEAT_INTERVAL_MS } from './protocol';

/** The clock and timers the heartbeat uses; replaceable in tests by a simulated event loop. */
export interface HeartbeatClock {
  /** Milliseconds, from any fixed origin. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
  /**
   * Runs `fn` once the I/O already waiting has been read: in Node, `setImmediate` (the check phase comes after the
   * poll phase that reads sockets); elsewhere a 0 ms timer.
   */
  afterIo(fn: () => void): void;
}

/**
 * Runs `fn` once the I/O already waiting has been read: `setImmediate` where there is one (Node, Bun: the check
 * phase follows the poll phase that reads sockets), else a 0 ms timer. It does not keep the process alive by
 * itself. Looked up at each call, so fake timers installed later are seen.
 */
export function afterIo(fn: () => void): void {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => { unref?: () => void } })
    .setImmediate;
  if (typeof immediate === 'function') immediate(fn).unref?.();
  else setTimeout(fn, 0);
}

/**
 * The real clock: monotonic (`performance.now()`), so that a step of the wall clock (NTP, a virtual machine's clock
 * put right) moves neither a ping nor a verdict. Globals are looked up at each call, so fake timers installed later
 * are seen.
 */
export const systemClock: HeartbeatClock = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, ms);
    // A heartbeat alone does not keep the process alive (no-op in browsers).
    (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
  afterIo,
};

/**
 * A wake-up this many milliseconds past its time means the process was busy: frames may be waiting unread, so a
 * verdict then waits for the I/O to be read. An on-time wake-up judges at once (exactly two intervals).
 */
export const LATE_WAKE_MS = 20;

/** What a {@link Heartbeat} needs. */
export interface HeartbeatOptions {
  /** Ping interval in milliseconds (at most {@link MAX_TIMEOUT_MS}). */
  intervalMs: number;
  /** Sends one ping. May stop the heartbeat (a socket that cannot send is dropped). */
  ping(): void;
  /** The peer is presumed dead: nothing heard for `silentMs`. Called at most once. */
  dead(silentMs: number): void;
  /** @default systemClock */
  clock?: HeartbeatClock;
}

/** The heartbeat of one socket: started on `welcome`, told of every frame heard, stopped when the socket goes. */
export class Heartbeat {
  readonly #intervalMs: number;
  readonly #clock: HeartbeatClock;
  readonly #ping: () => void;
  readonly #dead: (silentMs: number) => void;
  #lastHeard = 0;
  #lastPing = 0;
  /** When the first ping after the last frame heard went out; `undefined` while none has. */
  #unansweredSince: number | undefined;
  #timer: unknown;
  #dueAt = 0;
  #stopped = false;

  constructor(options: HeartbeatOptions) {
    this.#intervalMs = Math.min(Math.max(1, options.intervalMs), MAX_TIMEOUT_MS);
    this.#clock = options.clock ?? systemClock;
    this.#ping = options.ping;
    this.#dead = options.dead;
    const now = this.#clock.now();
    this.#lastHeard = now;
    this.#lastPing = now;
    this.#schedule(now);
  }

  /** The interval in use, in milliseconds. */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /**
   * A frame arrived from the peer: it is alive. Returns when it arrived (`performance.now()` time), so that whoever
   * reads the frame need not read the clock again; `undefined` under a clock of another time (`heartbeatClock`, a
   * test's), which means nothing to a reader of `performance.now()` (a call's deadline).
   */
  heard(): number | undefined {
    // Every frame passes here: the real clock is read directly (the same global, looked up now).
    const clock = this.#clock;
    this.#unansweredSince = undefined;
    if (clock === systemClock) {
      this.#lastHeard = performance.now();
      return this.#lastHeard;
    }
    this.#lastHeard = clock.now();
    return undefined;
  }

  /** Stops for good: no more pings, no verdict. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** When the peer is to be given up on if nothing is heard before: `Infinity` while no ping is unanswered. */
  #verdictAt(): number {
    if (this.#unansweredSince === undefined) return Number.POSITIVE_INFINITY;
    return Math.max(this.#lastHeard + 2 * this.#intervalMs, this.#unansweredSince + this.#intervalMs);
  }

  #schedule(now: number): void {
    const next = Math.min(this.#lastPing + this.#intervalMs, this.#verdictAt());
    const delay = Math.max(1, Math.min(next - now, MAX_TIMEOUT_MS));
    this.#dueAt = now + delay;
    this.#timer = this.#clock.setTimeout(() => this.#wake(), delay);
  }

  #wake(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    const now = this.#clock.now();
    if (now - this.#lastPing >= this.#intervalMs) {
      this.#lastPing = now;
      this.#unansweredSince ??= now;
      this.#ping();
      if (this.#stopped) return;
    }
    if (now < this.#verdictAt()) this.#schedule(now);
    // Due. A late wake-up means the process was blocked, maybe with the peer's frames waiting unread: judge once
    // they are read.
    else if (now - this.#dueAt > LATE_WAKE_MS) this.#clock.afterIo(() => this.#judge());
    else this.#judge();
  }

  #judge(): void {
    if (this.#stopped) return;
    const now = this.#clock.now();
    if (now < this.#verdictAt()) this.#schedule(now);
    else {
      this.stop();
      this.#dead(now - this.#lastHeard);
    }
  }
}

/** What {@link startHeartbeat} needs: a {@link Heartbeat}'s options, with the log for its warnings. */
export interface LinkHeartbeatOptions {
  clock: HeartbeatClock | undefined;
  logger: Logger;
  ping(): void;
  /** The peer is presumed dead (already logged as a `warn`). */
  dead(): void;
}

/**
 * Starts the heartbeat of a welcomed socket every `requestedMs` (the client's override, else the service's
 * announced interval), raised to {@link MIN_HEARTBEAT_INTERVAL_MS} with a `warn` when below it.
 */
export function startHeartbeat(requestedMs: number, options: LinkHeartbeatOptions): Heartbeat {
  let intervalMs = requestedMs;
  if (intervalMs < MIN_HEARTBEAT_INTERVAL_MS) {
    options.logger.warn(
      { intervalMs, minimumMs: MIN_HEARTBEAT_INTERVAL_MS },
      `the heartbeat interval of ${intervalMs} ms is below the minimum of ${MIN_HEARTBEAT_INTERVAL_MS} ms; using ${MIN_HEARTBEAT_INTERVAL_MS} ms`,
    );
    intervalMs = MIN_HEARTBEAT_INTERVAL_MS;
  }
  const heartbeat = new Heartbeat({
    intervalMs,
    ...(options.clock ? { clock: options.clock } : {}),
    ping: options.ping,
    dead: (silence) => {
      // The monotonic clock has fractions of a millisecond: a log line reads whole ones.
      const silentMs = Math.round(silence);
      options.logger.warn(
        { intervalMs: heartbeat.intervalMs, silentMs },
        `no frame from the service for ${silentMs} ms (two heartbeat intervals of ${heartbeat.intervalMs} ms)`,
      );
      options.dead();
    },
  });
  return heartbeat;
}
