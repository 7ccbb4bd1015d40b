import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { STUB_DEFAULTS } from '../../server-stub/index';
import { CLOSE_CODES, PROTOCOL_DEFAULTS } from '../../src/wire/protocol';
import { http, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

describe('connecting', () => {
  it('accepts a key in the Authorization header and answers welcome with the limits', async () => {
    const server = await stub({ apiKeys: ['k1', 'k2'] });
    const client = track(await TestClient.connect(server.url, { apiKey: 'k2', tools: [toolDef('add')] }));
    expect(client.welcome).toEqual({
      type: 'welcome',
      sessionId: expect.stringMatching(/^sess_/),
      resumed: false,
      heartbeatIntervalMs: PROTOCOL_DEFAULTS.heartbeatIntervalMs,
      maxPayloadBytes: PROTOCOL_DEFAULTS.maxPayloadBytes,
      sessionGraceMs: PROTOCOL_DEFAULTS.sessionGraceMs,
      callDeadlineMs: PROTOCOL_DEFAULTS.callDeadlineMs,
      maxFramesPerSecond: STUB_DEFAULTS.maxFramesPerSecond,
      maxFrameBurst: STUB_DEFAULTS.maxFrameBurst,
    });
    expect(server.sessions()).toEqual([
      { sessionId: client.sessionId, state: 'connected', tools: ['add'], inFlight: 0, localApprovals: false },
    ]);
  });

  it('accepts a key sent in hello (browsers)', async () => {
    const server = await stub({ apiKeys: ['k1'] });
    const client = track(await TestClient.connect(server.url, { apiKey: 'k1', keyIn: 'hello' }));
    expect(client.welcome?.resumed).toBe(false);
  });

  it('also serves the /v1/ws path, and refuses others with 404', async () => {
    const server = await stub();
    const client = track(await TestClient.connect(`${server.url}/v1/ws`));
    expect(client.welcome?.type).toBe('welcome');
    const refused = new WebSocket(`${server.url}/elsewhere`, ['toolwire.v1']);
    const status = await new Promise<number | undefined>((resolve) => {
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      refused.on('error', () => resolve(undefined));
    });
    expect(status).toBe(404);
  });

  it('closes with 4001 right after the upgrade when the header key is wrong', async () => {
    const server = await stub({ apiKeys: ['k1'] });
    const client = track(TestClient.open(server.url, { apiKey: 'nope', hello: false }));
    expect(await client.closed).toEqual({ code: CLOSE_CODES.unauthorized, reason: 'invalid API key' });
  });

  it('closes with 4001 when the hello key is wrong', async () => {
    const server = await stub({ apiKeys: ['k1'] });
    const client = track(TestClient.open(server.url, { apiKey: 'nope', keyIn: 'hello' }));
    expect(await client.closed).toEqual({ code: CLOSE_CODES.unauthorized, reason: 'invalid API key' });
  });

  it('closes with 4001 and says how to send a key when there is none', async () => {
    const server = await stub({ apiKeys: ['k1'] });
    const client = track(TestClient.open(server.url));
    expect(await client.closed).toEqual({
      code: CLOSE_CODES.unauthorized,
      reason: 'missing API key: send "Authorization: Bearer <key>" or hello.apiKey',
    });
  });

  it('closes with 4001 when the Authorization header is not a Bearer token', async () => {
    const server = await stub({ apiKeys: ['k1'] });
    const client = track(
      TestClient.open(server.url, { headers: { authorization: 'Basic abc' }, hello: false }),
    );
    expect(await client.closed).toEqual({
      code: CLOSE_CODES.unauthorized,
      reason: 'malformed Authorization header: expected "Bearer <key>"',
    });
  });

  it('accepts any key, or none, when no apiKeys are configured, and logs that it does', async () => {
    const server = await stub();
    track(await TestClient.connect(server.url, { apiKey: 'whatever' }));
    track(await TestClient.connect(server.url));
    expect(server.log.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'no apiKeys configured: accepting any API key (or none)',
    ]);
  });

  it('closes with 4002 when hello.protocol is not 1', async () => {
    const server = await stub();
    const client = track(TestClient.open(server.url, { protocol: 2 }));
    expect(await client.closed).toEqual({
      code: CLOSE_CODES.unsupportedProtocol,
      reason: 'protocol 2 is not supported; this service speaks protocol 1',
    });
  });

  it('closes with 4002 when the toolwire.v1 subprotocol is not offered', async () => {
    const server = await stub();
    const client = track(TestClient.open(server.url, { subprotocols: [], hello: false }));
    expect(await client.closed).toEqual({
      code: CLOSE_CODES.unsupportedProtocol,
      reason: 'subprotocol toolwire.v1 required',
    });
  });

  it('closes with 4003 when the first frame is not hello', async () => {
    const server = await stub();
    const client = track(TestClient.open(server.url, { hello: false }));
    await client.opened();
    client.send({ type: 'ping', id: '1' });
    expect(await client.closed).toEqual({
      code: CLOSE_CODES.helloExpected,
      reason: 'expected hello, got ping',
    });
  });

  it('closes with 4003 when the first frame is an invalid hello, naming the field', async () => {
    const server = await stub();
    const client = track(TestClient.open(server.url, { hello: false }));
    await client.opened();
    client.sendRaw(
      JSON.stringify({ type: 'hello', protocol: 1, sdk: { name: 'x', version: '1' }, tools: [{}] }),
    );
    const closed = await client.closed;
    expect(closed.code).toBe(CLOSE_CODES.helloExpected);
    expect(closed.reason).toBe(
      'expected hello: invalid hello frame: tools.0.name: must be a string; tools.0.description: must be a string; tools.0.para...',
    );
    expect(Buffer.byteLength(closed.reason)).toBe(123);
  });

  it('closes with 4003 when no hello arrives within the hello timeout', async () => {
    const server = await stub({ helloTimeoutMs: 50 });
    const client = track(TestClient.open(server.url, { hello: false }));
    expect(await client.closed).toEqual({ code: CLOSE_CODES.helloExpected, reason: 'no hello within 50ms' });
  });

  it('answers ping with pong carrying the same id', async () => {
    const server = await stub();
    const client = track(await TestClient.connect(server.url));
    client.send({ type: 'ping', id: 'p-0' });
    expect(await client.next('pong')).toEqual({ type: 'pong', id: 'p-0' });
  });

  it('closes with 4008 a connection silent for two heartbeat intervals', async () => {
    const server = await stub({ heartbeatIntervalMs: 100 });
    const client = track(await TestClient.connect(server.url));
    const closed = await client.closed;
    expect(closed.code).toBe(CLOSE_CODES.heartbeatTimeout);
    expect(closed.reason).toMatch(/^no frame for \d+ms \(2 heartbeat intervals\)$/);
    // The stub's own measure of the silence (not this process's clock, whose timers may fire a millisecond early).
    expect(Number(/for (\d+)ms/.exec(closed.reason)?.[1])).toBeGreaterThanOrEqual(200);
  });

  it('keeps a connection that pings at the heartbeat interval', async () => {
    const server = await stub({ heartbeatIntervalMs: 100 });
    const client = track(await TestClient.connect(server.url));
    // 8 × 40 ms = more than three intervals, never more than 40 ms of silence.
    for (let i = 0; i < 8; i++) {
      client.send({ type: 'ping', id: String(i) });
      await client.next('pong', (frame) => frame.id === String(i));
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    expect(server.sessions()[0]?.state).toBe('connected');
  });

  it('closes every socket with 4050 on close()', async () => {
    const server = await stub();
    const client = track(await TestClient.connect(server.url));
    await server.close();
    expect(await client.closed).toEqual({ code: CLOSE_CODES.goingAway, reason: 'service shutting down' });
    await expect(http(server, 'GET', '/v1/health')).rejects.toThrow();
  });
});
