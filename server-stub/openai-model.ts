/**
 * A model backed by any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, …).
 *
 * @module
 */
import { z } from 'zod/mini';
import { displayUrl } from '../src/logger';
import type { ChatMessage, Model, ModelRequest, ModelTurn } from './model';
import { ModelError } from './model';

/** Options of {@link openAIChatModel}. */
export interface OpenAIChatModelOptions {
  /** Base URL up to and excluding `/chat/completions`, e.g. `https://api.openai.com/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. Never logged, never put in an error message. */
  apiKey?: string;
  /** Model name used when the agent names none (`agent.model` wins). */
  model: string;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

const responseSchema = z.object({
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
                  function: z.object({ name: z.string(), arguments: z.optional(z.nullable(z.string())) }),
                }),
              ),
            ),
          ),
        }),
      }),
    )
    .check(z.minLength(1)),
});

/** Longest excerpt of an error body quoted in a {@link ModelError} message, in characters. */
const BODY_EXCERPT_CHARS = 300;

/**
 * Builds a {@link Model} that calls `POST {baseURL}/chat/completions` with the conversation and the agent's tools
 * as function tools, and maps `choices[0].message` back: `tool_calls` become tool calls (their `arguments`
 * string is passed on as the model wrote it), otherwise `content` is the final text.
 *
 * @throws (from `nextTurn`) ModelError `model_unreachable` when the request fails, `model_http_error` for a
 * non-2xx status (the message quotes the status and the start of the body), `model_malformed_response` when the
 * body is not JSON or not a chat completion. The run fails with that message.
 * @example
 * ```ts
 * const model = openAIChatModel({ baseURL: 'https://api.openai.com/v1', apiKey: key, model: 'gpt-4o-mini' });
 * ```
 */
export function openAIChatModel(options: OpenAIChatModelOptions): Model {
  const endpoint = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  // Messages reach the run's transcript and the client: credentials in the URL stay out of them.
  const shown = displayUrl(endpoint);
  return {
    async nextTurn(request) {
      const doFetch = options.fetch ?? globalThis.fetch;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
      let response: Response;
      try {
        response = await doFetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify(requestBody(request, options.model)),
          signal: request.signal,
        });
      } catch (error) {
        throw new ModelError('model_unreachable', `model request to ${shown} failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
      const text = await response.text();
      if (!response.ok) {
        const excerpt = text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text;
        throw new ModelError(
          'model_http_error',
          `model request to ${shown} failed: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${excerpt ? `: ${excerpt}` : ''}`,
        );
      }
      return parseTurn(text, shown);
    },
  };
}

function requestBody(request: ModelRequest, defaultModel: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.agent.model ?? defaultModel,
    messages: request.messages.map(toOpenAIMessage),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  return body;
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

function parseTurn(text: string, endpoint: string): ModelTurn {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ModelError(
      'model_malformed_response',
      `model response from ${endpoint} is not JSON: ${messageOf(error)}`,
    );
  }
  const parsed = responseSchema.safeParse(json);
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
      toolCalls: calls.map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments ?? '',
      })),
      ...(message.content ? { text: message.content } : {}),
    };
  }
  return { text: message.content ?? '' };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
