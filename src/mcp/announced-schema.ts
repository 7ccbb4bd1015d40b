/**
 * The input schema a toolwire tool is registered with on an `McpServer`. The MCP SDK (1.x) takes zod schemas
 * only: it lists a tool's input as the zod schema's JSON Schema and parses the arguments with it before calling
 * the handler. A toolwire tool's schema is JSON Schema, and its arguments are validated by `invokeTool` (so the
 * client reads toolwire's texts). So the tool is registered with a zod object that
 *
 * - accepts every JSON object and hands it on unchanged (`z.looseObject({})`: unknown keys kept), and
 * - converts to exactly the tool's announced JSON Schema, through zod 4's `_zod.toJSONSchema` hook (present in
 *   zod 4 and in zod 3.25's `zod/v4`, the two the MCP SDK accepts; the test suite checks both), with the
 *   `$schema` of draft 2020-12, the draft toolwire announces (and MCP's default), instead of the draft-07
 *   the MCP SDK asks zod for.
 *
 * @module
 */
import { looseObject } from 'zod/mini';

/** Draft 2020-12's `$schema`. */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** A zod object schema that lets every object through and converts to `jsonSchema` (copied on each call). */
export function announcedSchema(jsonSchema: Readonly<Record<string, unknown>>) {
  const schema = looseObject({});
  const internals = schema._zod as { toJSONSchema?: () => Record<string, unknown> };
  internals.toJSONSchema = () => ({ $schema: DRAFT_2020_12, ...structuredClone(jsonSchema) });
  return schema;
}
