/**
 * `npm run bench:trip`: the trip of one plain tool call through src/, from the socket's message to the result
 * frame the service receives. A zod 4 tool with a synchronous `execute`, a client of default options, and a
 * service that sends `tool_call`s as the stub does (`deadlineMs`, `depth`, its ids: ./lib/ids.ts).
 *
 * After a warm-up, V8's precise coverage (call counts) is reset, one call is made, and the functions of src/ that
 * ran are counted: "files" is how many source files the call entered, "steps" how many function calls it made in
 * them. `--list` prints them, file by file; `--json` prints only `{ files, functions, calls }` (the figures
 * bench/budgets.ts holds the call to).
 *
 * @module
 */
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import { Client, tool } from '../src/node';
import { newCallId, newRunId } from './lib/ids';
import { BENCH_API_KEY } from './subjects/harness';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const WARMUP_CALLS = 500;

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'toolwire.v1' });
await new Promise((resolve) => server.once('listening', resolve));
const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;

let onResult: (() => void) | undefined;
server.on('connection', (socket) => {
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as { type: string; callId?: string; id?: string };
    if (frame.type === 'hello') {
      socket.send(
        JSON.stringify({
          type: 'welcome',
          protocolVersion: 1,
          sessionId: 'trip',
          resumed: false,
          heartbeatIntervalMs: 30_000,
          maxPayloadBytes: 1_048_576,
        }),
      );
    } else if (frame.type === 'ping') {
      socket.send(JSON.stringify({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) }));
    } else if (frame.type === 'tool_result') {
      const done = onResult;
      onResult = undefined;
      done?.();
      socket.send(JSON.stringify({ type: 'ack', callId: frame.callId }));
    }
  });
});

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const client = new Client({ url, apiKey: BENCH_API_KEY, tools: [add], reconnect: false });
await client.connect();
const [socket] = server.clients;

/** The run every call is part of, as the stub's calls of one run name it. */
const runId = newRunId();
let seq = 0;
function call(): Promise<void> {
  seq += 1;
  const callId = newCallId();
  const result = new Promise<void>((resolve) => {
    onResult = resolve;
  });
  socket!.send(
    JSON.stringify({
      type: 'tool_call',
      callId,
      runId,
      toolName: 'add',
      arguments: { a: seq, b: 1 },
      deadlineMs: 600_000,
      depth: 0,
    }),
  );
  return result;
}

for (let i = 0; i < WARMUP_CALLS; i += 1) await call();
await new Promise((resolve) => setTimeout(resolve, 50));

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage');
await call();
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();

const perFile = new Map<string, Array<{ name: string; count: number }>>();
for (const script of result) {
  if (!script.url.startsWith('file://')) continue;
  const path = fileURLToPath(script.url);
  if (!path.startsWith(SRC)) continue;
  for (const fn of script.functions) {
    const count = fn.ranges[0]?.count ?? 0;
    if (count === 0 || fn.functionName === '') {
      if (count > 0 && fn.ranges[0]?.startOffset !== 0) {
        // An anonymous function (an arrow, a callback) that ran: counted under its file.
        const list = perFile.get(path) ?? [];
        list.push({ name: '(anonymous)', count });
        perFile.set(path, list);
      }
      continue;
    }
    const list = perFile.get(path) ?? [];
    list.push({ name: fn.functionName, count });
    perFile.set(path, list);
  }
}
const files = [...perFile.keys()].sort();
const functions = [...perFile.values()].flat();
const calls = functions.reduce((sum, fn) => sum + fn.count, 0);
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ files: files.length, functions: functions.length, calls }));
} else {
  console.log(
    `one plain call: ${files.length} files of src/, ${functions.length} functions entered, ${calls} function calls`,
  );
}
if (process.argv.includes('--list')) {
  for (const file of files) {
    const fns = perFile.get(file)!;
    console.log(
      `  ${file.slice(SRC.length)}: ${fns.map((fn) => `${fn.name}${fn.count > 1 ? `×${fn.count}` : ''}`).join(', ')}`,
    );
  }
}
await client.close({ drain: false });
for (const open of server.clients) open.terminate();
server.close();
