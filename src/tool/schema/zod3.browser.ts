/**
 * The browser build's src/tool/schema/zod3.ts (swapped in by browser-build.ts): the zod 3 adapter and its
 * converter come with `toolwire/zod3` (src/tool/schema/subpaths.ts); until it is imported, a zod 3 schema is
 * refused with the line to add.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { registered } from './subpaths';
import type { JsonObject, SchemaAdapter } from './types';

/** See src/tool/schema/zod3.ts. @throws Error when `toolwire/zod3` was not imported. */
export function zod3InputJsonSchema(schema: StandardSchemaV1): JsonObject {
  return registered('zod3', 'toolwire/zod3').zod3InputJsonSchema(schema);
}

/** See src/tool/schema/zod3.ts. @throws Error when `toolwire/zod3` was not imported. */
export function zod3Adapter(schema: StandardSchemaV1): SchemaAdapter {
  return registered('zod3', 'toolwire/zod3').zod3Adapter(schema);
}
