import { Client, type Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  Agent,
  invokeTool,
  OptionsError,
  ProtocolError,
  ToolDefinitionError,
  Client as ToolwireClient,
} from 'toolwire';
import { importMcpTools, type McpTool, type McpToolSource } from 'toolwire/mcp';
import { describe, expect, it, vi } from 'vitest';
import { fixtureMcpServer } from '../fixtures/mcp/server';
import { linkedClient, PATIENT } from './helpers';

const byName = async (client: McpClient, options?: Parameters<typeof importMcpTools>[1]) =>
  new Map((await importMcpTools(client, options)).map((imported) => [imported.name, imported]));

/** A fake MCP client serving pages of tools; `callTool` answers with the tool's name. */
function pagedSource(pages: McpTool[][], cursors: Array<string | undefined>): McpToolSource {
  return {
    listTools: vi.fn(async (params?: { cursor?: string }) => {
      const index = params?.cursor === undefined ? 0 : Number(params.cursor.slice(1));
      return { tools: pages[index] ?? [], nextCursor: cursors[index] };
    }),
    callTool: vi.fn(async ({ name }: { name: string }) => ({ content: [{ type: 'text', text: name }] })),
  } as unknown as McpToolSource;
}

const plain = (name: string, inputSchema: McpTool['inputSchema'] = { type: 'object' }): McpTool => ({
  name,
  description: `The ${name} tool.`,
  inputSchema,
});

describe('importMcpTools', () => {
  it('imports every tool: names mapped, descriptions carried over, the MCP input schema announced', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const { tools: listed } = await mcp.listTools();
    const tools = await importMcpTools(mcp);
    expect(tools.map((imported) => imported.name)).toEqual([
      'weather_get',
      'disk_write',
      'chart',
      'wait',
      'wait_status',
    ]);
    const weather = tools[0]!;
    expect(weather.description).toBe('Current weather for a city.');
    const { $schema: _dialect, ...announced } = listed[0]!.inputSchema;
    expect(weather.definition).toEqual({
      name: 'weather_get',
      description: 'Current weather for a city.',
      parameters: announced,
      needsApproval: false,
      // MCP's readOnlyHint / idempotentHint are the server's hints, not a promise: an imported tool stays external.
      sideEffect: 'external',
    });
    // No description: the title; neither: a sentence naming the tool.
    expect(tools[2]!.description).toBe('Chart of the week');
  });

  it('calls the MCP tool by its MCP name and answers with its text', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const weather = (await byName(mcp)).get('weather_get')!;
    const result = await invokeTool(weather, '{"city":"Oslo","unit":"F"}');
    expect(result).toMatchObject({ status: 'ok', output: 'Sunny in Oslo, 68°F' });
  });

  it('validates the arguments locally and never calls the MCP server with invalid ones', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const weather = (await byName(mcp)).get('weather_get')!;
    const callTool = vi.spyOn(mcp, 'callTool');
    const result = await invokeTool(weather, { city: 'X', unit: 'K' });
    expect(result.status).toBe('invalid_arguments');
    expect(result.output).toBe(
      'Invalid arguments for weather_get: city: expected a string of at least 2 characters, received a string of 1 character; unit: expected one of "C", "F", received "K"',
    );
    expect(callTool).not.toHaveBeenCalled();
  });

  it('turns an isError result into an error result whose text the model reads', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const diskWrite = (await byName(mcp)).get('disk_write')!;
    expect(await invokeTool(diskWrite, { path: '/tmp/a' })).toMatchObject({
      status: 'error',
      output: 'Error running disk_write: cannot write /tmp/a: the disk is full',
    });
  });

  it('reads text parts and embedded text verbatim, and content()’s note for an image', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const chart = (await byName(mcp)).get('chart')!;
    expect((await invokeTool(chart, {})).output).toBe(
      'Rain on Tuesday.\n[image: image/png, 68 bytes]\nMemo: bring a coat.',
    );
  });

  it('cancels the MCP request when the call is cancelled', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const tools = await byName(mcp);
    const status = async () => (await invokeTool(tools.get('wait_status')!, {})).output;
    const controller = new AbortController();
    const waiting = invokeTool(tools.get('wait')!, {}, { signal: controller.signal });
    await expect.poll(status, PATIENT).toBe('{"started":1,"cancelled":0}');
    controller.abort();
    expect(await waiting).toMatchObject({
      status: 'cancelled',
      output: 'Error running wait: the call was cancelled',
    });
    await expect.poll(status, PATIENT).toBe('{"started":1,"cancelled":1}');
  });

  it('gives every tool timeoutMs: past it the call times out and the MCP request is cancelled', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const tools = await byName(mcp, { timeoutMs: 20 });
    expect(await invokeTool(tools.get('wait')!, {})).toMatchObject({
      status: 'timeout',
      output: 'Error running wait: timed out after 20ms',
    });
    await expect
      .poll(async () => (await invokeTool(tools.get('wait_status')!, {})).output, PATIENT)
      .toBe('{"started":1,"cancelled":1}');
  });

  it('says so when the MCP connection is gone', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const weather = (await byName(mcp)).get('weather_get')!;
    await mcp.close();
    expect(await invokeTool(weather, { city: 'Oslo' })).toMatchObject({
      status: 'error',
      output: 'Error running weather_get: Not connected',
    });
  });

  it('prefixes, filters and renames', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const prefixed = await importMcpTools(mcp, {
      prefix: 'wx_',
      filter: (mcpTool) => !mcpTool.name.startsWith('wait'),
    });
    expect(prefixed.map((imported) => imported.name)).toEqual([
      'wx_weather_get',
      'wx_disk_write',
      'wx_chart',
    ]);
    const renamed = await importMcpTools(mcp, {
      rename: (name) => name.toUpperCase().replace('.', '-'),
      filter: (mcpTool) => mcpTool.name === 'weather.get',
    });
    expect(renamed.map((imported) => imported.name)).toEqual(['WEATHER-GET']);
  });

  it('announces needsApproval for all tools or per MCP tool', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const tools = await importMcpTools(mcp, { needsApproval: (mcpTool) => mcpTool.name === 'disk_write' });
    expect(tools.filter((imported) => imported.definition.needsApproval).map((t) => t.name)).toEqual([
      'disk_write',
    ]);
    const all = await importMcpTools(mcp, { needsApproval: true });
    expect(all.every((imported) => imported.definition.needsApproval)).toBe(true);
  });

  it('follows nextCursor through every page of tools/list', async () => {
    const source = pagedSource(
      [[plain('a')], [plain('b'), plain('c')], [plain('d')]],
      ['p1', 'p2', undefined],
    );
    const tools = await importMcpTools(source);
    expect(tools.map((imported) => imported.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(source.listTools).toHaveBeenCalledTimes(3);
    expect(vi.mocked(source.listTools).mock.calls.map(([params]) => params)).toEqual([
      undefined,
      { cursor: 'p1' },
      { cursor: 'p2' },
    ]);
  });

  it('refuses a server that repeats a cursor', async () => {
    const source = pagedSource([[plain('a')], [plain('b')]], ['p1', 'p1']);
    const error = await importMcpTools(source).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({
      code: 'mcp_cursor_loop',
      message: 'importMcpTools(): the MCP server answered tools/list with the cursor "p1" twice',
    });
  });

  it('refuses a name that cannot be made valid, and two tools given one name', async () => {
    const long = pagedSource([[plain('x'.repeat(65))]], [undefined]);
    await expect(importMcpTools(long)).rejects.toThrow(
      new ToolDefinitionError(
        'invalid_name',
        `importMcpTools(): the MCP tool "${'x'.repeat(65)}" would be named "${'x'.repeat(65)}", which is not 1 to 64 letters, digits, _ or -; give a rename option, or leave it out with filter`,
      ),
    );
    const clash = pagedSource([[plain('files.read'), plain('files_read')]], [undefined]);
    await expect(importMcpTools(clash)).rejects.toMatchObject({
      code: 'duplicate_tool',
      message:
        'importMcpTools(): the MCP tools "files.read" and "files_read" would both be named "files_read"; give a rename option, or leave one out with filter',
    });
  });

  it('says to give each server its own prefix when two imports have a tool of one name', async () => {
    const files = await importMcpTools(pagedSource([[plain('read_file')]], [undefined]));
    const repo = await importMcpTools(pagedSource([[plain('read_file')]], [undefined]));
    const advice =
      "importMcpTools() names each tool after its MCP tool: give each MCP server's importMcpTools() call its own prefix option (e.g. { prefix: 'files_' })";
    expect(
      () => new ToolwireClient({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [...files, ...repo] }),
    ).toThrow(
      new ToolDefinitionError(
        'duplicate_tool',
        `new Client(options): two different tools are named "read_file"; ${advice}, or rename one of them`,
      ),
    );
    expect(() => new Agent({ name: 'a', tools: [...files, ...repo] })).toThrow(
      `Agent "a": two different tools are named "read_file"; ${advice}, or rename one of them`,
    );
    const client = new ToolwireClient({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: files });
    expect(() => client.addTool(repo[0]!)).toThrow(
      `client.addTool(): a different tool named "read_file" is already registered; ${advice}, or to replace it, call client.removeTool("read_file") first`,
    );
    const prefixed = await importMcpTools(pagedSource([[plain('read_file')]], [undefined]), {
      prefix: 'repo_',
    });
    expect(
      () => new ToolwireClient({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [...files, ...prefixed] }),
    ).not.toThrow();
  });

  it('refuses an input schema toolwire cannot use, naming the MCP tool and the keyword', async () => {
    const source = pagedSource(
      [[plain('bad', { type: 'object', properties: { a: 'string' } as unknown as Record<string, object> })]],
      [undefined],
    );
    await expect(importMcpTools(source)).rejects.toMatchObject({
      name: 'ToolDefinitionError',
      code: 'invalid_parameters',
      message:
        'importMcpTools(): the MCP tool "bad": tool "bad": parameters is not a valid JSON Schema: #/properties/a: expected a schema (an object or a boolean), got "string"',
    });
  });

  it('checks its options', async () => {
    const source = pagedSource([[plain('a')]], [undefined]);
    const bad = (options: object) => importMcpTools(source, options as never);
    await expect(bad({ prefx: 'a_' })).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'unknown_option',
      message: 'importMcpTools(): unknown option "prefx" (did you mean "prefix"?)',
    });
    await expect(bad({ prefix: 'a.' })).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_option',
      message: 'importMcpTools(): prefix must be letters, digits, _ or -, got "a."',
    });
    await expect(bad({ timeoutMs: 0 })).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_option',
      message:
        'importMcpTools(): timeoutMs must be a positive integer of milliseconds up to 2147483647 (the longest timer), got 0',
    });
    await expect(bad({ timeout: 5 })).rejects.toMatchObject({
      message: 'importMcpTools(): unknown option "timeout" (did you mean "timeoutMs"?)',
    });
    await expect(bad({ filter: 'a' })).rejects.toMatchObject({ code: 'invalid_option' });
    await expect(bad({ needsApproval: 'yes' })).rejects.toMatchObject({ code: 'invalid_option' });
    expect(source.listTools).not.toHaveBeenCalled();
  });

  it('refuses a first argument that is not a connected MCP client, saying what to give', async () => {
    const start =
      'importMcpTools(): the first argument must be a connected MCP Client (from @modelcontextprotocol/sdk/client/index.js), got';
    await expect(importMcpTools(new McpServer({ name: 's', version: '1' }) as never)).rejects.toThrow(
      new OptionsError(
        'invalid_mcp_client',
        `${start} an McpServer: registerMcpTools() serves toolwire tools from one`,
      ),
    );
    await expect(importMcpTools(undefined as never)).rejects.toThrow(
      new OptionsError('invalid_mcp_client', `${start} undefined`),
    );
    await expect(importMcpTools(new Client({ name: 'c', version: '1' }))).rejects.toThrow(
      new OptionsError(
        'invalid_mcp_client',
        `${start} a client that is not connected: await mcpClient.connect(transport) first`,
      ),
    );
  });
});
