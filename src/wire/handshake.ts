/**
 * The handshake of one socket, as text: the `hello` to write, how long to wait for `welcome`, and why an attempt
 * that did not reach a usable `welcome` failed. The {@link Link} decides when; this file says what.
 *
 * @module
 */

import { ConnectionError } from '../errors';
import { displayUrl, type Logger } from '../logger';
import type { AttemptFailure } from './attempt-failure';
import { type DecodeResult, encodeFrame, isRefusedErrorFrame } from './codec';
import { describeThrown } from './describe-thrown';
import { INFORMATIVE_SERVICE_FIELDS, informativePath } from './informative';
import { CLOSE_CODES, type ClientFrame, type FrameOf, type ServiceFrame, utf8Length } from './protocol';

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

/**
 * Logs a valid `welcome` after the socket's first, which is ignored: nothing in it is adopted, not its session id
 * nor its limits (PROTOCOL.md §3). A `warn` the first time on a socket (one logger per socket), `debug` after.
 */
export function welcomeAgainLog(logger: Pick<Logger, 'warn' | 'debug'>): () => void {
  let said = false;
  return () => {
    const message =
      'a welcome frame after the handshake was ignored: this socket keeps the session and limits of its first welcome';
    if (said) logger.debug({ type: 'welcome' }, message);
    else logger.warn({ type: 'welcome' }, message);
    said = true;
  };
}

const INVALID_WELCOME = 'invalid welcome frame: ';

/** The frames a service may send before its `welcome` (PROTOCOL.md §3). */
const MAY_COME_FIRST: ReadonlySet<string> = new Set(['welcome', 'error', 'ping']);

/** A frame received before the first `welcome`: decoded text, or a binary message. */
export type EarlyFrame = DecodeResult<ServiceFrame> | 'binary';

/**
 * Whether a frame received before the socket's first `welcome` ends the attempt (PROTOCOL.md §3): anything but a
 * readable `welcome`, an `error` frame (readable or not: it keeps its meaning, and a close that follows it, e.g.
 * 4001, decides) or a `ping` (either side may ping at any time, §8; it is answered) cannot be followed by anything
 * that makes the attempt good. It ends at once, closed with 4003 (the handshake frame was not valid, as the service
 * does for `hello`), as `invalid_welcome`, retried with the normal backoff (a service being deployed may answer
 * right on the next attempt). `undefined` for a frame that may come first. The error and the close reason name
 * fields and frame types, never the values sent.
 */
export function beforeWelcome(
  url: string,
  early: EarlyFrame,
): { failure: AttemptFailure; reason: string } | undefined {
  if (early !== 'binary' && (early.ok ? MAY_COME_FIRST.has(early.frame.type) : isRefusedErrorFrame(early)))
    return undefined;
  const code = CLOSE_CODES.helloExpected;
  const closed = `the client closed the socket (${code})`;
  const shown = displayUrl(url);
  if (early !== 'binary' && !early.ok && early.message.startsWith(INVALID_WELCOME)) {
    const { required, informative } = welcomeFaults(early.message.slice(INVALID_WELCOME.length));
    const also =
      informative.length > 0 ? `; also wrong, informative (would be dropped): ${informative.join('; ')}` : '';
    const message = `${shown}: the service's welcome cannot be read (${required.join('; ')}${also}); ${closed}`;
    // Only the required fields are why: a wrong informative field alone is dropped, the welcome used (§12).
    const fields = (early.fields ?? []).filter((field) => !isInformative(field));
    return failed(message, `invalid welcome: ${fields.join(', ')}`);
  }
  const what = earlyFrame(early);
  return failed(
    `${shown}: the service sent ${what} where its welcome was expected; ${closed}`,
    `expected welcome, got ${what}`,
  );
}

function failed(message: string, reason: string): { failure: AttemptFailure; reason: string } {
  // A close reason is at most 123 bytes (RFC 6455 §5.5); field names and frame types are ASCII.
  return {
    failure: { error: new ConnectionError('invalid_welcome', message), fatal: false },
    reason: reason.slice(0, 123),
  };
}

/** What the frame was, in words that quote no value of it. */
function earlyFrame(early: EarlyFrame): string {
  if (early === 'binary') return 'a binary frame';
  if (early.ok) return `a ${early.frame.type} frame`;
  if (early.code === 'invalid_json') return 'a frame that is not JSON';
  if (early.code === 'unknown_type') return 'a frame of an unknown type';
  const known = /^invalid (\w+) frame: /.exec(early.message);
  if (known) return `an invalid ${known[1]} frame`;
  // The other messages are fixed texts, which quote nothing of the frame.
  for (const [pattern, words] of EARLY_WORDS)
    if (pattern.test(early.message)) return early.message.replace(pattern, words);
  return 'an unreadable frame';
}

const EARLY_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^frame must be a JSON object$/, 'a frame that is not a JSON object'],
  [/^frame has no string "type"$/, 'a frame with no string "type"'],
  [/^frame nests deeper than (\d+) levels$/, 'a frame nested deeper than $1 levels'],
  [/^frame exceeds (\d+) bytes$/, 'a frame over $1 bytes'],
];

/** The decoder's `field: problem` entries of a `welcome`, the required fields' apart from the informative ones. */
function welcomeFaults(problem: string): { required: string[]; informative: string[] } {
  const entries = problem.split('; ');
  const informative = entries.filter((entry) => isInformative(entry.slice(0, entry.indexOf(':'))));
  const required = entries.filter((entry) => !informative.includes(entry));
  return { required: required.length > 0 ? required : entries, informative };
}

function isInformative(field: string): boolean {
  const path = field.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  return informativePath(INFORMATIVE_SERVICE_FIELDS.welcome, path) !== undefined;
}
