/**
 * `KeyWaits`: with the feature `key_waits` (docs/protocol/fleets.md), the service is told which calls wait for their
 * concurrency key's turn (they hold no slot here) and which of those go on, so that it counts their slots as free
 * and sends this client calls another key could run at once. The changes of one task go in one `key_waits` frame;
 * a call that waits and goes on within it is not named. Only calls that wait for their key are ever named: a client
 * without tools with `concurrency` sends nothing.
 *
 * @module
 */

import { jsonStringBytes } from '../utf8';
import { type ClientFrame, type FrameOf, MAX_KEY_WAIT_IDS } from '../wire/protocol';

/** What {@link KeyWaits} needs of the socket. */
export interface KeyWaitsSocket {
  /** Writes a frame on the current socket; `false` when it cannot now. */
  send(frame: ClientFrame): boolean;
  readonly maxPayloadBytes: number;
}

/** `{"type":"key_waits","waiting":[],"running":[]}`: the bytes of a frame without its ids. */
const FRAME_BYTES = 46;

/** The `key_waits` of one client. */
export class KeyWaits {
  readonly #socket: KeyWaitsSocket;
  /** The feature is on for this socket. */
  #on = false;
  /** Calls the service is told (or is about to be told) wait for their key: at most the calls held. */
  readonly #waiting = new Set<string>();
  /** Calls to name in the next frame: `true` waiting, `false` going on. */
  readonly #pending = new Map<string, boolean>();
  #due = false;

  constructor(socket: KeyWaitsSocket) {
    this.#socket = socket;
  }

  /**
   * `welcome` came: whether the service took the feature. On a resumed session it counts every call as holding
   * its slots again, so the calls still waiting are named again; a new session knows none of them.
   */
  welcomed(on: boolean, resumed: boolean): void {
    this.#on = on;
    this.#pending.clear();
    if (!on || !resumed) {
      this.#waiting.clear();
      return;
    }
    for (const callId of this.#waiting) this.#pending.set(callId, true);
    this.#schedule();
  }

  /** A call begins to wait for its key's turn. */
  waiting(callId: string): void {
    if (!this.#on || this.#waiting.has(callId)) return;
    this.#waiting.add(callId);
    this.#pending.set(callId, true);
    this.#schedule();
  }

  /** A call named waiting goes on (its tool begins, holding its slots). */
  running(callId: string): void {
    if (!this.#waiting.delete(callId)) return;
    // Not told yet that it waited: nothing to tell.
    if (this.#pending.get(callId) === true) this.#pending.delete(callId);
    else {
      this.#pending.set(callId, false);
      this.#schedule();
    }
  }

  /** A call ended: its result tells the service. */
  ended(callId: string): void {
    if (this.#waiting.size === 0 && this.#pending.size === 0) return;
    this.#waiting.delete(callId);
    this.#pending.delete(callId);
  }

  #schedule(): void {
    if (this.#due) return;
    this.#due = true;
    queueMicrotask(() => {
      this.#due = false;
      this.#flush();
    });
  }

  /** Writes the pending changes, in frames of at most {@link MAX_KEY_WAIT_IDS} ids a list that fit the frame limit. */
  #flush(): void {
    if (this.#pending.size === 0) return;
    const limit = this.#socket.maxPayloadBytes;
    let waiting: string[] = [];
    let running: string[] = [];
    let bytes = FRAME_BYTES;
    const send = (): boolean => {
      const frame: FrameOf<ClientFrame, 'key_waits'> = { type: 'key_waits' };
      if (waiting.length > 0) frame.waiting = waiting;
      if (running.length > 0) frame.running = running;
      waiting = [];
      running = [];
      bytes = FRAME_BYTES;
      return this.#socket.send(frame);
    };
    for (const [callId, waits] of this.#pending) {
      const list = waits ? waiting : running;
      const idBytes = jsonStringBytes(callId) + 1;
      if (
        list.length >= MAX_KEY_WAIT_IDS ||
        (bytes + idBytes > limit && waiting.length + running.length > 0)
      ) {
        // A frame that cannot go now (the socket is down) is left: the next welcome names the waiting calls again.
        if (!send()) break;
      }
      (waits ? waiting : running).push(callId);
      bytes += idBytes;
    }
    if (waiting.length + running.length > 0) send();
    this.#pending.clear();
  }
}
