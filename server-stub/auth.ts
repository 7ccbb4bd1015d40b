/**
 * API key checks shared by the WebSocket upgrade, `hello` and the HTTP API.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import { API_KEY_PATTERN, MAX_API_KEY_CHARS } from '../src/wire/api-key';

/** The key of an `Authorization: Bearer <key>` header; `undefined` when the header has another form. */
export function bearerKey(header: string): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** `true` when `keys` is `undefined` (any key accepted) or holds `key` (compared in constant time per key). */
export function keyAccepted(keys: ReadonlySet<string> | undefined, key: string): boolean {
  if (keys === undefined) return true;
  const given = Buffer.from(key);
  let found = false;
  for (const candidate of keys) {
    const expected = Buffer.from(candidate);
    if (expected.length === given.length && timingSafeEqual(expected, given)) found = true;
  }
  return found;
}

/**
 * Why `key` cannot be an accepted key (it travels in an HTTP header, as the client checks it), or `undefined`.
 * The message never quotes the key.
 */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return `must be a string, got ${key === null ? 'null' : typeof key}`;
  if (key.length === 0 || key.length > MAX_API_KEY_CHARS || !API_KEY_PATTERN.test(key))
    return `must be 1 to ${MAX_API_KEY_CHARS} printable ASCII characters without spaces, got a string of ${key.length} characters`;
  return undefined;
}
