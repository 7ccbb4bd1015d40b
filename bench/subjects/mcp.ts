/**
 * Subject (4), a peer: an MCP server (TypeScript SDK) over Streamable HTTP with the same `add` tool and zod
 * schema. In MCP the tool lives in the server and the host calls it, so the process that owns the tool (the one
 * measured) is the server; the driver is an MCP `Client`. One stateful session; HTTP/1.1 keep-alive.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { argument, exitWithParent, Holds, runHarness } from './harness';

exitWithParent();
const holds = new Holds();
const server = new McpServer({ name: 'bench', version: '0.0.0' });
server.registerTool(
  'add',
  { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
  ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
);
server.registerTool('hold', { description: 'Waits until the benchmark releases it.' }, async () => {
  await holds.wait();
  return { content: [{ type: 'text', text: 'released' }] };
});
const transport = new StreamableHTTPServerTransport({
  sessionIdGenerator: () => randomUUID(),
  enableJsonResponse: argument('sse') === undefined,
});
await server.connect(transport);
const http = createServer((req, res) => void transport.handleRequest(req, res));
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const { port } = http.address() as AddressInfo;
runHarness(
  holds,
  async () => {
    await server.close();
    http.closeAllConnections();
    http.close();
  },
  { url: `http://127.0.0.1:${port}/mcp` },
);
