/**
 * Which library a Standard Schema comes from, for the libraries whose adapters the browser build leaves out of
 * its first download (zod 3, valibot: see src/tool/schema/subpaths.ts): detection stays in, conversion comes
 * with `toolwire/zod3` / `toolwire/valibot`.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/** `true` for a zod 3 schema: vendor `zod` and a `_def.typeName` (zod 4 keeps its definition in `_zod`). */
export function isZod3Schema(schema: StandardSchemaV1): boolean {
  if (schema['~standard'].vendor !== 'zod') return false;
  const def = (schema as unknown as { _def?: { typeName?: unknown } })._def;
  return typeof def?.typeName === 'string' && !('_zod' in schema);
}

/** `true` for a valibot schema (Standard Schema vendor `valibot`). */
export function isValibotSchema(schema: StandardSchemaV1): boolean {
  return schema['~standard'].vendor === 'valibot';
}
