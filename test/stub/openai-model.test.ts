import { HttpResponse, http, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChatMessage, ModelError, type ModelRequest, openAIChatModel } from '../../server-stub/index';
import { agent, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const BASE = 'http://model.test/v1';
const mock = setupServer();
let seen: { body: unknown; authorization: string | null }[] = [];

beforeAll(() => mock.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  mock.resetHandlers();
  seen = [];
});
afterAll(() => mock.close());

function answer(body: JsonBodyType, init?: ResponseInit) {
  mock.use(
    http.post(`${BASE}/chat/completions`, async ({ request }) => {
      seen.push({ body: await request.json(), authorization: request.headers.get('authorization') });
      return typeof body === 'string' ? new HttpResponse(body, init) : HttpResponse.json(body, init);
    }),
  );
}

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

const model = () => openAIChatModel({ baseURL: `${BASE}/`, apiKey: 'sk-test', model: 'gpt-test' });

describe('openAIChatModel', () => {
  it('sends the conversation and the tools, and maps tool_calls back', async () => {
    answer({
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
    });
    expect(await model().nextTurn(request())).toEqual({
      toolCalls: [{ id: 'call_a', name: 'add', arguments: '{"a":2,"b":3}' }],
    });
    expect(seen).toEqual([
      {
        authorization: 'Bearer sk-test',
        body: {
          model: 'gpt-test',
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

  it('maps a text answer, uses the agent model, and sends no tools when there are none', async () => {
    answer({ choices: [{ message: { role: 'assistant', content: 'It is 3.' } }] });
    const turn = await model().nextTurn(
      request({ tools: [], agent: agent('calc', [], { model: 'gpt-agent' }) }),
    );
    expect(turn).toEqual({ text: 'It is 3.' });
    expect(seen[0]?.body).toMatchObject({ model: 'gpt-agent' });
    expect(seen[0]?.body).not.toHaveProperty('tools');
  });

  it('throws a ModelError quoting the status and the body on an HTTP error', async () => {
    answer({ error: { message: 'overloaded' } }, { status: 500, statusText: 'Internal Server Error' });
    const error = await model()
      .nextTurn(request())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      name: 'ModelError',
      code: 'model_http_error',
      message: `model request to ${BASE}/chat/completions failed: HTTP 500 Internal Server Error: {"error":{"message":"overloaded"}}`,
    });
    expect((error as Error).message).not.toContain('sk-test');
  });

  it('does not print credentials given in baseURL', async () => {
    const failing = openAIChatModel({
      baseURL: 'http://user:s3cret-value@model.test/v1',
      model: 'gpt-test',
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    await expect(failing.nextTurn(request())).rejects.toMatchObject({
      code: 'model_unreachable',
      message: 'model request to http://[redacted]@model.test/v1/chat/completions failed: fetch failed',
    });
  });

  it('throws a ModelError for a body that is not JSON or not a chat completion', async () => {
    answer('<html>oops</html>', { status: 200, headers: { 'content-type': 'text/html' } });
    await expect(model().nextTurn(request())).rejects.toMatchObject({
      code: 'model_malformed_response',
      message: expect.stringMatching(
        new RegExp(`^model response from ${BASE}/chat/completions is not JSON: `),
      ),
    });
    mock.resetHandlers();
    answer({ choices: [] });
    await expect(model().nextTurn(request())).rejects.toMatchObject({
      code: 'model_malformed_response',
      message: `model response from ${BASE}/chat/completions is not a chat completion: choices: too small`,
    });
  });

  it('drives a run in the stub, and fails it with the model error on an HTTP error', async () => {
    answer({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
            ],
          },
        },
      ],
    });
    const server = await stub({ model: model() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('add')] })).serve({
      add: (args) => {
        const { a, b } = args as { a: number; b: number };
        // The second model request fails.
        mock.resetHandlers();
        answer('busy', { status: 503, statusText: 'Service Unavailable' });
        return String(a + b);
      },
    });
    const runId = server.runs.start(agent('calc', ['add']), 'add 2 and 3');
    const transcript = await server.runs.waitFor(runId);
    expect(client.executions.size).toBe(1);
    expect(transcript).toMatchObject({
      status: 'failed',
      error: `model request to ${BASE}/chat/completions failed: HTTP 503 Service Unavailable: busy`,
      toolCalls: [{ toolName: 'add', arguments: '{"a":2,"b":3}', status: 'ok', output: '5' }],
    });
    expect((seen[1]?.body as { messages: unknown[] } | undefined)?.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_a',
      content: '5',
    });
  });
});
