/**
 * `toolwire/zod3`: gives the browser build of `toolwire` its zod 3 adapter and converter (`zod-to-json-schema`),
 * which it leaves out to stay small. Import it once, before defining tools with zod 3 (`zod/v3`) parameters:
 *
 * ```ts
 * import 'toolwire/zod3';
 * ```
 *
 * In Node (and wherever `toolwire` resolves to its full build) the adapter is already in, and this import
 * changes nothing.
 *
 * @packageDocumentation
 */
import { subpathAdapters } from './tool/schema/index';
import { zod3Adapter, zod3InputJsonSchema } from './tool/schema/zod3';

subpathAdapters().zod3 = { zod3Adapter, zod3InputJsonSchema };
