/**
 * The browser build's src/tool/schema/valibot.ts (swapped in by browser-build.ts): the valibot adapter and its
 * converter come with `toolwire/valibot` (src/tool/schema/subpaths.ts); until it is imported, a valibot schema
 * is refused with the line to add.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { registered } from './subpaths';
import type { JsonObject, SchemaAdapter } from './types';

/** See src/tool/schema/valibot.ts. @throws Error when `toolwire/valibot` was not imported. */
export function valibotInputJsonSchema(schema: StandardSchemaV1): JsonObject {
  return registered('valibot', 'toolwire/valibot').valibotInputJsonSchema(schema);
}

/** See src/tool/schema/valibot.ts. @throws Error when `toolwire/valibot` was not imported. */
export function valibotAdapter(schema: StandardSchemaV1): SchemaAdapter {
  return registered('valibot', 'toolwire/valibot').valibotAdapter(schema);
}
