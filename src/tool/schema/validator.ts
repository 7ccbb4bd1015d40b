/**
 * The JSON Schema validator, `@cfworker/json-schema` (no code generation, so it runs in browsers and workers),
 * and its verdicts in toolwire's words: issues with rendered paths, for a plain JSON Schema's validation
 * (`toolwire/json-schema`), for the check of a library schema against its announcement (./announced.ts) and for
 * `strict: true`'s way back (../strict.ts).
 *
 * The core never imports this module statically: it takes it from `toolwire/json-schema`'s registration (which
 * the Node entry makes), else loads it with `import()` at the first validation that needs it (see
 * `loadValidation` in ./optional-parts.ts).
 *
 * @see https://github.com/cfworker/cfworker/tree/main/packages/json-schema
 * @module
 */
import { type OutputUnit, Validator } from '@cfworker/json-schema';
import {
  formatPath,
  type JsonObject,
  pointerToSegments,
  type ValidationIssue,
  type ValidationResult,
} from './adapter';

export type { Validator };

/**
 * A validator for `schema`, read as JSON Schema 2020-12, reporting every error (not only the first). It annotates
 * the schema it is given: pass a copy that nothing else reads.
 *
 * @throws Error from the validator for a schema it cannot take (two subschemas with the same `$id`).
 */
export function compile(schema: JsonObject): Validator {
  return new Validator(schema, '2020-12', false);
}

// Errors that only summarise the errors of their subschemas, which are reported instead.
const SUMMARY_KEYWORDS = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalItems',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'allOf',
  '$ref',
  '$recursiveRef',
  '$dynamicRef',
  'dependentSchemas',
  'dependencies',
  'propertyNames',
  'contains',
  'then',
  'else',
]);
// Errors whose subschema errors are alternatives; the summary is clearer than every branch's complaint.
const ALTERNATIVE_KEYWORDS = new Set(['anyOf', 'oneOf', 'not']);

function isBelow(location: string, other: string): boolean {
  return other.startsWith(location === '#' ? '#/' : `${location}/`);
}

/** A cfworker message in toolwire's style: the missing property in the path, no trailing period. */
function describe(error: OutputUnit, instance: unknown): ValidationIssue {
  const segments = pointerToSegments(error.instanceLocation, instance);
  let message = error.error.replace(/\.$/, '');
  const missing = error.keyword === 'required' ? /required property "(.*)"$/.exec(message) : null;
  if (missing?.[1] !== undefined) {
    segments.push(missing[1]);
    message = 'missing required property';
  } else if (error.keyword === 'false') {
    message = 'is not allowed';
  } else if (error.keywordLocation.includes('/propertyNames/')) {
    message = `invalid property name: ${message}`;
  }
  return { path: formatPath(segments), message };
}

/**
 * Turns `@cfworker/json-schema` output units into issues with rendered paths: summaries whose details are
 * reported are left out, alternatives (`anyOf`, `oneOf`, `not`) are reported once, duplicates are merged.
 */
export function issuesFromOutput(errors: readonly OutputUnit[], instance: unknown): ValidationIssue[] {
  const alternatives = errors
    .filter((e) => ALTERNATIVE_KEYWORDS.has(e.keyword))
    .map((e) => e.keywordLocation);
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (alternatives.some((location) => isBelow(location, error.keywordLocation))) continue;
    const summarised = errors.some(
      (other) =>
        isBelow(error.keywordLocation, other.keywordLocation) ||
        isBelow(error.instanceLocation, other.instanceLocation),
    );
    if (SUMMARY_KEYWORDS.has(error.keyword) && summarised) continue;
    const issue = describe(error, instance);
    const key = `${issue.path}\u0000${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues.length > 0 ? issues : [{ path: formatPath([]), message: 'does not match the schema' }];
}

/**
 * The first value JSON cannot hold, with its path; an object property set to `undefined` counts as absent.
 * `undefined` when there is none (or nesting is too deep to look: the validator then judges).
 */
function nonJsonValue(
  value: unknown,
  path: Array<string | number>,
  depth: number,
): { path: Array<string | number>; type: string } | undefined {
  const type = typeof value;
  if (type === 'undefined' || type === 'bigint' || type === 'function' || type === 'symbol')
    return { path, type };
  if (value === null || type !== 'object' || depth > 100) return undefined;
  const array = Array.isArray(value);
  for (const [key, item] of array ? value.entries() : Object.entries(value as object)) {
    if (item === undefined && !array) continue; // an absent property, as JSON.stringify sees it
    const found = nonJsonValue(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** `value` without the object properties set to `undefined` (copied only where there are some). */
function withoutUnset(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > 100) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => withoutUnset(item, depth + 1));
    return items.every((item, index) => item === value[index]) ? value : items;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) {
      changed = true;
      continue;
    }
    const copy = withoutUnset(item, depth + 1);
    if (copy !== item) changed = true;
    Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}

/**
 * A plain JSON Schema's verdict on `value`. The validator throws on values JSON cannot hold (undefined, a BigInt,
 * a function) where the schema looks, which a caller of invokeTool can pass. A property set to undefined is an
 * absent one, as in JSON; anything else JSON cannot hold makes the arguments invalid, not the tool fail.
 */
export function plainResult(validator: Validator, value: unknown): ValidationResult {
  const foreign = nonJsonValue(value, [], 0);
  if (foreign) {
    const message = `expected a JSON value, got ${foreign.type}`;
    return { ok: false, issues: [{ path: formatPath(foreign.path), message }] };
  }
  const result = validator.validate(withoutUnset(value, 0));
  return result.valid ? { ok: true, value } : { ok: false, issues: issuesFromOutput(result.errors, value) };
}

/** The library's `result` (valid), unless the announced schema's `validator` refuses the raw `value`. */
export function announcedResult(
  validator: Validator,
  value: unknown,
  result: ValidationResult,
): ValidationResult {
  let announced: ReturnType<Validator['validate']>;
  try {
    announced = validator.validate(value);
  } catch {
    return result; // e.g. a library pattern this validator cannot compile: the library's verdict stands
  }
  return announced.valid ? result : { ok: false, issues: issuesFromOutput(announced.errors, value) };
}
