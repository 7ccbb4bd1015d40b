/**
 * The handshake of one socket, as text: the `hello` to write, how long to wait for `welcome`, and why an attempt
 * that did not reach a usable `welcome` failed. The {@link Link} decides when; this file says what.
 *
 * @module
 */

import { ConnectionError } from '../errors';
import { displayUrl } from '../logger';
import type { AttemptFailure } from './attempt-failure';
import { encodeFrame } from './codec';
import { describeThrown } from './describe-thrown';
import { CLOSE_CODES, type ClientFrame, type FrameOf, utf8Length } from './protocol';

/** An attempt that has not received `welcome` within this many milliseconds of starting is dropped. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * The `hello` as text, with the API key in it where the runtime cannot send headers; or why no `hello` can be sent
 * (fatal: retrying cannot help).
 */
export function helloText(
  hello: () => FrameOf<ClientFrame, 'hello'>,
  keyInHello: string | undefined,
  maxPayloadBytes: number,
): { text: string } | AttemptFailure {
  let text: string;
  try {
    const frame = hello();
    // Browsers cannot set headers on the upgrade request: the key travels in `hello` there.
    if (keyInHello !== undefined) frame.apiKey = keyInHello;
    text = encodeFrame(frame);
  } catch (error) {
    const message = `the hello frame could not be built: ${describeThrown(error)}`;
    return { error: new ConnectionError('invalid_hello', message, { cause: error }), fatal: true };
  }
  const size = utf8Length(text);
  if (size <= maxPayloadBytes) return { text };
  // The service would close with 1009 every time.
  const message = `the tool definitions make a hello of ${size} bytes, over the service's limit of ${maxPayloadBytes}`;
  return { error: new ConnectionError('hello_too_large', message), fatal: true };
}

/** No `welcome` within {@link HANDSHAKE_TIMEOUT_MS}: says whether the upgrade completed. Retried. */
export function handshakeTimeout(url: string, opened: boolean): AttemptFailure {
  const shown = displayUrl(url);
  const message = opened
    ? `${shown}: no welcome within ${HANDSHAKE_TIMEOUT_MS} ms (the socket opened, but the service did not answer hello)`
    : `${shown}: the WebSocket upgrade did not complete within ${HANDSHAKE_TIMEOUT_MS} ms`;
  return { error: new ConnectionError('handshake_timeout', message), fatal: false };
}

const INVALID_WELCOME = 'invalid welcome frame: ';

/**
 * A `welcome` wrong in a required field (`heartbeatIntervalMs` 1.5, `maxPayloadBytes` under 1024, …), from the
 * decoder's message: no later frame can make the attempt good, so it ends at once, closed with 4003 (the handshake
 * frame was not valid, PROTOCOL.md §3), and is retried (a service being deployed may answer right on the next
 * one). `undefined` for any other frame. The error and the close reason name fields, never their values.
 */
export function invalidWelcome(
  url: string,
  decoded: { message: string; fields?: readonly string[] },
): { failure: AttemptFailure; reason: string } | undefined {
  if (!decoded.message.startsWith(INVALID_WELCOME)) return undefined;
  const problem = decoded.message.slice(INVALID_WELCOME.length);
  const code = CLOSE_CODES.helloExpected;
  const error = new ConnectionError(
    'invalid_welcome',
    `${displayUrl(url)}: the service's welcome cannot be read (${problem}); the client closed the socket (${code}) and retries`,
  );
  // A close reason is at most 123 bytes (RFC 6455 §5.5); field names are ASCII.
  const reason = `invalid welcome: ${(decoded.fields ?? []).join(', ')}`.slice(0, 123);
  return { failure: { error, fatal: false }, reason };
}
