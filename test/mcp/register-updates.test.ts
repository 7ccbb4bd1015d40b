/**
 * What crosses from a toolwire tool served by `registerMcpTools` to an MCP client besides the result:
 * `ctx.progress()` as progress notifications (when the client sent a progress token), `ctx.askQuestion()` as an
 * elicitation (when the client declared the capability).
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { type ToolContext, tool } from 'toolwire';
import { registerMcpTools } from 'toolwire/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linkedClient } from './helpers';

const exportTables = tool({
  name: 'export_tables',
  description: 'Exports the tables.',
  execute: (_input: unknown, ctx) => {
    ctx.progress({ progress: 1, total: 2, message: 'exported users' });
    ctx.progress({ progress: 2, total: 2 });
    return 'exported 2 tables';
  },
});

const ship = tool({
  name: 'ship',
  description: 'Ships the order from a warehouse.',
  execute: async (_input: unknown, ctx) => {
    try {
      const warehouse = await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] });
      return `shipped from ${warehouse}`;
    } catch (error) {
      return `not shipped: ${(error as Error).name} ${(error as { code?: string }).code}`;
    }
  },
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An MCP client that declares elicitation and answers every elicitation with `answer`. */
async function elicitingClient(server: McpServer, answer: (message: string) => Record<string, unknown>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new McpClient(
    { name: 'asker', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message) as never);
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

describe('registerMcpTools: progress', () => {
  it('sends each ctx.progress() as a progress notification when the client sent a progress token', async () => {
    const server = new McpServer({ name: 'tables', version: '1.0.0' });
    registerMcpTools(server, [exportTables]);
    const mcp = await linkedClient(server);
    const seen: Progress[] = [];
    const result = await mcp.callTool({ name: 'export_tables', arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'exported 2 tables' }]);
    expect(seen).toEqual([
      { progress: 1, total: 2, message: 'exported users' },
      { progress: 2, total: 2 },
    ]);
  });

  it('sends none without a progress token', async () => {
    const server = new McpServer({ name: 'tables', version: '1.0.0' });
    registerMcpTools(server, [exportTables]);
    const mcp = await linkedClient(server);
    const notices: unknown[] = [];
    mcp.fallbackNotificationHandler = async (notification) => {
      notices.push(notification);
    };
    const result = await mcp.callTool({ name: 'export_tables', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'exported 2 tables' }]);
    expect(notices).toEqual([]);
  });
});

describe('registerMcpTools: questions', () => {
  it('asks ctx.askQuestion() as an elicitation when the client takes them', async () => {
    const server = new McpServer({ name: 'shop', version: '1.0.0' });
    registerMcpTools(server, [ship]);
    const asked: string[] = [];
    const mcp = await elicitingClient(server, (message) => {
      asked.push(message);
      return { action: 'accept', content: { answer: 'Lyon' } };
    });
    const result = await mcp.callTool({ name: 'ship', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'shipped from Lyon' }]);
    expect(asked).toEqual(['Which warehouse?']);
  });

  it('declines the question when the user declines the elicitation', async () => {
    const server = new McpServer({ name: 'shop', version: '1.0.0' });
    registerMcpTools(server, [ship]);
    const mcp = await elicitingClient(server, () => ({ action: 'decline' }));
    const result = await mcp.callTool({ name: 'ship', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'not shipped: QuestionError declined' }]);
  });

  /** A tool that asks `ask` and answers with what it got, or the QuestionError's code and message. */
  const asking = (ask: (ctx: ToolContext) => Promise<unknown>) =>
    tool({
      name: 'ask',
      description: 'Asks.',
      execute: async (_input: unknown, ctx) => {
        try {
          return `got ${JSON.stringify(await ask(ctx))}`;
        } catch (error) {
          return `${(error as Error).name} ${(error as { code?: string }).code}: ${(error as Error).message}`;
        }
      },
    });

  it('refuses a question whose schema nests an object, naming the property, before asking anything', async () => {
    const server = new McpServer({ name: 'shop', version: '1.0.0' });
    const address = z.object({ name: z.string(), addr: z.object({ city: z.string() }) });
    registerMcpTools(server, [asking((ctx) => ctx.askQuestion('Address?', { schema: address }))]);
    const asked: string[] = [];
    const mcp = await elicitingClient(server, (message) => {
      asked.push(message);
      return { action: 'accept', content: { name: 'Ada', addr: 'Lyon' } };
    });
    const result = await mcp.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'QuestionError unsupported: an MCP form elicitation takes flat properties of type string, number, integer or boolean (or a list of choices), and "addr" is an object',
      },
    ]);
    expect(asked).toEqual([]);
  });

  it('reports a wrapped answer that fails its schema at answer, not (root)', async () => {
    const server = new McpServer({ name: 'shop', version: '1.0.0' });
    registerMcpTools(server, [asking((ctx) => ctx.askQuestion('How many?', { schema: z.number().int() }))]);
    const mcp = await elicitingClient(server, () => ({ action: 'accept', content: { answer: 2.5 } }));
    const result = await mcp.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'QuestionError invalid_answer: the answer does not match the schema: answer: Invalid input: expected int, received number',
      },
    ]);
  });

  it('rejects the question unsupported when the client takes no elicitation', async () => {
    const server = new McpServer({ name: 'shop', version: '1.0.0' });
    registerMcpTools(server, [ship]);
    const mcp = await linkedClient(server);
    const result = await mcp.callTool({ name: 'ship', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'not shipped: QuestionError unsupported' }]);
  });
});
