/**
 * `toolwire/strict`: tools defined with `strict: true`, for `toolwire` where it is the core alone (browsers,
 * workers, Deno without the `node` condition). It registers the rewrite of a tool's parameters into the form
 * OpenAI's strict function calling accepts, which the core leaves out. Import it once, before defining tools with
 * `strict: true`:
 *
 * ```ts
 * import 'toolwire/strict';
 * ```
 *
 * The Node entry of `toolwire` registers it itself: there this import changes nothing.
 *
 * @packageDocumentation
 */
import { registerPart } from './tool/schema/optional-parts';
import { NotStrict, strictSchema } from './tool/strict';

registerPart('strict', { strictSchema, NotStrict });
