/**
 * `toolwire/valibot`: valibot parameters, for `toolwire` where it is the core alone (browsers, workers, Deno
 * without the `node` condition). It registers the valibot adapter and its converter, `@valibot/to-json-schema`,
 * which the core leaves out. Import it once, before defining tools with valibot parameters:
 *
 * ```ts
 * import 'toolwire/valibot';
 * ```
 *
 * The Node entry of `toolwire` registers it itself: there this import changes nothing.
 *
 * @packageDocumentation
 */
import { registerPart } from './tool/schema/optional-parts';
import { valibotAdapter } from './tool/schema/valibot';

registerPart('valibot', { adapter: valibotAdapter });
