/**
 * What an OpenAI-compatible request threw, as a {@link ModelError} that names the endpoint, the status and the
 * attempts made, and never holds the API key.
 *
 * @module
 */
import type { OpenAI } from 'openai';
import { ModelError } from './model';

export interface Attempts {
  count: number;
  /** The last response that was not 2xx: its status and the start of its body. */
  failed?: { status: number; statusText: string; body: string };
}

export type OpenAIConstructor = typeof OpenAI;
/** Longest excerpt of an error body quoted in a {@link ModelError} message, in characters. */
const BODY_EXCERPT_CHARS = 300;

/** Turns whatever the request threw into a {@link ModelError} that names the endpoint and never the key. */
export function failure(
  error: unknown,
  context: {
    Client: OpenAIConstructor;
    endpoint: string;
    attempts: Attempts;
    timeoutMs: number;
    scrub: (text: string) => string;
  },
): ModelError {
  const { Client, endpoint, attempts, scrub } = context;
  if (error instanceof ModelError) {
    return error.message === scrub(error.message)
      ? error
      : new ModelError(error.code, scrub(error.message), { cause: error.cause });
  }
  const tries = attempts.count > 1 ? ` (${attempts.count} attempts)` : '';
  let code: string;
  let message: string;
  if (error instanceof Client.APIUserAbortError) {
    code = 'model_cancelled';
    message = 'the run ended during the model request';
  } else if (error instanceof Client.APIConnectionTimeoutError) {
    code = 'model_timeout';
    message = `model request to ${endpoint} timed out after ${context.timeoutMs} ms${tries}`;
  } else if (error instanceof Client.APIConnectionError) {
    code = 'model_unreachable';
    message = `model request to ${endpoint} failed: ${innermostMessage(error)}${tries}`;
  } else if (error instanceof Client.APIError && typeof error.status === 'number') {
    const status = error.status;
    const failed = attempts.failed?.status === status ? attempts.failed : undefined;
    const statusText = failed?.statusText ? ` ${failed.statusText}` : '';
    const body = failed ? failed.body : messageOf(error).replace(/^\d{3} ?/, '');
    const excerpt = body.length > BODY_EXCERPT_CHARS ? `${body.slice(0, BODY_EXCERPT_CHARS)}…` : body;
    code = 'model_http_error';
    message = `model request to ${endpoint} failed: HTTP ${status}${statusText}${excerpt ? `: ${excerpt}` : ''}${tries}`;
  } else if (error instanceof Client.APIError) {
    code = 'model_stream_error';
    message = `model response from ${endpoint} reported an error: ${messageOf(error)}`;
  } else if (error instanceof SyntaxError) {
    code = 'model_malformed_response';
    message = `model response from ${endpoint} is not a chat completion stream: ${error.message}`;
  } else {
    code = 'model_unreachable';
    message = `model request to ${endpoint} failed: ${messageOf(error)}${tries}`;
  }
  return new ModelError(code, scrub(message), { cause: error });
}

/** The most specific message in an error's `cause` chain (`fetch failed` → `connect ECONNREFUSED …`). */
function innermostMessage(error: unknown): string {
  let current: unknown = error;
  let message = messageOf(error);
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
    const next = messageOf(current);
    if (next !== '') message = next;
  }
  return message;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
