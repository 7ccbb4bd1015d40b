/**
 * `toolwire/valibot`: gives the browser build of `toolwire` its valibot adapter and converter
 * (`@valibot/to-json-schema`), which it leaves out to stay small. Import it once, before defining tools with
 * valibot parameters:
 *
 * ```ts
 * import 'toolwire/valibot';
 * ```
 *
 * In Node (and wherever `toolwire` resolves to its full build) the adapter is already in, and this import
 * changes nothing.
 *
 * @packageDocumentation
 */
import { subpathAdapters } from './tool/schema/index';
import { valibotAdapter, valibotInputJsonSchema } from './tool/schema/valibot';

subpathAdapters().valibot = { valibotAdapter, valibotInputJsonSchema };
