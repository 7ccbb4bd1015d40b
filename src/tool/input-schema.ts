/**
 * `inputSchemaOf()`: a tool's input JSON Schema in its ordinary form, for an adapter to a protocol that has no
 * strict mode (MCP).
 *
 * @module
 */
import { type JsonSchemaObject, type Tool, toolInternals } from './tool';

/**
 * The JSON Schema of `tool`'s input as its own validation reads it (2020-12 vocabulary, no `$schema`): for a
 * tool without `strict`, a copy of `tool.definition.parameters`; for a `strict: true` tool, the schema before the
 * strict rewrite (optional properties optional rather than required and nullable, open objects open), since
 * `definition.parameters` is then the strict form, meant only for a model in strict mode. A host that validates
 * arguments against the announced schema itself (an MCP client: MCP has no strict mode) must be given this form,
 * or it refuses a call the tool accepts. `registerMcpTools()` (toolwire/mcp) announces it.
 *
 * @returns a fresh copy each call (changing it changes nothing in the tool); for a tool made by another copy of
 *   toolwire that does not keep this schema, a copy of `tool.definition.parameters`.
 */
export function inputSchemaOf(tool: Tool): JsonSchemaObject {
  const kept = toolInternals(tool)?.inputSchema;
  return structuredClone(kept ?? tool.definition.parameters) as JsonSchemaObject;
}
