/**
 * Decoding a model's raw tool-call arguments into the object that is validated.
 *
 * @module
 */
import { jsonTypeName } from '../json';

/** Result of {@link decodeArguments}. */
export type DecodedArguments =
  | { ok: true; value: object }
  | { ok: false; reason: 'not_json'; detail: string }
  | { ok: false; reason: 'not_object'; type: string };

function fromParsed(parsed: unknown): DecodedArguments {
  if (parsed === null) return { ok: true, value: {} };
  if (typeof parsed === 'object' && !Array.isArray(parsed)) return { ok: true, value: parsed };
  return { ok: false, reason: 'not_object', type: jsonTypeName(parsed) };
}

/**
 * Decodes raw arguments as models send them.
 *
 * - absent (`undefined`), `null`, `''` or whitespace, and the JSON text `null`: `{}`;
 * - an object (not an array): used as it is;
 * - a string: parsed as JSON; a JSON string that itself holds JSON (double-encoded) is unwrapped once;
 * - text that is not JSON: `not_json` with the parser's message;
 * - any other JSON value (`[]`, `42`, `"text"`, `true`): `not_object` with its JSON type.
 *
 * @example
 * ```ts
 * decodeArguments('"{\\"a\\":1}"'); // { ok: true, value: { a: 1 } }
 * decodeArguments('[1]'); // { ok: false, reason: 'not_object', type: 'array' }
 * ```
 */
export function decodeArguments(raw: unknown): DecodedArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return fromParsed(raw);
  if (raw.trim() === '') return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: 'not_json', detail: error instanceof Error ? error.message : String(error) };
  }
  if (typeof parsed !== 'string') return fromParsed(parsed);
  // Double-encoded: a JSON string whose content is the JSON object. Unwrapped once, never more.
  if (parsed.trim() === '') return { ok: true, value: {} };
  try {
    return fromParsed(JSON.parse(parsed));
  } catch {
    return { ok: false, reason: 'not_object', type: 'string' };
  }
}
