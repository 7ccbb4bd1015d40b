/**
 * A `welcome` wrong in a required field ends its attempt at once (docs/protocol/lifecycle.md): the client closes with
 * 4003,
 * reports `invalid_welcome` naming the fields (never their values) and goes on to the normal backoff, instead of
 * waiting out the 10 s handshake timeout. Event-driven: on a client that waited for the timeout, the attempts
 * below would outlast the test's timeout.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionError } from '../../src/index';
import { decodeServiceFrame } from '../../src/wire/codec';
import { PROTOCOL_DEFAULTS } from '../../src/wire/protocol';
import { recordingLogger } from './gateway';
import { client, nextEvent, onCleanup, until } from './harness';
import { type RawServiceOptions, startRawService } from './raw-service';

async function service(options: RawServiceOptions) {
  const raw = await startRawService(options);
  onCleanup(() => raw.close());
  return raw;
}

function watched(url: string) {
  const logger = recordingLogger();
  const worker = client(url, { reconnect: { initialDelayMs: 1, maxDelayMs: 5 }, logger });
  const errors: ConnectionError[] = [];
  worker.on('error', (error) => errors.push(error as ConnectionError));
  return { worker, errors, logger };
}

describe('a welcome wrong in a required field', () => {
  it.each([
    [{ heartbeatIntervalMs: 1.5 }, 'heartbeatIntervalMs', 'heartbeatIntervalMs: must be an integer', '1.5'],
    [{ maxPayloadBytes: 512 }, 'maxPayloadBytes', 'maxPayloadBytes: must be at least 1024', '512'],
  ])(
    '(%o) ends each attempt at once, closed 4003; connect() names the field when attempts run out',
    async (welcome, field, problem, value) => {
      const raw = await service({ welcome });
      const { worker, errors, logger } = watched(raw.url);
      const reconnecting: number[] = [];
      worker.on('reconnecting', (event) => reconnecting.push((event as { attempt: number }).attempt));
      const error = (await worker
        .connect({ maxAttempts: 3 })
        .catch((caught: unknown) => caught)) as ConnectionError;
      const failure = `${raw.url}: the service's welcome cannot be read (${problem}); the client closed the socket (4003)`;
      expect(errors.map((e) => [e.code, e.message])).toEqual([
        ['invalid_welcome', failure],
        ['invalid_welcome', failure],
        ['invalid_welcome', failure],
      ]);
      expect(error).toMatchObject({
        code: 'unreachable',
        message: `cannot reach ${raw.url} after 3 attempts: ${failure}`,
      });
      expect(error.cause).toBe(errors[2]);
      // The normal backoff between attempts.
      expect(reconnecting).toEqual([1, 2]);
      // The service is told why, by the close code and a reason naming the field.
      await until(
        () => raw.closes,
        [1, 2, 3].map(() => ({ code: 4003, reason: `invalid welcome: ${field}` })),
      );
      const warnings = logger.lines.filter((line) => line.level === 'warn').map((line) => line.message);
      expect(warnings).toEqual([1, 2, 3].map((n) => `connection attempt ${n} failed: ${failure}`));
      // The value is never written; the service's address may hold its digits (port 35129 holds `512`).
      for (const line of logger.lines)
        expect(JSON.stringify(line).replaceAll(raw.url, '')).not.toContain(value);
    },
  );

  it('goes on to the next attempt, which a service answering right welcomes', async () => {
    const options: RawServiceOptions = { welcome: { heartbeatIntervalMs: 1.5, maxPayloadBytes: 10 } };
    const raw = await service(options);
    const { worker, errors } = watched(raw.url);
    const first = nextEvent<ConnectionError>(worker, 'error');
    const connecting = worker.connect();
    expect(await first).toMatchObject({
      code: 'invalid_welcome',
      message: `${raw.url}: the service's welcome cannot be read (heartbeatIntervalMs: must be an integer; maxPayloadBytes: must be at least 1024); the client closed the socket (4003)`,
    });
    delete options.welcome;
    await connecting;
    expect(worker.sessionId).toBe('raw-session');
    expect(worker.state).toBe('open');
    expect(errors.map((e) => e.code)).toEqual(['invalid_welcome']);
    expect(raw.closes[0]).toEqual({
      code: 4003,
      reason: 'invalid welcome: heartbeatIntervalMs, maxPayloadBytes',
    });
  });

  it('is decoded with the paths of the fields at fault, never their values', () => {
    const welcome = { type: 'welcome', sessionId: 's', resumed: false, heartbeatIntervalMs: 1.5 };
    expect(decodeServiceFrame(JSON.stringify({ ...welcome, maxPayloadBytes: 1 }))).toEqual({
      ok: false,
      code: 'invalid_frame',
      message:
        'invalid welcome frame: heartbeatIntervalMs: must be an integer; maxPayloadBytes: must be at least 1024',
      fields: ['heartbeatIntervalMs', 'maxPayloadBytes'],
    });
    const valid = { ...welcome, heartbeatIntervalMs: 1, maxPayloadBytes: PROTOCOL_DEFAULTS.maxPayloadBytes };
    expect(decodeServiceFrame(JSON.stringify(valid))).toMatchObject({ ok: true });
  });

  it('names a wrong informative field apart, never in the close reason, when a required field is wrong too', async () => {
    const raw = await service({ welcome: { resumed: 'yes', sessionGraceMs: 'soon' } });
    const { worker, errors } = watched(raw.url);
    const error = (await worker
      .connect({ maxAttempts: 1 })
      .catch((caught: unknown) => caught)) as ConnectionError;
    const failure = `${raw.url}: the service's welcome cannot be read (resumed: must be a boolean; also wrong, informative (would be dropped): sessionGraceMs: must be a number); the client closed the socket (4003)`;
    expect(errors.map((e) => [e.code, e.message])).toEqual([['invalid_welcome', failure]]);
    // The last attempt: nothing says it is retried.
    expect(error).toMatchObject({
      code: 'unreachable',
      message: `cannot reach ${raw.url} after 1 attempt: ${failure}`,
    });
    await until(() => raw.closes, [{ code: 4003, reason: 'invalid welcome: resumed' }]);
  });
});
