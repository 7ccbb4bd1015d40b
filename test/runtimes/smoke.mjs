// A runtime's own check of the built package (dist/): run by scripts/test-matrix.mjs under Node 20, 22 and 24,
// Bun and Deno. Prints one line per check and exits 1 on the first failure.
import { createServer } from 'node:http';
import { createServer as createTcpServer, connect as tcpConnect } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { Agent, Client, tool } from '../../dist/node.js';
import { scriptedModel, silentLogger, startStubServer } from '../../dist/server-stub/index.js';
import { runScenario, SCENARIO_ANSWER, SCENARIO_TRACE, scenarioScript } from './optional-parts.mjs';

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

await check("a zod 3 tool, its converter loaded by the first one (the node entry's require)", async () => {
  const { z: z3 } = await import('zod/v3');
  const echo = tool({
    name: 'echo',
    description: 'Echoes.',
    parameters: z3.object({ text: z3.string().min(1) }),
    execute: ({ text }) => text,
  });
  equal(echo.definition.parameters.required, ['text'], 'required');
  equal(echo.definition.parameters.properties.text, { type: 'string', minLength: 1 }, 'text');
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

await check('nothing listening is connection_refused, its error naming the way out', async () => {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  const client = new Client({
    url: `ws://127.0.0.1:${port}`,
    apiKey: 'k',
    tools: [add],
    logger: silentLogger,
  });
  const codes = [];
  client.on('error', (error) => codes.push(error.code));
  const error = await client.connect({ maxAttempts: 1 }).then(
    () => undefined,
    (thrown) => thrown,
  );
  equal(
    [error?.code, error?.cause?.code, codes],
    ['unreachable', 'connection_refused', ['connection_refused']],
    'codes',
  );
  if (!error.message.includes('nothing accepts connections there: start the service'))
    throw new Error(`no hint in: ${error.message}`);
});

await check(
  'an address that is not toolwire rejects connect() at its first attempt, naming why',
  async () => {
    const upgrades = [];
    const web = createServer((_request, response) => response.end('a web page'));
    web.on('upgrade', (request, socket) => {
      upgrades.push(request.url);
      const status = request.url === '/page' ? '200 OK' : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
    await new Promise((resolve) => web.listen(0, '127.0.0.1', resolve));
    // A WebSocket server that answers whatever comes with a line of text (it selects the subprotocol offered).
    const echo = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => echo.once('listening', resolve));
    echo.on('connection', (socket) => socket.on('message', () => socket.send('echo: hello')));
    const cases = [
      [`ws://127.0.0.1:${web.address().port}/page`, 'upgrade_failed', 'HTTP 200 instead of 101'],
      [`ws://127.0.0.1:${web.address().port}/wrong`, 'upgrade_failed', 'HTTP 404 instead of 101'],
      [`ws://127.0.0.1:${echo.address().port}`, 'invalid_welcome', 'a frame that is not JSON'],
    ];
    try {
      for (const [url, code, words] of cases) {
        const client = new Client({ url, apiKey: 'k', tools: [add], logger: silentLogger });
        const events = [];
        client.on('error', (error) => events.push(error));
        const started = Date.now();
        const error = await client.connect().then(
          () => undefined,
          (thrown) => thrown,
        );
        equal(
          [error?.name, error?.code, events.length, events[0] === error],
          ['ConnectionError', code, 1, true],
          url,
        );
        if (!error.message.includes(words)) throw new Error(`${url}: ${error.message}`);
        if (Date.now() - started > 1_000)
          throw new Error(`${url}: rejected after ${Date.now() - started} ms`);
      }
      equal(upgrades, ['/page', '/wrong'], 'upgrade requests');
    } finally {
      web.close();
      await new Promise((resolve) => echo.close(resolve));
    }
  },
);

await check('a client given no logger writes its refusal for good to stderr, the key redacted', async () => {
  const key = 'sk-smoke-REVOKED-KEY-1234';
  const service = await startStubServer({ logger: silentLogger, apiKeys: [key], model: scriptedModel([]) });
  const client = new Client({ url: service.url, apiKey: key, tools: [add] });
  const lines = [];
  const original = console.error;
  console.error = (...args) => lines.push(args.join(' '));
  try {
    await client.connect();
    const closed = nextEvent(client, 'closed');
    service.setApiKeys(['another-key-entirely']);
    equal((await closed)?.code, 'unauthorized', 'closed with');
    equal(
      lines,
      [
        '[toolwire] error the client closed for good and serves no more calls: the service refused the connection (4001: API key revoked) {"code":"unauthorized"}',
      ],
      'stderr',
    );
  } finally {
    console.error = original;
    await client.close();
    await service.close();
  }
});

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
    /** Stops reading what clients write (the service stops reading); their frames pile up in the socket. */
    pause() {
      for (const [client] of pairs) client.pause();
    },
    resume() {
      for (const [client] of pairs) client.resume();
    },
    /** Writes raw bytes to every client, between the service's frames (the connections must be idle). */
    inject(bytes) {
      for (const [client] of pairs) client.write(bytes);
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

// Where the runtime has a global WebSocket that is not `ws` (Bun, Deno, Node 22+), with it too: it counts the bytes
// it wrote itself (src/wire/backpressure.ts), since such a socket may under-report its buffer.
const sockets = [['the default socket', undefined]];
if (globalThis.WebSocket !== undefined && !globalThis.Deno)
  sockets.push(['the global WebSocket', globalThis.WebSocket]);
for (const [socketName, WebSocket] of sockets)
  await check(
    `40 results of 256 KiB written while the service stops reading keep their content (${socketName})`,
    async () => {
      const CALLS = 40;
      const size = 256 * 1024;
      const seen = [];
      const service = await startStubServer({
        logger: silentLogger,
        model: scriptedModel([
          {
            toolCalls: Array.from({ length: CALLS }, (_, n) => ({ name: 'big', arguments: { n } })),
          },
          ({ messages }) => {
            for (const message of messages) if (message.role === 'tool') seen.push(message.content);
            return { text: 'read' };
          },
        ]),
      });
      const proxy = await proxyTo(service.port);
      const big = tool({
        name: 'big',
        description: 'A large result.',
        parameters: z.object({ n: z.number() }),
        execute: ({ n }) => {
          // The service stops reading once the calls are dispatched (the run's start went through first).
          if (n === 0) proxy.pause();
          return `${n}:`.padEnd(size, String.fromCharCode(97 + (n % 26)));
        },
      });
      const client = new Client({
        url: proxy.url,
        apiKey: 'k',
        tools: [big],
        // Every call at once: the service sends a worker calls for its free slots (and one round more) only.
        maxConcurrency: CALLS,
        logger: silentLogger,
        ...(WebSocket === undefined ? {} : { WebSocket }),
      });
      client.on('error', () => {});
      try {
        await client.connect();
        const run = client.run(new Agent({ name: 'A', instructions: 'big', tools: [big] }), 'go');
        run.catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        // Every result is written or held: none acked, since the service read none of them.
        equal(
          client.stats,
          { running: 0, queued: 0, waiting: 0, unacked: CALLS },
          'stats while the service does not read',
        );
        proxy.resume();
        const result = await run;
        equal(result.finalOutput, 'read', 'finalOutput');
        const expected = Array.from({ length: CALLS }, (_, n) =>
          `${n}:`.padEnd(size, String.fromCharCode(97 + (n % 26))),
        );
        const wrong = seen.filter((content) => !expected.includes(content)).length;
        equal([seen.length, wrong], [CALLS, 0], 'tool messages (count, wrong content)');
        equal([...new Set(seen)].length, CALLS, 'distinct results');
      } finally {
        await client.close();
        await proxy.close();
        await service.close();
      }
    },
  );

// The same event gives the same close code on every runtime and socket: a connection cut (Deno's own WebSocket
// reports code 0 there) and a text frame of invalid UTF-8 (1006 or 0 outside `ws`).
const closeSockets = [['the default socket', undefined]];
if (globalThis.WebSocket !== undefined && !globalThis.Deno)
  closeSockets.push(['the global WebSocket', globalThis.WebSocket]);
for (const [socketName, WebSocket] of closeSockets)
  await check(`a cut is 1006 and invalid UTF-8 is 1007 (${socketName})`, async () => {
    const service = await startStubServer({ logger: silentLogger, model: scriptedModel([]) });
    const proxy = await proxyTo(service.port);
    const client = new Client({
      url: proxy.url,
      apiKey: 'k',
      tools: [add],
      logger: silentLogger,
      reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
      ...(WebSocket === undefined ? {} : { WebSocket }),
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const codes = [];
      for (const cause of ['cut', 'invalid UTF-8']) {
        const disconnected = nextEvent(client, 'disconnected');
        const resumed = nextEvent(client, 'connected');
        // A text frame (FIN, opcode 1) of two bytes that are not UTF-8.
        if (cause === 'cut') proxy.cut();
        else proxy.inject(new Uint8Array([0x81, 0x02, 0xc3, 0x28]));
        codes.push((await disconnected).code);
        await resumed;
      }
      // Node 24's global WebSocket (undici 7) reports invalid UTF-8 with no words at all (an error event without a
      // message, then 1006): nothing tells it from a cut there, so it stays 1006.
      const wordless =
        socketName === 'the global WebSocket' &&
        globalThis.Bun === undefined &&
        Number(globalThis.process?.versions?.node?.split('.')[0]) >= 24;
      equal(codes, [1006, wordless ? 1006 : 1007], 'close codes (cut, invalid UTF-8)');
    } finally {
      await client.close();
      await proxy.close();
      await service.close();
    }
  });

// What the model reads for refused arguments is told from the announced JSON Schema, with the validator the core
// loads by import() where no entry registered it (dist/browser/index.js): the same text from either entry.
for (const entry of ['node.js', 'browser/index.js']) {
  await check(`refused arguments read the same, from dist/${entry}`, async () => {
    const toolwire = await import(`../../dist/${entry}`);
    const pick = toolwire.tool({
      name: 'pick',
      description: 'Picks.',
      parameters: z.object({ id: z.union([z.string(), z.number()]), kind: z.enum(['a', 'b']) }),
      execute: () => 'ok',
    });
    const result = await toolwire.invokeTool(pick, { id: true, kind: 'c' });
    equal(
      result.output,
      'Invalid arguments for pick: id: expected a number or a string, received true; kind: expected one of "a", "b", received "c"',
      'output',
    );
  });
}

// The Node entry has approval, retry, concurrency, steps, questions, widgets and tracing up front; the core (what
// `toolwire` is without the `node` condition: a browser, Deno or Bun told to leave it out) loads them with
// import(). Both give the model the same text. The browser build has no `ws`: on a runtime without a global
// WebSocket (Node 20) it is given one, as a program there would.
for (const entry of ['node.js', 'browser/index.js']) {
  await check(`every optional part of a call, from dist/${entry}`, async () => {
    const service = await startStubServer({
      apiKeys: ['scenario-key'],
      logger: silentLogger,
      model: scriptedModel(scenarioScript()),
    });
    try {
      const toolwire = await import(`../../dist/${entry}`);
      const options = entry.startsWith('browser/') && globalThis.WebSocket === undefined ? { WebSocket } : {};
      const run = await runScenario(toolwire, service.url, 'scenario-key', options);
      equal(run.answer, SCENARIO_ANSWER, 'the model text');
      equal(run.traced, SCENARIO_TRACE, 'the trace events');
      equal(run.answered, [200], 'the question answered over HTTP');
    } finally {
      await service.close();
    }
  });
}

process.exit(failed ? 1 : 0);
