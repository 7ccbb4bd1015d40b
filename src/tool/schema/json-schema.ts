/**
 * Plain JSON Schema adapter: the schema is translated to 2020-12 from the draft its `$schema` names (see
 * src/tool/schema/json-schema-dialect.ts), then announced and validated in that one form, with
 * `@cfworker/json-schema`, which needs no code generation, so it runs in browsers and workers too.
 *
 * @see https://github.com/cfworker/cfworker/tree/main/packages/json-schema
 * @module
 */
import type { Validator } from '@cfworker/json-schema';
import { isPlainObject } from '../../json';
import { andThen, isThenable, type MaybePromise } from '../../maybe';
import { checkJsonSchema } from './json-schema-check';
import { to202012 } from './json-schema-dialect';
import { checkSatisfiable } from './json-schema-satisfiable';
import type { JsonObject, SchemaAdapter } from './types';
import { loadValidator, loadValidatorOutput, type ValidatorOutput } from './validator';

// Keywords whose value is data, not a schema.
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** A validator made for one schema, and the code that reads its output (src/tool/schema/json-schema-output.ts). */
interface ReadyValidator {
  validator: Validator;
  output: ValidatorOutput;
}

/**
 * A validator for `schema` (2020-12, every error reported), through src/tool/schema/validator.ts, the one place
 * the validator is loaded: made at once where it is loaded (Node), else by the first validation.
 */
function lazyValidator(schema: JsonObject): () => MaybePromise<ReadyValidator> {
  let ready: ReadyValidator | undefined;
  const load = () =>
    andThen(loadValidator(), (ValidatorOf) =>
      andThen(loadValidatorOutput(), (output) => {
        ready ??= { validator: new ValidatorOf(schema, '2020-12', false), output };
        return ready;
      }),
    );
  const now = load();
  if (isThenable(now)) now.then(undefined, () => {}); // a failed load is reported by the validation that needs it
  return () => ready ?? load();
}

/**
 * Adapter for a plain JSON Schema object. The announced schema is its 2020-12 translation, a JSON copy
 * without `$schema`; the validator works on its own copy of it (it annotates the schema it is given).
 *
 * @throws Error naming the JSON Pointer of the first problem (see {@link checkJsonSchema}), of a form of
 *   its draft the translation does not take, or of a schema no value can pass (see {@link checkSatisfiable}), or
 *   naming a `$schema` it does not read.
 */
export function jsonSchemaAdapter(schema: JsonObject): SchemaAdapter {
  const jsonSchema = to202012(checkJsonSchema(schema));
  checkSatisfiable(jsonSchema);
  const validator = lazyValidator(structuredClone(jsonSchema));
  return {
    kind: 'json-schema',
    jsonSchema,
    validate: (value) => andThen(validator(), (ready) => ready.output.plainResult(ready.validator, value)),
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
        return andThen(validator(), (ready) => ready.output.announcedResult(ready.validator, value, result));
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
