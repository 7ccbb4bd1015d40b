/**
 * Redaction by field name: the values a call's input holds under sensitive property names, for a
 * `Redactor`. Used for `tool({ sensitiveFieldNames })` and a policy's `{ redact: [fieldNames] }`; which of
 * these values are searched for in text, and where a field is replaced whole, is src/call/call-redaction.ts.
 *
 * @module
 */
/** Most values one input gives (more are not looked for: a bound on the cost of a hostile input). */
export const MAX_SENSITIVE_VALUES = 1_000;
/** Nesting deeper than this is not searched (arguments are refused deeper than 64 levels anyway). */
const MAX_DEPTH = 64;

/**
 * Every value found under one of `names` in `input`, at any depth, as the text a redactor matches: a string as
 * it is (the empty string skipped), a finite number or a BigInt as its decimal digits; under such a name, every
 * string and number inside an object or array too. Booleans and `null` are not secrets and are left alone.
 * Property names match exactly (case and all). Cycles are visited once.
 *
 * @example
 * ```ts
 * sensitiveValues({ card: { number: '4242 4242', cvc: 123 }, note: 'hi' }, ['card']); // ['4242 4242', '123']
 * ```
 */
export function sensitiveValues(input: unknown, names: readonly string[]): string[] {
  const found = new Set<string>();
  if (names.length === 0) return [];
  const wanted = new Set(names);
  const seen = new Set<object>();
  const visit = (value: unknown, inside: boolean, depth: number): void => {
    if (found.size >= MAX_SENSITIVE_VALUES || depth > MAX_DEPTH) return;
    if (typeof value === 'string') {
      if (inside && value !== '') found.add(value);
      return;
    }
    if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') {
      if (inside) found.add(String(value));
      return;
    }
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) visit(item, inside, depth + 1);
      return;
    }
    if (value instanceof Map) {
      for (const [key, item] of value) visit(item, inside || wanted.has(String(key)), depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(value)) visit(item, inside || wanted.has(key), depth + 1);
  };
  visit(input, false, 0);
  return [...found];
}
