/**
 * Compiled with `exactOptionalPropertyTypes: true` by test/tool/exact-optional-types.test.ts (and with the
 * project's options as part of `tsc -p .`): tools of every shape, an AI SDK `tool()` among them, assign to
 * every `tools` option. An AI SDK tool's optional keys are typed `X | undefined`, which that option tells
 * apart from a missing key.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { tool as aiTool, jsonSchema } from 'ai';
import { z } from 'zod';
import { toAiSdkTools } from '../../../src/ai-sdk';
import { Agent, Client, invokeTool, ToolRegistry, tool, toolsOf } from '../../../src/index';
import { registerMcpTools } from '../../../src/mcp/index';

declare const mcpServer: McpServer;
declare const client: Client;
const url = 'ws://127.0.0.1:1';

const w = aiTool({ description: 'w', inputSchema: z.object({ c: z.string() }), execute: async ({ c }) => c });
const j = aiTool({
  description: 'j',
  inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }),
  execute: async ({ q }) => q,
});
// An `execute` returning `any`: the AI SDK types it optional.
const f = aiTool({
  description: 'f',
  inputSchema: z.object({ u: z.string() }),
  execute: async ({ u }) => JSON.parse(u),
});
const made = tool({
  name: 'made',
  description: 'd',
  parameters: z.object({ n: z.number() }),
  execute: (i) => i.n,
});
const plain = { name: 'plain', description: 'd', inputSchema: z.object({ n: z.number() }), execute: () => 1 };

new Agent({ name: 'A', instructions: 'i', tools: { w, j, made, plain } });
new Agent({ name: 'A', instructions: 'i', tools: [{ ...w, name: 'w' }, made, plain] });
new Client({ url, apiKey: 'k', tools: { w, j, f } });
new Client({ url, apiKey: 'k', tools: [{ ...w, name: 'w' }] });
new ToolRegistry({ w, j });
new ToolRegistry([{ ...w, name: 'w' }]);
client.addTool({ ...w, name: 'w' });
client.addTool({ ...f, name: 'f' });
void invokeTool({ ...j, name: 'j' }, { q: 'x' });
toAiSdkTools({ w, j });
registerMcpTools(mcpServer, [{ ...w, name: 'w' }]);
toolsOf({ w, j }, 'bridge()');
new Agent({
  name: 'A',
  instructions: 'i',
  tools: {
    inPlace: {
      description: 'd',
      inputSchema: z.object({ c: z.string() }),
      execute: (input) => input.c.toUpperCase(),
    },
  },
});
