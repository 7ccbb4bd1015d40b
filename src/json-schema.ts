/**
 * `toolwire/json-schema`: plain JSON Schema parameters, for `toolwire` where it is the core alone (browsers,
 * workers, Deno without the `node` condition). It registers the JSON Schema adapter (its definition-time checks
 * and its translation from older drafts) and the validator, `@cfworker/json-schema`, which the core leaves out.
 * Import it once, before defining tools whose `parameters` (or `outputSchema`, or an AI SDK `jsonSchema()`
 * schema, or an MCP tool's input schema) are JSON Schema objects:
 *
 * ```ts
 * import 'toolwire/json-schema';
 * ```
 *
 * Without it, the core still validates zod 4, valibot and arktype parameters against their announcement, and
 * `strict: true` still works: it loads the validator by itself the first time a call needs it. With it, the
 * validator comes with the page and no call waits for it.
 *
 * The Node entry of `toolwire` registers it itself: there this import changes nothing.
 *
 * @packageDocumentation
 */

import { jsonSchemaAdapter } from './tool/schema/json-schema';
import { registerPart } from './tool/schema/optional-parts';
import * as validation from './tool/schema/validator';

registerPart('jsonSchema', { adapter: jsonSchemaAdapter, validation });
