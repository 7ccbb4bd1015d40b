/**
 * Content parts across MCP, both ways, with the real MCP SDK in memory: an imported tool gives toolwire the
 * images, audio and binary resources of its MCP result as `content()` (its output reading each as content()'s
 * note), and a toolwire tool served with registerMcpTools answers its `content()` as MCP content parts.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { content, invokeTool, tool } from 'toolwire';
import { toAiSdkTools } from 'toolwire/ai-sdk';
import { importMcpTools, mcpResultText, registerMcpTools } from 'toolwire/mcp';
import { describe, expect, it } from 'vitest';
import { PNG_BASE64 } from '../fixtures/mcp/server';
import { linkedClient } from './helpers';

/** A server with one tool, `shot`, answering `answer` to every call (the MCP SDK's low-level handlers). */
async function importedAnswering(answer: CallToolResult) {
  const server = new McpServer({ name: 'screens', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'shot', description: 'A screenshot.', inputSchema: { type: 'object' } }],
  }));
  server.server.setRequestHandler(CallToolRequestSchema, () => answer);
  const [shot] = await importMcpTools(await linkedClient(server));
  return shot!;
}

const image = (data: string, mimeType: string) => ({ type: 'image' as const, data, mimeType });

describe('importMcpTools: content parts', () => {
  it('gives images, audio and binary resources as content parts, each read in the output as content()’s note', async () => {
    const answer: CallToolResult = {
      content: [
        { type: 'text', text: 'The login page.' },
        image(PNG_BASE64, 'image/png'),
        image('PHN2Zy8+', 'image/svg+xml'),
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'file:///reports/q3%20sales.pdf', mimeType: 'application/pdf', blob: 'JVBERg==' },
        },
        { type: 'resource', resource: { uri: 'memo://raw', blob: 'AAE=' } },
        { type: 'resource', resource: { uri: 'memo://week', mimeType: 'text/plain', text: 'Memo.' } },
        { type: 'resource_link', uri: 'file:///r/a.pdf', name: 'a.pdf' },
      ],
    };
    const result = await invokeTool(await importedAnswering(answer), {});
    expect(result.status).toBe('ok');
    expect(result.output).toBe(
      'The login page.\n[image: image/png, 68 bytes]\n[file: image/svg+xml, 6 bytes]\n' +
        '[file: audio/wav, 4 bytes]\n[file q3 sales.pdf: application/pdf, 4 bytes]\n' +
        '[file: application/octet-stream, 2 bytes]\nMemo.\n[resource link: file:///r/a.pdf (a.pdf)]',
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'The login page.' },
      { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
      { type: 'file', data: 'PHN2Zy8+', mediaType: 'image/svg+xml' },
      { type: 'file', data: 'UklGRg==', mediaType: 'audio/wav' },
      { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf', filename: 'q3 sales.pdf' },
      { type: 'file', data: 'AAE=', mediaType: 'application/octet-stream' },
      { type: 'text', text: 'Memo.\n[resource link: file:///r/a.pdf (a.pdf)]' },
    ]);
  });

  it('answers a result of text alone with its text, as before: no content', async () => {
    const answer: CallToolResult = {
      content: [
        { type: 'text', text: 'one' },
        { type: 'resource', resource: { uri: 'memo://1', text: 'two' } },
      ],
      structuredContent: { n: 1 },
    };
    const result = await invokeTool(await importedAnswering(answer), {});
    expect(result).toMatchObject({ status: 'ok', output: 'one\ntwo', value: 'one\ntwo' });
    expect(result.content).toBeUndefined();
  });

  it('keeps the note for a part whose media type is not one, and takes base64 as MCP’s own check does', async () => {
    const answer: CallToolResult = {
      content: [
        image('AAAA', 'png'),
        image('AAAA', 'IMAGE/PNG'),
        image('AAE', 'image/gif'),
        image('AA\nAA', 'image/webp'),
      ],
    };
    const result = await invokeTool(await importedAnswering(answer), {});
    expect(result.output).toBe(
      '[image omitted: png, 3 bytes]\n[image: image/png, 3 bytes]\n[image: image/gif, 2 bytes]\n' +
        '[image: image/webp, 3 bytes]',
    );
    expect(result.content).toEqual([
      { type: 'text', text: '[image omitted: png, 3 bytes]' },
      { type: 'image', data: 'AAAA', mediaType: 'image/png' },
      { type: 'image', data: 'AAE=', mediaType: 'image/gif' },
      { type: 'image', data: 'AAAA', mediaType: 'image/webp' },
    ]);
  });

  it('keeps the note for data that is not base64 (from a source the MCP SDK does not check), never failing', async () => {
    const answer = {
      content: [
        image('not base64!', 'image/png'),
        { type: 'resource', resource: { uri: 'x:/a', blob: 'A' } },
      ],
    };
    const source = {
      listTools: async () => ({ tools: [{ name: 'shot', inputSchema: { type: 'object' as const } }] }),
      callTool: async () => answer,
    };
    const [shot] = await importMcpTools(source as never);
    const result = await invokeTool(shot!, {});
    expect(result).toMatchObject({ status: 'ok', output: mcpResultText(answer) });
    expect(result.content).toBeUndefined();
  });

  it('carries at most 64 parts: the images past them are their notes, in one text part', async () => {
    const answer: CallToolResult = { content: Array.from({ length: 100 }, () => image('AAAA', 'image/png')) };
    const result = await invokeTool(await importedAnswering(answer), {});
    const carried = Array.from({ length: 63 }, () => '[image: image/png, 3 bytes]');
    const left = Array.from({ length: 37 }, () => '[image omitted: image/png, 3 bytes]');
    expect(result.output).toBe([...carried, ...left].join('\n'));
    expect(result.content).toHaveLength(64);
    expect(result.content!.slice(0, 63).every((part) => part.type === 'image')).toBe(true);
    expect(result.content![63]).toEqual({
      type: 'text',
      text: left.join('\n'),
    });
  });

  it('shows an AI SDK model the image of an imported MCP screenshot tool', async () => {
    const shot = await importedAnswering({
      content: [{ type: 'text', text: 'The login page.' }, image(PNG_BASE64, 'image/png')],
    });
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async (options) =>
        options.prompt.some((message) => message.role === 'tool')
          ? { content: [], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
          : {
              content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: '{}' }],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage,
              warnings: [],
            },
    });
    await generateText({ model, tools: toAiSdkTools([shot]), stopWhen: stepCountIs(2), prompt: 'Look.' });
    const sent = model.doGenerateCalls[1]!.prompt.find((message) => message.role === 'tool');
    expect(sent?.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'The login page.' },
            { type: 'image-data', data: PNG_BASE64, mediaType: 'image/png' },
          ],
        },
      },
    ]);
  });

  it('still reads an isError result with an image as an error of its text', async () => {
    const answer: CallToolResult = {
      content: [{ type: 'text', text: 'no screen' }, image(PNG_BASE64, 'image/png')],
      isError: true,
    };
    const result = await invokeTool(await importedAnswering(answer), {});
    expect(result).toMatchObject({
      status: 'error',
      output: 'Error running shot: no screen\n[image omitted: image/png, 68 bytes]',
    });
    expect(result.content).toBeUndefined();
  });
});

const report = tool({
  name: 'report',
  description: 'The weekly report.',
  execute: () =>
    content([
      { type: 'text', text: 'Week 12.' },
      { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
      { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf', filename: 'week 12.pdf' },
      { type: 'file', data: 'AAE=', mediaType: 'application/octet-stream' },
      { type: 'file', data: 'UklGRg==', mediaType: 'audio/wav', filename: 'summary.wav' },
      { type: 'json', value: { total: 390 } },
    ]),
});

describe('registerMcpTools: content parts', () => {
  it('answers content() with MCP content parts', async () => {
    const mcpServer = new McpServer({ name: 'toolwire-tools', version: '1.0.0' });
    registerMcpTools(mcpServer, [report]);
    const mcp = await linkedClient(mcpServer);
    expect(await mcp.callTool({ name: 'report', arguments: {} })).toEqual({
      content: [
        { type: 'text', text: 'Week 12.' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'file:///week%2012.pdf', mimeType: 'application/pdf', blob: 'JVBERg==' },
        },
        {
          type: 'resource',
          resource: { uri: 'file:///part-4', mimeType: 'application/octet-stream', blob: 'AAE=' },
        },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'text', text: '{"total":390}' },
      ],
    });
  });

  it('comes back through importMcpTools as the same parts, read as content()’s notes', async () => {
    const mcpServer = new McpServer({ name: 'toolwire-tools', version: '1.0.0' });
    registerMcpTools(mcpServer, [report]);
    const [imported] = await importMcpTools(await linkedClient(mcpServer));
    const result = await invokeTool(imported!, {});
    expect(result.output).toBe(
      'Week 12.\n[image: image/png, 68 bytes]\n[file week 12.pdf: application/pdf, 4 bytes]\n' +
        '[file part-4: application/octet-stream, 2 bytes]\n[file: audio/wav, 4 bytes]\n{"total":390}',
    );
    // MCP audio has no name, and a JSON part is its text there.
    expect(result.content).toEqual([
      { type: 'text', text: 'Week 12.' },
      { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
      { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf', filename: 'week 12.pdf' },
      { type: 'file', data: 'AAE=', mediaType: 'application/octet-stream', filename: 'part-4' },
      { type: 'file', data: 'UklGRg==', mediaType: 'audio/wav' },
      { type: 'text', text: '{"total":390}' },
    ]);
  });

  it('answers a failed call with its text alone, and a tool without content as before', async () => {
    const broken = tool({
      name: 'broken',
      description: 'Fails after drawing.',
      execute: () => {
        throw new Error('no chart');
      },
    });
    const plain = tool({ name: 'plain', description: 'Text.', execute: () => 'just text' });
    const mcpServer = new McpServer({ name: 'toolwire-tools', version: '1.0.0' });
    registerMcpTools(mcpServer, [broken, plain]);
    const mcp = await linkedClient(mcpServer);
    expect(await mcp.callTool({ name: 'broken', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Error running broken: no chart' }],
      isError: true,
    });
    expect(await mcp.callTool({ name: 'plain', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'just text' }],
    });
  });
});
