/**
 * Reading a streamed chat completion from an OpenAI-compatible endpoint: text pieces handed on as they come, tool
 * calls assembled from their pieces, a bound on the silence between pieces, and a body let go when the run ends.
 *
 * @module
 */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelRequest, ModelTurn } from './model';
import { ModelError } from './model';

/**
 * Reads a streamed answer: text pieces go to `onText` as they come; tool calls are assembled by `index` (their
 * `arguments` concatenated, a piece sent as an object taken as its JSON text; `id` and `name` taken when given). Each piece must come within `timeoutMs` of the
 * last (or of the response's start); the run's signal ends the wait at once.
 */
export async function readStream(
  stream: AsyncIterable<ChatCompletionChunk>,
  request: ModelRequest,
  context: { endpoint: string; timeoutMs: number; controller: AbortController },
): Promise<ModelTurn> {
  const { endpoint } = context;
  let text = '';
  let choices = 0;
  const calls: StreamedCall[] = [];
  /** The server's `index` of a call → its place in `calls`. */
  const slots = new Map<number, number>();
  const iterator = stream[Symbol.asyncIterator]();
  for (;;) {
    const next = await nextPiece(iterator, request.signal, context);
    if (next.done) break;
    const choice = next.value.choices?.[0];
    if (!choice) continue; // e.g. a usage-only chunk
    choices += 1;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      text += delta.content;
      request.onText?.(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) {
      const at = callAt(calls, slots, piece);
      calls[at] ??= { id: '', name: '', arguments: '' };
      const call = calls[at];
      // The package's types are the server's promise, not a check: only text is taken as an id or a name.
      if (typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
      const name: unknown = piece.function?.name;
      if (typeof name === 'string' && name !== '') call.name = name;
      call.arguments += argumentsText(piece.function?.arguments, at, endpoint);
    }
  }
  if (request.signal.aborted)
    throw new ModelError('model_cancelled', 'the run ended during the model request');
  if (choices === 0) {
    throw new ModelError(
      'model_malformed_response',
      `model response from ${endpoint} is not a chat completion stream: it ended without a choice`,
    );
  }
  if (calls.length > 0) {
    const nameless = calls.findIndex((call) => call.name === '');
    if (nameless !== -1) {
      throw new ModelError(
        'model_malformed_response',
        `model response from ${endpoint} streamed tool call ${nameless} without a function name`,
      );
    }
    return {
      toolCalls: calls.map((call) => ({
        ...(call.id === '' ? {} : { id: call.id }),
        name: call.name,
        arguments: call.arguments,
      })),
      ...(text === '' ? {} : { text }),
    };
  }
  return { text };
}

/**
 * A tool call's `arguments` (or a streamed piece of them) as JSON text: a string as it is, an object (as LiteLLM
 * in front of Ollama sends them) as its JSON, nothing (`null`, absent) as `''`.
 * @throws ModelError `model_malformed_response` for any other value, naming the call and the type.
 */
export function argumentsText(value: unknown, call: number, endpoint: string): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value);
  throw new ModelError(
    'model_malformed_response',
    `model response from ${endpoint} gave tool call ${call} arguments of type ${Array.isArray(value) ? 'array' : typeof value}: expected a JSON text (string) or an object`,
  );
}

/** A tool call as its streamed pieces build it. */
interface StreamedCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Where in `calls` a streamed piece of a tool call belongs. A piece is the call of its `id` when one has it; else
 * the call of its `index`, unless that call has another id: a new id at an index already taken is a new call
 * (Ollama sends each call of a turn whole, all at index 0). Without an `index` (some servers leave it out), a
 * new id starts a new call and anything else continues the last one.
 */
function callAt(
  calls: readonly StreamedCall[],
  slots: Map<number, number>,
  piece: { index?: number; id?: string },
): number {
  const { index, id } = piece;
  const known = id ? calls.findIndex((call) => call.id === id) : -1;
  if (typeof index !== 'number') {
    if (known !== -1) return known;
    return id ? calls.length : Math.max(0, calls.length - 1);
  }
  let at = known !== -1 ? known : slots.get(index);
  if (at === undefined || (id && known === -1 && calls[at]?.id)) at = calls.length;
  slots.set(index, at);
  return at;
}

/**
 * The response with a body whose `cancel()` does not wait for the network's: the package cancels the body when a
 * stream ends early (an error event, a malformed piece) and waits for that, and a body teed elsewhere (a clone,
 * as msw makes one) only finishes cancelling when every branch does, which may be never.
 */
export function letGo(response: Response): Response {
  if (response.body === null) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/**
 * The stream's next piece, or a rejection when `timeoutMs` pass first (a `model_timeout`) or the run ends. Either
 * way the request is aborted and the stream let go: its body may not notice the abort (not every `fetch` ends a
 * body it already handed over), so nothing waits for it.
 */
function nextPiece(
  iterator: AsyncIterator<ChatCompletionChunk>,
  signal: AbortSignal,
  context: { endpoint: string; timeoutMs: number; controller: AbortController },
): Promise<IteratorResult<ChatCompletionChunk>> {
  return new Promise((resolve, reject) => {
    const stop = (error: ModelError) => {
      done();
      context.controller.abort();
      iterator.return?.().catch(() => {});
      reject(error);
    };
    const onAbort = () => stop(new ModelError('model_cancelled', 'the run ended during the model request'));
    const timer = setTimeout(
      () =>
        stop(
          new ModelError(
            'model_timeout',
            `model response from ${context.endpoint} stopped: nothing arrived for ${context.timeoutMs} ms in the middle of the stream`,
          ),
        ),
      context.timeoutMs,
    );
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (result) => {
        done();
        resolve(result);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}
