import { createServer } from 'node:net';
import { delay, HttpResponse, http, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import {
  type ChatMessage,
  ModelError,
  type ModelRequest,
  type OpenAIChatModelOptions,
  openAIChatModel,
} from '../../server-stub/index';
import { OptionsError } from '../../src/errors';
import { Agent, Client, tool } from '../../src/index';
import type { Feature } from '../../src/wire/protocol';
import { agent, stub, http as stubHttp, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const BASE = 'http://model.test/v1';
const ENDPOINT = `${BASE}/chat/completions`;
const KEY = 'sk-test-secret-4242';
const mock = setupServer();
let seen: { body: Record<string, unknown>; authorization: string | null }[] = [];

beforeAll(() => mock.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  mock.resetHandlers();
  seen = [];
});
afterAll(() => mock.close());

type Reply = (index: number) => Response | Promise<Response>;

/** Answers each request to the endpoint with `reply(n)`, n counting from 0; records what was sent. */
function serve(reply: Reply) {
  mock.use(
    http.post(ENDPOINT, async ({ request }) => {
      seen.push({
        body: (await request.json()) as Record<string, unknown>,
        authorization: request.headers.get('authorization'),
      });
      return reply(seen.length - 1);
    }),
  );
}

function json(body: JsonBodyType, init?: ResponseInit): Response {
  return typeof body === 'string' ? new HttpResponse(body, init) : HttpResponse.json(body, init);
}

/** A `text/event-stream` of chat completion chunks, then `[DONE]`; before chunk `gate.at`, waits for `gate.open`. */
function sse(chunks: unknown[], gate?: { at: number; open: Promise<unknown> }): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [index, chunk] of chunks.entries()) {
        if (gate && index === gate.at) await gate.open;
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      }
      controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      controller.close();
    },
  });
  return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** One streamed chunk whose first choice carries `delta`. */
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-test',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** A streamed turn in which the model calls one tool: `name` with `args` (JSON text) as call `id`. */
const callChunks = (id: string, name: string, args: string) => [
  chunk({
    role: 'assistant',
    tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }],
  }),
  chunk({}, 'tool_calls'),
];

const textChunks = (...pieces: string[]) => [
  chunk({ role: 'assistant', content: '' }),
  ...pieces.map((content) => chunk({ content })),
  chunk({}, 'stop'),
];

const messages: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'add 1 and 2' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c0', name: 'add', arguments: { a: 1, b: 2 } }] },
  { role: 'tool', content: '3', toolCallId: 'c0' },
];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages,
    tools: [toolDef('add')],
    agent: agent('calc', ['add']),
    runId: 'run_1',
    depth: 0,
    turn: 1,
    signal: new AbortController().signal,
    ...overrides,
  };
}

const model = (options: Partial<OpenAIChatModelOptions> = {}) =>
  openAIChatModel({ baseURL: `${BASE}/`, apiKey: KEY, model: 'gpt-test', ...options });

/** Fast retries: the package honours `retry-after-ms`. */
const RETRY_NOW = { 'retry-after-ms': '1' };

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as ModelError,
  );

describe('openAIChatModel: requests and answers', () => {
  it('drives the openai major its project names (6 in the slow tier, 7 in the openai7 project)', async () => {
    const { VERSION } = await import('openai/version');
    expect(VERSION.split('.')[0]).toBe(inject('openaiMajor'));
  });

  it('sends the conversation and the tools, streamed, and says what it is', async () => {
    serve(() => sse(textChunks('It is ', '3.')));
    const chat = model();
    expect(chat.info).toEqual({ kind: 'openai-compatible', name: `gpt-test at ${BASE}`, model: 'gpt-test' });
    expect(await chat.nextTurn(request())).toEqual({ text: 'It is 3.' });
    expect(seen).toEqual([
      {
        authorization: `Bearer ${KEY}`,
        body: {
          model: 'gpt-test',
          stream: true,
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'add 1 and 2' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'c0', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":2}' } },
              ],
            },
            { role: 'tool', tool_call_id: 'c0', content: '3' },
          ],
          tools: [
            {
              type: 'function',
              function: {
                name: 'add',
                description: 'the add tool',
                parameters: { type: 'object', properties: {} },
              },
            },
          ],
        },
      },
    ]);
  });

  it('hands each piece of streamed text to onText in order, while the answer is still arriving', async () => {
    let firstPieces!: () => void;
    const sawFirstPieces = new Promise<void>((resolve) => {
      firstPieces = resolve;
    });
    serve(() => sse(textChunks('Ada ', 'has ', 'two ', 'orders.'), { at: 3, open: sawFirstPieces }));
    const pieces: string[] = [];
    const turn = await model().nextTurn(
      request({
        onText: (delta) => {
          pieces.push(delta);
          // The stream holds back its last pieces until the first two have been handed on.
          if (pieces.length === 2) firstPieces();
        },
      }),
    );
    expect(pieces).toEqual(['Ada ', 'has ', 'two ', 'orders.']);
    expect(turn).toEqual({ text: 'Ada has two orders.' });
  });

  it('assembles streamed tool calls from their pieces, with the text beside them', async () => {
    serve(() =>
      sse([
        chunk({ role: 'assistant', content: 'Looking. ' }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'add', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":2,' } }] }),
        chunk({
          tool_calls: [
            { index: 1, id: 'call_b', type: 'function', function: { name: 'mul', arguments: '{}' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"b":3}' } }] }),
        chunk({}, 'tool_calls'),
        { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: {} },
      ]),
    );
    expect(await model().nextTurn(request())).toEqual({
      text: 'Looking. ',
      toolCalls: [
        { id: 'call_a', name: 'add', arguments: '{"a":2,"b":3}' },
        { id: 'call_b', name: 'mul', arguments: '{}' },
      ],
    });
  });

  it('keeps parallel tool calls apart when the server gives each a new id at one index (Ollama)', async () => {
    // Ollama's OpenAI-compatible stream sends every call of a turn whole, each with its own id, all at index 0.
    serve(() =>
      sse([
        chunk({
          role: 'assistant',
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'add', arguments: '{"a":2}' } },
          ],
        }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_b', type: 'function', function: { name: 'mul', arguments: '{}' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, id: 'call_b', function: { arguments: '' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    expect(await model().nextTurn(request())).toEqual({
      toolCalls: [
        { id: 'call_a', name: 'add', arguments: '{"a":2}' },
        { id: 'call_b', name: 'mul', arguments: '{}' },
      ],
    });
  });

  it('with stream: false, asks for a whole answer and maps tool_calls back', async () => {
    serve(() =>
      json({
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_a', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
              ],
            },
          },
        ],
      }),
    );
    expect(await model({ stream: false }).nextTurn(request())).toEqual({
      toolCalls: [{ id: 'call_a', name: 'add', arguments: '{"a":2,"b":3}' }],
    });
    expect(seen[0]?.body).not.toHaveProperty('stream');
  });

  it('takes arguments sent as an object (LiteLLM in front of Ollama) as their JSON, streamed or whole', async () => {
    const call = {
      index: 0,
      id: 'call_a',
      type: 'function',
      function: { name: 'add', arguments: { a: 2, b: 3 } },
    };
    serve((n) =>
      n === 0
        ? sse([chunk({ role: 'assistant', tool_calls: [call] }), chunk({}, 'tool_calls')])
        : json({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [call] } }] }),
    );
    const expected = { toolCalls: [{ id: 'call_a', name: 'add', arguments: '{"a":2,"b":3}' }] };
    expect(await model().nextTurn(request())).toEqual(expected);
    expect(await model({ stream: false }).nextTurn(request())).toEqual(expected);
  });

  it('fails the turn, naming the call and the type, for arguments neither a string nor an object', async () => {
    const call = (args: unknown) => ({
      index: 0,
      id: 'call_a',
      type: 'function',
      function: { name: 'add', arguments: args },
    });
    serve((n) =>
      n === 0
        ? sse([chunk({ role: 'assistant', tool_calls: [call(42)] }), chunk({}, 'tool_calls')])
        : json({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [call([1])] } }] }),
    );
    expect(await failure(model({ maxRetries: 0 }).nextTurn(request()))).toMatchObject({
      code: 'model_malformed_response',
      message: `model response from ${ENDPOINT} gave tool call 0 arguments of type number: expected a JSON text (string) or an object`,
    });
    expect(await failure(model({ stream: false, maxRetries: 0 }).nextTurn(request()))).toMatchObject({
      code: 'model_malformed_response',
      message: `model response from ${ENDPOINT} gave tool call 0 arguments of type array: expected a JSON text (string) or an object`,
    });
  });

  it('reads a plain JSON answer to a streamed request, uses the agent model, and sends no tools when there are none', async () => {
    serve(() => json({ choices: [{ message: { role: 'assistant', content: 'It is 3.' } }] }));
    const turn = await model().nextTurn(
      request({ tools: [], agent: agent('calc', [], { model: 'gpt-agent' }) }),
    );
    expect(turn).toEqual({ text: 'It is 3.' });
    expect(seen[0]?.body).toMatchObject({ model: 'gpt-agent', stream: true });
    expect(seen[0]?.body).not.toHaveProperty('tools');
  });

  it('sends no Authorization header without an apiKey, and never reads OPENAI_API_KEY', async () => {
    process.env.OPENAI_API_KEY = 'sk-from-the-environment';
    try {
      serve(() => sse(textChunks('ok')));
      const local = openAIChatModel({ baseURL: BASE, model: 'llama3.1' });
      expect(await local.nextTurn(request())).toEqual({ text: 'ok' });
      expect(seen[0]?.authorization).toBeNull();
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('refuses bad options when it is made, naming the option', () => {
    expect(() => openAIChatModel({ baseURL: 'localhost:11434', model: 'm' })).toThrow(
      new OptionsError(
        'invalid_option',
        'openAIChatModel: baseURL must be an http(s) URL, got "localhost:11434"',
      ),
    );
    expect(() => openAIChatModel({ baseURL: BASE, model: '' })).toThrow(
      'openAIChatModel: model must be a non-empty string, got ""',
    );
    expect(() => model({ timeoutMs: 0 })).toThrow(
      'openAIChatModel: timeoutMs must be an integer from 1 to 2147483647, got 0',
    );
    expect(() => model({ maxRetries: -1 })).toThrow(
      'openAIChatModel: maxRetries must be an integer from 0 to 10, got -1',
    );
  });
});

describe('openAIChatModel: failures, retries and timeouts', () => {
  it('survives one 500: the package retries it with its own backoff', async () => {
    serve((n) =>
      n === 0 ? json({ error: { message: 'overloaded' } }, { status: 500 }) : sse(textChunks('ok')),
    );
    expect(await model().nextTurn(request())).toEqual({ text: 'ok' });
    expect(seen).toHaveLength(2);
  });

  it('retries 429 and 5xx up to maxRetries, then names the endpoint, the status, the body and the attempts', async () => {
    serve(() =>
      json('{"error":{"message":"slow down"}}', {
        status: 429,
        statusText: 'Too Many Requests',
        headers: { 'content-type': 'application/json', ...RETRY_NOW },
      }),
    );
    const error = await failure(model({ maxRetries: 2 }).nextTurn(request()));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      name: 'ModelError',
      code: 'model_http_error',
      message: `model request to ${ENDPOINT} failed: HTTP 429 Too Many Requests: {"error":{"message":"slow down"}} (3 attempts)`,
    });
    expect(seen).toHaveLength(3);
  });

  it('does not print credentials given in baseURL', async () => {
    const failing = openAIChatModel({
      baseURL: 'http://user:s3cret-value@model.test/v1',
      model: 'gpt-test',
      maxRetries: 0,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const error = await failing.nextTurn(request()).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'model_unreachable' });
    expect((error as Error).message).toMatch(
      /^model request to http:\/\/\[redacted\]@model\.test\/v1\/chat\/completions failed: /,
    );
    expect((error as Error).message).not.toContain('s3cret-value');
  });

  it('does not retry a 4xx that retrying cannot mend, and never puts the key in the message', async () => {
    serve(() =>
      json(
        { error: { message: `Incorrect API key provided: ${KEY}` } },
        { status: 401, statusText: 'Unauthorized' },
      ),
    );
    const error = await failure(model().nextTurn(request()));
    expect(error).toMatchObject({
      code: 'model_http_error',
      message: `model request to ${ENDPOINT} failed: HTTP 401 Unauthorized: {"error":{"message":"Incorrect API key provided: [redacted]"}}`,
    });
    expect(error.message).not.toContain(KEY);
    expect(String(error.stack)).not.toContain(KEY);
    expect(seen).toHaveLength(1);
  });

  it('leaves the words of a message whole with a key shorter than 4 characters, as a Client does', async () => {
    serve(() => json({ error: { message: 'bad key' } }, { status: 401, statusText: 'Unauthorized' }));
    const error = await failure(model({ apiKey: 'k' }).nextTurn(request()));
    expect(error).toMatchObject({
      code: 'model_http_error',
      message: `model request to ${ENDPOINT} failed: HTTP 401 Unauthorized: {"error":{"message":"bad key"}}`,
    });
    expect(seen[0]?.authorization).toBe('Bearer k');
  });

  it('refuses, as OpenAI does, a tool whose parameters are a union at the top level, sending nothing', async () => {
    serve(() => sse(textChunks('never')));
    const union = {
      ...toolDef('pick'),
      parameters: {
        type: 'object',
        anyOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
        ],
      },
    };
    const error = await failure(model().nextTurn(request({ tools: [toolDef('add'), union] })));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      code: 'model_invalid_tool',
      message:
        `model request to ${ENDPOINT} not sent: Invalid schema for function 'pick': schema must have type 'object' ` +
        "and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level (a union of objects is taken as a " +
        'property of an object)',
    });
    const notObject = {
      ...toolDef('odd'),
      parameters: { $ref: '#/$defs/x', $defs: { x: { type: 'object' } } },
    };
    expect((await failure(model().nextTurn(request({ tools: [notObject] })))).message).toBe(
      `model request to ${ENDPOINT} not sent: Invalid schema for function 'odd': schema must be a JSON Schema of ` +
        `'type: "object"', got 'type: null'`,
    );
    expect(seen).toHaveLength(0);
  });

  it('retries a response slower than timeoutMs, and succeeds when the next one is in time', async () => {
    serve(async (n) => {
      if (n === 0) await delay('infinite');
      return sse(textChunks('in time'));
    });
    expect(await model({ timeoutMs: 100, maxRetries: 1 }).nextTurn(request())).toEqual({ text: 'in time' });
    expect(seen).toHaveLength(2);
  });

  it('fails clearly when every attempt is slower than timeoutMs', async () => {
    serve(async () => {
      await delay('infinite');
      return json({});
    });
    const error = await failure(model({ timeoutMs: 50, maxRetries: 1 }).nextTurn(request()));
    expect(error).toMatchObject({
      code: 'model_timeout',
      message: `model request to ${ENDPOINT} timed out after 50 ms (2 attempts)`,
    });
  });

  it('fails clearly when a streamed answer goes silent for timeoutMs', async () => {
    serve(() => sse(textChunks('Ada ', 'has'), { at: 2, open: new Promise(() => {}) }));
    const pieces: string[] = [];
    const error = await failure(
      model({ timeoutMs: 100 }).nextTurn(request({ onText: (delta) => pieces.push(delta) })),
    );
    expect(pieces).toEqual(['Ada ']);
    expect(error).toMatchObject({
      code: 'model_timeout',
      message: `model response from ${ENDPOINT} stopped: nothing arrived for 100 ms in the middle of the stream`,
    });
  });

  it('names the endpoint when nothing listens there', async () => {
    const port = await closedPort();
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const error = await failure(openAIChatModel({ baseURL, model: 'm', maxRetries: 0 }).nextTurn(request()));
    expect(error).toMatchObject({ code: 'model_unreachable' });
    expect(error.message).toMatch(
      new RegExp(
        `^model request to ${baseURL.replaceAll('.', '\\.')}/chat/completions failed: .*ECONNREFUSED`,
      ),
    );
  });

  it('fails on an error event in the stream, and on answers that are not chat completions', async () => {
    serve(() => sse([chunk({ content: 'Hal' }), { error: { message: 'model crashed' } }]));
    expect(await failure(model().nextTurn(request()))).toMatchObject({
      code: 'model_stream_error',
      message: `model response from ${ENDPOINT} reported an error: model crashed`,
    });
    mock.resetHandlers();
    serve(() => json('<html>oops</html>', { status: 200, headers: { 'content-type': 'text/html' } }));
    expect(await failure(model().nextTurn(request()))).toMatchObject({
      code: 'model_malformed_response',
      message: expect.stringMatching(new RegExp(`^model response from ${ENDPOINT} is not JSON: `)),
    });
    mock.resetHandlers();
    serve(() => json({ choices: [] }));
    expect(await failure(model().nextTurn(request()))).toMatchObject({
      code: 'model_malformed_response',
      message: `model response from ${ENDPOINT} is not a chat completion: choices: too small`,
    });
    mock.resetHandlers();
    serve(() => sse([]));
    expect(await failure(model().nextTurn(request()))).toMatchObject({
      code: 'model_malformed_response',
      message: `model response from ${ENDPOINT} is not a chat completion stream: it ended without a choice`,
    });
  });
});

describe('openAIChatModel in the stub', () => {
  it('logs each retry of a model request and emits model_retry, and names the model in the run result', async () => {
    serve((n) =>
      n === 0
        ? json('{"error":{"message":"busy"}}', {
            status: 503,
            statusText: 'Service Unavailable',
            headers: { 'content-type': 'application/json', ...RETRY_NOW },
          })
        : sse(textChunks('hello')),
    );
    const server = await stub({ model: model({ maxRetries: 2 }) });
    const retries: unknown[] = [];
    server.events.on('model_retry', (info) => retries.push(info));
    const client = new Client({ url: server.url, apiKey: 'k', tools: [] });
    await client.connect();
    try {
      const result = await client.run(new Agent({ name: 'chat', instructions: 'Talk.' }), 'hi');
      expect(result).toMatchObject({ finalOutput: 'hello', model: 'gpt-test', turns: 1 });
      expect(retries).toEqual([{ runId: result.runId, turn: 1, attempt: 2, status: 503 }]);
      expect(
        server.log.filter((line) => line.level === 'warn' && line.message.startsWith('model request')),
      ).toEqual([
        {
          level: 'warn',
          message: `model request for turn 1 of run ${result.runId} failed with HTTP 503; sending it again (attempt 2)`,
          fields: { runId: result.runId, turn: 1, attempt: 2, status: 503 },
        },
      ]);
    } finally {
      await client.close();
    }
  });

  it('streams the text into client.run() events, in order, before the message and the result', async () => {
    let release!: () => void;
    const firstDeltaSeen = new Promise<void>((resolve) => {
      release = resolve;
    });
    serve((n) =>
      n === 0
        ? sse(callChunks('call_a', 'add', '{"a":2,"b":3}'))
        : sse(textChunks('The sum ', 'is ', '5.'), { at: 2, open: firstDeltaSeen }),
    );
    const server = await stub({ model: model() });
    const add = tool({
      name: 'add',
      description: 'Adds.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    });
    const calc = new Agent({ name: 'calc', instructions: 'Add.', tools: [add] });
    const client = new Client({ url: server.url, apiKey: 'k', tools: [add] });
    const kinds: string[] = [];
    const deltas: unknown[] = [];
    client.on('run_event', (event) => {
      kinds.push(event.kind);
      if (event.kind !== 'text_delta') return;
      deltas.push({ turn: event.turn, delta: event.delta });
      // The model server holds back the rest of its answer until the client has seen the first piece.
      release();
    });
    await client.connect();
    try {
      const result = await client.run(calc, 'add 2 and 3');
      // The run result names the model; its messages say which kind of model wrote them.
      expect(result).toMatchObject({ finalOutput: 'The sum is 5.', model: 'gpt-test', turns: 2 });
      expect(deltas).toEqual([
        { turn: 2, delta: 'The sum ' },
        { turn: 2, delta: 'is ' },
        { turn: 2, delta: '5.' },
      ]);
      expect(kinds.slice(kinds.lastIndexOf('turn'))).toEqual([
        'turn',
        'text_delta',
        'text_delta',
        'text_delta',
        'message',
      ]);
      // Deltas are not kept in the transcript; the whole message is.
      const transcript = server.runs.get(result.runId);
      expect(transcript?.events.map((event) => event.kind)).not.toContain('text_delta');
      expect(transcript?.messages.at(-1)).toEqual({
        role: 'assistant',
        content: 'The sum is 5.',
        model: 'openai-compatible',
      });
    } finally {
      await client.close();
    }
  });

  it('sends text_delta only to clients that asked for it, so an older client sees no unknown kind', async () => {
    serve(() => sse(textChunks('one ', 'two')));
    const server = await stub({ model: model() });
    const older = track(await TestClient.connect(server.url));
    const newer = track(
      await TestClient.connect(server.url, { runEventKinds: ['text_delta', 'future_kind'] }),
    );
    for (const client of [older, newer]) {
      client.send({ type: 'run_start', requestId: 'q', agent: agent('a', []), input: 'count' });
      expect(await client.next('run_result')).toMatchObject({ status: 'completed', finalOutput: 'one two' });
    }
    expect(older.all('run_event').map((frame) => frame.event.kind)).toEqual(['turn', 'message']);
    expect(newer.all('run_event').map((frame) => frame.event.kind)).toEqual([
      'turn',
      'text_delta',
      'text_delta',
      'message',
    ]);
    expect(older.undecodable).toEqual([]);
    expect(older.all('error')).toEqual([]);
  });

  it('names the model in GET /v1/agents, and fails the run with the model error after the retries', async () => {
    serve((n) =>
      n === 0
        ? sse(callChunks('call_a', 'add', '{"a":2,"b":3}'))
        : json('busy', { status: 503, statusText: 'Service Unavailable', headers: RETRY_NOW }),
    );
    const server = await stub({ model: model({ maxRetries: 1 }) });
    expect((await stubHttp(server, 'GET', '/v1/agents')).body).toEqual({
      agents: [],
      clients: 0,
      model: { kind: 'openai-compatible', name: `gpt-test at ${BASE}`, model: 'gpt-test' },
    });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('add')] })).serve({
      add: (args) => {
        const { a, b } = args as { a: number; b: number };
        return String(a + b);
      },
    });
    const runId = server.runs.start(agent('calc', ['add']), 'add 2 and 3');
    const transcript = await server.runs.waitFor(runId);
    expect(client.executions.size).toBe(1);
    expect(transcript).toMatchObject({
      status: 'failed',
      error: `model request to ${ENDPOINT} failed: HTTP 503 Service Unavailable: busy (2 attempts)`,
      toolCalls: [{ toolName: 'add', arguments: '{"a":2,"b":3}', status: 'ok', output: '5' }],
    });
    expect((seen[1]?.body as { messages: unknown[] } | undefined)?.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_a',
      content: '5',
    });
  });
});

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

describe('strict tools (docs/protocol/call-context.md)', () => {
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ orderId: z.string(), note: z.string().optional() }),
    strict: true,
    execute: (input) => JSON.stringify(input),
  });
  const strictSchema = {
    type: 'object',
    properties: { orderId: { type: 'string' }, note: { type: ['string', 'null'] } },
    required: ['orderId', 'note'],
    additionalProperties: false,
  };
  const replies = (n: number) =>
    n === 0 ? sse(callChunks('call_r', 'refund', '{"orderId":"o_1","note":null}')) : sse(textChunks('Done.'));

  async function runRefund(features?: Feature[]) {
    serve(replies);
    const server = await stub({ model: model(), ...(features === undefined ? {} : { features }) });
    const client = new Client({ url: server.url, apiKey: 'k', tools: [refund] });
    await client.connect();
    try {
      const result = await client.run(new Agent({ name: 'A', instructions: 'i', tools: [refund] }), 'go');
      const sentTools = (seen[0]!.body.tools as Array<{ function: Record<string, unknown> }>).map(
        (entry) => entry.function,
      );
      return { result, sentTools, transcript: server.runs.get(result.runId) };
    } finally {
      await client.close();
    }
  }

  it('announces strict: true, and the stub passes strict: true to the model and records it', async () => {
    expect(refund.definition).toMatchObject({ strict: true, parameters: strictSchema });
    const { result, sentTools, transcript } = await runRefund();
    expect(sentTools).toEqual([
      { name: 'refund', description: 'Refunds an order.', parameters: strictSchema, strict: true },
    ]);
    expect(result.toolCalls).toMatchObject([{ status: 'ok', output: '{"orderId":"o_1"}' }]);
    expect(transcript?.toolCalls).toMatchObject([{ toolName: 'refund', strict: true }]);
    expect(transcript?.events.find((event) => event.kind === 'tool_call')?.data).toMatchObject({
      strict: true,
    });
  });

  it('without the feature strict, the stub leaves strict out and the call still works', async () => {
    const { result, sentTools, transcript } = await runRefund([]);
    expect(sentTools).toEqual([
      { name: 'refund', description: 'Refunds an order.', parameters: strictSchema },
    ]);
    expect(result.toolCalls).toMatchObject([{ status: 'ok', output: '{"orderId":"o_1"}' }]);
    expect(transcript?.toolCalls[0]).not.toHaveProperty('strict');
  });
});
