/**
 * `toolwire/zod3`: gives the browser build of `toolwire` its zod 3 converter (`zod-to-json-schema`), which it
 * leaves out to stay small. Import it once, before defining tools with zod 3 (`zod/v3`) parameters:
 *
 * ```ts
 * import 'toolwire/zod3';
 * ```
 *
 * In Node (and wherever `toolwire` resolves to its full build) the converter is already in, and this import
 * changes nothing.
 *
 * @packageDocumentation
 */
import { ignoreOverride, parseStringDef, zodToJsonSchema } from 'zod-to-json-schema';
import { converters } from './registry';

converters().zod3 = { ignoreOverride, parseStringDef, zodToJsonSchema };
