/**
 * An MCP server's tools, reached by the hosted agent through the Client: `importMcpTools` lists the tools of a
 * connected MCP client and gives them to the Client, which runs them for the service over its one socket. The MCP
 * server (a child process over stdio here) is never exposed. Run: npx tsx examples/from-mcp.ts
 */
import { fileURLToPath } from 'node:url';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Agent } from 'toolwire';
import { importMcpTools } from 'toolwire/mcp';
import { answerWithLastOutput, runExample } from './run-example';

const mcp = new McpClient({ name: 'weather-worker', version: '1.0.0' });
await mcp.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'examples/mcp/weather-server.ts'],
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  }),
);

try {
  // `weather.current` becomes `wx_weather_current`: a toolwire name has no dots, and the prefix keeps servers apart.
  const tools = await importMcpTools(mcp, { prefix: 'wx_', timeoutMs: 10_000 });
  console.log(`from MCP: ${tools.map((imported) => imported.name).join(', ')}`);

  await runExample({
    agent: new Agent({ name: 'Weather', instructions: 'Answer with the weather.', tools }),
    input: 'What is the weather in Oslo and Bergen?',
    script: [
      // Refused by the MCP input schema, here, before any MCP request: the model is told why.
      { toolCalls: [{ name: 'wx_weather_current', arguments: { city: 'O' } }] },
      {
        toolCalls: [
          { name: 'wx_weather_current', arguments: { city: 'Bergen' } },
          { name: 'wx_weather_radar', arguments: { city: 'Oslo' } },
        ],
      },
      { toolCalls: [{ name: 'wx_weather_current', arguments: { city: 'Oslo' } }] },
      answerWithLastOutput,
    ],
  });
} finally {
  await mcp.close();
}
