/**
 * The Node entry of `toolwire` (the `node` export condition; Bun and Deno resolve it too): the core
 * (./index.ts) with every optional part registered (zod 3 and valibot parameters, plain JSON Schema parameters
 * and the JSON Schema validator), so that a Node user imports nothing else.
 *
 * @packageDocumentation
 */
import './zod3';
import './valibot';
import './json-schema';

export * from './index';
