/**
 * `npm run bench:alloc`: the bytes one plain call allocates in the client, by allocation site, beside the floor's.
 *
 * A service in a child process keeps `--in-flight N` (default 1) `add` calls going, with the stand-in service's ids
 * (./lib/ids.ts: `call_` and a UUID, the calls of one run `run_` and a UUID); the measured process is the
 * client alone: toolwire's `Client` (a zod 4 tool with a synchronous `execute`, default options) or, with `--floor`,
 * the raw `ws` client of the bench's floor (JSON.parse, add, the result frame written by hand, corked per task).
 * After 30,000 calls of warm-up, V8's sampling heap profiler counts every allocation of the next `--calls N`
 * (default 20,000), the ones a GC has already collected included, every 64 bytes on average. Bytes per call are
 * estimates from those samples: a site under ~20 B a call is noise. Each site is listed with the nearest src/ function
 * on its stack (a `ws` or Node internal called by toolwire counts under its caller in src/).
 *
 * Allocation is not time: a short-lived object costs its bump of the pointer and nothing at the next scavenge. Read it
 * for what a call keeps and makes, not as a target.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { Client, tool } from '../src/node';
import { newCallId, newRunId } from './lib/ids';
import { BENCH_API_KEY } from './subjects/harness';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(argv[index + 1]);
};
const IN_FLIGHT = option('in-flight', 1);
const CALLS = option('calls', 20_000);
const WARMUP_CALLS = 30_000;

/** The service: answers `hello`, then keeps IN_FLIGHT `add` calls going, one more for each result. */
function serve(): void {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'toolwire.v1' });
  server.on('listening', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
  server.on('connection', (socket) => {
    let seq = 0;
    const runId = newRunId();
    const call = () => {
      seq += 1;
      const args = { a: seq, b: 1 };
      socket.send(
        JSON.stringify({
          type: 'tool_call',
          callId: newCallId(),
          runId,
          toolName: 'add',
          arguments: args,
          deadlineMs: 600_000,
          depth: 0,
        }),
      );
    };
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string; callId?: string; id?: string };
      if (frame.type === 'hello') {
        const welcome = {
          type: 'welcome',
          protocolVersion: 1,
          sessionId: 'alloc',
          resumed: false,
          heartbeatIntervalMs: 30_000,
          maxPayloadBytes: 1_048_576,
        };
        socket.send(JSON.stringify(welcome));
        for (let i = 0; i < IN_FLIGHT; i += 1) call();
      } else if (frame.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) }));
      } else if (frame.type === 'tool_result') {
        socket.send(JSON.stringify({ type: 'ack', callId: frame.callId }));
        call();
      }
    });
  });
}

let answered = 0;
let target = 0;
let reached: (() => void) | undefined;
function answer(a: number, b: number): string {
  answered += 1;
  if (answered === target) reached?.();
  return String(a + b);
}
function calls(count: number): Promise<void> {
  target = answered + count;
  return new Promise((resolve) => {
    reached = resolve;
  });
}

/** The bench floor's client (bench/subjects/floor.ts), `add` only. */
async function floor(url: string): Promise<() => void> {
  const socket = new WebSocket(url, 'toolwire.v1', { perMessageDeflate: false });
  let raw: { cork(): void; uncork(): void } | undefined;
  let corked = false;
  const uncork = () => {
    corked = false;
    raw?.uncork();
  };
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as {
      type: string;
      callId: string;
      arguments: { a: number; b: number };
    };
    if (frame.type === 'tool_call') {
      const output = answer(frame.arguments.a, frame.arguments.b);
      if (!corked && raw !== undefined) {
        corked = true;
        raw.cork();
        void Promise.resolve().then(uncork);
      }
      socket.send(
        `{"type":"tool_result","callId":${JSON.stringify(frame.callId)},"status":"ok","output":${JSON.stringify(output)},"durationMs":0}`,
      );
    } else if (frame.type === 'ping') socket.send('{"type":"pong"}');
  });
  await new Promise((resolve) => socket.once('open', resolve));
  raw = (socket as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
  socket.send(
    JSON.stringify({ type: 'hello', protocol: 1, sdk: { name: 'floor', version: '0' }, tools: [] }),
  );
  return () => socket.terminate();
}

async function toolwire(url: string): Promise<() => void> {
  const add = tool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => answer(a, b),
  });
  const client = new Client({ url, apiKey: BENCH_API_KEY, tools: [add], reconnect: false });
  await client.connect();
  return () => void client.close({ drain: false });
}

interface SampleNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: SampleNode[];
}

/** Bytes per call by site ("function file") and by the nearest src/ function on the stack. */
function tally(
  head: SampleNode,
  count: number,
): { bySite: Map<string, number>; byCaller: Map<string, number> } {
  const bySite = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, bytes: number) =>
    map.set(key, (map.get(key) ?? 0) + bytes / count);
  const walk = (node: SampleNode, caller: string) => {
    const { functionName, url } = node.callFrame;
    const path = url.startsWith('file://') ? fileURLToPath(url) : url;
    const where = path.startsWith(SRC)
      ? `src/${path.slice(SRC.length)}`
      : path.includes('node_modules/')
        ? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
        : path || '(V8)';
    const site = `${functionName || '(anonymous)'}  ${where}`;
    const nearest = where.startsWith('src/') ? site : caller;
    if (node.selfSize > 0) {
      add(bySite, site, node.selfSize);
      add(byCaller, nearest, node.selfSize);
    }
    for (const child of node.children) walk(child, nearest);
  };
  walk(head, '(no src/ function)');
  return { bySite, byCaller };
}

function print(title: string, map: Map<string, number>, limit: number): void {
  console.log(title);
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    if (bytes >= 1) console.log(`  ${bytes.toFixed(0).padStart(6)} B  ${key}`);
  }
}

async function measure(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const service = spawn(
    process.execPath,
    [...process.execArgv, self, '--serve', '--in-flight', String(IN_FLIGHT)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<string>((resolve) =>
    service.stdout.once('data', (data: Buffer) => resolve(`${data}`.trim())),
  );
  const subject = argv.includes('--floor') ? 'floor' : 'toolwire';
  const warm = calls(WARMUP_CALLS);
  const stop = await (subject === 'floor' ? floor : toolwire)(`ws://127.0.0.1:${port}`);
  await warm;
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  // Collected objects too: a call's garbage is what it allocates (V8 ≥ 11.1; the type lags behind).
  const sampling = {
    samplingInterval: 64,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  };
  await session.post('HeapProfiler.startSampling', sampling as { samplingInterval: number });
  await calls(CALLS);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  stop();
  service.kill();
  const { bySite, byCaller } = tally(profile.head as unknown as SampleNode, CALLS);
  const total = [...bySite.values()].reduce((sum, bytes) => sum + bytes, 0);
  console.log(
    `${subject}: ${total.toFixed(0)} B allocated per call (${CALLS} calls at ${IN_FLIGHT} in flight)`,
  );
  print('by the nearest src/ function on the stack:', byCaller, 25);
  print('by site:', bySite, 40);
}

if (argv.includes('--serve')) serve();
else await measure();
