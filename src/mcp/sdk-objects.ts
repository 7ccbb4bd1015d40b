/**
 * What a value given where `toolwire/mcp` expects an object of the MCP SDK is, for a refusal that says what to give
 * instead: the two functions take an `McpServer` and a connected MCP `Client`, which look alike to a new user next to
 * the low-level `Server` (`mcpServer.server`) and each other.
 *
 * @module
 */
import { OptionsError } from '../errors';

type Probe = Record<string, unknown>;

const has = (value: Probe, name: string) => typeof value[name] === 'function';

/** The MCP SDK object `value` looks like, in words, with what to do about it; or what else it is. */
function whatItIs(value: unknown, instead: { server: string; client: string; lowLevel: string }): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  const probe = value as Probe;
  if (has(probe, 'registerTool')) return `an McpServer: ${instead.server}`;
  if (has(probe, 'callTool') && has(probe, 'listTools')) return `an MCP client: ${instead.client}`;
  if (has(probe, 'setRequestHandler')) return `the low-level Server: ${instead.lowLevel}`;
  return 'an object that is neither';
}

/**
 * Refuses a first argument of `registerMcpTools()` that is not an `McpServer`.
 * @throws OptionsError `invalid_mcp_server`, saying what it is and what to give instead.
 */
export function checkMcpServer(value: unknown): void {
  if (typeof value === 'object' && value !== null && has(value as Probe, 'registerTool')) return;
  throw new OptionsError(
    'invalid_mcp_server',
    'registerMcpTools(): the first argument must be an McpServer (from @modelcontextprotocol/sdk/server/mcp.js), ' +
      `got ${whatItIs(value, {
        server: '',
        client: "importMcpTools() takes a client, to use its server's tools here",
        lowLevel: 'make an McpServer, and connect that instead (its .server is the low-level one)',
      })}`,
  );
}

/**
 * Refuses a first argument of `importMcpTools()` that is not an MCP client, or is an MCP SDK `Client` not yet
 * connected (a stand-in with `listTools` and `callTool` passes).
 * @throws OptionsError `invalid_mcp_client`, saying what it is and what to give instead.
 */
export function checkMcpClient(value: unknown): void {
  const start =
    'importMcpTools(): the first argument must be a connected MCP Client (from @modelcontextprotocol/sdk/client/index.js), got';
  const probe = (typeof value === 'object' && value !== null ? value : {}) as Probe;
  if (has(probe, 'listTools') && has(probe, 'callTool')) {
    // The MCP SDK's clients have a `transport` (a getter) that is undefined until connect().
    if ('transport' in probe && probe.transport === undefined)
      throw new OptionsError(
        'invalid_mcp_client',
        `${start} a client that is not connected: await mcpClient.connect(transport) first`,
      );
    return;
  }
  throw new OptionsError(
    'invalid_mcp_client',
    `${start} ${whatItIs(value, {
      server: 'registerMcpTools() serves toolwire tools from one',
      client: '',
      lowLevel: 'importMcpTools() takes the MCP Client connected to it',
    })}`,
  );
}
