/**
 * The common shape every kind of `parameters` (and `outputSchema`) is turned into: a JSON Schema to announce
 * and a validator that reports issues with readable paths.
 *
 * @module
 */

/** A JSON object, as announced to the service (JSON-serialisable by construction). */
import type { JsonObject } from '../../json';
import type { MaybePromise } from '../../maybe';

export type { JsonObject };

/** Which adapter handles a schema. `standard` covers zod 4, valibot, arktype and any other Standard Schema. */
export type SchemaKind = 'zod3' | 'zod4' | 'valibot' | 'arktype' | 'standard' | 'json-schema' | 'none';

/** One validation problem: where (rendered path, `(root)` for the value itself) and what. */
export interface ValidationIssue {
  /** Rendered path, e.g. `items[0].sku`, `tags["a b"]`, or `(root)`. */
  path: string;
  /** Human-readable message from the schema library, without the path. */
  message: string;
}

/** Result of {@link SchemaAdapter.validate}: the parsed value or at least one issue. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

/** A schema of any supported kind, reduced to what `tool()` and `invokeTool()` need. */
export interface SchemaAdapter {
  /** Which adapter produced this. */
  readonly kind: SchemaKind;
  /** JSON Schema (2020-12 vocabulary, no `$schema` key) describing the accepted input. */
  readonly jsonSchema: JsonObject;
  /**
   * Validates (and, for schema libraries, parses) a value: at once when the library validates synchronously (zod,
   * valibot, arktype, JSON Schema), else through a promise. Never throws for invalid data.
   */
  validate(value: unknown): ValidationResult | Promise<ValidationResult>;
  /**
   * `true` when it was proved, as the adapter was made, that `validate` accepts nothing `jsonSchema` refuses,
   * so that parameters need no check against their announcement after validation (see `guardWithAnnounced`).
   * Set only for zod 4 schemas made of trusted constructs (src/tool/schema/zod4-trust.ts). In the browser build,
   * whose proof loads lazily, it may be a function that answers on the first validation.
   * @default false
   */
  readonly acceptsOnlyAnnounced?: boolean | (() => MaybePromise<boolean>);
}
