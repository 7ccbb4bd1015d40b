/**
 * Scrubbing the values of named input fields (a policy's `{ redact: [fieldNames] }`) from what leaves a call:
 * structured values (the approval request's input, events) lose those fields' values wherever the key appears,
 * and every text (the model's output, preliminary results, errors) loses the values themselves.
 *
 * @module
 */
import { REDACTED, Redactor, SHORT_SECRET } from '../redact';

/** What a call scrubs with: text, structured values and errors. */
export interface FieldRedaction {
  text(value: string): string;
  value<T>(value: T): T;
  error<T>(error: T): T;
}

/** Most nesting walked when looking for the fields. */
const MAX_DEPTH = 64;

/** Every string (and number) held at one of `names`, at any depth of `value`. */
function collect(value: unknown, names: ReadonlySet<string>, into: Set<string>, depth: number): void {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return;
  for (const [key, child] of Object.entries(value)) {
    if (names.has(key)) gather(child, into, depth + 1);
    else collect(child, names, into, depth + 1);
  }
}

/** Every string and number inside `value` (a field's whole value is secret, however nested). */
function gather(value: unknown, into: Set<string>, depth: number): void {
  if (typeof value === 'string' || typeof value === 'number') into.add(String(value));
  else if (typeof value === 'object' && value !== null && depth <= MAX_DEPTH) {
    for (const child of Object.values(value)) gather(child, into, depth + 1);
  }
}

/** A copy of `value` with the value of every key in `names` replaced by `[redacted]`. */
function scrubKeys(value: unknown, names: ReadonlySet<string>, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => scrubKeys(item, names, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = names.has(key) ? REDACTED : scrubKeys(child, names, depth + 1);
  }
  return out;
}

/**
 * The redaction of `fieldNames` for a call with `input`. Values shorter than 4 characters (`SHORT_SECRET`) are
 * scrubbed where their field is, but not searched for in free text, where they would take ordinary words with
 * them.
 */
export function fieldRedaction(input: unknown, fieldNames: readonly string[]): FieldRedaction {
  const names = new Set(fieldNames);
  const values = new Set<string>();
  collect(input, names, values, 0);
  const redactor = new Redactor([...values].filter((value) => value.length >= SHORT_SECRET));
  return {
    text: (text) => redactor.text(text),
    value: (value) => redactor.value(scrubKeys(value, names, 0)) as typeof value,
    error: (error) => redactor.error(error),
  };
}
