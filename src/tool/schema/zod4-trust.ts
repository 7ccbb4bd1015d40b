/**
 * Whether a zod 4 schema accepts only what its announcement accepts: every construct in it is trusted
 * (src/tool/schema/zod4-faithful.ts) and its metadata only annotates (src/tool/schema/zod4-metadata.ts). Then
 * its parameters need no check against the announced JSON Schema after zod validated them.
 *
 * The browser build swaps in zod4-trust.browser.ts, which loads this proof in a chunk of its own and decides
 * on the first validation.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonObject } from './types';
import { zod4DefinitionIsFaithful } from './zod4-faithful';
import { metadataOnlyAnnotates, NO_METADATA } from './zod4-metadata';

/**
 * `true` when `schema` (announced as `announced`) was proved to accept nothing its announcement refuses.
 * `translate` is zod's translation of it with other library options (here: without metadata).
 */
export function zod4Trusted(
  schema: StandardSchemaV1,
  announced: JsonObject,
  translate: (options: Record<string, unknown>) => JsonObject,
): boolean {
  return (
    zod4DefinitionIsFaithful(schema) &&
    metadataOnlyAnnotates(announced, () => translate({ metadata: NO_METADATA }))
  );
}
