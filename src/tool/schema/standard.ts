/**
 * Validation through the Standard Schema interface (`~standard.validate`), shared by every schema library,
 * and the adapter for any Standard Schema that also implements Standard JSON Schema (zod ≥ 4.2 and others).
 *
 * @see https://standardschema.dev for both interfaces.
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { isThenable, type MaybePromise } from '../../maybe';
import { thrownMessage } from '../output';
import {
  formatPath,
  type JsonObject,
  type SchemaAdapter,
  type SchemaKind,
  type ValidationIssue,
  type ValidationResult,
} from './adapter';

/**
 * `true` for any Standard Schema, including arktype's (which are functions).
 *
 * @see https://standardschema.dev ("How do I accept Standard Schemas in my library?")
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value;
}

/** `true` when a Standard Schema can describe its input side as JSON Schema (Standard JSON Schema v1). */
export function hasStandardJsonSchema(
  value: StandardSchemaV1,
): value is StandardSchemaV1 & StandardJSONSchemaV1 {
  const jsonSchema = (value['~standard'] as { jsonSchema?: { input?: unknown } }).jsonSchema;
  return typeof jsonSchema === 'object' && jsonSchema !== null && typeof jsonSchema.input === 'function';
}

/** Rewrites a library's issue message, e.g. to remove a path the library already put in front of it. */
export type IssueMessageFormatter = (issue: StandardSchemaV1.Issue) => string;

/** A validator that threw or rejected, as one issue at the root. */
export const failedValidation = (error: unknown): ValidationResult => {
  // What the schema's own code threw (a refinement of the user's): read without throwing again.
  const message = thrownMessage(error, 'the schema');
  return {
    ok: false,
    issues: [{ path: formatPath([]), message: `validation failed: ${message}` }],
    threw: true,
  };
};

/**
 * Validates with `~standard.validate` and renders the issues: at once when the library answers synchronously,
 * else when its promise settles (the spec allows both). A validator that throws or rejects is reported as one
 * issue at the root, never as an exception.
 */
export function validateStandard(
  schema: StandardSchemaV1,
  value: unknown,
  formatMessage: IssueMessageFormatter = ownMessage,
): MaybePromise<ValidationResult> {
  let result: MaybePromise<StandardSchemaV1.Result<unknown>>;
  try {
    result = schema['~standard'].validate(value);
  } catch (error) {
    return failedValidation(error);
  }
  // Any promise the spec allows (one from another realm, a library's own thenable), not only a native Promise.
  if (isThenable(result)) return renderLater(result, formatMessage);
  return renderResult(result as StandardSchemaV1.Result<unknown>, formatMessage);
}

/** An issue's own message (no function made per call for the default). */
const ownMessage: IssueMessageFormatter = (issue) => issue.message;

/**
 * A library's promised result, rendered when it settles. Apart from {@link validateStandard}: a function that
 * makes a closure makes a scope for what it captures at each call, the synchronous ones too.
 */
function renderLater(
  result: PromiseLike<StandardSchemaV1.Result<unknown>>,
  formatMessage: IssueMessageFormatter,
): Promise<ValidationResult> {
  return Promise.resolve(result).then((settled) => renderResult(settled, formatMessage), failedValidation);
}

/** A Standard Schema result as a {@link ValidationResult}, its issues' paths rendered. */
export function renderResult(
  result: StandardSchemaV1.Result<unknown>,
  formatMessage: IssueMessageFormatter,
): ValidationResult {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return renderedIssues(result.issues, formatMessage);
}

/** A failed result's issues, their paths rendered (apart: see {@link renderLater}). */
function renderedIssues(
  found: ReadonlyArray<StandardSchemaV1.Issue>,
  formatMessage: IssueMessageFormatter,
): ValidationResult {
  const issues: ValidationIssue[] = found.map((issue) => ({
    path: formatPath(issue.path),
    message: formatMessage(issue) || 'is invalid',
  }));
  if (issues.length === 0) issues.push({ path: formatPath([]), message: 'is invalid' });
  return { ok: false, issues };
}

/** Builds an adapter from a Standard Schema and the JSON Schema already derived from it. */
export function standardAdapter(
  kind: SchemaKind,
  schema: StandardSchemaV1,
  jsonSchema: JsonObject,
  formatMessage?: IssueMessageFormatter,
): SchemaAdapter {
  return { kind, jsonSchema, validate: (value) => validateStandard(schema, value, formatMessage) };
}

/**
 * JSON Schema of the input side through Standard JSON Schema. Throws what the library throws for a type JSON
 * Schema cannot express (zod: `Date cannot be represented in JSON Schema`).
 */
export function standardInputJsonSchema(schema: StandardJSONSchemaV1): JsonObject {
  return schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as JsonObject;
}
