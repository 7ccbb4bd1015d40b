/**
 * The outbox against a reference model (a `Map` by call id in add order): seeded random sequences of results
 * added, acked (in order, out of order, twice, unknown), re-delivered, replaced as unsendable, written on a new
 * socket, and held while the socket is not writable.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCallResult } from '../../src/call/types';
import { HeldResult, type ToolResultFrame } from '../../src/client/outbox';
import type { ClientFrame } from '../../src/wire/protocol';
import { seededRandom } from '../support/tcp-proxy';
import { same } from './call-runner-harness';
import { outboxOn } from './outbox-harness';

const ok = (output: string): ToolCallResult => ({ status: 'ok', output, durationMs: 0 });

interface Modelled {
  frame: ToolResultFrame;
  bytes: number;
}

function run(seed: number, steps: number): void {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const sent: ClientFrame[] = [];
  const socket = {
    writable: true,
    bufferedAmount: 0,
    maxPayloadBytes: 1_048_576,
    send(frame: ClientFrame): boolean {
      sent.push(frame);
      return true;
    },
  };
  const { outbox } = outboxOn(socket, { highWaterMarkBytes: 1_000_000 });
  const model = new Map<string, Modelled>();
  const everAdded: string[] = [];
  /** Held and not written on this socket yet (added, re-delivered or reconnected while it was not writable). */
  const unsent = new Set<string>();
  let next = 0;
  const ids = () => [...model.keys()];
  const written = (from: number) => sent.slice(from).map((frame) => (frame as { callId: string }).callId);
  const check = (step: string) => {
    same(outbox.size, model.size, step);
    let bytes = 0;
    for (const entry of model.values()) bytes += entry.bytes;
    same(outbox.bytes, bytes, step);
    const oldest = ids()[0];
    if ('oldest' in outbox) same(outbox.oldest?.callId, oldest, step);
  };
  for (let i = 0; i < steps; i++) {
    const roll = random();
    const before = sent.length;
    let step: string;
    if (roll < 0.3) {
      const callId = `c${next++}`;
      step = `add ${callId}`;
      const was = outbox.bytes;
      const frame = outbox.add(
        new HeldResult(callId, 'r1', 'echo', {}),
        ok('x'.repeat(Math.floor(random() * 40))),
        0,
      );
      model.set(callId, { frame, bytes: outbox.bytes - was });
      everAdded.push(callId);
      if (!socket.writable) unsent.add(callId);
      same(written(before), socket.writable ? [callId] : [], step);
    } else if (roll < 0.6) {
      // In order mostly, else any held, acked or unknown id.
      const kind = random();
      const callId =
        kind < 0.5 && model.size > 0
          ? (ids()[0] as string)
          : kind < 0.8 && model.size > 0
            ? pick(ids())
            : kind < 0.95 && everAdded.length > 0
              ? pick(everAdded)
              : `unknown${i}`;
      step = `ack ${callId}`;
      outbox.ack(callId);
      model.delete(callId);
      unsent.delete(callId);
      same(written(before), [], step);
    } else if (roll < 0.7) {
      const callId = random() < 0.8 && model.size > 0 ? pick(ids()) : pick([...everAdded, 'none']);
      step = `resend ${callId}`;
      same(outbox.resend(callId), model.has(callId), step);
      same(written(before), socket.writable && model.has(callId) ? [callId] : [], step);
      if (!socket.writable && model.has(callId)) unsent.add(callId);
      else unsent.delete(callId);
    } else if (roll < 0.78) {
      step = 'reconnected';
      outbox.reconnected();
      same(written(before), socket.writable ? ids() : [], step);
      if (!socket.writable) for (const callId of ids()) unsent.add(callId);
      else unsent.clear();
    } else if (roll < 0.85) {
      step = `writable ${!socket.writable}`;
      socket.writable = !socket.writable;
      if (socket.writable) {
        outbox.flush();
        // What was added while it was not writable, in order (written before on this socket: not again).
        same(
          written(before),
          ids().filter((callId) => unsent.has(callId)),
          step,
        );
        unsent.clear();
      }
    } else if (roll < 0.93) {
      const callId = random() < 0.8 && model.size > 0 ? pick(ids()) : pick([...everAdded, 'none']);
      step = `unsendable ${callId}`;
      const entry = model.get(callId);
      const stale = entry === undefined ? undefined : random() < 0.1;
      const frame =
        entry?.frame ?? ({ type: 'tool_result', callId, status: 'ok', output: '' } as ToolResultFrame);
      const was = outbox.bytes;
      const done = outbox.unsendable(stale ? ({ ...frame } as ToolResultFrame) : frame, 'send_failed');
      if (entry === undefined || stale) same(done, 'not held', step);
      else if (entry.frame.status === 'error') {
        same(done, 'dropped', step);
        model.delete(callId);
        unsent.delete(callId);
      } else {
        same(done, 'replaced', step);
        same(outbox.statusOf(callId), 'error', step);
        const replaced = outbox.callOf(callId) as HeldResult;
        model.set(callId, { frame: replaced.frame, bytes: entry.bytes + outbox.bytes - was });
        unsent.add(callId); // written at the next flush
      }
    } else {
      const callId = random() < 0.5 && model.size > 0 ? pick(ids()) : pick([...everAdded, 'none']);
      step = `look up ${callId}`;
      same(outbox.callOf(callId)?.callId, model.has(callId) ? callId : undefined, step);
      same(outbox.statusOf(callId), model.get(callId)?.frame.status, step);
    }
    check(`seed ${seed} step ${i}: ${step}`);
  }
  // A new socket gets every result held, once, oldest first; close lets go of them in the same order.
  socket.writable = true;
  const before = sent.length;
  outbox.reconnected();
  expect(written(before)).toEqual(ids());
  expect(outbox.close()).toEqual(ids());
  expect([outbox.size, outbox.bytes]).toEqual([0, 0]);
}

describe('Outbox, against a Map of the results held', () => {
  it('agrees over 400 seeded random sequences of adds, acks, re-deliveries, reconnects and unsendable results', () => {
    for (let seed = 1; seed <= 400; seed++) run(seed, 300);
  });
});

/**
 * The same, with a socket that acks results (the one being written, or another) and has calls end while a result is
 * written: the outbox is changed in the middle of its own writes and walks.
 */
function reentrant(seed: number, steps: number): void {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const model = new Map<string, HeldResult>();
  let next = 0;
  let depth = 0;
  const sent: string[] = [];
  /** Written on this socket (since the last reconnect). */
  const sentHere = new Set<string>();
  const ids = () => [...model.keys()];
  const add = () => {
    const callId = `c${next++}`;
    const held = new HeldResult(callId, 'r1', 'echo', {});
    model.set(callId, held);
    outbox.add(held, ok('x'.repeat(Math.floor(random() * 40))), 0);
  };
  const ack = (callId: string) => {
    outbox.ack(callId);
    model.delete(callId);
  };
  const socket = {
    writable: true,
    bufferedAmount: 0,
    maxPayloadBytes: 1_048_576,
    send(frame: ClientFrame): boolean {
      const { callId } = frame as { callId: string };
      sent.push(callId);
      sentHere.add(callId);
      if (depth < 3) {
        depth += 1;
        const roll = random();
        if (roll < 0.3) ack(callId);
        else if (roll < 0.45 && model.size > 0) ack(pick(ids()));
        else if (roll < 0.55) add();
        else if (roll < 0.6 && model.size > 0) outbox.resend(pick(ids()));
        depth -= 1;
      }
      return true;
    },
  };
  const { outbox } = outboxOn(socket, { highWaterMarkBytes: 1_000_000 });
  for (let i = 0; i < steps; i++) {
    const roll = random();
    if (roll < 0.35) add();
    else if (roll < 0.6 && model.size > 0) ack(random() < 0.5 ? (ids()[0] as string) : pick(ids()));
    else if (roll < 0.7) {
      sentHere.clear();
      outbox.reconnected();
    } else if (roll < 0.8) socket.writable = !socket.writable;
    else if (roll < 0.9) outbox.flush();
    else if (model.size > 0) outbox.resend(pick(ids()));
    const where = `seed ${seed} step ${i}`;
    same(outbox.size, model.size, where);
    let bytes = 0;
    for (const held of model.values()) bytes += held.bytes;
    same(outbox.bytes, bytes, where);
    same(outbox.oldest?.callId, ids()[0], where);
    for (const callId of ids()) same(outbox.callOf(callId)?.callId, callId, where);
    // Nothing waits to be written: every result held went out on this socket.
    if (socket.writable && !outbox.waiting)
      same(
        ids().filter((callId) => !sentHere.has(callId)),
        [],
        where,
      );
  }
  socket.writable = true;
  depth = 3; // no more changes while written
  const before = sent.length;
  outbox.reconnected();
  expect(sent.slice(before)).toEqual(ids());
  expect(outbox.close()).toEqual(ids());
}

describe('Outbox, changed while it writes, against a Map of the results held', () => {
  it('agrees over 400 seeded random sequences where writing a result acks, adds or re-delivers others', () => {
    for (let seed = 1; seed <= 400; seed++) reentrant(seed, 200);
  });
});
