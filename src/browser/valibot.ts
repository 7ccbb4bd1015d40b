/**
 * `toolwire/valibot`: gives the browser build of `toolwire` its valibot converter (`@valibot/to-json-schema`),
 * which it leaves out to stay small. Import it once, before defining tools with valibot parameters:
 *
 * ```ts
 * import 'toolwire/valibot';
 * ```
 *
 * In Node (and wherever `toolwire` resolves to its full build) the converter is already in, and this import
 * changes nothing.
 *
 * @packageDocumentation
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import { converters } from './registry';

converters().valibot = { toJsonSchema };
