/**
 * `ws`'s WebSocket class, loaded when the first client connects: the Node entry (src/node.ts) registers
 * {@link loadWs} as the WebSocket of clients made in Node. The core (src/index.ts, what browsers get) never names
 * `ws`.
 *
 * @module
 */
import { ConnectionError } from '../errors';
import {
  type WebSocketConstructor,
  type WebSocketLike,
  WS_SENDER_IDLE,
  type WsSender,
  type WsSenderClass,
  type WsWriter,
} from './transport';

/**
 * `ws`'s WebSocket: through Node's `require` where it can (see {@link requireWs}), else `import('ws')`. Where `ws`
 * gives none, the runtime's global `WebSocket`: a test environment that resolves the `browser` condition in Node
 * (Jest's jsdom environment) gets `ws`'s browser stub, and jsdom's own WebSocket is there.
 * @throws ConnectionError `no_websocket` when `ws` was bundled into an ES module, whose bundler gave it no
 *   `require` for Node's own modules (esbuild: `Dynamic require of "events" is not supported`), saying what to do;
 *   or when `ws` gives no WebSocket and the runtime has no global one; else whatever loading `ws` throws (it is not
 *   installed).
 */
export async function loadWs(): Promise<WebSocketConstructor> {
  let module: { WebSocket?: unknown } | undefined;
  try {
    module = (requireWs() ?? (await import('ws'))) as { WebSocket?: unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!reason.includes('Dynamic require of')) throw error;
    throw new ConnectionError(
      'no_websocket',
      `no WebSocket implementation found: \`ws\` was bundled into an ES module, where its require() of Node's own modules fails (${reason}); bundle the program as CommonJS, keep \`ws\` out of the bundle and install it, or give the bundle a \`require\` (docs/guide/workers.md, "One file per worker")`,
      { cause: error },
    );
  }
  if (typeof module?.WebSocket === 'function') return module.WebSocket as WebSocketConstructor;
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof global === 'function') return global as WebSocketConstructor;
  throw new ConnectionError(
    'no_websocket',
    "no WebSocket implementation found: `ws` resolved to a module without one (its browser stub, where the `browser` condition is resolved in Node) and the runtime has no global WebSocket; pass `WebSocket` (the test environment's own, or `ws`'s from a file that resolves it for Node)",
  );
}

/**
 * `ws` through Node's `require`, resolved from this file as `import('ws')` resolves it, in an ES module where the
 * runtime has `process.getBuiltinModule` (Node ≥ 20.16); `undefined` elsewhere, where `import('ws')` loads it:
 * older Node, a bundle without `ws` on disk, and CommonJS (dist/node.cjs), whose `import('ws')` the build already
 * turns into `require('ws')` (so a test runner's module mocks still apply there). Node's `import()` of a CommonJS
 * package (`ws` is one) runs each of its files through the ESM loader's CommonJS translator, which scans them for
 * their exports: about three times the CPU of `require` (~65 ms against ~25 ms on the bench machine), paid by the
 * first connect of a process. Both give the same module: Node keeps one cache.
 */
function requireWs(): unknown {
  // `undefined` in the CommonJS build (tsup.config.ts).
  const from: unknown = import.meta.url;
  if (typeof from !== 'string') return undefined;
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof node?.getBuiltinModule !== 'function') return undefined;
  const module = node.getBuiltinModule('node:module') as
    | { createRequire?: (from: string) => (id: string) => unknown }
    | undefined;
  if (typeof module?.createRequire !== 'function') return undefined;
  try {
    return module.createRequire(from)('ws');
  } catch {
    return undefined;
  }
}

/** Whether each `Sender` class met so far frames a text as RFC 6455 says, given the options of {@link wsWriter}. */
const framingChecked = new WeakMap<object, boolean>();

/**
 * Frames a sample text's UTF-8 (two- and one-byte characters) with `Sender.frame` and a known mask, and checks each
 * byte against RFC 6455 §5.2: a text frame, final, masked, its length, the mask, the masked UTF-8. Once per `Sender`
 * class: a `ws` whose `frame` takes other options or returns other pieces writes through `send` instead, never a
 * wrong frame. Never throws.
 */
function framesAsKnown(Sender: WsSenderClass, NodeBuffer: NodeBufferClass): boolean {
  let known = framingChecked.get(Sender);
  if (known !== undefined) return known;
  const mask = [0x11, 0x22, 0x33, 0x44];
  // `hé!`: 0x68, 0xc3 0xa9, 0x21.
  const payload = [0x68, 0xc3, 0xa9, 0x21];
  const expected = [0x81, 0x80 | 4, ...mask, ...payload.map((byte, index) => byte ^ (mask[index] as number))];
  try {
    const pieces = Sender.frame(NodeBuffer.from('h\u00e9!'), {
      fin: true,
      generateMask: (into: Uint8Array) => into.set(mask),
      mask: true,
      maskBuffer: new Uint8Array(4),
      opcode: 1,
      readOnly: false,
      rsv1: false,
    });
    const bytes = Array.isArray(pieces) ? pieces.flatMap((piece) => [...piece]) : [];
    known =
      pieces.length === 2 &&
      bytes.length === expected.length &&
      bytes.every((byte, index) => byte === expected[index]);
  } catch {
    known = false;
  }
  framingChecked.set(Sender, known);
  return known;
}

/** The part of Node's `Buffer` class the writer uses. */
interface NodeBufferClass {
  from(text: string): Uint8Array;
}

/**
 * Frames a text as `ws`'s `send` does and writes it with `ws`'s own writer, without `send`: `send` counts the
 * text's bytes (again: the write budget counts them) and makes an object of options for each frame, a literal with
 * a symbol key that V8 builds in its runtime, 7 calls a frame (~9,000 instructions), once a full garbage
 * collection has let the maps of those objects go: a long-lived client pays that on every frame. The options here
 * are made once, as `send` makes them for a client's text frame without compression; the frame's bytes come back
 * with it. The text goes to `frame` as its UTF-8, made by the writer (`frame` would make the same): `frame` given
 * the text itself took ~500 instructions a frame more (callgrind, ws 8.23 on Node 20). Not `readOnly`: `frame` would
 * then write the header and the masked payload in one buffer, one write to the TCP socket rather than two, but that
 * buffer is one more from the pool per frame, which costs more than the write saved (~+1,000 instructions a frame).
 * `null` where `ws`'s internals are not as known (another version whose `Sender.frame` does not frame a sample as
 * RFC 6455 says: {@link framesAsKnown}), `send` is not `ws`'s own ({@link isWsSend}), compression was negotiated,
 * or the runtime has no `Buffer`: then frames go through `send`.
 */
export function wsWriter(socket: WebSocketLike): WsWriter | null {
  // `ws`'s own `send` only, as the socket resolves it: a subclass, a spy or wrapper on the prototype, or a Proxy that
  // sees each frame through `send` (a recorder, a metric, a test) keeps seeing it.
  const send: unknown = socket.send;
  if (typeof send !== 'function' || !isWsSend(send)) return null;
  const sender = (socket as { _sender?: Partial<WsSender> | null })._sender;
  if (sender == null || typeof sender.sendFrame !== 'function' || sender._state !== WS_SENDER_IDLE)
    return null;
  const Sender = sender.constructor as Partial<WsSenderClass> | undefined;
  if (typeof Sender?.frame !== 'function') return null;
  if ((socket as { extensions?: unknown }).extensions !== '') return null;
  const NodeBuffer = (globalThis as { Buffer?: Partial<NodeBufferClass> }).Buffer;
  if (typeof NodeBuffer?.from !== 'function') return null;
  const Buffer = NodeBuffer as NodeBufferClass;
  const frameOf = Sender as WsSenderClass;
  if (!framesAsKnown(frameOf, Buffer)) return null;
  const options = {
    fin: true,
    generateMask: sender._generateMask,
    mask: true,
    maskBuffer: sender._maskBuffer,
    opcode: 1,
    readOnly: false,
    rsv1: false,
  };
  return { send, sender: sender as WsSender, Sender: frameOf, options, Buffer };
}

/** Whether each function met as a socket's `send` is `ws`'s own (see {@link isWsSend}). */
const wsSends = new WeakMap<object, boolean>();

/**
 * Whether `send` is `ws` 8's own `WebSocket#send`, by its text: a method `send(` (`function send(` where a build
 * turned classes into functions) that hands the frame to `this._sender.send(`. A function put in its place (a
 * subclass's override, a spy or an instrumentation library's wrapper on `WebSocket.prototype`, a Proxy's) calls the
 * original instead: it is not. Once per function; never throws.
 */
function isWsSend(send: object): boolean {
  let own = wsSends.get(send);
  if (own !== undefined) return own;
  let source = '';
  try {
    source = Function.prototype.toString.call(send);
  } catch {
    // Not a function whose text can be read: not `ws`'s.
  }
  own = /^(?:function\s+)?send\s*\(/.test(source) && source.includes('this._sender.send(');
  wsSends.set(send, own);
  return own;
}
