/**
 * Before its first `welcome`, a socket may carry only that `welcome`, `error` frames and `ping`
 * (docs/protocol/lifecycle.md). Any
 * other frame, readable or not, cannot be followed by anything that makes the attempt good: the attempt ends at
 * once, closed with 4003, as `invalid_welcome`, retried with the normal backoff, as a `welcome` wrong in a
 * required field does; but a frame no toolwire service sends (not JSON, …) makes the first `connect()` reject at
 * once. Event-driven: a client that waited for the 10 s handshake timeout would outlast the test.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionError } from '../../src/index';
import { recordingLogger } from './gateway';
import { client, onCleanup, until } from './harness';
import { type RawServiceOptions, startRawService } from './raw-service';

async function service(options: RawServiceOptions) {
  const raw = await startRawService(options);
  onCleanup(() => raw.close());
  return raw;
}

describe('a frame before welcome that is not a readable welcome', () => {
  it.each([
    ['{"type":"pong","id":"p"}', 'a pong frame'],
    ['{"type":"tool_call","callId":"c1","runId":"r1","toolName":"t","arguments":{}}', 'a tool_call frame'],
    ['{"type":"ack"}', 'an invalid ack frame'],
  ])(
    '(%s) ends each attempt at once, closed 4003, as invalid_welcome, with the normal backoff',
    async (first, what) => {
      const raw = await service({ welcomeText: first });
      const logger = recordingLogger();
      const worker = client(raw.url, { reconnect: { initialDelayMs: 1, maxDelayMs: 5 }, logger });
      const errors: ConnectionError[] = [];
      worker.on('error', (error) => errors.push(error as ConnectionError));
      const reconnecting: number[] = [];
      worker.on('reconnecting', (event) => reconnecting.push((event as { attempt: number }).attempt));
      const error = (await worker
        .connect({ maxAttempts: 2 })
        .catch((caught: unknown) => caught)) as ConnectionError;
      const failure = `${raw.url}: the service sent ${what} where its welcome was expected; the client closed the socket (4003)`;
      expect(errors.map((e) => [e.code, e.message])).toEqual([
        ['invalid_welcome', failure],
        ['invalid_welcome', failure],
      ]);
      expect(error).toMatchObject({
        code: 'unreachable',
        message: `cannot reach ${raw.url} after 2 attempts: ${failure}`,
      });
      expect(error.cause).toBe(errors[1]);
      expect(reconnecting).toEqual([1]);
      await until(
        () => raw.closes,
        [1, 2].map(() => ({ code: 4003, reason: `expected welcome, got ${what}` })),
      );
      // The client answered none of them with an error frame: it closed instead.
      expect(raw.frames.map((frame) => frame.type)).toEqual(['hello', 'hello']);
      // Nothing ran: a tool_call before welcome is not a call.
      expect(worker.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 0 });
    },
  );

  it.each([
    ['null', 'a frame that is not a JSON object'],
    ['[1]', 'a frame that is not a JSON object'],
    ['"welcome"', 'a frame that is not a JSON object'],
    ['{"type":"welcome"', 'a frame that is not JSON'],
    ['{"sessionId":"s"}', 'a frame with no string "type"'],
    ['{"type":"hola"}', 'a frame of an unknown type'],
    [Buffer.from('welcome'), 'a binary frame'],
  ])(
    '(%s) is not toolwire: closed 4003, and connect() rejects at its first attempt, as invalid_welcome',
    async (first, what) => {
      const raw = await service({ welcomeText: first });
      const worker = client(raw.url, { reconnect: { initialDelayMs: 1, maxDelayMs: 5 } });
      const errors: ConnectionError[] = [];
      worker.on('error', (error) => errors.push(error as ConnectionError));
      const error = (await worker.connect().catch((caught: unknown) => caught)) as ConnectionError;
      expect(error).toMatchObject({
        code: 'invalid_welcome',
        message: `${raw.url}: the service sent ${what} where its welcome was expected, so it does not speak this protocol (is the URL right?); the client closed the socket (4003)`,
      });
      expect(errors).toEqual([error]);
      expect(worker.state).toBe('closed');
      await until(() => raw.closes, [{ code: 4003, reason: `expected welcome, got ${what}` }]);
      expect(raw.frames.map((frame) => frame.type)).toEqual(['hello']);
    },
  );

  it('lets an error frame come first: reported as ever, and a 4001 that follows still refuses the key', async () => {
    const raw = await service({
      onConnection: (ws) =>
        ws.once('message', () => {
          ws.send(JSON.stringify({ type: 'error', code: 'unauthorized', message: 'that key is revoked' }));
          ws.close(4001, 'invalid API key');
        }),
    });
    const worker = client(raw.url, { reconnect: { initialDelayMs: 1, maxDelayMs: 5 } });
    const errors: ConnectionError[] = [];
    worker.on('error', (error) => errors.push(error as ConnectionError));
    const error = (await worker.connect().catch((caught: unknown) => caught)) as ConnectionError;
    expect(error.code).toBe('unauthorized');
    expect(errors.map((e) => e.code)).toEqual(['service_unauthorized', 'unauthorized']);
    expect(errors[0]?.message).toBe('the service reported: that key is revoked');
    await until(() => raw.closes, [{ code: 4001, reason: 'invalid API key' }]);
    expect(raw.connections()).toBe(1); // not retried
  });

  it('lets an unreadable error frame come first: reported, not answered, and the welcome after it is used', async () => {
    const raw = await service({
      onConnection: (ws) => ws.once('message', () => ws.send('{"type":"error","code":5}')),
    });
    const worker = client(raw.url);
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect({ maxAttempts: 1 });
    expect(worker.sessionId).toBe('raw-session');
    expect(errors.map((e) => (e as ConnectionError).code)).toEqual(['invalid_frame']);
    expect(raw.frames.map((frame) => frame.type)).toEqual(['hello']);
  });

  it('lets a ping come first: answered, and the welcome after it is used', async () => {
    const raw = await service({
      onConnection: (ws) => ws.once('message', () => ws.send('{"type":"ping","id":"early"}')),
    });
    const worker = client(raw.url);
    await worker.connect({ maxAttempts: 1 });
    expect(worker.sessionId).toBe('raw-session');
    await until(() => raw.frames.map((frame) => frame.type), ['hello', 'pong']);
    expect(raw.frames[1]).toEqual({ type: 'pong', id: 'early' });
  });
});
