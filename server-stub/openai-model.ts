/**
 * A model backed by any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, Ollama, vLLM,
 * LM Studio, …), through the official `openai` package (an optional peer dependency, loaded on first use).
 *
 * @module
 */
import type { ChatCompletionChunk, ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { z } from 'zod/mini';
import { OptionsError } from '../src/errors';
import { jsonSyntaxError } from '../src/json-syntax';
import { MAX_TIMEOUT_MS } from '../src/limits';
import { displayUrl, secretScrubber } from '../src/logger';
import type { ChatMessage, Model, ModelRequest, ModelTurn } from './model';
import { ModelError } from './model';
import { type Attempts, failure, messageOf, type OpenAIConstructor } from './openai-errors';
import { argumentsText, letGo, readStream } from './openai-stream';

/** Options of {@link openAIChatModel}. Durations in milliseconds. */
export interface OpenAIChatModelOptions {
  /**
   * Base URL up to and excluding `/chat/completions`: `https://api.openai.com/v1`, or a local server's, e.g.
   * Ollama `http://localhost:11434/v1`, vLLM `http://localhost:8000/v1`, LM Studio `http://localhost:1234/v1`.
   */
  baseURL: string;
  /**
   * Sent as `Authorization: Bearer <apiKey>` when given (no `Authorization` header otherwise; the environment is
   * never read for it). Never logged, and scrubbed from every error message (a key shorter than 4 characters
   * only where a message is it entirely, as a `Client` does: `bad key` keeps its `k`).
   */
  apiKey?: string;
  /** Model name used when the agent names none (`agent.model` wins). */
  model: string;
  /**
   * How long one attempt may wait for the response to start, and then for each next piece of a streamed answer;
   * a timeout is retried like a 5xx. Local servers load a model on their first request: give them more.
   * @default 60_000
   */
  timeoutMs?: number;
  /**
   * Retries after a timeout, a failed connection, or HTTP 408, 409, 429 and 5xx, with the `openai` package's
   * exponential backoff (about 0.5 s, 1 s, 2 s, … up to 8 s, or what `retry-after` says). @default 2
   */
  maxRetries?: number;
  /** Asks for a streamed answer, whose text reaches `text_delta` run events as it arrives. @default true */
  stream?: boolean;
  /** The fetch implementation, looked up at each request. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Defaults of {@link OpenAIChatModelOptions}. */
export const OPENAI_MODEL_DEFAULTS = { timeoutMs: 60_000, maxRetries: 2, stream: true } as const;

/** Most retries {@link OpenAIChatModelOptions.maxRetries} may ask for. */
const MAX_RETRIES = 10;

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.optional(z.nullable(z.string())),
          tool_calls: z.optional(
            z.nullable(
              z.array(
                z.object({
                  id: z.string(),
                  function: z.object({ name: z.string(), arguments: z.optional(z.unknown()) }),
                }),
              ),
            ),
          ),
        }),
      }),
    )
    .check(z.minLength(1)),
});

/**
 * Builds a {@link Model} that calls `POST {baseURL}/chat/completions` with the conversation and the agent's tools
 * as function tools, through the `openai` package, and maps the answer back: tool calls become tool calls (their
 * `arguments` string passed on as the model wrote it, an object as its JSON), otherwise the text is the final answer. A streamed answer
 * (the default) hands each piece of text to `request.onText` as it arrives and assembles tool calls from their
 * pieces; a server that answers a streamed request with plain JSON is read as such.
 *
 * @throws OptionsError `invalid_option` (from this function) for a `baseURL` that is not an http(s) URL, an
 *   empty `model`, or a `timeoutMs` / `maxRetries` out of range.
 * @throws (from `nextTurn`, after the retries) ModelError `model_http_error` (the message names the endpoint, the
 *   HTTP status and the start of the body), `model_timeout`, `model_unreachable`, `model_stream_error` (an error
 *   event in the stream), `model_malformed_response`; `model_invalid_tool` (before any request) for a tool
 *   whose parameters OpenAI refuses at the top level (a union, not an object); `model_unavailable` when the `openai` package is not
 *   installed. Every message names the endpoint and never holds the API key. The run fails with that message.
 * @example
 * ```ts
 * const local = openAIChatModel({ baseURL: 'http://localhost:11434/v1', model: 'llama3.1', timeoutMs: 120_000 });
 * ```
 */
export function openAIChatModel(options: OpenAIChatModelOptions): Model {
  const settings = checkOptions(options);
  // Messages reach the run's transcript and the client: credentials in the URL stay out of them.
  const endpoint = displayUrl(`${settings.baseURL}/chat/completions`);
  // As a `Client` treats its key: one shorter than SHORT_SECRET characters only where a text is it entirely.
  const scrub = secretScrubber([options.apiKey]);
  return {
    info: {
      kind: 'openai-compatible',
      name: `${options.model} at ${settings.baseURL}`,
      model: options.model,
    },
    async nextTurn(request) {
      refuseWhatOpenAIRefuses(request.tools, endpoint);
      const Client = await loadOpenAI();
      const attempt: Attempts = { count: 0 };
      const client = new Client({
        baseURL: settings.baseURL,
        // The package insists on a credential; without a key the header is removed below.
        apiKey: options.apiKey || 'none',
        adminAPIKey: null,
        organization: null,
        project: null,
        webhookSecret: null,
        timeout: settings.timeoutMs,
        maxRetries: settings.maxRetries,
        logLevel: 'off',
        fetch: countingFetch(options.fetch, attempt, request.onRetry),
        ...(options.apiKey ? {} : { defaultHeaders: { authorization: null } }),
      });
      const controller = new AbortController();
      const onAbort = () => controller.abort(request.signal.reason);
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const response = await client.chat.completions
          .create(requestBody(request, options.model, settings.stream), { signal: controller.signal })
          .asResponse();
        if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
          const { Stream } = await import('openai/core/streaming');
          const stream = Stream.fromSSEResponse<ChatCompletionChunk>(letGo(response), controller, client);
          return await readStream(stream, request, { endpoint, timeoutMs: settings.timeoutMs, controller });
        }
        return parseCompletion(await response.text(), endpoint);
      } catch (error) {
        throw failure(error, {
          Client,
          endpoint,
          attempts: attempt,
          timeoutMs: settings.timeoutMs,
          scrub,
        });
      } finally {
        request.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

let openAIModule: Promise<OpenAIConstructor> | undefined;

/**
 * The `openai` package's client class, imported once, on first use (it is an optional peer dependency), or
 * sooner by whoever wants to know it is there (the `toolwire-stub` command, at start).
 * @throws ModelError `model_unavailable` (as a rejection) when it cannot be imported; the next call tries again.
 */
export function loadOpenAI(): Promise<OpenAIConstructor> {
  openAIModule ??= import('openai').then(
    (module) => module.OpenAI,
    (error: unknown) => {
      openAIModule = undefined;
      throw new ModelError(
        'model_unavailable',
        `openAIChatModel needs the openai package (npm install openai@6): ${messageOf(error)}`,
        { cause: error },
      );
    },
  );
  return openAIModule;
}

/** Counts the attempts the package makes, and keeps the status and body start of the last failed one. */
function countingFetch(
  custom: typeof fetch | undefined,
  attempts: Attempts,
  onRetry: ModelRequest['onRetry'],
): typeof fetch {
  return async (input, init) => {
    attempts.count += 1;
    if (attempts.count > 1) {
      const status = attempts.failed?.status;
      try {
        onRetry?.({ attempt: attempts.count, ...(status === undefined ? {} : { status }) });
      } catch {
        // The listener's failure is not the request's.
      }
    }
    const response = await (custom ?? globalThis.fetch)(input, init);
    if (!response.ok) {
      const body = await response
        .clone()
        .text()
        .catch(() => '');
      attempts.failed = { status: response.status, statusText: response.statusText, body };
    }
    return response;
  };
}

function checkOptions(options: OpenAIChatModelOptions) {
  const fail = (message: string): never => {
    throw new OptionsError('invalid_option', `openAIChatModel: ${message}`);
  };
  if (typeof options !== 'object' || options === null) fail('options must be an object');
  let url: URL | undefined;
  try {
    url = new URL(options.baseURL);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    fail(`baseURL must be an http(s) URL, got ${JSON.stringify(displayUrl(String(options.baseURL)))}`);
  }
  if (typeof options.model !== 'string' || options.model === '') {
    fail(`model must be a non-empty string, got ${JSON.stringify(options.model)}`);
  }
  const timeoutMs = options.timeoutMs ?? OPENAI_MODEL_DEFAULTS.timeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    fail(
      `timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}, got ${typeof timeoutMs === 'string' ? JSON.stringify(timeoutMs) : String(timeoutMs)}`,
    );
  }
  const maxRetries = options.maxRetries ?? OPENAI_MODEL_DEFAULTS.maxRetries;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES) {
    fail(
      `maxRetries must be an integer from 0 to ${MAX_RETRIES}, got ${typeof maxRetries === 'string' ? JSON.stringify(maxRetries) : String(maxRetries)}`,
    );
  }
  return {
    baseURL: options.baseURL.replace(/\/+$/, ''),
    timeoutMs,
    maxRetries,
    stream: options.stream ?? OPENAI_MODEL_DEFAULTS.stream,
  };
}

/** Keywords OpenAI refuses at the top of a function's parameters, strict or not. */
const REFUSED_AT_THE_TOP = ['oneOf', 'anyOf', 'allOf', 'enum', 'not'];

/**
 * Fails the turn, as OpenAI answers HTTP 400 to the whole request, when a tool's parameters are not an object at
 * the top or hold `oneOf`, `anyOf`, `allOf`, `enum` or `not` there (a root union announced by a client: see
 * docs/guide/tools.md), in OpenAI's words, before anything is sent; so that such a tool fails here as it would in
 * production, whatever backend the stub talks to.
 * @throws ModelError `model_invalid_tool` naming the tool.
 */
function refuseWhatOpenAIRefuses(tools: ModelRequest['tools'], endpoint: string): void {
  for (const { name, parameters } of tools) {
    const type = (parameters as { type?: unknown }).type;
    let why: string;
    if (type !== 'object') {
      why = `schema must be a JSON Schema of 'type: "object"', got 'type: ${JSON.stringify(type ?? null)}'`;
    } else if (REFUSED_AT_THE_TOP.some((key) => Object.hasOwn(parameters, key))) {
      why =
        "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level " +
        '(a union of objects is taken as a property of an object)';
    } else continue;
    throw new ModelError(
      'model_invalid_tool',
      `model request to ${endpoint} not sent: Invalid schema for function '${name}': ${why}`,
    );
  }
}

function requestBody(
  request: ModelRequest,
  defaultModel: string,
  stream: boolean,
): ChatCompletionCreateParams {
  const body: Record<string, unknown> = {
    model: request.agent.model ?? defaultModel,
    messages: toOpenAIMessages(request.messages),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        // OpenAI's strict function calling (docs/protocol/call-context.md): the parameters are already in strict form.
        ...(tool.strict === true ? { strict: true } : {}),
      },
    }));
  }
  // The run's tool choice, in the API's words (with no tool offered there is nothing to choose).
  const choice = request.toolChoice;
  if (choice !== undefined && choice !== 'auto' && request.tools.length > 0) {
    body.tool_choice =
      typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  }
  if (stream) body.stream = true;
  return body as unknown as ChatCompletionCreateParams;
}

/**
 * The conversation as chat-completions messages. A tool message takes text only, so the images among the content
 * parts of a turn's tool results follow them as one `user` message of `image_url` parts
 * (docs/protocol/call-context.md).
 */
function toOpenAIMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let images: Record<string, unknown>[] = [];
  const flush = () => {
    if (images.length === 0) return;
    out.push({
      role: 'user',
      content: [{ type: 'text', text: 'The images the tool results above returned, in order:' }, ...images],
    });
    images = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    out.push(toOpenAIMessage(message));
    for (const part of message.parts ?? []) {
      if (part.type === 'image') {
        images.push({ type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${part.data}` } });
      }
    }
  }
  flush();
  return out;
}

function toOpenAIMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
  }
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    return {
      role: 'assistant',
      content: message.content === '' ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: {
          name: call.name,
          arguments:
            typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
        },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function parseCompletion(body: string, endpoint: string): ModelTurn {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new ModelError(
      'model_malformed_response',
      `model response from ${endpoint} is not JSON: ${jsonSyntaxError(body)}`,
    );
  }
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues
      .slice(0, 3)
      .map(
        (issue) =>
          `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.code.replaceAll('_', ' ')}`,
      )
      .join('; ');
    throw new ModelError(
      'model_malformed_response',
      `model response from ${endpoint} is not a chat completion: ${where}`,
    );
  }
  // `check(minLength(1))` above guarantees the first choice.
  const message = parsed.data.choices[0]!.message;
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) {
    return {
      toolCalls: calls.map((call, index) => ({
        id: call.id,
        name: call.function.name,
        arguments: argumentsText(call.function.arguments, index, endpoint),
      })),
      ...(message.content ? { text: message.content } : {}),
    };
  }
  return { text: message.content ?? '' };
}
