/**
 * Frames the protocol says to refuse, sent by a bare service written from docs/protocol/index.md: each is refused the
 * way docs/protocol/index.md, docs/protocol/errors.md and docs/protocol/errors.md say, and the client goes on (or
 * resumes) afterwards.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Agent, ProtocolError, tool } from '../../src/index';
import { MAX_WS_PAYLOAD, type WebSocketConstructor } from '../../src/wire/transport';
import { TestClient } from '../stub/test-client';
import { OpaqueWebSocket, recordingLogger } from './gateway';
import { API_KEY, client, nextEvent, onCleanup, stub, until } from './harness';
import { type RawService, startRawService } from './raw-service';

async function rawService(options: Parameters<typeof startRawService>[0] = {}): Promise<RawService> {
  const service = await startRawService(options);
  onCleanup(() => service.close());
  return service;
}

const FAST = { initialDelayMs: 1, maxDelayMs: 5 };
const types = (service: RawService) => service.frames.map((frame) => frame.type);

/** Sends a ping and waits for its pong: everything the client sent before it has arrived. */
async function roundTrip(service: RawService, id: string): Promise<void> {
  service.send({ type: 'ping', id });
  await until(() => service.frames.some((frame) => frame.type === 'pong' && frame.id === id), true);
}

describe('frame size on receive', () => {
  it('closes with 1009 a frame over the announced maxPayloadBytes, and resumes', async () => {
    const service = await rawService({ maxPayloadBytes: 2048 });
    const worker = client(service.url, { reconnect: FAST });
    await worker.connect();
    const disconnected = nextEvent<{ code: number; reason: string }>(worker, 'disconnected');
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    service.socket().send(JSON.stringify({ type: 'ping', id: 'x'.repeat(4096) }));
    expect(await disconnected).toEqual({ code: 1009, reason: 'a frame over 2048 bytes (maxPayloadBytes)' });
    expect(await resumed).toEqual({ sessionId: 'raw-session', resumed: true });
    expect(service.closes[0]?.code).toBe(1009);
    expect(service.frames.filter((frame) => frame.type === 'pong')).toEqual([]);
  });

  it('before welcome, closes with 1009 a frame over the protocol default (1 MiB), and retries', async () => {
    let first = true;
    const service = await rawService({
      onConnection: (ws) => {
        if (first) ws.send(JSON.stringify({ type: 'ping', id: 'x'.repeat(1_048_576) }));
        first = false;
      },
    });
    const worker = client(service.url, { reconnect: FAST });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    expect(service.closes[0]?.code).toBe(1009);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['closed_before_welcome']);
    expect(errors[0]?.message).toBe(
      `${service.url}: the socket closed before welcome (1009 a frame over 1048576 bytes (maxPayloadBytes))`,
    );
  });

  it('counts the inflated size of a compressed frame (permessage-deflate): a small frame that inflates past the limit is 1009', async () => {
    const service = await rawService({ maxPayloadBytes: 2048, deflate: true });
    const worker = client(service.url, { reconnect: FAST });
    await worker.connect();
    const disconnected = nextEvent<{ code: number; reason: string }>(worker, 'disconnected');
    service.socket().send(JSON.stringify({ type: 'ping', id: 'x'.repeat(100_000) }), { compress: true });
    expect(await disconnected).toEqual({ code: 1009, reason: 'a frame over 2048 bytes (maxPayloadBytes)' });
  });

  it('reads at most 536,870,888 bytes a frame, whatever the service announces: a longer one cannot be a string', async () => {
    // A larger frame made V8 throw ERR_STRING_TOO_LONG in ws's 'message' listener: an uncaught exception.
    const sockets: Array<{ _receiver?: { _maxPayload?: number } }> = [];
    class Recorded extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        sockets.push(this as never);
      }
    }
    const service = await rawService({ maxPayloadBytes: 2 ** 40 });
    const worker = client(service.url, { WebSocket: Recorded as unknown as WebSocketConstructor });
    await worker.connect();
    expect(sockets.map((socket) => socket._receiver?._maxPayload)).toEqual([MAX_WS_PAYLOAD]);
    expect(MAX_WS_PAYLOAD).toBe(2 ** 29 - 24);
  });

  it('where the runtime sets no limit (browsers), checks the size on receipt: error frame_too_large, stays open', async () => {
    const service = await rawService({ maxPayloadBytes: 2048 });
    const worker = client(service.url, { WebSocket: OpaqueWebSocket as unknown as WebSocketConstructor });
    await worker.connect();
    service.socket().send(JSON.stringify({ type: 'ping', id: 'x'.repeat(4096) }));
    await roundTrip(service, 'after');
    expect(service.frames.filter((frame) => frame.type === 'error')).toEqual([
      { type: 'error', code: 'frame_too_large', message: 'frame exceeds 2048 bytes' },
    ]);
    expect(worker.state).toBe('open');
  });
});

describe('frames a peer cannot parse (docs/protocol/errors.md)', () => {
  it('answers a binary frame with error invalid_frame and does not read it as JSON', async () => {
    const service = await rawService();
    const worker = client(service.url);
    await worker.connect();
    service.socket().send(Buffer.from(JSON.stringify({ type: 'ping', id: 'binary' })), { binary: true });
    await roundTrip(service, 'after');
    expect(service.frames.slice(1)).toEqual([
      {
        type: 'error',
        code: 'invalid_frame',
        message: 'binary frames are not part of the protocol; send JSON text frames',
      },
      { type: 'pong', id: 'after' },
    ]);
  });

  it('never answers an invalid error frame with an error frame; reports it locally', async () => {
    const service = await rawService();
    const logger = recordingLogger();
    const worker = client(service.url, { logger });
    const reported: Error[] = [];
    worker.on('error', (error) => reported.push(error));
    await worker.connect();
    service.socket().send(JSON.stringify({ type: 'error', code: 42, message: 'hm' }));
    await roundTrip(service, 'after');
    expect(types(service)).toEqual(['hello', 'pong']);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(ProtocolError);
    expect(reported[0]?.message).toMatch(
      /^invalid frame from the service \(not answered: it is an error frame\): invalid error frame: code: /,
    );
  });

  it('the stub, too, never answers an invalid error frame with an error frame', async () => {
    const server = await stub();
    const peer = await TestClient.connect(server.url, { apiKey: API_KEY });
    onCleanup(() => peer.close());
    peer.sendRaw(JSON.stringify({ type: 'error', code: 42, message: 'hm' }));
    peer.send({ type: 'ping', id: 'after' });
    await peer.next('pong');
    expect(peer.all('error')).toEqual([]);
  });

  it('invalid UTF-8 in a text frame fails the connection (RFC 6455 §8.1, close 1007), and the client resumes', async () => {
    const service = await rawService();
    const worker = client(service.url, { reconnect: FAST });
    await worker.connect();
    const disconnected = nextEvent<{ code: number; reason: string }>(worker, 'disconnected');
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    service.socket().send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: false });
    expect(await disconnected).toEqual({ code: 1007, reason: 'invalid UTF-8 in a text frame' });
    expect(await resumed).toMatchObject({ resumed: true });
    expect(service.closes[0]?.code).toBe(1007);
  });
});

describe('close 4009 (docs/protocol/sessions.md, docs/protocol/errors.md): another socket resumed this session', () => {
  it('stops using the session id: reconnects with a new session, and says why', async () => {
    const service = await rawService();
    const logger = recordingLogger();
    const worker = client(service.url, { reconnect: FAST, logger });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    const reconnected = nextEvent<{ resumed: boolean }>(worker, 'connected');
    service.socket().close(4009, 'session resumed by another connection');
    expect(await reconnected).toEqual({ sessionId: 'raw-session', resumed: false });
    const hellos = service.frames.filter((frame) => frame.type === 'hello');
    expect(hellos).toHaveLength(2);
    expect(hellos[1]).not.toHaveProperty('sessionId');
    expect(errors.map((error) => [(error as { code?: string }).code, error.message])).toEqual([
      [
        'session_replaced',
        'another connection resumed session raw-session (4009: session resumed by another connection); starting a new session',
      ],
    ]);
    expect(logger.lines.some((line) => line.level === 'warn' && line.message === errors[0]?.message)).toBe(
      true,
    );
    expect(worker.state).toBe('open');
  });
});

describe('a resume answered with another session (docs/protocol/lifecycle.md)', () => {
  it('is a new session: connected says resumed false, and a run in flight ends session_lost', async () => {
    const options: Parameters<typeof startRawService>[0] = {};
    const service = await rawService(options);
    const logger = recordingLogger();
    const worker = client(service.url, { reconnect: FAST, logger });
    await worker.connect();
    const running = worker
      .run(new Agent({ name: 'A', instructions: '', tools: [] }), 'go')
      .catch((error) => error);
    await until(() => types(service).includes('run_start'), true);
    const start = service.frames.find((frame) => frame.type === 'run_start') as { requestId: string };
    service.send({ type: 'run_started', requestId: start.requestId, runId: 'run-1' });
    await roundTrip(service, 'started');
    // The client asks to resume raw-session; the service answers with another session, and `resumed: true`.
    options.welcome = { sessionId: 'other-session', resumed: true };
    const reconnected = nextEvent<{ sessionId: string; resumed: boolean }>(worker, 'connected');
    service.socket().close(1001, 'going away');
    expect(await reconnected).toEqual({ sessionId: 'other-session', resumed: false });
    expect(((await running) as { code?: string }).code).toBe('session_lost');
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toContain(
      'the service said it resumed session other-session, but the client asked for raw-session; taken as a new session',
    );
  });
});

describe('a cancel with a reason the client does not know (docs/protocol/deadlines.md)', () => {
  it('is accepted as a plain cancel: the call aborts with the text as the cause, and no error frame goes back', async () => {
    const service = await rawService();
    const reasons: unknown[] = [];
    const wait = tool({
      name: 'wait',
      description: 'Waits until aborted.',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            reasons.push(ctx.signal.reason);
            resolve('stopped');
          }),
        ),
    });
    const worker = client(service.url, { tools: [wait], reconnect: FAST });
    await worker.connect();
    const started = nextEvent(worker, 'tool_call');
    service.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'wait', arguments: {} });
    await started;
    service.send({ type: 'cancel', callId: 'c1', reason: 'maintenance window' });
    await until(
      () => service.results().map((result) => [result.callId, result.status]),
      [['c1', 'cancelled']],
    );
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(DOMException);
    expect(reasons[0]).toMatchObject({
      name: 'AbortError',
      message: 'cancelled by the service (maintenance window)',
      cause: 'maintenance window',
    });
    expect(types(service)).not.toContain('error');
  });
});

describe('values this protocol version does not list (docs/protocol/runs.md, docs/protocol/errors.md)', () => {
  it('a run_result with an unknown status ends run() as failed, with the service text; an unknown error code is reported', async () => {
    const service = await rawService();
    const worker = client(service.url, { reconnect: FAST });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    const running = worker.run(new Agent({ name: 'A', instructions: '' }), 'go');
    await until(() => service.frames.filter((frame) => frame.type === 'run_start').length, 1);
    const start = service.frames.find((frame) => frame.type === 'run_start') as { requestId: string };
    service.send({ type: 'run_started', requestId: start.requestId, runId: 'r1' });
    service.send({
      type: 'run_result',
      runId: 'r1',
      status: 'expired',
      error: 'the run expired',
      toolCalls: [],
      turns: 0,
    });
    await expect(running).rejects.toMatchObject({
      name: 'RunError',
      code: 'run_failed',
      message: 'the run expired',
    });
    service.send({ type: 'error', code: 'quota_exceeded', message: 'too many runs today' });
    await until(
      () => errors.map((error) => [(error as { code?: string }).code, error.message]),
      [['service_quota_exceeded', 'the service reported: too many runs today']],
    );
    expect(types(service)).not.toContain('error');
  });
});
