/**
 * Reading requests and writing responses of the HTTP API: JSON bodies within a size limit, JSON responses, and
 * {@link HttpError}, the refusal every handler throws (answered as `{ "error": { "code", "message" } }`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nestsDeeperThan } from '../src/json';
import { jsonSyntaxError } from '../src/json-syntax';
import { MAX_FRAME_DEPTH } from '../src/limits';
import { MAX_ID_CHARS } from '../src/wire/protocol';

/** A refusal with its HTTP status. */
export class HttpError extends Error {
  // A string, not the class's name: a minifier renames classes (as src/errors.ts does for every error class).
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The path of a request as sent: its request target up to a `?` or `#`, not decoded or normalized. Routes match an
 * origin-form target (`/v1/runs`); any other (`http://host/v1/runs`, `*`) matches none. Never parsed with
 * `new URL(target, base)`, which reads the start of `//v1/runs` as a host name (and throws for `//`).
 */
export function requestPath(request: IncomingMessage): string {
  const target = request.url ?? '/';
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/**
 * The refusal of a request with more than one `Host` header, or `undefined`. Node's `headers.host` keeps the first,
 * where a proxy in front may read another, so the host check (server-stub/web-pages.ts) would judge a name the
 * request is not only addressed to; HTTP answers such a request 400 (RFC 9112, section 3.2). Counted in
 * `rawHeaders`, which keeps every header as sent.
 */
export function duplicateHost(request: IncomingMessage): HttpError | undefined {
  let count = 0;
  for (let i = 0; i < request.rawHeaders.length; i += 2)
    if (request.rawHeaders[i]?.toLowerCase() === 'host') count += 1;
  if (count <= 1) return undefined;
  return new HttpError(400, 'invalid_request', `the request has ${count} Host headers; HTTP allows one`);
}

/** Writes a JSON response (a 401 also says `WWW-Authenticate: Bearer`); ends the response if headers are out. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
  });
  response.end(text);
}

/**
 * Whether a `Content-Type` names JSON: `application/json`, any case, parameters (`; charset=utf-8`) aside. A
 * request that names none is read as JSON too.
 */
function isJsonType(type: string): boolean {
  return (type.split(';', 1)[0] ?? '').trim().toLowerCase() === 'application/json';
}

/**
 * Reads a JSON body of at most `limit` bytes. A body that is not empty is JSON: a `Content-Type` other than
 * `application/json` (`text/plain`, a form's `application/x-www-form-urlencoded`, what `curl -d` sends without
 * `-H 'Content-Type: application/json'`) is refused rather than read as JSON anyway.
 *
 * @param optional - when `true`, an empty body is `{}` (whatever its `Content-Type`); else it is refused.
 * @throws HttpError 413 `payload_too_large` past the limit, 400 `invalid_request` for an empty body, 415
 *   `unsupported_media_type` for another content type, 400 `invalid_json` for a body that does not parse.
 */
export async function readJsonBody(
  request: IncomingMessage,
  limit: number,
  optional = false,
): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(413, 'payload_too_large', `request body is ${declared} bytes; the limit is ${limit}`);
  }
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Stop keeping the body but keep draining it, so the 413 can still be written on this connection.
      request.off('data', onData);
      request.resume();
      reject(new HttpError(413, 'payload_too_large', `request body exceeds ${limit} bytes`));
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
  if (text.trim() === '') {
    if (optional) return {};
    throw new HttpError(400, 'invalid_request', 'request body is empty; a JSON object is required');
  }
  const type = request.headers['content-type'];
  if (type !== undefined && !isJsonType(type)) {
    const shown = type.length > 100 ? `${type.slice(0, 100)}…` : type;
    throw new HttpError(
      415,
      'unsupported_media_type',
      `content-type must be application/json, got ${JSON.stringify(shown)}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', `request body is not valid JSON: ${jsonSyntaxError(text)}`);
  }
  // As for frames (docs/protocol/limits.md): what reads the body later (a schema check, the transcript's copies)
  // recurses.
  const max = MAX_FRAME_DEPTH;
  if (nestsDeeperThan(body, max)) {
    throw new HttpError(400, 'invalid_request', `request body nests deeper than ${max} levels`);
  }
  return body;
}

/**
 * A path parameter (`runId`, `callId`, `questionId`), percent-decoded: an id, 1 to {@link MAX_ID_CHARS} characters
 * as on the wire (a longer one names nothing the stub has).
 * @throws HttpError 400 `invalid_request` naming the parameter, for a malformed escape or an id too long.
 */
export function pathParam(segment: string, name: string): string {
  let value: string;
  try {
    value = decodeURIComponent(segment);
  } catch {
    const shown = segment.length > 100 ? `${segment.slice(0, 100)}…` : segment;
    throw new HttpError(
      400,
      'invalid_request',
      `${name} must be percent-encoded UTF-8, got ${JSON.stringify(shown)}`,
    );
  }
  if (value.length > MAX_ID_CHARS)
    throw new HttpError(
      400,
      'invalid_request',
      `${name} must be 1 to ${MAX_ID_CHARS} characters, got ${value.length}`,
    );
  return value;
}
