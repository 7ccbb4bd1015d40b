/**
 * zod 3 before 3.24, which has no Standard Schema (`~standard`): read through zod's own API. Validation is
 * `safeParse` (or `safeParseAsync` when zod says the schema is asynchronous), its issues having the same
 * `{ path, message }` shape; the JSON Schema comes from `zod-to-json-schema` as for any zod 3 (it reads
 * `_def`, which these versions share). A schema from before zod 3 (no `_def.typeName`) is refused, saying so.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/** What toolwire reads of a zod 3 schema from before 3.24. */
export interface LegacyZod3Schema<Output = unknown> {
  readonly _def: { readonly typeName: string };
  readonly _output: Output;
  safeParse(value: unknown): LegacyResult;
  safeParseAsync(value: unknown): Promise<LegacyResult>;
}

type LegacyResult =
  | { success: true; data: unknown }
  | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };

const looksLikeZod = (value: unknown): value is Record<string, unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  !('~standard' in value) &&
  typeof (value as { _def?: unknown })._def === 'object' &&
  typeof (value as { safeParse?: unknown }).safeParse === 'function';

/** `true` for a zod 3 schema without Standard Schema (zod 3.0 to 3.23). */
export function isLegacyZod3Schema(value: unknown): value is LegacyZod3Schema {
  return (
    looksLikeZod(value) &&
    typeof (value._def as { typeName?: unknown }).typeName === 'string' &&
    typeof value.safeParseAsync === 'function'
  );
}

/** Why a zod-like schema toolwire does not read is refused, or `undefined` for anything else. */
export function unreadableZodReason(value: unknown): string | undefined {
  if (!looksLikeZod(value) || isLegacyZod3Schema(value)) return undefined;
  return 'looks like a zod schema from before zod 3 (no _def.typeName), which toolwire does not read; upgrade zod to 3.24 or later';
}

const SYNC_REFUSED = /async|promise/i;

function toResult(result: LegacyResult): StandardSchemaV1.Result<unknown> {
  if (result.success) return { value: result.data };
  return { issues: result.error.issues.map((issue) => ({ message: issue.message, path: issue.path })) };
}

/**
 * The schema as a Standard Schema (vendor `zod`): `safeParse`, or `safeParseAsync` when zod refuses to parse
 * it synchronously (an async refinement or transform: zod throws, naming the async).
 */
export function legacyZod3AsStandard(schema: LegacyZod3Schema): StandardSchemaV1 {
  return {
    '~standard': {
      version: 1,
      vendor: 'zod',
      validate: (value) => {
        try {
          return toResult(schema.safeParse(value));
        } catch (error) {
          if (!(error instanceof Error) || !SYNC_REFUSED.test(error.message)) throw error;
          return schema.safeParseAsync(value).then(toResult);
        }
      },
    },
  };
}
