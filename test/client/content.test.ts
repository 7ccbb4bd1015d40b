/**
 * Content parts over the real stub (docs/protocol/call-context.md): within the frame limit (a too-large image refused
 * with a
 * text, never a dropped socket), text only for a service without the feature, and the transcript's result kinds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Agent, Client, content, tool } from '../../src/index';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stub(
  calls: string[],
  options: Parameters<typeof startStubServer>[0] = {},
): Promise<StubServer> {
  const server = await startStubServer({
    logger: silentLogger,
    model: scriptedModel([{ toolCalls: calls.map((name) => ({ name })) }, { text: 'done' }]),
    ...options,
  });
  cleanups.push(() => server.close());
  return server;
}

async function run(server: StubServer, tools: ConstructorParameters<typeof Client>[0]['tools']) {
  const client = new Client({ url: server.url, apiKey: 'long-calls-test-key', tools, reconnect: false });
  cleanups.push(() => client.close({ drain: false }));
  const disconnects: unknown[] = [];
  client.on('disconnected', (info) => disconnects.push(info));
  await client.connect();
  const result = await client.run(new Agent({ name: 'A', instructions: '', tools }), 'go');
  return { result, disconnects };
}

const bigImage = new Uint8Array(1_500_000).fill(7);
const picture = tool({
  name: 'picture',
  description: 'A large picture and a caption.',
  execute: () =>
    content([
      { type: 'text', text: 'caption' },
      { type: 'image', data: bigImage, mediaType: 'image/png' },
      { type: 'json', value: { width: 1000 } },
    ]),
});

describe('content parts over the stub', () => {
  it('replaces a part too large for the frame with a text saying so, and keeps the socket', async () => {
    const server = await stub(['picture'], { maxPayloadBytes: 1_048_576 });
    const { result, disconnects } = await run(server, [picture]);
    expect(disconnects).toEqual([]);
    expect(result.toolCalls[0]?.output).toBe('caption\n[image: image/png, 1,500,000 bytes]\n{"width":1000}');
    expect(result.toolCalls[0]?.content).toEqual([
      { type: 'text', text: 'caption' },
      {
        type: 'text',
        text: "[image image/png of 1,500,000 bytes not sent: the result would be over the service's limit of 1,048,576 bytes]",
      },
      { type: 'json', value: { width: 1000 } },
    ]);
  });

  it('sends the text alone to a service without the feature', async () => {
    const small = tool({
      name: 'picture',
      description: 'A small picture.',
      execute: () =>
        content([
          { type: 'text', text: 'caption' },
          { type: 'image', data: new Uint8Array(3), mediaType: 'image/gif' },
        ]),
    });
    const server = await stub(['picture'], { features: [] });
    const { result } = await run(server, [small]);
    expect(result.toolCalls[0]).toMatchObject({ output: 'caption\n[image: image/gif, 3 bytes]' });
    expect(result.toolCalls[0]?.content).toBeUndefined();
  });

  it('keeps each result in the transcript as a typed part: text, json, content, error-text, error-json', async () => {
    const tools = [
      tool({ name: 'words', description: 'Text.', execute: () => 'plain words' }),
      tool({ name: 'data', description: 'JSON.', execute: () => ({ rows: 2 }) }),
      tool({
        name: 'parts',
        description: 'Content.',
        execute: () => content([{ type: 'text', text: 'hi' }]),
      }),
      tool({
        name: 'broken',
        description: 'Fails.',
        execute: () => {
          throw new Error('disk full');
        },
      }),
      tool({
        name: 'broken_json',
        description: 'Fails in JSON.',
        execute: () => {
          throw new Error('quota');
        },
        errorFunction: () => JSON.stringify({ error: 'quota', retryable: false }),
      }),
    ];
    const server = await stub(tools.map((t) => t.name));
    const { result } = await run(server, tools);
    const results = server.runs.get(result.runId)?.toolCalls.map((call) => [call.toolName, call.result]);
    expect(results).toEqual([
      ['words', { type: 'text', value: 'plain words' }],
      ['data', { type: 'json', value: { rows: 2 } }],
      ['parts', { type: 'content', value: [{ type: 'text', text: 'hi' }] }],
      ['broken', { type: 'error-text', value: 'Error running broken: disk full' }],
      ['broken_json', { type: 'error-json', value: { error: 'quota', retryable: false } }],
    ]);
  });
});

describe('the data of image and file parts', () => {
  it('is checked by its bytes: a part holding the API key or a redact string is sent as [redacted]', async () => {
    const key = 'sk-content-key-2468';
    const bytes = (text: string) => new TextEncoder().encode(text);
    const utf16le = (text: string) => new Uint8Array(Buffer.from(text, 'utf16le'));
    const clean = new Uint8Array([137, 80, 78, 71, 0, 255]);
    const parts = tool({
      name: 'parts',
      description: 'Parts, some holding secrets.',
      execute: () =>
        content([
          { type: 'image', data: clean, mediaType: 'image/png' },
          { type: 'file', data: bytes(`config: ${key}`), mediaType: 'text/plain', filename: 'a.txt' },
          { type: 'image', data: btoa(`\u0089PNG hunter2-pass`), mediaType: 'image/png' },
          // A Windows `.reg` export: UTF-16LE.
          { type: 'file', data: utf16le(`\ufeffkey=${key}\r\n`), mediaType: 'text/plain', filename: 'b.reg' },
        ]),
    });
    const server = await stub(['parts']);
    const client = new Client({
      url: server.url,
      apiKey: key,
      redact: ['hunter2-pass'],
      tools: [parts],
      reconnect: false,
    });
    cleanups.push(() => client.close({ drain: false }));
    await client.connect();
    const result = await client.run(new Agent({ name: 'A', instructions: '', tools: [parts] }), 'go');
    expect(result.toolCalls[0]?.content).toEqual([
      { type: 'image', data: btoa(String.fromCharCode(...clean)), mediaType: 'image/png' },
      { type: 'text', text: '[redacted]' },
      { type: 'text', text: '[redacted]' },
      { type: 'text', text: '[redacted]' },
    ]);
    expect(result.toolCalls[0]?.output).toBe(
      '[image: image/png, 6 bytes]\n[file a.txt: text/plain, 27 bytes]\n[image: image/png, 17 bytes]\n' +
        '[file b.reg: text/plain, 52 bytes]',
    );
  });
});
