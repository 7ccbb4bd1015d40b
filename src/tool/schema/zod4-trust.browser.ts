/**
 * The browser build's src/tool/schema/zod4-trust.ts (swapped in by browser-build.ts): the proof is loaded,
 * from a chunk of its own, when the first zod 4 tool is defined; until it is there, the adapter gets a
 * function that decides on its first validation (see `guardUnlessProved` in src/tool/schema/json-schema.ts).
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { lazy } from '../../browser/lazy';
import type { MaybePromise } from '../../maybe';
import type { JsonObject } from './types';

const real = lazy('the zod 4 schema check', () => import('./zod4-trust'));

/** See src/tool/schema/zod4-trust.ts; a function giving the answer later while the proof loads. */
export function zod4Trusted(
  schema: StandardSchemaV1,
  announced: JsonObject,
  translate: (options: Record<string, unknown>) => JsonObject,
): boolean | (() => MaybePromise<boolean>) {
  if (real.now !== undefined) return real.now.zod4Trusted(schema, announced, translate);
  real.load().catch(() => {}); // a failed load is reported by the validation that needs it
  return () =>
    real.now?.zod4Trusted(schema, announced, translate) ??
    real.load().then((module) => module.zod4Trusted(schema, announced, translate));
}
