/**
 * `toolwire/mcp`: MCP both ways. {@link importMcpTools} turns a connected MCP client's tools into toolwire tools
 * (an MCP server reached by the hosted agent through the client's one socket); {@link registerMcpTools} serves
 * toolwire tools from an `McpServer` (the same tools in any MCP host). Needs `@modelcontextprotocol/sdk` 1.x
 * (an optional peer dependency of toolwire).
 *
 * @packageDocumentation
 */
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
