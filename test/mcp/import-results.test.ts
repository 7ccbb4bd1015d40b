/**
 * Result shapes the MCP SDK's `callTool` refuses for a tool that declares an `outputSchema` (its structured
 * content checked on an `isError` result, or missing), and the progress of an imported call: each read by
 * toolwire itself, so the model reads the server's text.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { invokeTool, type ProgressUpdate } from 'toolwire';
import { importMcpTools } from 'toolwire/mcp';
import { describe, expect, it } from 'vitest';
import { linkedClient } from './helpers';

const OUTPUT_SCHEMA = {
  type: 'object',
  properties: { tempC: { type: 'number' } },
  required: ['tempC'],
} as const;

/** A server with one tool, `forecast`, declaring `OUTPUT_SCHEMA` and answering `answer` to every call. */
function serverAnswering(answer: CallToolResult, onCall?: (progressToken: unknown) => Promise<void>) {
  const server = new McpServer({ name: 'forecasts', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'forecast',
        description: 'The forecast of a city.',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        outputSchema: OUTPUT_SCHEMA,
      },
    ],
  }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    if (onCall) await onCall(token);
    if (token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, total: 2, message: 'half way' },
      });
    }
    return answer;
  });
  return server;
}

async function forecastWith(answer: CallToolResult) {
  const mcp = await linkedClient(serverAnswering(answer));
  const [forecast] = await importMcpTools(mcp);
  return forecast!;
}

describe('importMcpTools: results of a tool with an outputSchema', () => {
  it('reads an isError result with structured content as the server’s error text', async () => {
    const forecast = await forecastWith({
      content: [{ type: 'text', text: 'no forecast for Atlantis' }],
      structuredContent: { error: 'unknown_city' },
      isError: true,
    });
    expect(await invokeTool(forecast, { city: 'Atlantis' })).toMatchObject({
      status: 'error',
      output: 'Error running forecast: no forecast for Atlantis',
    });
  });

  it('reads the error once when the server already wrote toolwire’s prefix, also under another name', async () => {
    const answer: CallToolResult = {
      content: [{ type: 'text', text: 'Error running forecast: no forecast for Atlantis' }],
      isError: true,
    };
    expect(await invokeTool(await forecastWith(answer), { city: 'Atlantis' })).toMatchObject({
      status: 'error',
      output: 'Error running forecast: no forecast for Atlantis',
    });
    const mcp = await linkedClient(serverAnswering(answer));
    const [renamed] = await importMcpTools(mcp, { rename: (name) => `wx_${name}` });
    expect(await invokeTool(renamed!, { city: 'Atlantis' })).toMatchObject({
      status: 'error',
      output: 'Error running wx_forecast: no forecast for Atlantis',
    });
  });

  it('keeps another tool’s prefix and reads a bare prefix as an error without a message', async () => {
    expect(
      await invokeTool(
        await forecastWith({
          content: [{ type: 'text', text: 'Error running geocode: no such city' }],
          isError: true,
        }),
        { city: 'Atlantis' },
      ),
    ).toMatchObject({
      status: 'error',
      output: 'Error running forecast: Error running geocode: no such city',
    });
    expect(
      await invokeTool(
        await forecastWith({ content: [{ type: 'text', text: 'Error running forecast: ' }], isError: true }),
        { city: 'Atlantis' },
      ),
    ).toMatchObject({
      status: 'error',
      output: 'Error running forecast: the MCP server reported an error without a message',
    });
  });

  it('reads an isError result with structured content only as that JSON', async () => {
    const forecast = await forecastWith({
      content: [],
      structuredContent: { error: 'unknown_city' },
      isError: true,
    });
    expect(await invokeTool(forecast, { city: 'Atlantis' })).toMatchObject({
      status: 'error',
      output: 'Error running forecast: {"error":"unknown_city"}',
    });
  });

  it('reads a result without the structured content it declared as its text', async () => {
    const forecast = await forecastWith({ content: [{ type: 'text', text: '21°C and sunny' }] });
    expect(await invokeTool(forecast, { city: 'Lyon' })).toMatchObject({
      status: 'ok',
      output: '21°C and sunny',
    });
  });

  it('reads a result whose structured content does not match its schema as its text', async () => {
    const forecast = await forecastWith({
      content: [{ type: 'text', text: 'warm' }],
      structuredContent: { tempC: 'warm' },
    });
    expect(await invokeTool(forecast, { city: 'Lyon' })).toMatchObject({ status: 'ok', output: 'warm' });
  });
});

describe('importMcpTools: progress', () => {
  it('tells ctx.progress() each MCP progress notification of the call', async () => {
    const forecast = await forecastWith({ content: [{ type: 'text', text: 'rain' }] });
    const updates: ProgressUpdate[] = [];
    const result = await invokeTool(forecast, { city: 'Brest' }, { onProgress: (u) => updates.push(u) });
    expect(result.output).toBe('rain');
    expect(updates.map(({ progress, total, message }) => ({ progress, total, message }))).toEqual([
      { progress: 1, total: 2, message: 'half way' },
    ]);
  });
});
