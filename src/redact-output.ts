/**
 * A text the model reads (a tool's output), redacted without breaking it: when the text is JSON, its secrets are
 * replaced inside its values, never across its syntax, so that what was JSON stays JSON.
 *
 * @module
 */
import type { Redactor } from './redact';

/** The text parsed as JSON, or `undefined` when it is not JSON. */
function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * `text` with `redactor`'s secrets replaced.
 *
 * - A text in which no rule matches is returned as it is (same string, nothing parsed).
 * - A text that is not JSON has every match replaced where it is ({@link Redactor.text}).
 * - A JSON text (an object, an array, a string, a number, `true`…) is redacted as a value
 *   ({@link Redactor.value}: inside strings and keys; a number or a literal whose digits hold a secret becomes
 *   the replacement, as a string) and written again as compact JSON. A match across its syntax (a secret `1234`
 *   in `{"a":12345}`, or `a","b` in `["a","b"]`) can never cut a token in two. If a secret is still found in
 *   the JSON written again (it spans two values), the whole text becomes the replacement as a JSON string
 *   (`"[redacted]"`): still JSON, and the secret gone.
 */
export function redactOutput(redactor: Redactor | undefined, text: string): string {
  if (redactor === undefined || redactor.empty) return text;
  const plain = redactor.text(text);
  if (plain === text) return text;
  const json = parsed(text);
  if (json === undefined) return plain;
  const written = JSON.stringify(redactor.value(json.value));
  if (written !== undefined && redactor.text(written) === written) return written;
  return JSON.stringify(redactor.replacement);
}
