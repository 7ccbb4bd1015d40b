/**
 * API key checks shared by the WebSocket upgrade, `hello` and the HTTP API.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';

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
