/**
 * A text the model reads (a tool's output), redacted without breaking it: when the text is JSON, its secrets are
 * replaced inside its values, never across its syntax, so that what was JSON stays JSON.
 *
 * @module
 */
import { setKey } from './json';
import { MAX_REDACT_DEPTH, type Redactor } from './redact';

/** The text parsed as JSON, or `undefined` when it is not JSON. */
function parsed(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** `value` with every `true`, `false` or `null` whose text holds a secret (a secret `"true"`) as the replacement. */
function literals(value: unknown, redactor: Redactor, depth: number): unknown {
  if (value === null || typeof value === 'boolean') {
    const text = String(value);
    return redactor.text(text) === text ? value : redactor.replacement;
  }
  if (typeof value !== 'object' || depth > MAX_REDACT_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => literals(item, redactor, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setKey(out, key, literals(item, redactor, depth + 1));
  return out;
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
 *   (`"[redacted]"`, else `null`): still JSON, and the secret gone.
 */
export function redactOutput(redactor: Redactor | undefined, text: string): string {
  if (redactor === undefined || redactor.empty) return text;
  const plain = redactor.text(text);
  if (plain === text) return text;
  const json = parsed(text);
  if (json === undefined) return plain;
  const written = JSON.stringify(redactor.value(literals(json.value, redactor, 0)));
  if (written !== undefined && redactor.text(written) === written) return written;
  // A secret spans two values: the whole text goes, as JSON in which no rule matches. Only a rule shorter than 4
  // characters made of JSON's own syntax (a quote) can match every such text; then the text as `text` leaves it.
  for (const fallback of [JSON.stringify(redactor.replacement), 'null']) {
    if (redactor.text(fallback) === fallback) return fallback;
  }
  return plain;
}
