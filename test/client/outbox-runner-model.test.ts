/**
 * A call runner's results against a reference model: seeded random sequences of new calls, re-delivered calls
 * (held, acked), acks (alone, batched, riding on calls, duplicated, unknown), reconnects and unreadable calls,
 * checking that each call runs once and that each result held is written as the protocol says.
 */
import { describe, expect, it } from 'vitest';
import type { ServiceFrame } from '../../src/wire/protocol';
import { seededRandom } from '../support/tcp-proxy';
import { callIds, nextTask, recording, recordsCalls, same } from './call-runner-harness';

function run(seed: number, steps: number): void {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let writable = true;
  const echo = recordsCalls('echo');
  const { calls, sent } = recording([echo.tool], { writable: () => writable });
  /** Results held, in the order they were added. */
  const held = new Map<string, 'ok' | 'error'>();
  const acked = new Set<string>();
  const ranOnce: string[] = [];
  let next = 0;
  const ids = () => [...held.keys()];
  const tool_call = (callId: string, acks?: string[]): ServiceFrame => ({
    type: 'tool_call',
    callId,
    runId: 'r1',
    toolName: 'echo',
    arguments: {},
    ...(acks === undefined ? {} : { acks }),
  });
  const someAcks = (): string[] => {
    const out: string[] = [];
    const count = Math.floor(random() * 4);
    for (let k = 0; k < count; k++) {
      const r = random();
      if (r < 0.4 && held.size > 0) out.push(ids()[0] as string);
      else if (r < 0.8 && held.size > 0) out.push(pick(ids()));
      else if (r < 0.9 && acked.size > 0) out.push(pick([...acked]));
      else out.push(`unknown${k}`);
    }
    return out;
  };
  /** Held and not written on this socket yet: written, in order, with the next result written. */
  const unsent = new Set<string>();
  const applyAcks = (list: string[]) => {
    for (const callId of list) {
      unsent.delete(callId);
      if (held.delete(callId)) acked.add(callId);
    }
  };
  /** What is written when `callId`'s result is to be written (added, or its call re-delivered). */
  const writes = (callId: string): string[] => {
    unsent.add(callId);
    if (!writable) return [];
    const out = ids().filter((id) => unsent.has(id));
    unsent.clear();
    return out;
  };
  for (let i = 0; i < steps; i++) {
    const before = sent.length;
    const roll = random();
    let step: string;
    let expected: string[];
    if (roll < 0.35) {
      const callId = `c${next++}`;
      const acks = random() < 0.3 ? someAcks() : undefined;
      step = `call ${callId} acks ${acks}`;
      calls.handle(tool_call(callId, acks));
      if (acks) applyAcks(acks);
      held.set(callId, 'ok');
      ranOnce.push(callId);
      expected = writes(callId);
    } else if (roll < 0.45) {
      const callId = random() < 0.7 && held.size > 0 ? pick(ids()) : pick([...acked, `r${i}`]);
      step = `re-delivered ${callId}`;
      calls.handle(tool_call(callId));
      if (held.has(callId)) expected = writes(callId);
      else if (ranOnce.includes(callId)) expected = [];
      else {
        held.set(callId, 'ok');
        ranOnce.push(callId);
        expected = writes(callId);
      }
    } else if (roll < 0.7) {
      const acks = someAcks();
      step = `ack ${acks}`;
      if (acks.length > 0) {
        const [first, ...rest] = acks;
        calls.handle({
          type: 'ack',
          callId: first,
          ...(rest.length > 0 ? { callIds: rest } : {}),
        } as ServiceFrame);
      }
      applyAcks(acks);
      expected = [];
    } else if (roll < 0.8) {
      step = 'reconnected';
      calls.reconnected();
      for (const callId of ids()) unsent.add(callId);
      expected = writable ? ids() : [];
      if (writable) unsent.clear();
    } else if (roll < 0.88) {
      writable = !writable;
      step = `writable ${writable}`;
      // No flush from the runner here: the client flushes on its socket's drain or a reconnect.
      expected = [];
    } else {
      const callId =
        random() < 0.5 && held.size > 0
          ? pick(ids())
          : random() < 0.5
            ? pick([...acked, `r${i}`])
            : `u${next++}`;
      step = `unreadable ${callId}`;
      calls.unreadable(callId, { toolName: 'echo', runId: 'r1' }, 'bad');
      if (held.has(callId)) expected = writes(callId);
      else if (acked.has(callId) || ranOnce.includes(callId)) expected = [];
      else {
        held.set(callId, 'error');
        ranOnce.push(callId);
        expected = writes(callId);
      }
    }
    const where = `seed ${seed} step ${i}: ${step}`;
    same(callIds(sent.slice(before)), expected, where);
    same(calls.unacked, held.size, where);
  }
  // Each call ran once.
  expect(new Set(echo.ran).size).toBe(echo.ran.length);
  writable = true;
  const before = sent.length;
  calls.reconnected();
  expect(callIds(sent.slice(before))).toEqual(ids());
}

describe('Call runner results, against a Map of the results held', () => {
  it('agree over 300 seeded random sequences of calls, re-deliveries, acks, reconnects and unreadable calls', () => {
    for (let seed = 1; seed <= 300; seed++) run(seed, 200);
  });
});

describe('Call runner results held while the finished ids forget', () => {
  it('answers each held call from the outbox, whichever is acked first, and ignores a call acked 5,000 calls back', async () => {
    const echo = recordsCalls('echo');
    const { calls, call, sent } = recording([echo.tool], { maxQueue: 30_000 });
    for (const callId of ['a', 'b', 'c']) call(callId, 'echo');
    for (let i = 0; i < 25_000; i += 100) {
      for (let k = i; k < i + 100; k++) call(`n${k}`, 'echo');
      await nextTask();
      calls.handle({
        type: 'ack',
        callId: `n${i}`,
        callIds: Array.from({ length: 99 }, (_, k) => `n${i + k + 1}`),
      });
    }
    expect(calls.unacked).toBe(3);
    const from = sent.length;
    call('b', 'echo'); // held, its id forgotten: written again
    call('fresh', 'echo'); // new: runs
    await nextTask();
    calls.ack('a'); // the oldest, acked: the oldest held is now b, forgotten too
    call('c', 'echo');
    call('a', 'echo'); // acked, forgotten: the service never sends it again; a client runs it (delivery.md)
    call('n20000', 'echo'); // acked 5,000 calls back: ignored
    await nextTask();
    expect(callIds(sent.slice(from))).toEqual(['b', 'fresh', 'c', 'a']);
    expect(echo.ran.filter((callId) => ['a', 'b', 'c', 'fresh', 'n20000'].includes(callId))).toEqual([
      'a',
      'b',
      'c',
      'n20000',
      'fresh',
      'a',
    ]);
    expect(calls.unacked).toBe(4);
  });
});
