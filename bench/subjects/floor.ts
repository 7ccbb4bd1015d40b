/**
 * Subject (1), the floor: the fastest raw protocol v1 client we can write on `ws`, with nothing but
 * `JSON.parse`, the tool's own work and the result frame written by hand. It writes as toolwire does (the TCP
 * socket corked at the first frame of a task and uncorked after it: one `writev` for a batch) and sends the
 * same JSON toolwire sends: its `tool_result` byte for byte (`durationMs` rounded to the ms, 0 for a tool that
 * answers at once; with a service that welcomes `result_parts`, the result's kind: `json` for the numbers of `add`
 * and `size`, `text` for `hold`'s string; test/bench/driver.test.ts compares the two), and with `--tools N` the
 * same `hello` definitions.
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

/** Whether the service welcomed `result_parts`: then a result says its kind, as toolwire's do. */
let resultParts = false;

/** `durationMs` is a whole number of ms: 0 for `add` and `size`, the time held for `hold`. */
const reply = (callId: string, output: string, kind: 'json' | 'text', durationMs = 0) => {
  if (!corked && raw !== undefined) {
    corked = true;
    raw.cork();
    void Promise.resolve().then(uncork);
  }
  socket.send(
    `{"type":"tool_result","callId":${JSON.stringify(callId)},"status":"ok","output":${JSON.stringify(output)},"durationMs":${durationMs}${resultParts ? `,"result":{"type":"${kind}"}}` : '}'}`,
  );
};

socket.on('open', () => {
  raw = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
  // It offers the one feature it speaks, `result_parts`, as toolwire offers it: the service's answer decides.
  socket.send(
    JSON.stringify({
      type: 'hello',
      protocol: 1,
      sdk: { name: 'floor', version: '0' },
      features: ['result_parts'],
      tools,
    }),
  );
});
socket.on('message', (data: Buffer) => {
  const frame = JSON.parse(data.toString()) as Call;
  if (frame.type === 'tool_call') {
    if (frame.toolName === 'add') reply(frame.callId, String(frame.arguments.a + frame.arguments.b), 'json');
    else if (frame.toolName === 'size') reply(frame.callId, String(frame.arguments.data.length), 'json');
    else if (frame.toolName === 'hold') {
      const { callId } = frame;
      const started = performance.now();
      void holds
        .wait()
        .then(() => reply(callId, 'released', 'text', Math.max(0, Math.round(performance.now() - started))));
    }
  } else if (frame.type === 'welcome') {
    resultParts = (frame as { features?: string[] }).features?.includes('result_parts') === true;
    runHarness(holds, () => socket.close(), { connectMs: performance.now() - connectStarted });
  } else if (frame.type === 'ping') {
    socket.send('{"type":"pong"}');
  }
  // `ack` needs nothing: the floor keeps no outbox.
});
