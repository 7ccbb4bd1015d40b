/**
 * `SlotlessWaits`: the service is told which calls wait in this client holding no slot, their tool not begun, and
 * which of those go on, so that it counts their slots as free and sends this client calls that could run at once.
 * One instance per kind of wait, each its own feature and frame:
 *
 * - `key_waits` (docs/protocol/fleets.md): calls waiting for their concurrency key's turn. Only calls that wait for
 *   their key are named: a client without tools with `concurrency` sends nothing.
 * - `approval_waits` (docs/protocol/approvals.md): calls waiting for the client's own approver (`onApproval`
 *   answered with a promise: a person, say). Made only for a client with `onApproval`.
 *
 * The changes of one task (and of the promises it settles) go in one frame; a call that waits and goes on within
 * it is not named.
 *
 * @module
 */

import { jsonStringBytes } from '../utf8';
import { afterIo } from '../wire/heartbeat';
import { type ClientFrame, type FrameOf, MAX_APPROVAL_WAIT_IDS, MAX_KEY_WAIT_IDS } from '../wire/protocol';

/** What {@link SlotlessWaits} needs of the socket. */
export interface SlotlessWaitsSocket {
  /** Writes a frame on the current socket; `false` when it cannot now. */
  send(frame: ClientFrame): boolean;
  readonly maxPayloadBytes: number;
}

/** The frame (and feature) of a kind of wait. */
export type SlotlessWait = 'key_waits' | 'approval_waits';

/** Most ids in each list of the frame of each kind. */
const MAX_IDS: Readonly<Record<SlotlessWait, number>> = {
  key_waits: MAX_KEY_WAIT_IDS,
  approval_waits: MAX_APPROVAL_WAIT_IDS,
};

/** The calls of one client that wait without a slot for one reason, as the service is told of them. */
export class SlotlessWaits {
  readonly #socket: SlotlessWaitsSocket;
  readonly #type: SlotlessWait;
  /** `{"type":"<type>","waiting":[],"running":[]}`: the bytes of a frame without its ids. */
  readonly #frameBytes: number;
  /** The feature is on for this socket. */
  #on = false;
  /** Calls the service is told (or is about to be told) wait: at most the calls held. */
  readonly #waiting = new Set<string>();
  /** Calls to name in the next frame: `true` waiting, `false` going on. */
  readonly #pending = new Map<string, boolean>();
  #due = false;

  constructor(socket: SlotlessWaitsSocket, type: SlotlessWait) {
    this.#socket = socket;
    this.#type = type;
    this.#frameBytes = JSON.stringify({ type, waiting: [], running: [] }).length;
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

  /** A call begins to wait. */
  waiting(callId: string): void {
    if (!this.#on || this.#waiting.has(callId)) return;
    this.#waiting.add(callId);
    this.#pending.set(callId, true);
    this.#schedule();
  }

  /** A call named waiting goes on (it holds its slots again). */
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
    // Once the task and the promises it settled are done, not at the next microtask: an approver that answers at
    // once with a promise (an `async` rule) answers within them, and its call is then never named.
    afterIo(() => {
      this.#due = false;
      this.#flush();
    });
  }

  /** Writes the pending changes, in frames of at most {@link MAX_IDS} ids a list that fit the frame limit. */
  #flush(): void {
    if (this.#pending.size === 0) return;
    const limit = this.#socket.maxPayloadBytes;
    const maxIds = MAX_IDS[this.#type];
    let waiting: string[] = [];
    let running: string[] = [];
    let bytes = this.#frameBytes;
    const send = (): boolean => {
      const frame: FrameOf<ClientFrame, SlotlessWait> = { type: this.#type };
      if (waiting.length > 0) frame.waiting = waiting;
      if (running.length > 0) frame.running = running;
      waiting = [];
      running = [];
      bytes = this.#frameBytes;
      return this.#socket.send(frame);
    };
    for (const [callId, waits] of this.#pending) {
      const list = waits ? waiting : running;
      const idBytes = jsonStringBytes(callId) + 1;
      if (list.length >= maxIds || (bytes + idBytes > limit && waiting.length + running.length > 0)) {
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
