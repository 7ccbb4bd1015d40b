/**
 * `toolwire/mcp`: MCP both ways. {@link importMcpTools} turns a connected MCP client's tools into toolwire tools
 * (an MCP server reached by the hosted agent through the client's one socket); {@link registerMcpTools} serves
 * toolwire tools from an `McpServer` (the same tools in any MCP host). Needs `@modelcontextprotocol/sdk` 1.x
 * (an optional peer dependency of toolwire).
 *
 * @packageDocumentation
 */
// In Node (and in Bun and Deno through the `node` condition) this is the package's Node entry, so that every optional
// part (zod 3, valibot, JSON Schema, `strict: true`, ...) is registered before this subpath defines a tool, whatever
// the program imported first. Elsewhere it is the core, which registers nothing (a bundler drops it).
import 'toolwire';

export {
  contentPartText,
  type ImportMcpToolsOptions,
  importMcpTools,
  type McpImportedTool,
  type McpTool,
  type McpToolSource,
  mcpResultText,
} from './import-tools';
export { type McpRequestExtra, type RegisterMcpToolsOptions, registerMcpTools } from './register-tools';
