/**
 * The page's side of the HTTP API (docs/protocol/index.md docs/protocol/http-api.md): JSON requests with
 * `Authorization: Bearer <key>`,
 * and a run's Server-Sent Events read with `fetch` (so the key travels in the header; `EventSource` cannot
 * send one).
 *
 * The key comes from the URL fragment (`#key=…`, which browsers never send to a server), or from the form the
 * page shows after a 401; it is kept in `sessionStorage` for the tab and the fragment is cleared.
 *
 * @module
 */
import type { RunTranscript } from '../../transcript';

// The shapes the service answers with are the service's own types (type-only: nothing of the server is bundled).
export type { RunStatus, RunSummary } from '../../transcript';

/** `GET /v1/agents` entry. */
export interface AgentInfo {
  name: string;
  instructions: string;
  tools: string[];
  missingTools: string[];
}

/** `GET /v1/agents` `model`: what plays the runs (`scripted` is a script, not a language model). */
export interface ModelInfo {
  kind: string;
  name: string;
}

/** The parts of a transcript the page reads (`GET /v1/runs/:runId`). */
export type Transcript = Pick<
  RunTranscript,
  | 'runId'
  | 'input'
  | 'status'
  | 'depth'
  | 'parentRunId'
  | 'finalOutput'
  | 'error'
  | 'startedAt'
  | 'durationMs'
  | 'toolCalls'
> & { agent: Pick<RunTranscript['agent'], 'name'> };

/** One Server-Sent Event. */
export interface StreamEvent {
  event: string;
  data: unknown;
}

/** An HTTP error answer (`{ error: { code, message } }`), or `network` when no answer came. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const KEY_STORAGE = 'toolwire.apiKey';

/**
 * Reads `#key=…` from the fragment into session storage and removes it from the address bar (when the page loads,
 * and when an address carrying a key is opened in a tab that already shows the page).
 * @returns `true` when a key was taken.
 */
export function takeKeyFromFragment(): boolean {
  const params = new URLSearchParams(location.hash.slice(1));
  const key = params.get('key');
  if (key === null) return false;
  if (key !== '') sessionStorage.setItem(KEY_STORAGE, key);
  params.delete('key');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest === '' ? '' : `#${rest}`}`);
  return key !== '';
}

/** The HTTP API of the stub that served the page. */
export class Api {
  get key(): string | undefined {
    return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
  }

  set key(value: string | undefined) {
    if (value === undefined || value === '') sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, value);
  }

  /**
   * A JSON request.
   * @throws ApiError for an error status (with the stub's code and message), or status 0 `network`.
   */
  async json<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await this.#fetch(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal === undefined ? {} : { signal }),
    });
    return (await response.json()) as T;
  }

  /**
   * Follows a run's events until the stream ends: every event so far, then live ones, then `end`.
   * @throws ApiError as {@link json}, also when the connection drops mid-stream (status 0).
   */
  async *events(runId: string, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    const response = await this.#fetch(`/v1/runs/${encodeURIComponent(runId)}/events`, {
      method: 'GET',
      signal,
    });
    if (!response.body) throw new ApiError(0, 'network', 'the event stream has no body');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<string>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (signal.aborted) return;
          throw new ApiError(0, 'network', `the event stream broke: ${String(error)}`);
        }
        if (chunk.done) return;
        buffer += chunk.value;
        for (let end = BLOCK_END.exec(buffer); end !== null; end = BLOCK_END.exec(buffer)) {
          const block = buffer.slice(0, end.index);
          buffer = buffer.slice(end.index + end[0].length);
          const parsed = parseBlock(block);
          if (parsed) yield parsed;
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  async #fetch(path: string, init: RequestInit): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const key = this.key;
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    let response: Response;
    try {
      response = await fetch(path, { ...init, headers, cache: 'no-store' });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(0, 'network', 'the stub did not answer');
    }
    if (response.ok) return response;
    let code = 'http_error';
    let message = `HTTP ${response.status}`;
    try {
      const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
      if (typeof body.error?.code === 'string') code = body.error.code;
      if (typeof body.error?.message === 'string') message = body.error.message;
    } catch {
      // Not JSON: keep the status line.
    }
    throw new ApiError(response.status, code, message);
  }
}

/** The blank line that ends an event. */
const BLOCK_END = /\r?\n\r?\n/;

/** One `event:` / `data:` block; `undefined` for comments and blocks without data. */
function parseBlock(block: string): StreamEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    return { event, data: JSON.parse(data.join('\n')) };
  } catch {
    return { event, data: data.join('\n') };
  }
}
