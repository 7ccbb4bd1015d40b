/**
 * The `step_result` frames of the calls this client runs (docs/protocol/steps.md): each completed step is sent at once,
 * with the feature `steps`, and kept until the call's result is acknowledged, to be sent again after a reconnect
 * (the service keeps the first result of each key, so a repeat is harmless).
 *
 * Owned by `CallUpdates` (./call-updates.ts).
 *
 * @module
 */
import type { StepRecord } from '../call/steps';
import { frameBytes } from '../wire/codec';
import type { ClientFrame, FrameOf } from '../wire/protocol';
import { CallMap } from './call-map';

/** A `step_result` frame, as {@link StepResults} sends it and keeps it until the call's result is acknowledged. */
export type StepFrame = FrameOf<ClientFrame, 'step_result'>;

/** The step results of every call of one client. */
export class StepResults {
  readonly #send: (frame: ClientFrame) => boolean;
  readonly #enabled: () => boolean;
  readonly #maxPayloadBytes: () => number;
  /** Per call id, its step results, in the order completed. */
  readonly #calls = new CallMap<StepFrame[]>();

  /**
   * @param send - writes a frame on the current socket (`false` when it cannot now).
   * @param enabled - `true` while the service takes the feature `steps`.
   * @param maxPayloadBytes - the service's frame limit, in UTF-8 bytes.
   */
  constructor(
    send: (frame: ClientFrame) => boolean,
    enabled: () => boolean,
    maxPayloadBytes: () => number = () => Number.POSITIVE_INFINITY,
  ) {
    this.#send = send;
    this.#enabled = enabled;
    this.#maxPayloadBytes = maxPayloadBytes;
  }

  /**
   * A step of a running call completed: its (already redacted, bounded) result goes to the service; the bytes of
   * its frame when it is kept until the call's result is acknowledged, else 0. A frame over the service's limit is offered once, so that
   * the socket reports it (`frame_too_large`, on the client's `error` event), and is not kept: the step is kept for
   * this process only, and `ctx.step()` has its result already.
   */
  step(record: StepRecord): number {
    if (!this.#enabled()) return 0;
    const frame: StepFrame = {
      type: 'step_result',
      callId: record.callId,
      key: record.key,
      result: record.result,
    };
    const bytes = frameBytes(frame);
    if (bytes > this.#maxPayloadBytes()) {
      this.#send(frame);
      return 0;
    }
    let frames = this.#calls.get(record.callId);
    if (frames === undefined) {
      frames = [];
      this.#calls.set(record.callId, frames);
    }
    frames.push(frame);
    this.#send(frame);
    return bytes;
  }

  /** The step results kept of `callId`, in the order completed (none without the feature). */
  of(callId: string): readonly StepFrame[] {
    return (this.#enabled() && this.#calls.get(callId)) || [];
  }

  /** The ids of the calls step results are kept of. */
  callIds(): Iterable<string> {
    return this.#calls.keys();
  }

  /** The call's result was acknowledged (or dropped): its steps are the service's now. */
  forget(callId: string): void {
    this.#calls.delete(callId);
  }
}
