/**
 * The API key as a function (`Client({ apiKey: () => key })`), read before every connection attempt: what it
 * may return, how long it may take, and how its failure is reported without showing a key.
 *
 * @module
 */
import { ConnectionError } from '../errors';
import { scrubError } from '../logger';
import { isThenable } from '../maybe';
import type { Redactor } from '../redact';
import { describeThrown } from './transport';

/** A key, or a function that returns one (or a promise of one). */
export type ApiKeySource = string | (() => string | Promise<string>);

/** Longest wait for a key function, in milliseconds: past it the attempt fails and is retried with backoff. */
export const API_KEY_TIMEOUT_MS = 10_000;

/** What a key must be: the characters an HTTP header may carry (it travels in one where the runtime can send headers). */
export const API_KEY_PATTERN = /^[\x21-\x7e]+$/;

/** Longest key accepted, in characters. */
export const MAX_API_KEY_CHARS = 4_096;

/**
 * A refused key, described without showing it: its kind and size, and for a string the first character that is
 * not printable ASCII, by position and code point (`a string of 9 characters; character 9 is U+2026`): such a
 * character is never part of a key, and it is what to fix (an ellipsis pasted from a page, a space, a newline).
 */
export function describeKey(value: unknown, describe: (value: unknown) => string): string {
  const kind = describe(value);
  if (typeof value !== 'string') return kind;
  const at = value.search(/[^\x21-\x7e]/u);
  if (at === -1) return kind;
  const point = value.codePointAt(at) ?? 0;
  const name = point === 0x20 ? ' (a space)' : point === 0x0a || point === 0x0d ? ' (a line break)' : '';
  return `${kind}; character ${at + 1} is U+${point.toString(16).toUpperCase().padStart(4, '0')}${name}, not printable ASCII`;
}

/** A key read, or why it could not be. */
export type KeyRead = { ok: true; key: string } | { ok: false; error: ConnectionError };

/**
 * Calls the key function once, within {@link API_KEY_TIMEOUT_MS}. A throw, a rejection, a hang or a value that is
 * not a key fails with `ConnectionError` `api_key_failed`; its message and `cause` are scrubbed of `previous` (the
 * last key read), of whatever the function returned, and of every secret `redactor` knows (the client's: each key
 * the function returned before, in every encoding it covers), so no key is shown. Once `signal` aborts (the attempt
 * was given up: the client closed, or a drain cut it), the read stops waiting, its timer cleared, and fails at once.
 */
export async function readApiKey(
  source: () => string | Promise<string>,
  previous: string | undefined,
  timeoutMs: number = API_KEY_TIMEOUT_MS,
  redactor?: Redactor,
  signal?: AbortSignal,
): Promise<KeyRead> {
  let returned: unknown;
  const secrets = (): string[] =>
    [previous, typeof returned === 'string' ? returned : undefined].filter(
      (secret): secret is string => secret !== undefined && secret.length > 0,
    );
  const scrub = (text: string) => {
    const out = secrets().reduce((done, secret) => done.replaceAll(secret, '[redacted]'), text);
    return redactor === undefined ? out : redactor.text(out);
  };
  const failed = (detail: string, cause?: unknown): KeyRead => ({
    ok: false,
    error: new ConnectionError(
      'api_key_failed',
      `the apiKey function ${scrub(detail)}`,
      cause === undefined ? undefined : { cause: scrubError(cause, scrub) },
    ),
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stop: (() => void) | undefined;
  try {
    const value = source();
    returned = isThenable(value)
      ? await Promise.race([
          value,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new KeyTimeout(`did not answer within ${timeoutMs}ms`)),
              timeoutMs,
            );
            if (signal === undefined) return;
            // A timer left behind would hold a closed client's process open for the rest of the timeout.
            stop = () => reject(new KeyTimeout('was not waited for: the attempt was given up'));
            if (signal.aborted) stop();
            else signal.addEventListener('abort', stop, { once: true });
          }),
        ])
      : value;
  } catch (error) {
    if (error instanceof KeyTimeout) return failed(error.message);
    return failed(`threw: ${describeThrown(error)}`, error);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (stop !== undefined) signal?.removeEventListener('abort', stop);
  }
  if (
    typeof returned !== 'string' ||
    returned.length > MAX_API_KEY_CHARS ||
    !API_KEY_PATTERN.test(returned)
  ) {
    const got = describeKey(returned, (value) =>
      typeof value === 'string' ? `a string of ${value.length} characters` : describeKind(value),
    );
    return failed(
      `must return a non-empty string of printable ASCII without spaces, at most ${MAX_API_KEY_CHARS} characters; got ${got}`,
    );
  }
  return { ok: true, key: returned };
}

class KeyTimeout extends Error {}

function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
