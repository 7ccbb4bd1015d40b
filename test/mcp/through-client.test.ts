/**
 * Imported MCP tools called by the hosted agent: the real stub (scripted model) → the Client's socket →
 * importMcpTools → an MCP server, in memory and in a child process over stdio.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Agent, Client, invokeTool } from 'toolwire';
import { importMcpTools } from 'toolwire/mcp';
import { otelTracing } from 'toolwire/otel';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedTurn, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { fixtureMcpServer, PNG_BASE64 } from '../fixtures/mcp/server';
import { linkedClient, PATIENT, stdioClient } from './helpers';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected(
  script: ScriptedTurn[],
  mcp: McpClient,
  options: Partial<ConstructorParameters<typeof Client>[0]> = {},
  beforeConnect: (client: Client) => void = () => {},
) {
  const stub = await startStubServer({
    apiKeys: ['test-key'],
    logger: silentLogger,
    model: scriptedModel(script),
  });
  cleanups.push(() => stub.close());
  const tools = await importMcpTools(mcp);
  const client = new Client({ ...options, url: stub.url, apiKey: 'test-key', tools });
  cleanups.push(() => client.close({ drain: false }));
  beforeConnect(client);
  await client.connect();
  const agent = new Agent({ name: 'Forecaster', instructions: 'Answer about the weather.', tools });
  return { client, agent, tools };
}

const SCRIPT: ScriptedTurn[] = [
  {
    toolCalls: [
      { name: 'weather_get', arguments: { city: 'O' } },
      { name: 'weather_get', arguments: { city: 'Oslo' } },
      { name: 'disk_write', arguments: { path: '/log' } },
      { name: 'chart', arguments: {} },
    ],
  },
  ({ messages }) => ({ text: `read: ${messages.filter((m) => m.role === 'tool').length} results` }),
];

const EXPECTED_CALLS = [
  {
    toolName: 'weather_get',
    status: 'invalid_arguments',
    output:
      'Invalid arguments for weather_get: city: expected a string of at least 2 characters, received a string of 1 character',
  },
  { toolName: 'weather_get', status: 'ok', output: 'Sunny in Oslo, 20°C' },
  {
    toolName: 'disk_write',
    status: 'error',
    output: 'Error running disk_write: cannot write /log: the disk is full',
  },
  {
    toolName: 'chart',
    status: 'ok',
    output: 'Rain on Tuesday.\n[image: image/png, 68 bytes]\nMemo: bring a coat.',
  },
];

/** The calls in a fixed order (a run lists them in the order they finished). */
const sorted = (calls: ReadonlyArray<{ toolName: string; status: string; output: string }>) =>
  calls
    .map(({ toolName, status, output }) => ({ toolName, status, output }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('imported MCP tools through the Client against the stub', () => {
  it.each([
    ['an in-memory MCP server', () => linkedClient(fixtureMcpServer())],
    ['an MCP server over stdio', stdioClient],
  ])('run for the hosted agent from %s', async (_name, connect) => {
    const { client, agent } = await connected(SCRIPT, await connect());
    const result = await client.run(agent, 'Weather in Oslo?');
    expect(result.finalOutput).toBe('read: 4 results');
    expect(sorted(result.toolCalls)).toEqual(sorted(EXPECTED_CALLS));
  });

  it('run, traced, after the application clears every listener of the client: no adapter listens on its events', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracing = otelTracing({ tracer: provider.getTracer('test') });
    const mcp = await linkedClient(fixtureMcpServer());
    const { client, agent } = await connected(SCRIPT, mcp, { tracing }, (made) => made.removeAllListeners());
    expect(client.eventNames()).toEqual([]);
    const result = await client.run(agent, 'Weather in Oslo?');
    expect(sorted(result.toolCalls)).toEqual(sorted(EXPECTED_CALLS));
    expect(
      exporter
        .getFinishedSpans()
        .map((span) => span.name)
        .sort(),
    ).toEqual([
      'execute_tool chart',
      'execute_tool disk_write',
      'execute_tool weather_get',
      'execute_tool weather_get',
    ]);
    expect(client.eventNames()).toEqual([]);
  });

  it('sends the image of an MCP result as a content part, and a text in place of one too large for a frame', async () => {
    const big = Buffer.alloc(200_000, 7).toString('base64');
    const server = fixtureMcpServer();
    server.registerTool('big_chart', { description: 'A large chart.' }, async () => ({
      content: [
        { type: 'text', text: 'Sales.' },
        { type: 'image', data: big, mimeType: 'image/png' },
      ],
    }));
    const stub = await startStubServer({
      apiKeys: ['test-key'],
      logger: silentLogger,
      maxPayloadBytes: 65_536,
      model: scriptedModel([{ toolCalls: [{ name: 'chart' }, { name: 'big_chart' }] }, { text: 'seen' }]),
    });
    cleanups.push(() => stub.close());
    const tools = await importMcpTools(await linkedClient(server));
    const client = new Client({ url: stub.url, apiKey: 'test-key', tools, reconnect: false });
    cleanups.push(() => client.close({ drain: false }));
    const disconnects: unknown[] = [];
    client.on('disconnected', (info) => disconnects.push(info));
    await client.connect();
    const result = await client.run(new Agent({ name: 'A', instructions: '', tools }), 'Charts.');
    expect(disconnects).toEqual([]);
    const calls = Object.fromEntries(
      result.toolCalls.map(({ toolName, output, content }) => [toolName, { output, content }]),
    );
    expect(calls).toEqual({
      chart: {
        output: 'Rain on Tuesday.\n[image: image/png, 68 bytes]\nMemo: bring a coat.',
        content: [
          { type: 'text', text: 'Rain on Tuesday.' },
          { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
          { type: 'text', text: 'Memo: bring a coat.' },
        ],
      },
      big_chart: {
        output: 'Sales.\n[image: image/png, 200,000 bytes]',
        content: [
          { type: 'text', text: 'Sales.' },
          {
            type: 'text',
            text: "[image image/png of 200,000 bytes not sent: the result would be over the service's limit of 65,536 bytes]",
          },
        ],
      },
    });
  });

  it('cancels the MCP request when the run is cancelled', async () => {
    const mcp = await linkedClient(fixtureMcpServer());
    const { client, agent, tools } = await connected([{ toolCalls: [{ name: 'wait' }] }], mcp);
    const status = tools.find((t) => t.name === 'wait_status')!;
    const read = async () => (await invokeTool(status, {})).output;
    const controller = new AbortController();
    const run = client.run(agent, 'Wait.', { signal: controller.signal });
    await expect.poll(read, PATIENT).toBe('{"started":1,"cancelled":0}');
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(read, PATIENT).toBe('{"started":1,"cancelled":1}');
  });
});
