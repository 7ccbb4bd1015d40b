/** Shared by the MCP adapter tests: an MCP client linked in memory to a server, closed after the test. */
import { fileURLToPath } from 'node:url';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterTest } from '../support/after-test';

/** Connects a new MCP client to `server` over `InMemoryTransport.createLinkedPair()`. */
export async function linkedClient(server: McpServer): Promise<McpClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new McpClient({ name: 'toolwire-test', version: '1.0.0' });
  await client.connect(clientSide);
  afterTest(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Starts `test/fixtures/mcp/stdio-server.ts` as a child process and connects an MCP client to it over stdio. */
export async function stdioClient(): Promise<McpClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'test/fixtures/mcp/stdio-server.ts'],
    cwd: root,
    stderr: 'pipe',
  });
  const client = new McpClient({ name: 'toolwire-test', version: '1.0.0' });
  await client.connect(transport);
  afterTest(() => client.close());
  return client;
}

/** A deferred promise. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** For `expect.poll` on another process or a busy machine: it polls until the value comes, for up to 10 s. */
export const PATIENT = { timeout: 10_000 } as const;
