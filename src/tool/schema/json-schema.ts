/**
 * Plain JSON Schema adapter: the schema is translated to 2020-12 from the draft its `$schema` names (see
 * src/tool/schema/json-schema-dialect.ts), then announced and validated in that one form, with
 * `@cfworker/json-schema`, which needs no code generation, so it runs in browsers and workers too.
 *
 * @see https://github.com/cfworker/cfworker/tree/main/packages/json-schema
 * @module
 */
import type { OutputUnit, Validator } from '@cfworker/json-schema';
import { isPlainObject } from '../../json';
import { andThen, isThenable, type MaybePromise } from '../../maybe';
import { checkJsonSchema } from './json-schema-check';
import { to202012 } from './json-schema-dialect';
import { formatPath, pointerToSegments } from './path';
import type { JsonObject, SchemaAdapter, ValidationIssue, ValidationResult } from './types';
import { loadValidator, preloadValidator, type ValidatorClass } from './validator';

// Keywords whose value is data, not a schema.
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

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
 * A validator for `schema` (2020-12, every error reported), through src/tool/schema/validator.ts, the one place
 * the validator is loaded: made at once where it is loaded (Node), else by the first validation.
 */
function lazyValidator(schema: JsonObject): () => Validator | Promise<Validator> {
  const make = (ValidatorOf: ValidatorClass) => new ValidatorOf(schema, '2020-12', false);
  const now = loadValidator();
  let validator = isThenable(now) ? undefined : make(now);
  if (validator === undefined) preloadValidator();
  return () =>
    validator ?? (andThen(loadValidator(), (loaded) => (validator ??= make(loaded))) as Promise<Validator>);
}

/**
 * Adapter for a plain JSON Schema object. The announced schema is its 2020-12 translation, a JSON copy
 * without `$schema`; the validator works on its own copy of it (it annotates the schema it is given).
 *
 * @throws Error naming the JSON Pointer of the first problem (see {@link checkJsonSchema}), or of a form of
 *   its draft the translation does not take, or naming a `$schema` it does not read.
 */
export function jsonSchemaAdapter(schema: JsonObject): SchemaAdapter {
  const jsonSchema = to202012(checkJsonSchema(schema));
  const validator = lazyValidator(structuredClone(jsonSchema));
  return {
    kind: 'json-schema',
    jsonSchema,
    validate: (value) => {
      // The validator throws on values JSON cannot hold (undefined, a BigInt, a function) where the schema
      // looks, which a caller of invokeTool can pass. A property set to undefined is an absent one, as in JSON;
      // anything else JSON cannot hold makes the arguments invalid, not the tool fail.
      const foreign = nonJsonValue(value, [], 0);
      if (foreign) {
        const message = `expected a JSON value, got ${foreign.type}`;
        return { ok: false, issues: [{ path: formatPath(foreign.path), message }] };
      }
      return andThen(validator(), (ready): ValidationResult => {
        const result = ready.validate(withoutUnset(value, 0));
        return result.valid
          ? { ok: true, value }
          : { ok: false, issues: issuesFromOutput(result.errors, value) };
      });
    },
  };
}

// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** Removes every `format` keyword (in place): a library that announced a format validates it its own way. */
function withoutFormats(node: unknown): unknown {
  if (Array.isArray(node)) {
    for (const child of node) withoutFormats(child);
    return node;
  }
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'format' && typeof value === 'string') delete schema[key];
    else if (SCHEMA_MAPS.has(key) && isPlainObject(value))
      for (const child of Object.values(value)) withoutFormats(child);
    else if (!DATA_KEYWORDS.has(key)) withoutFormats(value);
  }
  return node;
}

/**
 * Makes a library adapter refuse whatever its announced JSON Schema refuses, so that `execute` never gets a
 * value the model was told is invalid (e.g. valibot and arktype accept an array for a record; the announced
 * `"type": "object"` does not). The library validates first and its messages win; the announced schema
 * (without `format`, which the library checks itself) is then checked on the raw arguments. `resolveSchema`
 * leaves it out for an adapter that proved it unneeded ({@link SchemaAdapter.acceptsOnlyAnnounced}).
 */
export function guardWithAnnounced(adapter: SchemaAdapter): SchemaAdapter {
  const schema = withoutFormats(structuredClone(adapter.jsonSchema)) as JsonObject;
  const validator = lazyValidator(schema);
  return {
    kind: adapter.kind,
    jsonSchema: adapter.jsonSchema,
    validate: (value) =>
      andThen(adapter.validate(value), (result) => {
        if (!result.ok) return result;
        return andThen(validator(), (ready): ValidationResult => {
          let announced: ReturnType<Validator['validate']>;
          try {
            announced = ready.validate(value);
          } catch {
            return result; // e.g. a library pattern this validator cannot compile: the library's verdict stands
          }
          return announced.valid ? result : { ok: false, issues: issuesFromOutput(announced.errors, value) };
        });
      }),
  };
}

/**
 * {@link guardWithAnnounced}, or the adapter as it is, as `proof` decides on the first validation (a proof that
 * loads lazily in the browser build: see src/tool/schema/zod4-trust.browser.ts). A proof that fails to load
 * fails that validation; the next one asks again.
 */
export function guardUnlessProved(adapter: SchemaAdapter, proof: () => MaybePromise<boolean>): SchemaAdapter {
  let chosen: SchemaAdapter | undefined;
  const choose = () =>
    andThen(proof(), (proved) => (chosen ??= proved ? adapter : guardWithAnnounced(adapter)));
  return {
    kind: adapter.kind,
    jsonSchema: adapter.jsonSchema,
    validate: (value) =>
      chosen === undefined ? andThen(choose(), (ready) => ready.validate(value)) : chosen.validate(value),
  };
}
