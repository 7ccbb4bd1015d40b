/**
 * The updates this client sends about calls it runs (PROTOCOL.md §18.1): each numbered per call and per type,
 * coalesced (at most one per call every {@link PROGRESS_INTERVAL_MS}, a newer one replacing one still waiting, the
 * last always sent before the call's result), and the latest of each sent again after a reconnect, before the
 * outbox, until the call's result is acknowledged. Only for features the service took in `welcome`.
 *
 * @module
 */
import type { ProgressUpdate } from '../call/types';
import type { Redactor } from '../logger';
import { type ClientFrame, type Feature, type FrameOf, PROGRESS_INTERVAL_MS } from '../wire/protocol';

type UpdateFrame = FrameOf<ClientFrame, 'tool_progress'>;

/** The latest update of one type for one call, and when one was last written. */
interface Slot {
  seq: number;
  /** The newest update (sent or waiting). */
  latest: UpdateFrame | undefined;
  /** A newer update waits for its turn (the interval since the last write has not passed). */
  waiting: boolean;
  /** When the last one was written (`now()` time); `-Infinity` before the first. */
  writtenAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** What the updates need from the client. */
export interface CallUpdatesOptions {
  /** Writes a frame on the current socket; `false` when it cannot now (it is sent again after a reconnect). */
  send(frame: ClientFrame): boolean;
  redactor: Redactor;
  /** Monotonic time in milliseconds. @default performance.now */
  now?: () => number;
}

/** Updates of every call of one client. Owned by `Client`; not exported from the package. */
export class CallUpdates {
  readonly #options: CallUpdatesOptions;
  readonly #now: () => number;
  #features: ReadonlySet<Feature> = new Set();
  /** Per call id, the progress slot (only calls that reported progress have one). */
  readonly #progress = new Map<string, Slot>();

  constructor(options: CallUpdatesOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The features the service took on the current socket (from `welcome.features`). */
  setFeatures(features: readonly string[] | undefined): void {
    this.#features = new Set((features ?? []) as Feature[]);
  }

  /** `true` when the service took `feature` on the current socket. */
  has(feature: Feature): boolean {
    return this.#features.has(feature);
  }

  /** `ctx.progress()` of a running call (one function for every call: it is `onProgress`). */
  readonly progress = (update: ProgressUpdate): void => {
    if (!this.#features.has('progress')) return;
    let slot = this.#progress.get(update.callId);
    if (slot === undefined) {
      slot = {
        seq: 0,
        latest: undefined,
        waiting: false,
        writtenAt: Number.NEGATIVE_INFINITY,
        timer: undefined,
      };
      this.#progress.set(update.callId, slot);
    }
    slot.seq += 1;
    const frame: UpdateFrame = {
      type: 'tool_progress',
      callId: update.callId,
      seq: slot.seq,
      progress: update.progress,
    };
    if (update.total !== undefined) frame.total = update.total;
    if (update.message !== undefined) frame.message = this.#options.redactor.text(update.message);
    this.#offer(slot, frame);
  };

  /** The call's result is about to be written: whatever update still waits goes first. */
  beforeResult(callId: string): void {
    const slot = this.#progress.get(callId);
    if (slot?.waiting) this.#write(slot);
  }

  /** The call's result was acknowledged (or dropped): its updates are no longer needed. */
  forget(callId: string): void {
    const slot = this.#progress.get(callId);
    if (slot === undefined) return;
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    this.#progress.delete(callId);
  }

  /** A socket (re)opened: the latest update of every call still known goes again (the `seq` makes it harmless). */
  reconnected(): void {
    for (const slot of this.#progress.values()) {
      if (slot.latest !== undefined && this.#features.has('progress')) this.#write(slot);
    }
  }

  /** Stops every timer (the client closed). */
  dispose(): void {
    for (const callId of [...this.#progress.keys()]) this.forget(callId);
  }

  /** Writes now if the interval since the last write has passed, else keeps it for when it has. */
  #offer(slot: Slot, frame: UpdateFrame): void {
    slot.latest = frame;
    const wait = slot.writtenAt + PROGRESS_INTERVAL_MS - this.#now();
    if (wait <= 0) {
      this.#write(slot);
      return;
    }
    slot.waiting = true;
    slot.timer ??= setTimeout(() => {
      slot.timer = undefined;
      if (slot.waiting) this.#write(slot);
    }, wait);
  }

  #write(slot: Slot): void {
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.waiting = false;
    slot.writtenAt = this.#now();
    if (slot.latest !== undefined) this.#options.send(slot.latest);
  }
}
