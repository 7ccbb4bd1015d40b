/**
 * A `welcome` after the socket's first is ignored (docs/protocol/lifecycle.md): no second `connected` event, the
 * session id
 * and the limits of the first `welcome` stay, and it is said once per socket (`warn`, then `debug`). An invalid
 * later one is refused as any frame the client cannot read (docs/protocol/errors.md). Event-driven: a `ping` sent
 * after the welcomes
 * is answered only once they were handled (frames are read in order).
 */
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/index';
import { recordingLogger } from './gateway';
import { client, nextEvent, onCleanup, until } from './harness';
import { startRawService } from './raw-service';

const IGNORED =
  'a welcome frame after the handshake was ignored: this socket keeps the session and limits of its first welcome';

describe('a welcome after the handshake', () => {
  it('is ignored: nothing of it adopted, no second connected event, said once per socket', async () => {
    const raw = await startRawService();
    onCleanup(() => raw.close());
    const logger = recordingLogger();
    const worker = client(raw.url, { logger, reconnect: { initialDelayMs: 1, maxDelayMs: 5 } });
    const connected: unknown[] = [];
    worker.on('connected', (event) => connected.push(event));
    await worker.connect();
    const later = {
      type: 'welcome',
      sessionId: 'other-session',
      resumed: true,
      heartbeatIntervalMs: 1000,
      maxPayloadBytes: 2048,
    };
    const socket = raw.socket();
    socket.send(JSON.stringify(later));
    socket.send(JSON.stringify({ ...later, sessionId: 'third-session' }));
    socket.send(JSON.stringify({ type: 'ping', id: 'after-welcomes' }));
    await until(() => raw.frames.some((frame) => frame.type === 'pong'), true);
    expect(connected).toEqual([{ sessionId: 'raw-session', resumed: false }]);
    expect(worker.sessionId).toBe('raw-session');
    expect(worker.state).toBe('open');
    // The frame limit is still the first welcome's (1 MiB): a tool over 2048 bytes of definitions is added.
    worker.addTool(tool({ name: 'big', description: 'x'.repeat(4096), execute: () => 'ok' }));
    const said = logger.lines.filter((line) => line.message === IGNORED).map((line) => line.level);
    expect(said).toEqual(['warn', 'debug']);
    // Not answered with an error frame: it is a valid frame, ignored.
    expect(raw.frames.filter((frame) => frame.type === 'error')).toEqual([]);
    // Once per socket: the next socket says it again at warn.
    const resumed = nextEvent(worker, 'connected');
    socket.terminate();
    await resumed;
    raw.socket().send(JSON.stringify(later));
    raw.socket().send(JSON.stringify({ type: 'ping', id: 'after-resume' }));
    await until(() => raw.frames.filter((frame) => frame.type === 'pong').length, 2);
    const again = logger.lines.filter((line) => line.message === IGNORED).map((line) => line.level);
    expect(again).toEqual(['warn', 'debug', 'warn']);
    expect(worker.sessionId).toBe('raw-session');
  });

  it('is refused as an unreadable frame when invalid, and nothing of it adopted', async () => {
    const raw = await startRawService();
    onCleanup(() => raw.close());
    const worker = client(raw.url);
    await worker.connect();
    raw
      .socket()
      .send(JSON.stringify({ type: 'welcome', sessionId: 'other', resumed: false, maxPayloadBytes: 10 }));
    await until(() => raw.frames.some((frame) => frame.type === 'error'), true);
    expect(raw.frames.find((frame) => frame.type === 'error')).toMatchObject({ code: 'invalid_frame' });
    expect(worker.sessionId).toBe('raw-session');
    expect(worker.state).toBe('open');
  });
});
