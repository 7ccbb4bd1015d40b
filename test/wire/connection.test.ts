/**
 * The connection's contract with its owner for frames that cannot be sent: `onUnsendable(frame, error)` names the
 * frame, once, after `onError`; a socket that throws is dropped and the connection resumes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionError } from '../../src/errors';
import { silentLogger } from '../../src/logger';
import { Connection, type ConnectionOptions } from '../../src/wire/connection';
import type { ClientFrame } from '../../src/wire/protocol';
import type { WebSocketConstructor, WebSocketLike } from '../../src/wire/transport';

/**
 * An in-memory service: welcomes every hello (`welcomes` times); the socket's `send` throws `thrown` for the
 * frames `refuse` picks.
 */
function memoryService(
  refuse: (text: string) => boolean,
  thrown: unknown = new TypeError('cannot send this'),
  welcomes = 1,
) {
  const state = {
    sockets: 0,
    pings: 0,
    hellos: [] as Array<{ sessionId?: string }>,
    /** The latest socket: a test gives it frames from the service. */
    socket: undefined as WebSocketLike | undefined,
  };
  class MemorySocket implements WebSocketLike {
    readyState = 0;
    bufferedAmount = 0;
    protocol = 'toolwire.v1';
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    constructor() {
      state.sockets += 1;
      state.socket = this;
      queueMicrotask(() => {
        this.readyState = 1;
        this.onopen?.({});
      });
    }
    send(text: string): void {
      if (refuse(text)) throw thrown;
      const frame = JSON.parse(text) as { type: string; sessionId?: string };
      if (frame.type === 'ping') {
        state.pings += 1;
        queueMicrotask(() => this.onmessage?.({ data: JSON.stringify({ type: 'pong' }) }));
      }
      if (frame.type !== 'hello') return;
      state.hellos.push({ ...(frame.sessionId === undefined ? {} : { sessionId: frame.sessionId }) });
      const welcome = { type: 'welcome', sessionId: 's1', resumed: frame.sessionId !== undefined };
      const full = { ...welcome, heartbeatIntervalMs: 60_000, maxPayloadBytes: 2_048 };
      for (let i = 0; i < welcomes; i++)
        queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(full) }));
    }
    close(): void {
      this.readyState = 3;
    }
  }
  return { state, WebSocket: MemorySocket as unknown as WebSocketConstructor };
}

function connection(WebSocket: WebSocketConstructor, more: Partial<ConnectionOptions> = {}) {
  const seen: string[] = [];
  const unsendable: Array<{ frame: ClientFrame; code: string }> = [];
  const messages: string[] = [];
  const welcomes: boolean[] = [];
  const options: ConnectionOptions = {
    url: 'ws://memory.test',
    apiKey: 'test-key',
    WebSocket,
    reconnect: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 3 },
    heartbeatIntervalMs: undefined,
    connectTimeoutMs: 5_000,
    logger: silentLogger,
    hello: () => ({ protocol: 1, sdk: { name: 'test', version: '0' }, tools: [] }),
    onWelcome: (welcome) => welcomes.push(welcome.resumed),
    onFrame: () => {},
    onDisconnected: () => {},
    onReconnecting: () => {},
    onClosed: () => {},
    onError: (error) => seen.push(`error ${error.code}`),
    onUnsendable: (frame, error: ConnectionError) => {
      seen.push(`unsendable ${frame.type}`);
      unsendable.push({ frame, code: error.code });
      messages.push(error.message);
    },
    ...more,
  };
  return { connection: new Connection(options), seen, unsendable, messages, welcomes };
}

const result = (callId: string, output = 'ok'): ClientFrame => ({
  type: 'tool_result',
  callId,
  status: 'ok',
  output,
});

describe('Connection: frames that cannot be sent', () => {
  it('a socket that throws on a frame: onError, then onUnsendable with the frame; the socket is dropped and resumed', async () => {
    const { state, WebSocket } = memoryService((text) => text.includes('"c1"'));
    const { connection: link, seen, unsendable, welcomes } = connection(WebSocket);
    await link.connect();
    expect(link.send(result('c1'))).toBe(false);
    expect(seen).toEqual(['error send_failed', 'unsendable tool_result']);
    expect(unsendable).toEqual([{ frame: result('c1'), code: 'send_failed' }]);
    expect(link.state).toBe('reconnecting');
    await expect.poll(() => welcomes).toEqual([false, true]);
    expect(state.hellos).toEqual([{}, { sessionId: 's1' }]);
    expect(link.send(result('c2'))).toBe(true);
    link.close();
  });

  it('a frame over the service maxPayloadBytes, or one JSON cannot hold: reported, the socket kept', async () => {
    const { state, WebSocket } = memoryService(() => false);
    const { connection: link, unsendable } = connection(WebSocket);
    await link.connect();
    expect(link.send(result('big', 'x'.repeat(4_096)))).toBe(false);
    const bigint = {
      type: 'run_start',
      requestId: 'q',
      agent: { name: 'a', instructions: '', tools: [], outputSchema: { maximum: 10n } },
      input: '',
    };
    expect(link.send(bigint as unknown as ClientFrame)).toBe(false);
    expect(unsendable.map((entry) => [entry.frame.type, entry.code])).toEqual([
      ['tool_result', 'frame_too_large'],
      ['run_start', 'unencodable_frame'],
    ]);
    expect(link.state).toBe('open');
    expect(state.sockets).toBe(1);
    link.close();
  });

  it('a frame over maxBufferedBytes (below the service limit) is never written: it would drop every socket', async () => {
    const { state, WebSocket } = memoryService(() => false);
    const {
      connection: link,
      unsendable,
      messages,
    } = connection(WebSocket, {
      highWaterMarkBytes: 1_024,
      maxBufferedBytes: 1_536,
    });
    await link.connect();
    // What the client's frames are cut to: the service announced 2,048.
    expect(link.maxPayloadBytes).toBe(1_536);
    expect(link.send(result('big', 'x'.repeat(1_700)))).toBe(false);
    expect(unsendable).toEqual([{ frame: result('big', 'x'.repeat(1_700)), code: 'frame_too_large' }]);
    expect(messages).toEqual([
      expect.stringMatching(/^a tool_result frame of \d+ bytes is over maxBufferedBytes \(1536\); not sent$/),
    ]);
    expect(link.send(result('small', 'x'.repeat(1_000)))).toBe(true);
    expect(link.state).toBe('open');
    expect(state.sockets).toBe(1);
    link.close();
  });

  it('contains a throw of a value that cannot even be shown as text', async () => {
    const { WebSocket } = memoryService((text) => text.includes('"c1"'), Object.create(null));
    const { connection: link, unsendable } = connection(WebSocket);
    await link.connect();
    expect(link.send(result('c1'))).toBe(false);
    expect(unsendable.map((entry) => entry.code)).toEqual(['send_failed']);
    link.close();
  });
});

describe('Connection: an owner that throws on a frame', () => {
  it('is reported as ConnectionError internal and logged; the socket stays up and the next frame is handled', async () => {
    const { state, WebSocket } = memoryService(() => false);
    const errors: ConnectionError[] = [];
    const logged: string[] = [];
    const frames: string[] = [];
    const { connection: link } = connection(WebSocket, {
      logger: { ...silentLogger, error: (_fields, message) => logged.push(message) },
      onError: (error) => errors.push(error),
      onFrame: (frame) => {
        frames.push(frame.type === 'ack' ? `ack ${frame.callId}` : frame.type);
        if (frames.length === 1) throw new Error('boom');
      },
    });
    await link.connect();
    const socket = state.socket as WebSocketLike;
    socket.onmessage?.({ data: JSON.stringify({ type: 'ack', callId: 'c1' }) });
    socket.onmessage?.({ data: JSON.stringify({ type: 'ack', callId: 'c2' }) });
    expect(frames).toEqual(['ack c1', 'ack c2']);
    const message = 'the client failed while handling the connection: boom';
    expect(errors.map((error) => [error.name, error.code, error.message])).toEqual([
      ['ConnectionError', 'internal', message],
    ]);
    expect(errors[0]?.cause).toEqual(new Error('boom'));
    expect(logged).toEqual([message]);
    expect(link.state).toBe('open');
    link.close();
  });
});

describe('Connection: a second welcome on the same socket', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is ignored (docs/protocol/lifecycle.md): one welcome handled, one heartbeat, so pings do not double', async () => {
    vi.useFakeTimers({ now: 0 });
    const { state, WebSocket } = memoryService(() => false, undefined, 2);
    const { connection: link, welcomes } = connection(WebSocket);
    await link.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(welcomes).toEqual([false]);
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect({ pings: state.pings, sockets: state.sockets }).toEqual({ pings: 3, sockets: 1 });
    link.close();
  });
});

/**
 * An in-memory service whose real frame limit is `limit` bytes, below the 2,048 it announces: it closes the socket
 * with 1009 after a larger frame, as `ws` does.
 */
function smallLimitService(limit: number) {
  const state = { sockets: 0, hellos: 0, frames: [] as string[] };
  class SmallSocket implements WebSocketLike {
    readyState = 0;
    bufferedAmount = 0;
    protocol = 'toolwire.v1';
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    constructor() {
      state.sockets += 1;
      queueMicrotask(() => {
        this.readyState = 1;
        this.onopen?.({});
      });
    }
    send(text: string): void {
      if (this.readyState !== 1) return;
      const frame = JSON.parse(text) as { type: string };
      if (frame.type === 'hello') state.hellos += 1;
      if (new TextEncoder().encode(text).length > limit) {
        this.readyState = 3;
        queueMicrotask(() => this.onclose?.({ code: 1009, reason: 'Max payload size exceeded' }));
        return;
      }
      state.frames.push(frame.type);
      if (frame.type !== 'hello') return;
      const welcome = { type: 'welcome', sessionId: 's1', resumed: state.hellos > 1 };
      const full = { ...welcome, heartbeatIntervalMs: 60_000, maxPayloadBytes: 2_048 };
      queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(full) }));
    }
    close(): void {
      this.readyState = 3;
    }
  }
  return { state, WebSocket: SmallSocket as unknown as WebSocketConstructor };
}

describe('Connection: a frame the service refuses with 1009 is never written again', () => {
  it('a hello over the service limit: connect() rejects hello_too_large at once, the hello sent once', async () => {
    const { state, WebSocket } = smallLimitService(100);
    const closed: Array<string | undefined> = [];
    const { connection: link, seen } = connection(WebSocket, {
      reconnect: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: Number.POSITIVE_INFINITY },
      hello: () => ({
        protocol: 1,
        sdk: { name: 'test', version: '0' },
        tools: [],
        features: ['x'.repeat(200)],
      }),
      onClosed: (error) => closed.push(error?.code),
    });
    const error = await link.connect().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'ConnectionError', code: 'hello_too_large' });
    expect((error as Error).message).toBe(
      'ws://memory.test: the service closed the connection with 1009 (frame too big) in answer to a hello of 312 bytes (the tool definitions); it is not sent again',
    );
    expect(seen).toEqual(['error hello_too_large']);
    expect(closed).toEqual(['hello_too_large']);
    expect(link.state).toBe('closed');
    expect(state).toMatchObject({ sockets: 1, hellos: 1 });
  });

  it('any frame refused after welcome: blamed once, then refused locally on every later socket', async () => {
    const { state, WebSocket } = smallLimitService(400);
    const { connection: link, unsendable, messages, welcomes } = connection(WebSocket);
    await link.connect();
    const event: ClientFrame = {
      type: 'tool_event',
      callId: 'c1',
      seq: 1,
      event: 'big',
      data: 'x'.repeat(500),
    };
    expect(link.send(event)).toBe(true);
    await expect.poll(() => welcomes).toEqual([false, true]);
    expect(unsendable.map((entry) => [entry.frame.type, entry.code])).toEqual([
      ['tool_event', 'frame_too_large'],
    ]);
    expect(link.maxPayloadBytes).toBe(566);
    // Sent again after the resume (as the call updates do), it does not reach the socket: no second 1009.
    expect(link.send(event)).toBe(false);
    expect(unsendable.map((entry) => entry.code)).toEqual(['frame_too_large', 'frame_too_large']);
    expect(messages[1]).toBe(
      'a tool_event frame of 567 bytes is over 566 bytes (the service closed with 1009 for a frame of 567); not sent',
    );
    expect(state.sockets).toBe(2);
    expect(link.send(result('c2'))).toBe(true);
    expect(link.state).toBe('open');
    link.close();
  });
});

describe('Connection: a socket whose bufferedAmount always reads 0', () => {
  it('counts the bytes it wrote until a pong proves them read, so results are held at highWaterMarkBytes', async () => {
    const written: string[] = [];
    let helloBytes = 0;
    // Like Bun's `ws` (a `terminate` method, so called as ws) and a service that stops reading after welcome.
    class Silent implements WebSocketLike {
      readyState = 0;
      readonly bufferedAmount = 0;
      protocol = 'toolwire.v1';
      onopen: ((event: unknown) => void) | null = null;
      onmessage: ((event: { data: unknown }) => void) | null = null;
      onclose: ((event: { code: number; reason: string }) => void) | null = null;
      onerror: ((event: unknown) => void) | null = null;
      constructor() {
        queueMicrotask(() => {
          this.readyState = 1;
          this.onopen?.({});
        });
      }
      send(text: string): void {
        written.push((JSON.parse(text) as { type: string }).type);
        if (written.length > 1) return;
        helloBytes = Buffer.byteLength(text);
        const welcome = { type: 'welcome', sessionId: 's1', resumed: false, heartbeatIntervalMs: 60_000 };
        const full = { ...welcome, maxPayloadBytes: 1_048_576 };
        queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(full) }));
      }
      close(): void {}
      terminate(): void {}
    }
    const { connection: link } = connection(Silent as unknown as WebSocketConstructor, {
      highWaterMarkBytes: 4_096,
    });
    await link.connect();
    expect(link.bufferedAmount).toBe(helloBytes); // the hello, not yet proven read
    for (const id of ['c1', 'c2', 'c3']) expect(link.send(result(id, 'x'.repeat(1_500)))).toBe(true);
    // 3 results of ~1,550 bytes (and a ping asking for proof once half the mark was unproven).
    expect(link.bufferedAmount).toBeGreaterThan(4_096);
    expect(written).toEqual(['hello', 'tool_result', 'tool_result', 'ping', 'tool_result']);
    link.close();
  });
});
