/**
 * The heartbeat against a simulated event loop with Node's phases in order (timers, then the I/O that is waiting,
 * then `setImmediate`), where the loop can be blocked: while blocked, time passes and nothing runs; timers that
 * fell due then run once, late, and frames that arrived meanwhile wait to be read.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Heartbeat, type HeartbeatClock, startHeartbeat } from '../../src/wire/heartbeat';

class SimulatedLoop {
  now = 0;
  #timers: Array<{ id: number; at: number; fn: () => void }> = [];
  #io: Array<{ at: number; fn: () => void }> = [];
  #immediates: Array<() => void> = [];
  #nextId = 1;

  readonly clock: HeartbeatClock = {
    now: () => this.now,
    setTimeout: (fn, ms) => {
      const id = this.#nextId++;
      this.#timers.push({ id, at: this.now + Math.max(1, ms), fn });
      return id;
    },
    clearTimeout: (id) => {
      this.#timers = this.#timers.filter((timer) => timer.id !== id);
    },
    afterIo: (fn) => {
      this.#immediates.push(fn);
    },
  };

  /** A frame that reaches this process's socket at `at`; it is read in the first I/O phase from then on. */
  arrive(at: number, fn: () => void): void {
    this.#io.push({ at, fn });
  }

  /** The event loop is blocked for `ms`: nothing runs. */
  block(ms: number): void {
    this.now += ms;
    this.#iterate();
  }

  /** Runs the loop, free, until `until`. */
  runUntil(until: number): void {
    for (;;) {
      this.#iterate();
      const next = Math.min(...this.#timers.map((timer) => timer.at), ...this.#io.map((frame) => frame.at));
      if (!(next <= until)) break;
      this.now = Math.max(this.now, next);
    }
    this.now = Math.max(this.now, until);
  }

  /** One turn: due timers (in order), then the I/O waiting, then immediates. */
  #iterate(): void {
    const due = this.#timers
      .filter((timer) => timer.at <= this.now)
      .sort((a, b) => a.at - b.at || a.id - b.id);
    this.#timers = this.#timers.filter((timer) => timer.at > this.now);
    for (const timer of due) timer.fn();
    const waiting = this.#io.filter((frame) => frame.at <= this.now);
    this.#io = this.#io.filter((frame) => frame.at > this.now);
    for (const frame of waiting) frame.fn();
    const immediates = this.#immediates.splice(0);
    for (const fn of immediates) fn();
  }
}

/** A heartbeat whose peer answers each ping `rttMs` later, until `peer.alive` is false. */
function setUp(intervalMs: number, rttMs = 5) {
  const loop = new SimulatedLoop();
  const peer = { alive: true, pings: [] as number[], deaths: [] as Array<{ at: number; silentMs: number }> };
  const heartbeat: Heartbeat = new Heartbeat({
    intervalMs,
    clock: loop.clock,
    ping: () => {
      peer.pings.push(loop.now);
      if (peer.alive) loop.arrive(loop.now + rttMs, () => heartbeat.heard());
    },
    dead: (silentMs) => peer.deaths.push({ at: loop.now, silentMs }),
  });
  return { loop, peer, heartbeat };
}

describe('Heartbeat', () => {
  it('pings every interval and gives up exactly two intervals after the last frame', () => {
    const { loop, peer } = setUp(1_000);
    loop.runUntil(3_500);
    expect(peer.pings).toEqual([1_000, 2_000, 3_000]);
    peer.alive = false; // the pong to the ping at 3,000 (heard at 3,005) is the last frame
    loop.runUntil(10_000);
    expect(peer.pings).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
    expect(peer.deaths).toEqual([{ at: 5_005, silentMs: 2_000 }]);
  });

  it('gives up two intervals after the start when nothing is ever heard', () => {
    const { loop, peer } = setUp(1_000);
    peer.alive = false;
    loop.runUntil(10_000);
    expect(peer.deaths).toEqual([{ at: 2_000, silentMs: 2_000 }]);
  });

  it('after a block longer than the window, reads the frames that arrived meanwhile before judging', () => {
    const { loop, peer } = setUp(1_000);
    loop.runUntil(1_001); // the ping at 1,000 is out; its pong arrives at 1,005, during the block
    loop.block(3_000);
    loop.runUntil(8_000);
    expect(peer.deaths).toEqual([]);
    expect(peer.pings.slice(0, 3)).toEqual([1_000, 4_001, 5_001]);
  });

  it('after the same block, a peer that really went silent is given up on at once, by the clock', () => {
    const { loop, peer } = setUp(1_000);
    loop.runUntil(999);
    peer.alive = false; // the ping at 1,000 is never answered
    loop.runUntil(1_001);
    loop.block(3_000);
    expect(peer.deaths).toEqual([{ at: 4_001, silentMs: 4_001 }]);
  });

  it('a block that kept pings from going out is not taken for silence: the peer gets one interval to answer', () => {
    const { loop, peer } = setUp(1_000);
    loop.runUntil(1_500); // the ping at 1,000 was answered at 1,005
    loop.block(5_000); // no ping could go out for 5 s
    expect(peer.pings).toEqual([1_000, 6_500]);
    loop.runUntil(7_000);
    expect(peer.deaths).toEqual([]);
  });

  it('on a loop blocked 600 ms of every 700, pings go out and a silent peer is noticed within 2 intervals + 2 blocks', () => {
    const { loop, peer } = setUp(1_000);
    const busy = (untilMs: number) => {
      while (loop.now < untilMs && peer.deaths.length === 0) {
        loop.block(600);
        loop.runUntil(loop.now + 100);
      }
    };
    busy(10_000);
    expect(peer.deaths).toEqual([]);
    expect(peer.pings.length).toBeGreaterThanOrEqual(Math.floor(10_000 / 1_600));
    peer.alive = false;
    const lastPing = peer.pings.at(-1) ?? 0;
    busy(60_000);
    expect(peer.deaths).toHaveLength(1);
    expect(peer.deaths[0]?.silentMs).toBeLessThanOrEqual(2_000 + 2 * 600 + 100);
    expect((peer.deaths[0]?.at ?? 0) - lastPing).toBeLessThanOrEqual(2_000 + 2 * 600 + 100);
  });

  it('stop() ends pings and verdicts', () => {
    const { loop, peer, heartbeat } = setUp(1_000);
    peer.alive = false;
    loop.runUntil(1_500);
    heartbeat.stop();
    loop.runUntil(10_000);
    expect(peer.pings).toEqual([1_000]);
    expect(peer.deaths).toEqual([]);
  });
});

describe('Heartbeat on the real clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ['back', -20_000],
    ['forward', 300_000],
  ])(
    'is not moved by a step of the wall clock %s: a silent peer is given up on two intervals after its last frame',
    (_, stepMs) => {
      vi.useFakeTimers();
      const pings: number[] = [];
      const deaths: number[] = [];
      const started = performance.now();
      const heartbeat = new Heartbeat({
        intervalMs: 1_000,
        ping: () => pings.push(performance.now() - started),
        dead: (silentMs) => deaths.push(silentMs),
      });
      vi.advanceTimersByTime(500);
      heartbeat.heard();
      // NTP, or a virtual machine's clock put right: Date.now() jumps, performance.now() does not.
      vi.setSystemTime(Date.now() + stepMs);
      vi.advanceTimersByTime(2_600);
      expect(pings).toEqual([1_000, 2_000]);
      expect(deaths).toEqual([2_000]);
      heartbeat.stop();
    },
  );

  it('gives the time a frame arrived on the real clock, and none on a clock of another time', () => {
    vi.useFakeTimers();
    vi.advanceTimersByTime(1_234);
    const real = new Heartbeat({ intervalMs: 1_000, ping: () => {}, dead: () => {} });
    // A call's deadline counts from this time, so it is performance.now()'s, faked or not.
    expect(real.heard()).toBe(performance.now());
    real.stop();
    const loop = new SimulatedLoop();
    loop.now = 50_000;
    const other = new Heartbeat({ intervalMs: 1_000, clock: loop.clock, ping: () => {}, dead: () => {} });
    expect(other.heard()).toBeUndefined();
    other.stop();
  });
});

describe('startHeartbeat', () => {
  it('logs the silence in whole milliseconds when the clock has fractions', () => {
    const loop = new SimulatedLoop();
    // performance.now() has fractions of a millisecond: the first reading is whole, the later ones are not.
    let reads = 0;
    const clock: HeartbeatClock = { ...loop.clock, now: () => loop.now + (reads++ === 0 ? 0 : 0.4) };
    const warnings: Array<[unknown, string]> = [];
    const logger = {
      debug() {},
      info() {},
      warn: (fields: unknown, message: string) => warnings.push([fields, message]),
      error() {},
    };
    let dead = 0;
    startHeartbeat(1_000, { clock, logger, ping() {}, dead: () => dead++ });
    loop.runUntil(5_000);
    expect(dead).toBe(1);
    expect(warnings).toEqual([
      [
        { intervalMs: 1_000, silentMs: 2_000 },
        'no frame from the service for 2000 ms (two heartbeat intervals of 1000 ms)',
      ],
    ]);
  });
});
