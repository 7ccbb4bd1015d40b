/**
 * The optional parts of schema support, and where the core finds them. Four parts stay out of the core (what
 * `toolwire` is for a browser, a worker or Deno without the `node` condition), each registered by an entry the
 * user imports once, before defining tools:
 * - zod 3 parameters, converted with `zod-to-json-schema` (./zod3.ts): `toolwire/zod3` (src/zod3.ts);
 * - valibot parameters, converted with `@valibot/to-json-schema` (./valibot.ts): `toolwire/valibot`
 *   (src/valibot.ts);
 * - plain JSON Schema parameters, with their translation from older drafts and their definition-time checks
 *   (./json-schema.ts), and the JSON Schema validator (./validator.ts): `toolwire/json-schema`
 *   (src/json-schema.ts);
 * - `strict: true`, the parameters rewritten in the form OpenAI's strict mode accepts (../strict.ts):
 *   `toolwire/strict` (src/strict.ts).
 *
 * The Node entry (src/node.ts) registers all four, so a Node user imports nothing else (zod 3's converter is
 * loaded there with `require` at the first zod 3 schema). A schema (or a
 * `strict: true`) whose part is not registered is refused when the tool is defined (`unsupported_schema`), the
 * message naming the one import that fixes it. The validator is also used by the core itself, at call time (the
 * check of a zod 4 schema that was not proved faithful, or of a valibot or arktype schema, against its
 * announcement; `strict: true`'s way back): without `toolwire/json-schema` the core loads it with `import()` at the first validation that needs it:
 * the same module the entry registers, so that a bundler puts it in one chunk both share.
 *
 * The registry is a variable of this module, not a global: each copy of toolwire (two versions in one page, a
 * test's separate bundle) keeps its own, as it keeps its own classes; the entries and the core share it through
 * the one module they both import.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { CodeOnDemand } from '../../code-on-demand';
import type { MaybePromise } from '../../maybe';
import type { JsonObject, SchemaAdapter } from './adapter';
import type * as ValidatorModule from './validator';

/** ./validator.ts: the JSON Schema validator and its verdicts in toolwire's words. */
export type Validation = typeof ValidatorModule;

/** What each entry registers. */
export interface OptionalParts {
  /** From `toolwire/zod3`: the zod 3 adapter, and the converter alone (for zod 3 before 3.24, read apart). */
  zod3?: {
    adapter(schema: StandardSchemaV1): SchemaAdapter;
    inputJsonSchema(schema: StandardSchemaV1): JsonObject;
  };
  /** From `toolwire/valibot`: the valibot adapter. */
  valibot?: { adapter(schema: StandardSchemaV1): SchemaAdapter };
  /** From `toolwire/json-schema`: the plain JSON Schema adapter, and the validator it brings with it. */
  jsonSchema?: { adapter(schema: JsonObject): SchemaAdapter; validation: Validation };
  /** From `toolwire/strict`: the rewrite of `strict: true` tools' parameters and its way back (../strict.ts). */
  strict?: {
    /** The strict form and its way back; throws a `NotStrict` naming the part that cannot be made strict. */
    strictSchema(announced: JsonObject): {
      readonly schema: JsonObject;
      readonly restore: (args: unknown) => MaybePromise<unknown>;
    };
    NotStrict: new (...args: never[]) => Error & { readonly pointer: string; readonly reason: string };
  };
}

/** The import that registers each part, as a refusal names it. */
export const PART_IMPORTS: { readonly [K in keyof OptionalParts]-?: string } = {
  zod3: 'toolwire/zod3',
  valibot: 'toolwire/valibot',
  jsonSchema: 'toolwire/json-schema',
  strict: 'toolwire/strict',
};

const parts: OptionalParts = {};

/** Registers one optional part (an entry's one line); registering it again replaces it. */
export function registerPart<K extends keyof OptionalParts>(
  name: K,
  part: NonNullable<OptionalParts[K]>,
): void {
  parts[name] = part;
}

/** The part registered under `name`, or `undefined` when its entry was not imported. */
export function registeredPart<K extends keyof OptionalParts>(name: K): OptionalParts[K] {
  return parts[name];
}

/** The validator loaded with `import()`, when no entry registered it. */
const validator = new CodeOnDemand<Validation>(
  'JSON Schema validator',
  () => import('./validator'),
  "`import 'toolwire/json-schema'` loads it with the page",
);

/** The validator when it is here without waiting (registered, or loaded before), else `undefined`. */
export function validationIfReady(): Validation | undefined {
  return parts.jsonSchema?.validation ?? validator.code;
}

/**
 * The validator: registered by `toolwire/json-schema`, else loaded with `import()` (one load at a time; once
 * loaded, it is here at once).
 *
 * @throws (rejects) ToolwireError `load_failed` when the load fails (the import's error as `cause`); the next
 *   call tries again.
 */
export function loadValidation(): MaybePromise<Validation> {
  return validationIfReady() ?? validator.load();
}
