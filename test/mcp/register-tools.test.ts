import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { tool as aiTool } from 'ai';
import { OptionsError, type Tool, type ToolContext, ToolDefinitionError, tool } from 'toolwire';
import { importMcpTools, registerMcpTools } from 'toolwire/mcp';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { deferred, linkedClient } from './helpers';

const order = tool({
  name: 'find_order',
  description: 'Finds an order by id.',
  parameters: z.object({ id: z.string().regex(/^o_\d+$/), withItems: z.boolean().optional() }),
  execute: ({ id }, ctx: ToolContext<{ tenant: string } | undefined>) => ({
    id,
    tenant: ctx.context?.tenant ?? null,
  }),
});
const failing = tool({
  name: 'charge',
  description: 'Charges a card.',
  execute: () => {
    throw new Error('card declined');
  },
});
const guarded = tool({
  name: 'delete_user',
  description: 'Deletes a user.',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const,
  needsApproval: true,
  execute: ({ id }) => `deleted ${id}`,
});

function server(): McpServer {
  return new McpServer({ name: 'toolwire-tools', version: '1.0.0' });
}

const texts = (result: object) =>
  ((result as { content?: Array<{ text: string }> }).content ?? []).map((part) => part.text);

describe('registerMcpTools', () => {
  it('lists each tool with its name, description and announced JSON Schema', async () => {
    const mcpServer = server();
    registerMcpTools(mcpServer, [order, failing]);
    const mcp = await linkedClient(mcpServer);
    const { tools } = await mcp.listTools();
    expect(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual([
      {
        name: 'find_order',
        description: 'Finds an order by id.',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          ...order.definition.parameters,
        },
      },
      {
        name: 'charge',
        description: 'Charges a card.',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          ...failing.definition.parameters,
        },
      },
    ]);
  });

  it('answers with the text the model would read', async () => {
    const mcpServer = server();
    registerMcpTools(mcpServer, [order]);
    const mcp = await linkedClient(mcpServer);
    const result = await mcp.callTool({ name: 'find_order', arguments: { id: 'o_1' } });
    expect(result).toEqual({ content: [{ type: 'text', text: '{"id":"o_1","tenant":null}' }] });
  });

  it('takes every shape a client takes: a record with a plain object, an AI SDK tool and a bare function', async () => {
    const mcpServer = server();
    registerMcpTools(mcpServer, {
      double: {
        description: 'Doubles n.',
        inputSchema: z.object({ n: z.number() }),
        execute: async ({ n }) => n * 2,
      },
      shout: aiTool({
        description: 'Shouts.',
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }) => text.toUpperCase(),
      }),
      now: () => 'noon',
    });
    const mcp = await linkedClient(mcpServer);
    expect((await mcp.listTools()).tools.map((listed) => listed.name)).toEqual(['double', 'shout', 'now']);
    expect(texts(await mcp.callTool({ name: 'double', arguments: { n: 21 } }))).toEqual(['42']);
    expect(texts(await mcp.callTool({ name: 'shout', arguments: { text: 'hi' } }))).toEqual(['HI']);
    expect(texts(await mcp.callTool({ name: 'now', arguments: {} }))).toEqual(['noon']);
  });

  it('answers invalid arguments and failures with isError and toolwire’s text', async () => {
    const mcpServer = server();
    registerMcpTools(mcpServer, [order, failing]);
    const mcp = await linkedClient(mcpServer);
    const invalid = await mcp.callTool({ name: 'find_order', arguments: { id: 'x', extra: true } });
    expect(invalid.isError).toBe(true);
    expect(texts(invalid)).toEqual([
      'Invalid arguments for find_order: id: expected a string matching /^o_\\d+$/, received "x"',
    ]);
    const thrown = await mcp.callTool({ name: 'charge', arguments: {} });
    expect(thrown).toEqual({
      content: [{ type: 'text', text: 'Error running charge: card declined' }],
      isError: true,
    });
  });

  it('cancels the call when the MCP request is cancelled', async () => {
    const started = deferred();
    const aborted = deferred<unknown>();
    const slow = tool({
      name: 'slow',
      description: 'Waits for its signal.',
      execute: (_input, ctx) =>
        new Promise<string>(() => {
          ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
          started.resolve();
        }),
    });
    const mcpServer = server();
    registerMcpTools(mcpServer, [slow]);
    const mcp = await linkedClient(mcpServer);
    const controller = new AbortController();
    const call = mcp.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal });
    await started.promise;
    controller.abort('the user left');
    await expect(call).rejects.toThrow();
    // The reason travels in MCP's notifications/cancelled.
    expect(await aborted.promise).toBe('the user left');
  });

  it('gives ctx.context from a value or a function of the MCP request', async () => {
    const mcpServer = server();
    registerMcpTools(mcpServer, [order], {
      context: (extra) => ({ tenant: `session ${extra.sessionId ?? 'none'}` }),
    });
    const mcp = await linkedClient(mcpServer);
    const result = await mcp.callTool({ name: 'find_order', arguments: { id: 'o_2' } });
    expect(texts(result)).toEqual(['{"id":"o_2","tenant":"session none"}']);

    const fixed = server();
    registerMcpTools(fixed, [order], { context: { tenant: 'acme' } });
    const other = await linkedClient(fixed);
    expect(texts(await other.callTool({ name: 'find_order', arguments: { id: 'o_3' } }))).toEqual([
      '{"id":"o_3","tenant":"acme"}',
    ]);
  });

  it('fails the call without running it when the context function throws', async () => {
    const mcpServer = server();
    registerMcpTools(mcpServer, [order], {
      context: () => {
        throw new Error('no tenant for this token');
      },
    });
    const mcp = await linkedClient(mcpServer);
    expect(await mcp.callTool({ name: 'find_order', arguments: { id: 'o_4' } })).toEqual({
      content: [
        {
          type: 'text',
          text: 'Error running find_order: the MCP server could not provide its context (no tenant for this token)',
        },
      ],
      isError: true,
    });
  });

  it('rejects calls needing approval without an approver, and asks approve when given', async () => {
    const refused = server();
    registerMcpTools(refused, [guarded]);
    const mcp = await linkedClient(refused);
    expect(await mcp.callTool({ name: 'delete_user', arguments: { id: 'u_1' } })).toEqual({
      content: [
        {
          type: 'text',
          text: "delete_user was not run: it needs a human's approval, and no approver is available.",
        },
      ],
      isError: true,
    });

    const asked: unknown[] = [];
    const approving = server();
    registerMcpTools(approving, [guarded], {
      approve: (request) => {
        asked.push(request.input);
        return request.input !== null && (request.input as { id: string }).id === 'u_2';
      },
    });
    const other = await linkedClient(approving);
    expect(texts(await other.callTool({ name: 'delete_user', arguments: { id: 'u_2' } }))).toEqual([
      'deleted u_2',
    ]);
    const declined = await other.callTool({ name: 'delete_user', arguments: { id: 'u_3' } });
    expect(declined.isError).toBe(true);
    expect(texts(declined)).toEqual(['delete_user was not run: the user declined.']);
    expect(asked).toEqual([{ id: 'u_2' }, { id: 'u_3' }]);
  });

  it('round-trips: tools served by an McpServer and imported back announce the same definition', async () => {
    const mcpServer = server();
    registerMcpTools(mcpServer, [order, failing, guarded]);
    const imported = await importMcpTools(await linkedClient(mcpServer));
    expect(imported.map((back) => back.definition)).toEqual(
      [order, failing, guarded].map((source) => ({ ...source.definition, needsApproval: false })),
    );
  });

  it('refuses what is not a tool, two tools of one name, and a name the server already has', () => {
    const mcpServer = server();
    expect(() => registerMcpTools(mcpServer, [{ name: 'x' } as unknown as Tool])).toThrow(
      new ToolDefinitionError(
        'not_a_tool',
        'registerMcpTools(): tools[0] must be a tool (made with tool(), or an object with description and execute), got an object named "x"',
      ),
    );
    expect(() =>
      registerMcpTools(mcpServer, [
        order,
        tool({ name: 'find_order', description: 'Other.', execute: () => '' }),
      ]),
    ).toThrow(
      new ToolDefinitionError(
        'duplicate_tool',
        'registerMcpTools(): two different tools are named "find_order"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
      ),
    );
    expect(() => registerMcpTools(mcpServer, order as never)).toThrow(
      new ToolDefinitionError(
        'invalid_tools',
        'registerMcpTools(): tools must be an array of tools or a record of tools keyed by name, got a single tool (give [tool] or { name: tool })',
      ),
    );
    mcpServer.registerTool('charge', { description: 'theirs' }, () => ({ content: [] }));
    expect(() => registerMcpTools(mcpServer, [order, failing])).toThrow(
      new ToolDefinitionError(
        'duplicate_tool',
        'registerMcpTools(): the MCP server already has a tool named "charge" (remove it first, or rename one of them)',
      ),
    );
    // All or nothing: find_order, registered before the refusal, was removed again.
    expect(registerMcpTools(mcpServer, [order])).toHaveLength(1);
  });

  it("refuses a name the server has already by the server's tools, whatever words its registerTool uses", () => {
    const mcpServer = server();
    mcpServer.registerTool('charge', { description: 'theirs' }, () => ({ content: [] }));
    const register = mcpServer.registerTool.bind(mcpServer) as (...args: unknown[]) => unknown;
    const registerTool = vi.fn((name: unknown, ...rest: unknown[]) => {
      if (name === 'charge') throw new Error('Werkzeug charge ist bereits registriert');
      return register(name, ...rest);
    });
    mcpServer.registerTool = registerTool as unknown as typeof mcpServer.registerTool;
    expect(() => registerMcpTools(mcpServer, [order, failing])).toThrow(
      new ToolDefinitionError(
        'duplicate_tool',
        'registerMcpTools(): the MCP server already has a tool named "charge" (remove it first, or rename one of them)',
      ),
    );
    // Refused before anything is registered: the connected clients are told of no change.
    expect(registerTool).not.toHaveBeenCalled();
  });

  it("refuses a name the server's registry reads as taken by Object's own members, saying why", () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      const mcpServer = server();
      const named = tool({ name, description: 'A tool.', execute: () => '' });
      expect(() => registerMcpTools(mcpServer, [order, named])).toThrow(
        new ToolDefinitionError(
          'duplicate_tool',
          `registerMcpTools(): the MCP server cannot take a tool named ${JSON.stringify(name)}: its registry of tools is a plain object, where ${name} is taken by every object (rename the tool)`,
        ),
      );
      // Refused before anything is registered.
      expect(registerMcpTools(mcpServer, [order])).toHaveLength(1);
    }
  });

  it('refuses a first argument that is not an McpServer, saying what it is and what to give', () => {
    const low = new McpServer({ name: 'low', version: '1.0.0' }).server;
    expect(() => registerMcpTools(low as never, [order])).toThrow(
      new OptionsError(
        'invalid_mcp_server',
        'registerMcpTools(): the first argument must be an McpServer (from @modelcontextprotocol/sdk/server/mcp.js), ' +
          'got the low-level Server: make an McpServer, and connect that instead (its .server is the low-level one)',
      ),
    );
    expect(() => registerMcpTools(new McpClient({ name: 'c', version: '1' }) as never, [order])).toThrow(
      new OptionsError(
        'invalid_mcp_server',
        'registerMcpTools(): the first argument must be an McpServer (from @modelcontextprotocol/sdk/server/mcp.js), ' +
          "got an MCP client: importMcpTools() takes a client, to use its server's tools here",
      ),
    );
    expect(() => registerMcpTools(undefined as never, [order])).toThrow(
      new OptionsError(
        'invalid_mcp_server',
        'registerMcpTools(): the first argument must be an McpServer (from @modelcontextprotocol/sdk/server/mcp.js), got undefined',
      ),
    );
  });

  it('registers after connect() on a server with tools, and says why not on one connected without', async () => {
    const serving = server();
    registerMcpTools(serving, [order]);
    const mcp = await linkedClient(serving);
    registerMcpTools(serving, [failing]);
    expect((await mcp.listTools()).tools.map((listed) => listed.name)).toEqual(['find_order', 'charge']);

    const bare = server();
    await linkedClient(bare);
    expect(() => registerMcpTools(bare, [order])).toThrow(
      new OptionsError(
        'invalid_mcp_server',
        'registerMcpTools(): the McpServer is connected and was not offering tools when it connected (the MCP ' +
          'SDK cannot add the tools capability then): register the tools before mcpServer.connect(), or make the ' +
          'McpServer with capabilities: { tools: { listChanged: true } }',
      ),
    );
  });

  it('registers after connect() where the MCP SDK does not let its capabilities be read', async () => {
    const serving = server();
    registerMcpTools(serving, [order]);
    const mcp = await linkedClient(serving);
    // getCapabilities() is not public in the SDK's types: an SDK without it must not refuse every server.
    Object.defineProperty(serving.server, 'getCapabilities', { value: undefined });
    registerMcpTools(serving, [failing]);
    expect((await mcp.listTools()).tools.map((listed) => listed.name)).toEqual(['find_order', 'charge']);
  });

  it('checks its options', () => {
    expect(() => registerMcpTools(server(), [order], { contxt: {} } as never)).toThrow(
      new OptionsError(
        'unknown_option',
        'registerMcpTools(): unknown option "contxt" (did you mean "context"?)',
      ),
    );
    expect(() => registerMcpTools(server(), [order], { approve: true } as never)).toThrow(
      new OptionsError('invalid_option', 'registerMcpTools(): approve must be a function, got true'),
    );
    expect(() => registerMcpTools(server(), [order], null as never)).toThrow(
      new OptionsError('invalid_options', 'registerMcpTools(): options must be an object, got null'),
    );
  });
});
