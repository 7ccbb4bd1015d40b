// A runtime's own check of the built package (dist/): run by scripts/test-matrix.mjs under Node 20, 22 and 24,
// Bun and Deno. Prints one line per check and exits 1 on the first failure.
import { createServer } from 'node:http';
import { createServer as createTcpServer, connect as tcpConnect } from 'node:net';
import { z } from 'zod';
import { Agent, Client, tool } from '../../dist/node.js';
import { scriptedModel, silentLogger, startStubServer } from '../../dist/server-stub/index.js';

const runtime = globalThis.Bun
  ? `bun ${globalThis.Bun.version}`
  : globalThis.Deno
    ? `deno ${globalThis.Deno.version.deno}`
    : `node ${process.version}`;
let failed = false;
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${runtime}: ${name}`);
  } catch (error) {
    failed = true;
    console.log(`FAIL ${runtime}: ${name}: ${error?.stack ?? error}`);
  }
}
function equal(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

await check('a zod tool call end to end against the stub', async () => {
  const service = await startStubServer({
    logger: silentLogger,
    model: scriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      ({ messages }) => ({ text: `sum ${messages.at(-1)?.content}` }),
    ]),
  });
  const client = new Client({ url: service.url, apiKey: 'k', tools: [add], logger: silentLogger });
  try {
    await client.connect();
    const result = await client.run(new Agent({ name: 'A', instructions: 'add', tools: [add] }), 'add');
    equal(result.finalOutput, 'sum 5', 'finalOutput');
  } finally {
    await client.close();
    await service.close();
  }
});

await check(
  'the API key in an Authorization header; a 403 on the upgrade is a refusal within 1 s',
  async () => {
    const seen = [];
    const gateway = createServer();
    gateway.on('upgrade', (request, socket) => {
      seen.push(request.headers.authorization);
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    await new Promise((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const { port } = gateway.address();
    const client = new Client({
      url: `ws://127.0.0.1:${port}/v1/ws`,
      apiKey: 'gateway-key',
      tools: [add],
      logger: silentLogger,
    });
    const started = Date.now();
    try {
      const error = await client.connect().then(
        () => undefined,
        (thrown) => thrown,
      );
      equal([error?.name, error?.code], ['ConnectionError', 'unauthorized'], 'error');
      equal(seen, ['Bearer gateway-key'], 'Authorization headers seen');
      if (Date.now() - started > 1_000) throw new Error(`refused after ${Date.now() - started} ms`);
    } finally {
      await client.close();
      gateway.close();
    }
  },
);

/** A TCP proxy to `port` whose `cut()` drops every connection through it (a network cut mid-call). */
async function proxyTo(port) {
  const pairs = new Set();
  const server = createTcpServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    const pair = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${server.address().port}/v1/ws`,
    cut() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Resolves with the first `event` of `emitter` that `test` accepts, or rejects after `ms`. */
function nextEvent(emitter, event, test = () => true, ms = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    const listener = (value) => {
      if (!test(value)) return;
      clearTimeout(timer);
      emitter.off(event, listener);
      resolve(value);
    };
    emitter.on(event, listener);
  });
}

await check('a socket cut mid-call: the client resumes and the result arrives once', async () => {
  const service = await startStubServer({
    logger: silentLogger,
    model: scriptedModel([
      { toolCalls: [{ name: 'slow', arguments: {} }] },
      ({ messages }) => ({ text: `got ${messages.at(-1)?.content}` }),
    ]),
  });
  const proxy = await proxyTo(service.port);
  let runs = 0;
  let release;
  const started = new Promise((resolve) => {
    release = resolve;
  });
  let finish;
  const finished = new Promise((resolve) => {
    finish = resolve;
  });
  const slow = tool({
    name: 'slow',
    description: 'Waits until told.',
    parameters: z.object({}),
    execute: async () => {
      runs += 1;
      release();
      await finished;
      return 'late result';
    },
  });
  const client = new Client({
    url: proxy.url,
    apiKey: 'k',
    tools: [slow],
    logger: silentLogger,
    reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
  });
  client.on('error', () => {});
  const results = [];
  client.on('tool_result', (info) => results.push(info.callId));
  try {
    await client.connect();
    const run = client.run(new Agent({ name: 'A', instructions: 'wait', tools: [slow] }), 'go');
    await started;
    const resumed = nextEvent(client, 'connected', (info) => info.resumed === true);
    proxy.cut();
    await resumed;
    finish();
    const result = await run;
    equal(result.finalOutput, 'got late result', 'finalOutput');
    equal(runs, 1, 'executions');
    equal(results.length, 1, 'tool_result events');
  } finally {
    await client.close();
    await proxy.close();
    await service.close();
  }
});

await check('an approval round trip: the service holds the call, client.decide() approves it', async () => {
  const service = await startStubServer({
    logger: silentLogger,
    model: scriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { amount: 500 } }] },
      ({ messages }) => ({ text: `done ${messages.at(-1)?.content}` }),
    ]),
  });
  const refund = tool({
    name: 'refund',
    description: 'Refunds.',
    parameters: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => `refunded ${amount}`,
  });
  const client = new Client({ url: service.url, apiKey: 'k', tools: [refund], logger: silentLogger });
  const asked = [];
  client.on('approval_requested', (request) => {
    asked.push([request.toolName, request.input]);
    void client.decide(request.callId, { approved: true, arguments: { amount: 50 } });
  });
  try {
    await client.connect();
    const result = await client.run(new Agent({ name: 'A', instructions: 'refund', tools: [refund] }), 'go');
    equal(asked, [['refund', { amount: 500 }]], 'approval requests');
    // The model is told of the approver's edit before the output.
    equal(
      result.finalOutput,
      'done The approver edited the arguments of refund to {"amount":50}.\nrefunded 50',
      'finalOutput',
    );
  } finally {
    await client.close();
    await service.close();
  }
});

process.exit(failed ? 1 : 0);
