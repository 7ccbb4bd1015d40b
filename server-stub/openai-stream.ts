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
 * `arguments` concatenated, `id` and `name` taken when given). Each piece must come within `timeoutMs` of the
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
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
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
      // Some servers leave out `index`: a new id starts a new call, anything else continues the last one.
      const index =
        typeof piece.index === 'number'
          ? piece.index
          : piece.id && !calls.some((call) => call?.id === piece.id)
            ? calls.length
            : Math.max(0, calls.length - 1);
      calls[index] ??= { id: '', name: '', arguments: '' };
      const call = calls[index];
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name = piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
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
  const toolCalls = calls.filter((call) => call !== undefined);
  if (toolCalls.length > 0) {
    const nameless = toolCalls.findIndex((call) => call.name === '');
    if (nameless !== -1) {
      throw new ModelError(
        'model_malformed_response',
        `model response from ${endpoint} streamed tool call ${nameless} without a function name`,
      );
    }
    return {
      toolCalls: toolCalls.map((call) => ({
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
