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
import { dereference, type Schema, type ValidationResult as Verdict, validate } from '@cfworker/json-schema';
import { formatPath, type JsonObject, type ValidationIssue, type ValidationResult } from './adapter';
import { explainIssues, parentsOf } from './explain';

/** A compiled schema: its verdict on a value, and what ./explain.ts reads to say why. */
export interface Validator {
  /** The schema, annotated by the validator (each `$ref` resolved in {@link Validator.lookup}). */
  readonly schema: Schema;
  /** Every schema of the document by its absolute URI, for `$ref`s. */
  readonly lookup: Record<string, Schema | boolean>;
  /** The verdict on `instance`, with every error (not only the first). */
  validate(instance: unknown): Verdict;
}

/**
 * A validator for `schema`, read as JSON Schema 2020-12 (as `@cfworker/json-schema`'s `Validator` does, whose
 * schema and lookup this one keeps readable). Only its verdict is read (the words come from ./explain.ts), so it
 * stops at the first error: collecting every error of arguments with a hundred thousand wrong items would overflow
 * the stack (the validator spreads each level's errors into the next). It annotates the schema it is given: pass
 * a copy that nothing else reads.
 *
 * @throws Error from the validator for a schema it cannot take (two subschemas with the same `$id`).
 */
export function compile(schema: JsonObject): Validator {
  const annotated = schema as Schema;
  const lookup = dereference(annotated);
  return {
    schema: annotated,
    lookup,
    validate: (instance) => {
      try {
        return validate(instance, annotated, '2020-12', lookup, true);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        // The validator (4.1.6) goes on past the first wrong key of `additionalProperties`, `patternProperties`,
        // `unevaluatedProperties` and `propertyNames` and spreads their errors into one call: past ~70,000 wrong
        // keys the stack overflows. Only that many wrong values get here: a refusal (./explain.ts names them).
        return OVERFLOWED;
      }
    },
  };
}

/** The verdict on a value whose errors overflowed the validator's stack (see {@link compile}). */
const OVERFLOWED: Verdict = { valid: false, errors: [] };

/** Why `value` fails the validator's schema, in the one wording of ./explain.ts. */
export function explain(validator: Validator, value: unknown): ValidationIssue[] {
  return explainIssues(value, validator.schema, validator.lookup);
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
    const message = `expected a JSON value, received ${foreign.type}`;
    return { ok: false, issues: [{ path: formatPath(foreign.path), message }] };
  }
  const plain = withoutUnset(value, 0);
  const result = validator.validate(plain);
  return result.valid ? { ok: true, value } : { ok: false, issues: explain(validator, plain) };
}

/** The library's `result` (valid), unless the announced schema's `validator` refuses the raw `value`. */
export function announcedResult(
  validator: Validator,
  value: unknown,
  result: ValidationResult,
): ValidationResult {
  let announced: Verdict;
  try {
    announced = validator.validate(value);
  } catch {
    return result; // e.g. a library pattern this validator cannot compile: the library's verdict stands
  }
  return announced.valid ? result : { ok: false, issues: explain(validator, value) };
}

/**
 * Whether a path is one of `paths`, lies inside one or holds one, in time that grows with the path, not with
 * `paths`: a library refuses a hundred thousand wrong items with as many issues.
 */
function relatedTo(paths: readonly string[]): (path: string) => boolean {
  const own = new Set(paths);
  const holders = new Set(paths.flatMap(parentsOf));
  return (path) => own.has(path) || holders.has(path) || parentsOf(path).some((parent) => own.has(parent));
}

/**
 * A library's refusal of `value` in the announcement's words: where the library refused (its issues' paths, and
 * the paths above and below them), the issues of `value` against the announced schema (./explain.ts); then the
 * library's `issues` on paths those leave alone (a refinement, which the announcement cannot say). The library's
 * issues as they are when the announcement accepts `value`, or when the validator cannot judge it.
 */
export function refusedResult(
  validator: Validator,
  value: unknown,
  issues: readonly ValidationIssue[],
): ValidationResult {
  try {
    // As for a plain JSON Schema (see plainResult): a property set to undefined is an absent one.
    const plain = withoutUnset(value, 0);
    if (validator.validate(plain).valid) return { ok: false, issues: [...issues] };
    const nearRefused = relatedTo(issues.map((issue) => issue.path));
    const explained = explain(validator, plain).filter((found) => nearRefused(found.path));
    const nearExplained = relatedTo(explained.map((found) => found.path));
    const kept = issues.filter((issue) => !nearExplained(issue.path));
    return { ok: false, issues: [...explained, ...kept] };
  } catch {
    return { ok: false, issues: [...issues] };
  }
}
