/**
 * Subject (1), the floor: the fastest raw protocol v1 client we can write on `ws`, with nothing but
 * `JSON.parse`, the tool's own work and the result frame written by hand. It writes as toolwire does (the TCP
 * socket corked at the first frame of a task and uncorked after it: one `writev` for a batch) and sends the
 * same JSON toolwire sends (`tool_result` with `durationMs`; with `--tools N`, the same `hello` definitions).
 * No validation, no outbox, no concurrency limit: the least a client can do, done as fast as we know how.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { argument, exitWithParent, Holds, runHarness } from './harness';

exitWithParent();
const holds = new Holds();
// The definitions are made before connecting (as toolwire's are), with toolwire's own code only when asked.
const toolCount = Number(argument('tools') ?? 0);
const tools = toolCount === 0 ? [] : (await import('./tools')).benchDefinitions(toolCount);
const connectStarted = performance.now();
// `ws` is loaded inside the connect time, as toolwire loads it on its first connect, and the fastest way Node has
// (require: an ES import of it runs each of its files through the CommonJS translator, ~3x the CPU).
const { WebSocket } = createRequire(import.meta.url)('ws') as typeof import('ws');
const socket = new WebSocket(argument('url')!, 'toolwire.v1', {
  headers: { Authorization: 'Bearer bench' },
  perMessageDeflate: false,
});

interface Call {
  type: string;
  callId: string;
  toolName: string;
  arguments: { a: number; b: number; data: string };
}

let raw: { cork(): void; uncork(): void } | undefined;
let corked = false;
const uncork = () => {
  corked = false;
  raw?.uncork();
};

const reply = (callId: string, output: string) => {
  if (!corked && raw !== undefined) {
    corked = true;
    raw.cork();
    void Promise.resolve().then(uncork);
  }
  socket.send(
    `{"type":"tool_result","callId":${JSON.stringify(callId)},"status":"ok","output":${JSON.stringify(output)},"durationMs":0}`,
  );
};

socket.on('open', () => {
  raw = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
  socket.send(JSON.stringify({ type: 'hello', protocol: 1, sdk: { name: 'floor', version: '0' }, tools }));
});
socket.on('message', (data: Buffer) => {
  const frame = JSON.parse(data.toString()) as Call;
  if (frame.type === 'tool_call') {
    if (frame.toolName === 'add') reply(frame.callId, String(frame.arguments.a + frame.arguments.b));
    else if (frame.toolName === 'size') reply(frame.callId, String(frame.arguments.data.length));
    else if (frame.toolName === 'hold') {
      const { callId } = frame;
      void holds.wait().then(() => reply(callId, 'released'));
    }
  } else if (frame.type === 'welcome') {
    runHarness(holds, () => socket.close(), { connectMs: performance.now() - connectStarted });
  } else if (frame.type === 'ping') {
    socket.send('{"type":"pong"}');
  }
  // `ack` needs nothing: the floor keeps no outbox.
});
