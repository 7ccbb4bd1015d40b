// A runtime's own check of the built package (dist/): run by scripts/test-matrix.mjs under Node 20, 22 and 24,
// Bun and Deno. Prints one line per check and exits 1 on the first failure.
import { createServer } from 'node:http';
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

process.exit(failed ? 1 : 0);
