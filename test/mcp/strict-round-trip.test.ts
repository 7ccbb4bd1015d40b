/**
 * A `strict: true` tool served over MCP (which has no strict mode) is listed with its ordinary input schema, so an
 * MCP client that validates against the listing (toolwire's importMcpTools does) accepts what the tool accepts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { inputSchemaOf, invokeTool, tool } from 'toolwire';
import { importMcpTools, registerMcpTools } from 'toolwire/mcp';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linkedClient } from './helpers';

const S = z.object({ n: z.number(), o: z.string().optional() });
const strictTool = tool({
  name: 'rec_oa',
  description: 'Echoes its input.',
  parameters: S,
  strict: true,
  execute: (input) => `got ${JSON.stringify(input)}`,
});

describe('registerMcpTools with a strict tool', () => {
  it('lists the ordinary schema: the optional property stays optional, without null', async () => {
    const mcpServer = new McpServer({ name: 's', version: '1.0.0' });
    registerMcpTools(mcpServer, [strictTool]);
    const { tools } = await (await linkedClient(mcpServer)).listTools();
    const listed = tools[0]?.inputSchema as Record<string, unknown>;
    expect(listed.required).toEqual(['n']);
    expect(listed.properties).toMatchObject({ o: { type: 'string' } });
    // The tool's own definition keeps the strict form, for a model in strict mode.
    expect(strictTool.definition.parameters.required).toEqual(['n', 'o']);
    expect(inputSchemaOf(strictTool).required).toEqual(['n']);
  });

  it.each([
    ['absent', '{"n":1}', 'got {"n":1}'],
    ['present', '{"n":1,"o":"x"}', 'got {"n":1,"o":"x"}'],
  ])('round trip through importMcpTools: the optional field %s', async (_, args, output) => {
    const mcpServer = new McpServer({ name: 's', version: '1.0.0' });
    registerMcpTools(mcpServer, [strictTool]);
    const [imported] = await importMcpTools(await linkedClient(mcpServer), { prefix: 'm_' });
    const result = await invokeTool(imported!, args);
    expect({ status: result.status, output: result.output }).toEqual({ status: 'ok', output });
  });

  it('a wrong type is still refused on the importing side', async () => {
    const mcpServer = new McpServer({ name: 's', version: '1.0.0' });
    registerMcpTools(mcpServer, [strictTool]);
    const [imported] = await importMcpTools(await linkedClient(mcpServer));
    const result = await invokeTool(imported!, '{"n":1,"o":2}');
    expect(result.status).toBe('invalid_arguments');
  });
});

describe('inputSchemaOf', () => {
  it('is a copy of definition.parameters for a tool without strict', () => {
    const plain = tool({ name: 'p', description: 'd', parameters: S, execute: () => 'ok' });
    const schema = inputSchemaOf(plain);
    expect(schema).toEqual(plain.definition.parameters);
    expect(schema).not.toBe(plain.definition.parameters);
    (schema as Record<string, unknown>).extra = 1;
    expect(inputSchemaOf(plain)).not.toHaveProperty('extra');
  });
});
