/**
 * The outbox through a whole client on an in-memory socket pair: results held until their ack, written again in
 * order on a resumed socket, acked in any order, with re-delivered calls answered from the outbox and never run
 * twice, `maxOutboxBytes` and `close()`'s drain.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client, tool } from '../../src/index';
import type { ClientFrame } from '../../src/wire/protocol';
import { type MemoryPeer, memorySocketPair } from '../helpers/memory-socket';
import { FAKE_URL, welcome } from './fake-service';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(extra: Partial<ConstructorParameters<typeof Client>[0]> = {}) {
  const ran: string[] = [];
  const echo = tool({
    name: 'echo',
    description: 'Echoes its call id.',
    execute: (_input: unknown, ctx) => {
      ran.push(ctx.callId);
      return `${ctx.callId}:${'x'.repeat(200)}`;
    },
  });
  const pair = memorySocketPair({
    onConnection(peer) {
      const resumed = pair.peers.length > 1;
      peer.onMessage = (text) => {
        if ((JSON.parse(text) as { type: string }).type === 'hello') peer.send(welcome('s1', { resumed }));
      };
    },
  });
  const client = new Client({
    url: FAKE_URL,
    WebSocket: pair.WebSocket,
    apiKey: 'key-123456',
    tools: [echo],
    reconnect: { initialDelayMs: 10, maxDelayMs: 10 },
    ...extra,
  });
  const peer = (n: number) => pair.peers[n] as MemoryPeer;
  const results = (n: number) =>
    peer(n)
      .received.map((text) => JSON.parse(text) as ClientFrame)
      .filter((frame) => frame.type === 'tool_result')
      .map((frame) => (frame as { callId: string }).callId);
  const call = (n: number, callId: string, acks?: string[]) =>
    peer(n).send({
      type: 'tool_call',
      callId,
      runId: 'r1',
      toolName: 'echo',
      arguments: {},
      ...(acks ? { acks } : {}),
    });
  const settle = () => vi.advanceTimersByTimeAsync(0);
  return { client, pair, peer, results, call, ran, settle };
}

describe('Outbox delivery over a socket', () => {
  it('writes the results held again, once each and in order, on the resumed socket, after out-of-order acks', async () => {
    const { client, peer, results, call, ran, settle } = setup();
    await client.connect();
    for (const callId of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']) call(0, callId);
    await settle();
    expect(results(0)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    peer(0).send({ type: 'ack', callId: 'c5', callIds: ['c2', 'c5', 'nope', 'c2'] });
    await settle();
    expect(client.stats.unacked).toBe(4);
    peer(0).fail();
    await vi.advanceTimersByTimeAsync(20);
    expect(client.state).toBe('open');
    expect(results(1)).toEqual(['c1', 'c3', 'c4', 'c6']);
    // Re-delivered while held: written again, not run again; after its ack: ignored.
    call(1, 'c3', ['c1', 'c4']);
    await settle();
    expect(results(1)).toEqual(['c1', 'c3', 'c4', 'c6', 'c3']);
    call(1, 'c1');
    call(1, 'c2');
    await settle();
    expect(results(1)).toEqual(['c1', 'c3', 'c4', 'c6', 'c3']);
    expect(ran).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    expect(client.stats.unacked).toBe(2);
    peer(1).send({ type: 'ack', callId: 'c6', callIds: ['c3'] });
    await settle();
    expect(client.stats.unacked).toBe(0);
    await client.close({ drain: false });
  });

  it('takes calls again once acks in any order bring the outbox back under maxOutboxBytes', async () => {
    const { client, peer, results, call, ran, settle } = setup({ maxOutboxBytes: 1_000 });
    await client.connect();
    for (let i = 0; i < 6; i++) call(0, `c${i}`);
    await settle();
    // Each result counts ~330 bytes: the fifth call finds the outbox full and is answered busy, as the sixth.
    const retryable = (from: number) =>
      peer(0)
        .received.slice(from)
        .map((text) => JSON.parse(text) as { retryable?: boolean; callId: string })
        .filter((frame) => frame.retryable === true)
        .map((frame) => frame.callId);
    expect([ran, retryable(0), client.stats.unacked]).toEqual([['c0', 'c1', 'c2', 'c3'], ['c4', 'c5'], 4]);
    // Acked newest first, in one frame: every byte counted is let go of, so four calls fit again.
    peer(0).send({ type: 'ack', callId: 'c3', callIds: ['c2', 'c1', 'c0'] });
    await settle();
    expect(client.stats.unacked).toBe(0);
    const before = peer(0).received.length;
    for (let i = 6; i < 12; i++) call(0, `c${i}`);
    await settle();
    expect([ran.slice(4), retryable(before)]).toEqual([
      ['c6', 'c7', 'c8', 'c9'],
      ['c10', 'c11'],
    ]);
    // Acked in a shuffled order, with duplicates: the same again.
    peer(0).send({ type: 'ack', callId: 'c8', callIds: ['c6', 'c8', 'c9', 'c7', 'c6'] });
    await settle();
    const again = peer(0).received.length;
    for (let i = 12; i < 18; i++) call(0, `c${i}`);
    await settle();
    expect([ran.slice(8), retryable(again)]).toEqual([
      ['c12', 'c13', 'c14', 'c15'],
      ['c16', 'c17'],
    ]);
    expect(results(0).filter((callId) => !retryable(0).includes(callId))).toEqual(ran);
    await client.close({ drain: false });
  });

  it('drains on close() until every result held is acked, whatever the order of the acks', async () => {
    const { client, peer, call, settle } = setup();
    await client.connect();
    for (const callId of ['c1', 'c2', 'c3']) call(0, callId);
    await settle();
    let closed = false;
    const closing = client.close({ timeoutMs: 10_000 }).then(() => {
      closed = true;
    });
    peer(0).send({ type: 'ack', callId: 'c3' });
    peer(0).send({ type: 'ack', callId: 'c1' });
    await settle();
    expect([closed, client.stats.unacked]).toEqual([false, 1]);
    peer(0).send({ type: 'ack', callId: 'c2' });
    await vi.advanceTimersByTimeAsync(10);
    await closing;
    expect([closed, client.stats.unacked]).toEqual([true, 0]);
  });
});
