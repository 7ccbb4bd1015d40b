/**
 * Heap held by calls a client holds while a service floods it with `tool_call`s of large arguments
 * (`{"a":[{},{},…]}`, about `maxPayloadBytes` each) for a tool that never returns: `maxConcurrency` calls run, the
 * rest wait in the queue. With `keyed`, the tool has `concurrency: { limit: 1 }` and a schema that keeps `a`: one
 * call runs, the rest wait for their key's turn, each holding the input its schema gave. With `approval`, the tool
 * needs approval, has that schema, and the client's `onApproval` never answers: every call waits for a human, holding
 * that input. Prints the heap after GC before and after the flood. Run with `--expose-gc`:
 * `npm run bench:held-arguments -- [calls] [objects|arrays|numbers|strings] [maxQueueBytes] [queued|keyed|approval]`.
 *
 * @module
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import { Client, tool } from '../src/node';
import { newCallId, newRunId } from './lib/ids';
import { BENCH_API_KEY } from './subjects/harness';

const CALLS = Number(process.argv[2] ?? 60);
const SHAPE = process.argv[3] ?? 'objects';
const MAX_QUEUE_BYTES =
  process.argv[4] === undefined || process.argv[4] === '-' ? undefined : Number(process.argv[4]);
const MODE = process.argv[5] ?? 'queued';
if (!['queued', 'keyed', 'approval'].includes(MODE)) throw new Error(`unknown mode ${MODE}`);
const PAYLOAD = 1_048_576;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

const item =
  SHAPE === 'numbers'
    ? '1.5'
    : SHAPE === 'arrays'
      ? '[]'
      : SHAPE === 'strings'
        ? `"${'x'.repeat(62)}"`
        : '{}';
const count = Math.floor((PAYLOAD - 300) / (item.length + 1));
const args = `{"a":[${Array(count).fill(item).join(',')}]}`;

const server = new WebSocketServer({
  host: '127.0.0.1',
  port: 0,
  handleProtocols: () => 'toolwire.v1',
  maxPayload: 64 * PAYLOAD,
});
await new Promise((resolve) => server.once('listening', resolve));
const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
let results = 0;
server.on('connection', (socket) => {
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as { type: string; id?: string };
    if (frame.type === 'hello')
      socket.send(
        JSON.stringify({
          type: 'welcome',
          protocolVersion: 1,
          sessionId: 'held-arguments',
          resumed: false,
          heartbeatIntervalMs: 600_000,
          maxPayloadBytes: 2 * PAYLOAD,
        }),
      );
    else if (frame.type === 'ping')
      socket.send(JSON.stringify({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) }));
    else if (frame.type === 'tool_result') results += 1;
  });
});

const hang =
  MODE === 'keyed'
    ? tool({
        name: 'hang',
        description: 'Never returns; one call at a time.',
        parameters: z.object({ a: z.array(z.unknown()) }),
        concurrency: { limit: 1, key: () => 'one' },
        execute: () => new Promise<string>(() => {}),
      })
    : MODE === 'approval'
      ? tool({
          name: 'hang',
          description: 'Needs an approval that never comes.',
          parameters: z.object({ a: z.array(z.unknown()) }),
          needsApproval: true,
          execute: () => 'never',
        })
      : tool({
          name: 'hang',
          description: 'Never returns.',
          parameters: z.object({}),
          execute: () => new Promise<string>(() => {}),
        });
const client = new Client({
  url,
  apiKey: BENCH_API_KEY,
  tools: [hang],
  reconnect: false,
  maxConcurrency: 16,
  ...(MODE === 'approval' ? { onApproval: () => new Promise<boolean>(() => {}) } : {}),
  ...(MAX_QUEUE_BYTES === undefined ? {} : { maxQueueBytes: MAX_QUEUE_BYTES }),
});
await client.connect();
const [socket] = server.clients;
// The calls of one run, with the stand-in service's ids (./lib/ids.ts).
const runId = newRunId();
const before = heapAfterGc();
for (let i = 0; i < CALLS; i++) {
  socket?.send(
    `{"type":"tool_call","callId":"${newCallId()}","runId":"${runId}","toolName":"hang","deadlineMs":600000,"arguments":${args}}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
}
while (client.stats.running + client.stats.queued + client.stats.waiting + results < CALLS)
  await new Promise((resolve) => setTimeout(resolve, 20));
const after = heapAfterGc();
const { running, queued, waiting } = client.stats;
console.log(
  `${CALLS} calls of ${args.length.toLocaleString('en-US')} bytes (${SHAPE}, ${MODE}): ${running} running, ${queued} queued, ${waiting} waiting, ${results} answered; heap after GC ${((after - before) / 2 ** 20).toFixed(1)} MiB more (${((after - before) / CALLS / 2 ** 20).toFixed(2)} MiB a call)`,
);
process.exit(0);
