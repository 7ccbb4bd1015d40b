/**
 * `toolwire/zod3`: zod 3 parameters, for `toolwire` where it is the core alone (browsers, workers, Deno without
 * the `node` condition). It registers the zod 3 adapter and its converter, `zod-to-json-schema`, which the core
 * leaves out. Import it once, before defining tools with zod 3 (`zod/v3`) parameters:
 *
 * ```ts
 * import 'toolwire/zod3';
 * ```
 *
 * The Node entry of `toolwire` registers it itself, loading the converter with `require` at the first zod 3 tool.
 * A Node program bundled into one file without its `node_modules` has nothing for `require` to find: there this
 * import bundles the converter, and it must run before the first zod 3 tool is defined (ES modules run in import
 * order): at the top of each module that defines zod 3 tools.
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
