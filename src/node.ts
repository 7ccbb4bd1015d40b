/**
 * The Node entry of `toolwire` (the `node` export condition; Bun and Deno resolve it too): the core of
 * ./index.ts with the optional parts a Node process has room for registered at once (the zod 3 and valibot
 * adapters), so that a Node user imports nothing else.
 *
 * The registrations are written here, as in ./zod3.ts and ./valibot.ts, rather than imported from those entries:
 * an entry that another imports is built into a shared chunk, which the package's `sideEffects` does not list,
 * so a bundler would drop it.
 *
 * @packageDocumentation
 */
import { subpathAdapters } from './tool/schema/index';
import { valibotAdapter, valibotInputJsonSchema } from './tool/schema/valibot';
import { zod3Adapter, zod3InputJsonSchema } from './tool/schema/zod3';

subpathAdapters().zod3 = { zod3Adapter, zod3InputJsonSchema };
subpathAdapters().valibot = { valibotAdapter, valibotInputJsonSchema };

export * from './index';
