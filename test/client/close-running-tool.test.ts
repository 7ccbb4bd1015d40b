/**
 * A tool that ignores `ctx.signal` goes on running after its call was answered (cancelled, timed out, or aborted by
 * `close()`): `stats.running` counts it until `execute` returns, a drain waits for it within `timeoutMs`, and what it
 * returns late is dropped: no frame, no event, no timer left.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, tool } from '../../src/index';
import { type MemoryPeer, memorySocketPair } from '../helpers/memory-socket';
import { FAKE_URL, welcome } from './fake-service';

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A client welcomed by an in-memory service that sends it one call of `stubborn` (a tool that ignores its signal and
 * returns when the test says) and acks every result; fake timers drive it.
 */
async function withStubbornCall() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
  let finish: (value: string) => void = () => {};
  const stubborn = tool({
    name: 'stubborn',
    description: 'Ignores its signal.',
    execute: () =>
      new Promise<string>((resolve) => {
        finish = resolve;
      }),
  });
  const pair = memorySocketPair({
    onConnection(peer) {
      peer.onMessage = (text) => {
        const frame = JSON.parse(text) as { type: string; callId?: string };
        if (frame.type === 'tool_result') peer.send({ type: 'ack', callId: frame.callId });
        if (frame.type !== 'hello') return;
        peer.send(welcome('s1'));
        peer.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'stubborn', arguments: {} });
      };
    },
  });
  const client = new Client({
    url: FAKE_URL,
    WebSocket: pair.WebSocket,
    apiKey: 'key-123456',
    tools: [stubborn],
  });
  const seen: string[] = [];
  client.on('tool_result', (info) => seen.push(`tool_result ${info.status}`));
  client.on('error', (error) => seen.push(`error ${error.message}`));
  await client.connect();
  await vi.advanceTimersByTimeAsync(0);
  expect(client.stats.running).toBe(1);
  const peer = pair.peers[0] as MemoryPeer;
  /** The results the service got, as `callId status`. */
  const results = () =>
    peer.received
      .map((text) => JSON.parse(text) as { type: string; callId?: string; status?: string })
      .filter((frame) => frame.type === 'tool_result')
      .map((frame) => `${frame.callId} ${frame.status}`);
  return { client, peer, seen, results, finish: (value: string) => finish(value) };
}

describe('close() with a tool that ignores ctx.signal', () => {
  it('drains until the tool of a call the service cancelled returns, stats.running counting it', async () => {
    const { client, peer, seen, results, finish } = await withStubbornCall();
    peer.send({ type: 'cancel', callId: 'c1' });
    await vi.advanceTimersByTimeAsync(0);
    // Answered at once, acked, and still running here.
    expect([results(), client.stats]).toEqual([
      ['c1 cancelled'],
      { running: 1, queued: 0, waiting: 0, unacked: 0 },
    ]);
    let closed = false;
    const closing = client.close({ timeoutMs: 5_000 }).then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(4_000);
    expect([closed, client.state, client.stats.running]).toEqual([false, 'draining', 1]);
    finish('late');
    await vi.advanceTimersByTimeAsync(0);
    await closing;
    expect(client.listenerCount('closed')).toBe(0);
    expect([closed, client.state, client.stats, results(), seen, vi.getTimerCount()]).toEqual([
      true,
      'closed',
      { running: 0, queued: 0, waiting: 0, unacked: 0 },
      ['c1 cancelled'],
      ['tool_result cancelled'],
      0,
    ]);
  });

  it('returns at timeoutMs with the tool still counted in stats.running, and drops what it returns later', async () => {
    const { client, seen, results, finish } = await withStubbornCall();
    const closing = client.close({ timeoutMs: 3_000 });
    await vi.advanceTimersByTimeAsync(3_000);
    await closing;
    // Aborted at the timeout and answered `cancelled`; the tool goes on, and nothing of the client waits for it.
    expect([client.state, client.stats.running, results(), vi.getTimerCount()]).toEqual([
      'closed',
      1,
      ['c1 cancelled'],
      0,
    ]);
    finish('late');
    await vi.advanceTimersByTimeAsync(0);
    expect([client.stats.running, results(), seen, vi.getTimerCount()]).toEqual([
      0,
      ['c1 cancelled'],
      ['tool_result cancelled'],
      0,
    ]);
  });

  it('returns at once with drain: false, the tool counted in stats.running until it returns', async () => {
    const { client, seen, results, finish } = await withStubbornCall();
    await client.close({ drain: false });
    expect([client.state, client.stats.running, results()]).toEqual(['closed', 1, ['c1 cancelled']]);
    finish('late');
    await vi.advanceTimersByTimeAsync(0);
    expect([client.stats.running, results(), seen, vi.getTimerCount()]).toEqual([
      0,
      ['c1 cancelled'],
      ['tool_result cancelled'],
      0,
    ]);
  });
});
