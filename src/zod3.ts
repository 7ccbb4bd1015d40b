/**
 * `toolwire/zod3`: zod 3 parameters, for `toolwire` where it is the core alone (browsers, workers, Deno without
 * the `node` condition). It registers the zod 3 adapter and its converter, `zod-to-json-schema`, which the core
 * leaves out. Import it once, before defining tools with zod 3 (`zod/v3`) parameters:
 *
 * ```ts
 * import 'toolwire/zod3';
 * ```
 *
 * The Node entry of `toolwire` registers it itself: there this import changes nothing.
 *
 * @packageDocumentation
 */
import * as converter from 'zod-to-json-schema';
import { registerPart } from './tool/schema/optional-parts';
import { zod3Part } from './tool/schema/zod3';

registerPart(
  'zod3',
  zod3Part(() => converter),
);
