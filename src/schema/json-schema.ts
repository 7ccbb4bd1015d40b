/**
 * Plain JSON Schema adapter: the schema is announced as written (minus `$schema`) and validated with
 * `@cfworker/json-schema`, which needs no code generation, so it runs in browsers and workers too.
 *
 * @see https://github.com/cfworker/cfworker/tree/main/packages/json-schema
 * @module
 */
import { type OutputUnit, type SchemaDraft, Validator } from '@cfworker/json-schema';
import { formatPath, pointerToSegments } from './path';
import type { JsonObject, SchemaAdapter, ValidationIssue } from './types';

/** `true` for a plain object (`{}` literal or `Object.create(null)`), the only shape a JSON Schema can have here. */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The draft named by `$schema`; 2020-12 when absent or unknown. */
export function draftOf(schema: JsonObject): SchemaDraft {
  const uri = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (uri.includes('draft-04')) return '4';
  if (uri.includes('draft-06') || uri.includes('draft-07')) return '7';
  if (uri.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * A deep copy that is plain JSON, or an error describing why the schema is not one.
 *
 * @throws Error when the schema is not JSON-serialisable (a cycle, a BigInt, a function value).
 */
function jsonCopy(schema: JsonObject): JsonObject {
  const seen = new Set<unknown>();
  const text = JSON.stringify(schema, (_key, value: unknown) => {
    if (typeof value === 'function' || typeof value === 'symbol') {
      throw new Error(`it holds a ${typeof value}, which is not JSON`);
    }
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) throw new Error('it is not JSON (it refers to itself)');
      seen.add(value);
    }
    return value;
  });
  return JSON.parse(text) as JsonObject;
}

const ARRAY_OF_STRINGS = (value: unknown) =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * Checks that a JSON Schema is plausible before any call: plain JSON, known draft, well-formed `properties`,
 * `required` and `$ref`s. Returns the copy that will be announced.
 *
 * @throws Error describing the first problem found.
 */
export function checkJsonSchema(schema: JsonObject): JsonObject {
  const copy = jsonCopy(schema);
  if ('properties' in copy && !isPlainObject(copy.properties))
    throw new Error('"properties" must be an object');
  if ('required' in copy && !ARRAY_OF_STRINGS(copy.required)) {
    throw new Error('"required" must be an array of strings');
  }
  // Building a validator resolves every `$ref`; an unresolvable one throws here, not mid-call.
  new Validator(structuredClone(copy), draftOf(copy), false).validate({});
  return copy;
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

/** Turns `@cfworker/json-schema` output units into issues with rendered paths, the clearest error per place. */
export function issuesFromOutput(errors: readonly OutputUnit[], instance: unknown): ValidationIssue[] {
  const alternatives = errors
    .filter((e) => ALTERNATIVE_KEYWORDS.has(e.keyword))
    .map((e) => `${e.keywordLocation}/`);
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (alternatives.some((prefix) => error.keywordLocation.startsWith(prefix))) continue;
    const hasDeeper = errors.some((other) => other.keywordLocation.startsWith(`${error.keywordLocation}/`));
    if (SUMMARY_KEYWORDS.has(error.keyword) && hasDeeper) continue;
    const segments = pointerToSegments(error.instanceLocation, instance);
    let message = error.error;
    const missing = error.keyword === 'required' ? /required property "(.*)"\.?$/.exec(error.error) : null;
    if (missing?.[1] !== undefined) {
      segments.push(missing[1]);
      message = 'missing required property';
    }
    const issue = { path: formatPath(segments), message };
    const key = `${issue.path}\u0000${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues.length > 0 ? issues : [{ path: formatPath([]), message: 'does not match the schema' }];
}

/**
 * Adapter for a plain JSON Schema object. The announced schema is a JSON copy without `$schema`; the
 * validator works on its own copy (it annotates the schema it is given).
 *
 * @throws Error when the schema is not plausible (see {@link checkJsonSchema}).
 */
export function jsonSchemaAdapter(schema: JsonObject): SchemaAdapter {
  const copy = checkJsonSchema(schema);
  const validator = new Validator(structuredClone(copy), draftOf(copy), false);
  const { $schema: _dialect, ...jsonSchema } = copy;
  return {
    kind: 'json-schema',
    jsonSchema,
    validate: async (value) => {
      const result = validator.validate(value);
      return result.valid
        ? { ok: true, value }
        : { ok: false, issues: issuesFromOutput(result.errors, value) };
    },
  };
}
