import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import * as wsModule from 'ws';
import { WebSocket, WebSocketServer } from 'ws';
import {
  chooseWebSocket,
  openTransport,
  registerNodeWebSocket,
  registerWsWriter,
  type SocketFailure,
  upgradeStatus,
  type WebSocketConstructor,
} from '../../src/wire/transport';
import { loadWs, wsWriter } from '../../src/wire/ws';

/** `ws`'s `Sender` class (exported, not in its types): its static `frame` frames a text. */
const WsSender = (wsModule as unknown as { Sender: { frame(text: string, options: object): Uint8Array[] } })
  .Sender;

/** A WebSocket double that records sends and, like `ws`, has a TCP socket (`_socket`) once open. */
function fakeSocketClass(log: string[], withTcp: boolean) {
  return class FakeSocket {
    readyState = 1;
    bufferedAmount = 0;
    protocol = 'toolwire.v1';
    onopen = null;
    onmessage = null;
    onclose = null;
    onerror = null;
    _socket = withTcp ? { cork: () => log.push('cork'), uncork: () => log.push('uncork') } : null;
    send(text: string) {
      log.push(`send ${text}`);
    }
    close() {}
  } as unknown as WebSocketConstructor;
}

const handlers = { onOpen() {}, onMessage() {}, onBinary() {}, onClose() {} };
const LIMITS = { style: 'web', maxPayloadBytes: 1_048_576 } as const;

describe('openTransport', () => {
  it('gathers the frames sent in one task into one corked write', async () => {
    const log: string[] = [];
    const transport = openTransport(fakeSocketClass(log, true), 'ws://127.0.0.1:1', LIMITS, handlers);
    transport.send('a');
    transport.send('b');
    expect(log).toEqual(['cork', 'send a', 'send b']);
    await Promise.resolve();
    expect(log).toEqual(['cork', 'send a', 'send b', 'uncork']);
    transport.send('c');
    await Promise.resolve();
    expect(log.slice(4)).toEqual(['cork', 'send c', 'uncork']);
  });

  it('sends directly on a WebSocket without a TCP socket of its own (browsers)', async () => {
    const log: string[] = [];
    const transport = openTransport(fakeSocketClass(log, false), 'ws://127.0.0.1:1', LIMITS, handlers);
    transport.send('a');
    transport.send('b');
    await Promise.resolve();
    expect(log).toEqual(['send a', 'send b']);
  });

  it('with a real ws socket, frames sent in one task reach the peer in one TCP write', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const chunks: number[] = [];
    const messages: string[] = [];
    server.on('connection', (peer) => {
      (peer as unknown as { _socket: NodeJS.EventEmitter })._socket.on('data', (chunk: Buffer) =>
        chunks.push(chunk.length),
      );
      peer.on('message', (data) => messages.push(String(data)));
    });
    const { port } = server.address() as AddressInfo;
    const opened = new Promise<void>((resolve) => {
      const transport = openTransport(
        WebSocket as unknown as WebSocketConstructor,
        `ws://127.0.0.1:${port}`,
        { ...LIMITS, style: 'ws' },
        {
          ...handlers,
          onOpen: () => {
            transport.send('first');
            transport.send('second');
            resolve();
          },
        },
      );
    });
    try {
      await opened;
      await expect.poll(() => messages).toEqual(['first', 'second']);
      expect(chunks).toHaveLength(1); // one write (ws's private `_socket` was found and corked)
    } finally {
      for (const client of server.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('returns the size of each frame in UTF-8 bytes, whatever the socket', () => {
    const log: string[] = [];
    const transport = openTransport(fakeSocketClass(log, true), 'ws://127.0.0.1:1', LIMITS, handlers);
    expect(transport.send('abc')).toBe(3);
    expect(transport.send('é€😀')).toBe(2 + 3 + 4);
    expect(transport.send('\ud800')).toBe(3); // a lone surrogate: U+FFFD
    expect(log.slice(1)).toEqual(['send abc', 'send é€😀', 'send \ud800']);
  });

  /**
   * A `ws` server on 127.0.0.1 that keeps each message it gets, ended with the test; and `ws` sockets written by
   * `writer` (ws's sender, or `undefined`: by `send`) for the test.
   */
  async function messageServer(writer: typeof wsWriter | undefined = wsWriter) {
    const previous = registerWsWriter(writer);
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    onTestFinished(async () => {
      registerWsWriter(previous);
      for (const client of server.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    });
    await new Promise((resolve) => server.once('listening', resolve));
    const messages: Array<{ text: string; binary: boolean }> = [];
    server.on('connection', (peer) => {
      peer.on('message', (data, binary) => messages.push({ text: String(data), binary }));
    });
    const texts = () => messages.map((message) => message.text);
    return { port: (server.address() as AddressInfo).port, messages, texts };
  }

  /** Opens a transport of `Ctor` to the server at `port`; resolves once `onOpen` has run with it. */
  function whenOpen(
    Ctor: WebSocketConstructor,
    port: number,
    onOpen: (transport: ReturnType<typeof openTransport>) => void,
  ): Promise<void> {
    return new Promise<void>((resolve) => {
      const transport = openTransport(
        Ctor,
        `ws://127.0.0.1:${port}`,
        { ...LIMITS, style: 'ws' },
        {
          ...handlers,
          onOpen: () => {
            onOpen(transport);
            resolve();
          },
        },
      );
    });
  }

  it.each([
    ["written by ws's sender (Node)", wsWriter],
    ['written by send', undefined],
  ])(
    'with a real ws socket %s, each frame counts its UTF-8 bytes, whatever its size and header',
    async (_how, writer) => {
      const { port, messages } = await messageServer(writer);
      const long = `${'€'.repeat(5_000)}😀`;
      // Sizes where the frame's header grows (126 and 65,536 bytes of payload), in text of one byte a character or more.
      const edges = [125, 126, 127, 65_535, 65_536].flatMap((bytes) => [
        'x'.repeat(bytes),
        `${'x'.repeat(bytes - 3)}€`,
        `${'é'.repeat(Math.floor(bytes / 2))}${'x'.repeat(bytes % 2)}`,
      ]);
      const frames = ['{"a":1}', '{"a":"é€😀"}', '\ud800x', long, ...edges];
      const sizes: unknown[] = [];
      await whenOpen(WebSocket as unknown as WebSocketConstructor, port, (transport) => {
        for (const frame of frames) sizes.push(transport.send(frame));
      });
      expect(sizes.slice(0, 4)).toEqual([7, 6 + 9 + 2, 4, 15_004]);
      expect(sizes.slice(4)).toEqual(edges.map((frame) => Buffer.byteLength(frame)));
      expect(new Set(sizes.slice(4))).toEqual(new Set([125, 126, 127, 65_535, 65_536]));
      await expect.poll(() => messages.length).toBe(frames.length);
      expect(messages).toEqual(
        ['{"a":1}', '{"a":"é€😀"}', '\ufffdx', long, ...edges].map((text) => ({ text, binary: false })),
      );
    },
  );

  it("writes through send when ws's Sender.frame does not frame as RFC 6455 says (another ws)", () => {
    /** A socket shaped as a ws 8 socket, its sender's class framing with `frame`. */
    const socketFramingWith = (frame: (text: string, options: object) => unknown) => {
      class Sender {
        static frame = frame;
        _state = 0;
        send(_text: string) {}
        sendFrame() {}
      }
      class Socket {
        _sender = new Sender();
        extensions = '';
        // As ws's own send hands a frame on (see wsWriter).
        send(text: string) {
          this._sender.send(text);
        }
        ping() {}
        terminate() {}
      }
      return new Socket() as unknown as Parameters<typeof wsWriter>[0];
    };
    const utf8 = (text: string) => new Uint8Array(Buffer.from(text));
    // Unmasked, one piece, options of another shape, a throw: each would put a wrong frame on the socket.
    const unmasked = (text: string) => [new Uint8Array([0x81, utf8(text).length]), utf8(text)];
    expect(wsWriter(socketFramingWith(unmasked))).toBeNull();
    const merged = (text: string, options: object) => [
      Buffer.concat(WsSender.frame(text, options) as Uint8Array[]),
    ];
    expect(wsWriter(socketFramingWith(merged))).toBeNull();
    const binary = (text: string, options: object) => WsSender.frame(text, { ...options, opcode: 2 });
    expect(wsWriter(socketFramingWith(binary))).toBeNull();
    expect(
      wsWriter(
        socketFramingWith(() => {
          throw new TypeError('options.mask is not a boolean');
        }),
      ),
    ).toBeNull();
    // ws's own framing, in the same shape of socket: taken.
    expect(wsWriter(socketFramingWith((text, options) => WsSender.frame(text, options)))).not.toBeNull();
    // ws's send as a build that turns classes into functions writes it: taken; a wrapper around it: not.
    const own = socketFramingWith((text, options) => WsSender.frame(text, options));
    const prototype = Object.getPrototypeOf(own) as { send: (text: string) => void };
    const original = prototype.send;
    prototype.send = function send(this: { _sender: { send(text: string): void } }, text: string) {
      this._sender.send(text);
    };
    expect(wsWriter(own)).not.toBeNull();
    prototype.send = function send(this: unknown, text: string) {
      original.call(this, text);
    };
    expect(wsWriter(own)).toBeNull();
  });

  /** Puts a spy on `WebSocket.prototype.send` (as a test or an instrumentation library does) that records each frame. */
  function spyOnSend(seen: unknown[]): void {
    const original = WebSocket.prototype.send;
    const spy = vi.spyOn(WebSocket.prototype, 'send').mockImplementation(function (
      this: WebSocket,
      ...args: unknown[]
    ) {
      seen.push(args[0]);
      (original as (...rest: unknown[]) => void).apply(this, args);
    });
    onTestFinished(() => {
      spy.mockRestore();
    });
  }

  /** Ways a program sees each frame of a `ws` socket through `send`. */
  /** A `ws` subclass that records each frame its `send` is given. */
  const recording = (seen: unknown[]) =>
    class Recording extends WebSocket {
      override send(data: unknown, ...rest: unknown[]): void {
        seen.push(data);
        (super.send as (...args: unknown[]) => void)(data, ...rest);
      }
    };

  const sendWatchers: Array<[string, (seen: unknown[]) => WebSocketConstructor]> = [
    [
      'a subclass overriding send alone (a recorder)',
      (seen) => recording(seen) as unknown as WebSocketConstructor,
    ],
    [
      'a spy on WebSocket.prototype.send (a test, an instrumentation library)',
      (seen) => {
        spyOnSend(seen);
        return WebSocket as unknown as WebSocketConstructor;
      },
    ],
    [
      'a subclass overriding send, ping and terminate',
      (seen) =>
        class Wrapped extends recording(seen) {
          override ping(...args: unknown[]): void {
            (super.ping as (...rest: unknown[]) => void)(...args);
          }
          override terminate(): void {
            super.terminate();
          }
        } as unknown as WebSocketConstructor,
    ],
    [
      'a Proxy whose send records',
      (seen) =>
        function Proxied(this: unknown, ...args: unknown[]) {
          const socket = new WebSocket(...(args as ConstructorParameters<typeof WebSocket>));
          const send = (data: unknown) => {
            seen.push(data);
            socket.send(data as string);
          };
          return new Proxy(socket, {
            get: (target, key) => (key === 'send' ? send : Reflect.get(target, key, target)),
          });
        } as unknown as WebSocketConstructor,
    ],
  ];

  it.each(sendWatchers)(
    'a ws socket watched through send by %s sees each frame, counted',
    async (_how, make) => {
      const { port, texts } = await messageServer();
      const seen: unknown[] = [];
      const sizes: unknown[] = [];
      await whenOpen(make(seen), port, (transport) => {
        sizes.push(transport.send('{"a":"€"}'));
      });
      expect(seen).toEqual(['{"a":"€"}']);
      expect(sizes).toEqual([11]);
      await expect.poll(texts).toEqual(['{"a":"€"}']);
    },
  );

  it("takes ws's own send, on a ws socket or a subclass that leaves send alone; a spy put on later sees the rest", async () => {
    const { port, texts } = await messageServer();
    class Plain extends WebSocket {}
    const seen: unknown[] = [];
    // What reached ws's Sender#send, which ws's WebSocket#send calls: nothing written by ws's sender directly.
    const viaSend: unknown[] = [];
    const senderPrototype = (WsSender as unknown as { prototype: { send: (...args: unknown[]) => void } })
      .prototype;
    const senderSend = senderPrototype.send;
    const senderSpy = vi.spyOn(senderPrototype, 'send').mockImplementation(function (
      this: unknown,
      ...args: unknown[]
    ) {
      viaSend.push(String(args[0]));
      senderSend.apply(this, args);
    });
    onTestFinished(() => {
      senderSpy.mockRestore();
    });
    await whenOpen(Plain as unknown as WebSocketConstructor, port, (transport) => {
      expect(transport.send('{"a":1}')).toBe(7);
      spyOnSend(seen);
      expect(transport.send('{"a":2}')).toBe(7);
    });
    // The first frame was written by ws's sender (send was ws's own), the second through the spy.
    expect(viaSend).toEqual(['{"a":2}']);
    expect(seen).toEqual(['{"a":2}']);
    await expect.poll(texts).toEqual(['{"a":1}', '{"a":2}']);
  });

  it('never throws: what a socket throws from send or its getters comes back as a value', () => {
    const boom = new Error('boom');
    const Hostile = class {
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      get readyState(): number {
        throw boom;
      }
      get bufferedAmount(): number {
        throw boom;
      }
      get protocol(): string {
        throw boom;
      }
      send() {
        throw boom;
      }
      close() {
        throw boom;
      }
    } as unknown as WebSocketConstructor;
    const transport = openTransport(Hostile, 'ws://127.0.0.1:1', LIMITS, handlers);
    expect(transport.send('a')).toEqual({ thrown: boom });
    expect(transport.bufferedAmount).toBe(0);
    expect(transport.protocol).toBeUndefined();
    expect(() => transport.close(1000, 'bye')).not.toThrow();
    expect(() => transport.terminate(4008, 'heartbeat timeout')).not.toThrow();
  });

  it('hands binary messages over as binary, never decoded as text', () => {
    const seen: string[] = [];
    let socket: { onmessage: ((event: { data: unknown }) => void) | null } | undefined;
    const Capture = class {
      readyState = 1;
      bufferedAmount = 0;
      protocol = 'toolwire.v1';
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      constructor() {
        socket = this;
      }
      send() {}
      close() {}
    } as unknown as WebSocketConstructor;
    openTransport(Capture, 'ws://127.0.0.1:1', LIMITS, {
      ...handlers,
      onMessage: (text) => seen.push(`text ${text}`),
      onBinary: (bytes) => seen.push(`binary ${bytes}`),
    });
    socket?.onmessage?.({ data: '{"type":"ping"}' });
    socket?.onmessage?.({ data: new TextEncoder().encode('{"type":"ping"}') });
    socket?.onmessage?.({ data: new ArrayBuffer(3) });
    expect(seen).toEqual(['text {"type":"ping"}', 'binary 15', 'binary 3']);
  });
});

describe('chooseWebSocket', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('takes the WebSocket option first, called as ws when it is ws, else as the WHATWG constructor', async () => {
    const Explicit = fakeSocketClass([], false);
    vi.stubGlobal('WebSocket', fakeSocketClass([], false));
    expect(await chooseWebSocket(Explicit, 'node')()).toEqual({ WebSocket: Explicit, style: 'web' });
    const ws = WebSocket as unknown as WebSocketConstructor;
    expect(await chooseWebSocket(ws, 'bun')()).toEqual({ WebSocket: ws, style: 'ws' });
  });

  it('in Node, is ws once the Node entry registered it, even where a global WebSocket exists', async () => {
    vi.stubGlobal('WebSocket', fakeSocketClass([], false));
    registerNodeWebSocket(loadWs);
    const choice = await chooseWebSocket(undefined, 'node')();
    expect(choice).toEqual({ WebSocket: (await import('ws')).WebSocket, style: 'ws' });
    expect(choice.WebSocket).toBe(WebSocket);
  });

  it('in Bun and Deno, is their global WebSocket, given headers in its options object (passed or not)', async () => {
    const Global = fakeSocketClass([], false);
    vi.stubGlobal('WebSocket', Global);
    registerNodeWebSocket(loadWs);
    for (const runtime of ['bun', 'deno'] as const) {
      expect(await chooseWebSocket(undefined, runtime)()).toEqual({ WebSocket: Global, style: 'options' });
      expect(await chooseWebSocket(Global, runtime)()).toEqual({ WebSocket: Global, style: 'options' });
    }
    // Browsers and workers: the WHATWG constructor, the key in hello.
    expect(await chooseWebSocket(undefined, 'other')()).toEqual({ WebSocket: Global, style: 'web' });
  });

  it('without a global WebSocket outside Node, rejects saying so', async () => {
    vi.stubGlobal('WebSocket', undefined);
    await expect(chooseWebSocket(undefined, 'other')()).rejects.toThrow(
      'this runtime has no global WebSocket',
    );
  });

  it("loads ws by import('ws') where the runtime has no process.getBuiltinModule", async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    expect(await loadWs()).toBe(WebSocket);
  });

  it("takes the global WebSocket where ws resolves to its browser stub (Jest's jsdom environment), else says so", async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    const Global = fakeSocketClass([], false);
    vi.stubGlobal('WebSocket', Global);
    // What `ws` gives under the `browser` condition: a function that throws, without a WebSocket.
    vi.doMock('ws', () => ({
      default: () => {
        throw new Error('ws does not work in the browser');
      },
      WebSocket: undefined,
    }));
    vi.resetModules();
    try {
      const { loadWs: load } = await import('../../src/wire/ws');
      expect(await load()).toBe(Global);
      vi.stubGlobal('WebSocket', undefined);
      await expect(load()).rejects.toMatchObject({
        code: 'no_websocket',
        message: expect.stringContaining('its browser stub'),
      });
    } finally {
      vi.doUnmock('ws');
      vi.resetModules();
    }
  });
});

describe('the options style (Bun, Deno)', () => {
  it('opens with { protocols, headers } and reads a refused upgrade status from the error message', () => {
    const made: unknown[][] = [];
    let socket:
      | { onerror: ((event: unknown) => void) | null; onclose: ((e: unknown) => void) | null }
      | undefined;
    const Native = class {
      readyState = 0;
      bufferedAmount = 0;
      protocol = '';
      onopen = null;
      onmessage = null;
      onclose = null;
      onerror = null;
      constructor(...args: unknown[]) {
        made.push(args);
        socket = this;
      }
      send() {}
      close() {}
    } as unknown as WebSocketConstructor;
    const closes: SocketFailure[] = [];
    openTransport(
      Native,
      'ws://127.0.0.1:1',
      { style: 'options', headers: { Authorization: 'Bearer k' }, maxPayloadBytes: 1_024 },
      { ...handlers, onClose: (_code, _reason, failure) => closes.push(failure) },
    );
    expect(made).toEqual([
      ['ws://127.0.0.1:1', { protocols: ['toolwire.v1'], headers: { Authorization: 'Bearer k' } }],
    ]);
    socket?.onerror?.({
      message: "WebSocket connection to 'ws://127.0.0.1:1/' failed: Expected 101 status code: 403",
    });
    socket?.onclose?.({ code: 1006, reason: '' });
    expect(closes).toEqual([{ status: 403 }]);
  });

  it('knows the status in the messages of Bun and Deno, and nothing in others', () => {
    expect(upgradeStatus("WebSocket connection to 'ws://h/' failed: Expected 101 status code: 403")).toBe(
      403,
    );
    expect(upgradeStatus('NetworkError: failed to connect to WebSocket: Invalid status code: 401')).toBe(401);
    expect(upgradeStatus('connect ECONNREFUSED 127.0.0.1:1')).toBeUndefined();
    expect(upgradeStatus(undefined)).toBeUndefined();
  });
});

/**
 * How each runtime reports one event (what its socket's `error` and `close` events carry, as measured with Deno
 * 2.9, Bun 1 and Node 22's global WebSocket), and the close every runtime must report for it: the one `ws` gives.
 */
const RUNTIME_REPORTS: Array<{
  event: string;
  runtime: string;
  error: { message?: string; error?: Error } | undefined;
  close: { code: number; reason: string };
  expected: [code: number, reason: string];
}> = [
  {
    event: 'a text frame of invalid UTF-8',
    runtime: 'Deno',
    error: { message: 'Invalid UTF-8', error: new Error('Invalid UTF-8') },
    close: { code: 0, reason: '' },
    expected: [1007, 'invalid UTF-8 in a text frame'],
  },
  {
    event: 'a text frame of invalid UTF-8',
    runtime: 'Bun',
    error: {
      message: "WebSocket connection to 'ws://127.0.0.1:1/' failed: Server sent invalid UTF8",
      error: new Error("WebSocket connection to 'ws://127.0.0.1:1/' failed: Server sent invalid UTF8"),
    },
    close: { code: 1006, reason: '' },
    expected: [1007, 'invalid UTF-8 in a text frame'],
  },
  {
    event: 'a text frame of invalid UTF-8',
    runtime: "Node's global WebSocket",
    error: {
      message: 'Received invalid UTF-8 in text frame.',
      error: new Error('Received invalid UTF-8 in text frame.'),
    },
    close: { code: 1006, reason: '' },
    expected: [1007, 'invalid UTF-8 in a text frame'],
  },
  {
    event: 'a connection reset',
    runtime: 'Deno',
    error: {
      message: 'Connection reset by peer (os error 104)',
      error: new Error('Connection reset by peer (os error 104)'),
    },
    close: { code: 0, reason: '' },
    expected: [1006, 'Connection reset by peer (os error 104)'],
  },
  {
    event: 'a connection ended without a close frame',
    runtime: 'Deno',
    error: { message: 'Unexpected EOF', error: new Error('Unexpected EOF') },
    close: { code: 0, reason: '' },
    expected: [1006, 'Unexpected EOF'],
  },
  {
    event: 'a connection reset',
    runtime: 'Bun',
    error: undefined,
    close: { code: 1006, reason: '' },
    expected: [1006, ''],
  },
  {
    event: 'a connection reset',
    runtime: 'a browser',
    error: {},
    close: { code: 1006, reason: '' },
    expected: [1006, ''],
  },
];

/** A WHATWG WebSocket whose events the test fires, as a runtime's global would. */
function scriptedSocket() {
  const made: Array<{
    onerror: ((event: unknown) => void) | null;
    onclose: ((event: unknown) => void) | null;
  }> = [];
  const Native = class {
    readyState = 1;
    bufferedAmount = 0;
    protocol = 'toolwire.v1';
    onopen = null;
    onmessage = null;
    onclose = null;
    onerror = null;
    constructor() {
      made.push(this);
    }
    send() {}
    close() {}
  } as unknown as WebSocketConstructor;
  return { Native, made };
}

describe('close codes, the same on every runtime', () => {
  it.each(RUNTIME_REPORTS)('reports $event in $runtime as ws does', ({ error, close, expected }) => {
    for (const style of ['web', 'options'] as const) {
      const { Native, made } = scriptedSocket();
      const closes: Array<[number, string]> = [];
      openTransport(
        Native,
        'ws://127.0.0.1:1',
        { style, maxPayloadBytes: 1_024 },
        { ...handlers, onClose: (code, reason) => closes.push([code, reason]) },
      );
      if (error !== undefined) made[0]?.onerror?.(error);
      made[0]?.onclose?.(close);
      expect(closes).toEqual([expected]);
    }
  });

  it('keeps every code a peer or a runtime reports (1000 to 4999), and reads anything else as 1006', () => {
    const codes = [1000, 1001, 1005, 1006, 1011, 1015, 3000, 4999, 0, -1, 999, 5000, 1006.5, Number.NaN];
    const reported = codes.map((code) => {
      const { Native, made } = scriptedSocket();
      let seen: number | undefined;
      openTransport(Native, 'ws://127.0.0.1:1', LIMITS, { ...handlers, onClose: (c) => (seen = c) });
      made[0]?.onclose?.({ code, reason: '' });
      return seen;
    });
    expect(reported).toEqual([
      1000, 1001, 1005, 1006, 1011, 1015, 3000, 4999, 1006, 1006, 1006, 1006, 1006, 1006,
    ]);
  });

  it.each([
    ['a text frame of invalid UTF-8', [1007, 'invalid UTF-8 in a text frame']],
    ['a connection reset', [1006, '']],
  ] as const)('with ws over a real socket, reports %s with the same code', async (event, expected) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    server.on('connection', (peer) => {
      const raw = (peer as unknown as { _socket: import('node:net').Socket })._socket;
      // A text frame (FIN, opcode 1) of two bytes that are not UTF-8; or the TCP connection reset (RST).
      if (event === 'a text frame of invalid UTF-8') raw.write(Buffer.from([0x81, 0x02, 0xc3, 0x28]));
      else raw.resetAndDestroy();
    });
    const { port } = server.address() as AddressInfo;
    try {
      const closed = new Promise<[number, string]>((resolve) => {
        openTransport(
          WebSocket as unknown as WebSocketConstructor,
          `ws://127.0.0.1:${port}`,
          { ...LIMITS, style: 'ws' },
          { ...handlers, onClose: (code, reason) => resolve([code, reason]) },
        );
      });
      expect(await closed).toEqual(expected);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
