/**
 * `LeaseRenewal`: the `lease` frames that keep the calls started here alive on the service (docs/protocol/lease.md),
 * one per interval for the calls the service heard nothing else of in it. When the service last heard of a call
 * is kept on the call itself ({@link LeasedCall}, the call runner's `Execution`), found through the calls the
 * runner holds: a held call costs no entry in a map of its own here.
 *
 * Owned by `CallUpdates` (./call-updates.ts); the lease as the call runner keeps it is ./leases.ts.
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../limits';
import { jsonStringBytes } from '../utf8';
import { type ClientFrame, MAX_LEASE_IDS } from '../wire/protocol';

/** A call the lease may cover, as the call runner holds it. */
export interface LeasedCall {
  readonly callId: string;
  /** When the service last heard of the call (`now()` time): `-Infinity` once it started; `undefined` before. */
  heardAt: number | undefined;
  /**
   * Set once the call updates keep something of the call until its result is acknowledged (an update, an event, a
   * step, a question): the call runner then tells them when it ends and when it is acked.
   */
  updated?: boolean;
}

/** The calls the call runner holds (queued, running or parked), by id. */
export interface HeldCalls {
  get(callId: string): LeasedCall | undefined;
  values(): Iterable<LeasedCall>;
}

/** What the lease renewal needs from the call updates. */
export interface LeaseRenewalOptions {
  /** Writes a frame on the current socket; `false` when it cannot now. */
  send(frame: ClientFrame): boolean;
  /** Monotonic time in milliseconds. */
  now(): number;
  calls: HeldCalls;
  /** The service's frame limit, in UTF-8 bytes: a renewal is split into frames that each fit (none: no bound). */
  maxPayloadBytes?(): number;
}

/** `{"type":"lease","callIds":[]}`: the bytes of a `lease` frame without its ids. */
const LEASE_FRAME_BYTES = 29;

/**
 * `calls` in batches of at most {@link MAX_LEASE_IDS} whose `lease` frame takes at most `limitBytes` (ids are at
 * most 256 characters, so with the documented minimum limit of 1,024 bytes each batch holds at least one).
 */
function* leaseBatches(calls: readonly LeasedCall[], limitBytes: number): Generator<LeasedCall[]> {
  let batch: LeasedCall[] = [];
  let bytes = LEASE_FRAME_BYTES;
  for (const call of calls) {
    const id = jsonStringBytes(call.callId);
    if (batch.length > 0 && (batch.length >= MAX_LEASE_IDS || bytes + 1 + id > limitBytes)) {
      yield batch;
      batch = [];
      bytes = LEASE_FRAME_BYTES;
    }
    bytes += id + (batch.length === 0 ? 0 : 1);
    batch.push(call);
  }
  if (batch.length > 0) yield batch;
}

/** The lease frames of one client's started calls. */
export class LeaseRenewal {
  readonly #options: LeaseRenewalOptions;
  /** Calls started and not ended. */
  #started = 0;
  #everyMs = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: LeaseRenewalOptions) {
    this.#options = options;
  }

  /** `true` when calls started here are leased (the feature, with its terms). */
  get leased(): boolean {
    return this.#everyMs > 0;
  }

  /**
   * Renews every `everyMs` milliseconds from now on, at most every {@link MAX_TIMEOUT_MS} (a longer interval, which
   * the service's terms may give, would fire every millisecond); `0`: no lease.
   */
  setInterval(everyMs: number): void {
    this.#everyMs = Math.min(everyMs, MAX_TIMEOUT_MS);
    this.#stop();
    // Without a lease the call runner tells of no call (it tells of the calls begun when a lease starts again).
    if (this.#everyMs === 0) this.#started = 0;
    this.#startIfNeeded();
  }

  /** A call started running here: leased from now on (with the feature). */
  started(call: LeasedCall): void {
    call.heardAt = Number.NEGATIVE_INFINITY;
    this.#started += 1;
    this.#startIfNeeded();
  }

  /**
   * A call has its result: no more lease for it. The timer is left to run: it stops at its next turn if no call is
   * started by then, so that calls one at a time do not each set and clear an interval.
   */
  ended(call: LeasedCall): void {
    if (call.heardAt === undefined) return;
    call.heardAt = undefined;
    this.#started = Math.max(0, this.#started - 1);
  }

  /**
   * The session resumed (`welcome.resumed: true`): every started call is renewed now, whatever was sent of it before
   * the drop (that may have died with the socket; the service leases the session's calls from the resume,
   * docs/protocol/lease.md), and the next renewal comes one interval from now.
   */
  resumed(): void {
    if (this.#everyMs === 0 || this.#started === 0) return;
    this.#stop();
    this.#renew(true);
    this.#startIfNeeded();
  }

  /** The service heard of the call (an update, a question, an event): a sign of life, as a `lease` frame is. */
  heard(callId: string, at: number): void {
    const call = this.#options.calls.get(callId);
    if (call?.heardAt !== undefined) call.heardAt = at;
  }

  /** Stops the timer (the client closed). */
  dispose(): void {
    this.#started = 0;
    this.#stop();
  }

  #startIfNeeded(): void {
    if (this.#timer !== undefined || this.#everyMs === 0 || this.#started === 0) return;
    this.#timer = setInterval(() => this.#renew(), this.#everyMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * One `lease` frame (or a few, 1,000 ids each) for the started calls the service heard nothing of lately, in the
   * order the calls arrived (the order of the held calls; docs/protocol/lease.md). The walk ends at the last started
   * call: calls queued for a slot arrived after every call that started (the queue is first in, first out), so a
   * renewal costs about the started calls, not the queue behind them. `all`: every started call (a resume).
   */
  #renew(all = false): void {
    if (this.#started === 0) {
      this.#stop();
      return;
    }
    const now = this.#options.now();
    const quiet: LeasedCall[] = [];
    let left = this.#started;
    for (const call of this.#options.calls.values()) {
      if (call.heardAt === undefined) continue;
      if (all || now - call.heardAt >= this.#everyMs - 1) quiet.push(call);
      left -= 1;
      if (left <= 0) break;
    }
    const limit = this.#options.maxPayloadBytes?.() ?? Number.POSITIVE_INFINITY;
    for (const calls of leaseBatches(quiet, limit)) {
      if (!this.#options.send({ type: 'lease', callIds: calls.map((call) => call.callId) })) return;
      for (const call of calls) call.heardAt = now;
    }
  }
}
