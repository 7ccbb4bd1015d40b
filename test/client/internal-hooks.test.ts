/**
 * The client's own mechanisms never listen on its public emitter: that is the application's, which may clear it
 * (`removeAllListeners()`) and list it (`eventNames()`). `handleSignals` is told of the connection and the close
 * by direct calls, so clearing every listener before `connect()` leaves it (and calls, reconnects) working.
 * In-process: the SIGTERM listener is counted, never run (a test process must not drain or be killed).
 */
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/index';
import { client, nextEvent, until } from '../fault/harness';
import { startRawService } from '../fault/raw-service';

describe('internal hooks of the client', () => {
  it('survive removeAllListeners() before connect(): handleSignals listens and stops, calls run, no listener shows', async () => {
    const raw = await startRawService();
    const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'echoed' });
    const before = process.listenerCount('SIGTERM');
    const worker = client(raw.url, { tools: [echo], handleSignals: true });
    worker.removeAllListeners();
    expect(worker.eventNames()).toEqual([]);
    await worker.connect();
    // The drain listener was added at the welcome, though the application cleared every listener first.
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    expect(process.listenerCount('SIGINT')).toBeGreaterThan(0);
    // Nothing internal on the public emitter, after the welcome either.
    expect(worker.eventNames()).toEqual([]);
    raw.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'echo', arguments: {} });
    await until(
      () => raw.results().map((result) => [result.callId, result.status, result.output]),
      [['c1', 'ok', 'echoed']],
    );
    // A dropped socket is resumed.
    const connected = nextEvent(worker, 'connected');
    raw.socket().terminate();
    expect(await connected).toEqual({ sessionId: 'raw-session', resumed: true });
    worker.removeAllListeners();
    await worker.close();
    // And the drain listener went with the close.
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(worker.state).toBe('closed');
    await raw.close();
  });

  it('shows no listener the application did not add, with handleSignals, once connected', async () => {
    const raw = await startRawService();
    const worker = client(raw.url, { handleSignals: true });
    const mine = () => {};
    worker.on('closed', mine);
    await worker.connect();
    expect(worker.eventNames()).toEqual(['closed']);
    expect(worker.listeners('closed')).toEqual([mine]);
    await worker.close();
    await raw.close();
  });
});
