/**
 * The Node entry of `toolwire` (the `node` export condition; Bun and Deno resolve it too): the core of
 * ./index.ts with the optional parts a Node process has room for registered at once (the zod 3 and valibot
 * adapters), so that a Node user imports nothing else.
 *
 * @packageDocumentation
 */
import './zod3';
import './valibot';

export * from './index';
