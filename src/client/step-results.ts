/**
 * The `step_result` frames of the calls this client runs (PROTOCOL.md §18.11): each completed step is sent at once,
 * with the feature `steps`, and kept until the call's result is acknowledged, to be sent again after a reconnect
 * (the service keeps the first result of each key, so a repeat is harmless).
 *
 * @module
 */
import type { StepRecord } from '../call/steps';
import type { ClientFrame, FrameOf } from '../wire/protocol';
import { frameBytes } from './frame-fit';

type StepFrame = FrameOf<ClientFrame, 'step_result'>;

/** The step results of every call of one client. */
export class StepResults {
  readonly #send: (frame: ClientFrame) => boolean;
  readonly #enabled: () => boolean;
  readonly #maxPayloadBytes: () => number;
  /** Per call id, its step results, in the order completed. */
  readonly #calls = new Map<string, StepFrame[]>();

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
   * A step of a running call completed: its (already redacted, bounded) result goes to the service. A frame over
   * the service's limit is offered once, so that the socket reports it (`frame_too_large`, on the client's `error`
   * event), and is not kept: the step is kept for this process only, and `ctx.step()` has its result already.
   */
  step(record: StepRecord): void {
    if (!this.#enabled()) return;
    const frame: StepFrame = {
      type: 'step_result',
      callId: record.callId,
      key: record.key,
      result: record.result,
    };
    if (frameBytes(frame) > this.#maxPayloadBytes()) {
      this.#send(frame);
      return;
    }
    let frames = this.#calls.get(record.callId);
    if (frames === undefined) {
      frames = [];
      this.#calls.set(record.callId, frames);
    }
    frames.push(frame);
    this.#send(frame);
  }

  /** A socket (re)opened: every step result still kept goes again. */
  reconnected(): void {
    if (!this.#enabled()) return;
    for (const frames of this.#calls.values()) for (const frame of frames) this.#send(frame);
  }

  /** The call's result was acknowledged (or dropped): its steps are the service's now. */
  forget(callId: string): void {
    this.#calls.delete(callId);
  }
}
