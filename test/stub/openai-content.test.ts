/**
 * Content parts reach an OpenAI-compatible model (docs/protocol/call-context.md): a tool's image goes into the recorded
 * chat-completions request as image input, after the tool message that carries the text.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openAIChatModel } from '../../server-stub/index';
import { Agent, Client, content, tool } from '../../src/index';
import { stub } from './helpers';

const BASE = 'http://model.test/v1';
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const mock = setupServer();
const seen: Array<Record<string, unknown>> = [];
beforeAll(() => mock.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  mock.resetHandlers();
  seen.length = 0;
});
afterAll(() => mock.close());

const completion = (message: Record<string, unknown>, finish: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-test',
  choices: [{ index: 0, message, finish_reason: finish }],
});

describe('content parts and the OpenAI-compatible model', () => {
  it('drives the openai major its project names', async () => {
    const { VERSION } = await import('openai/version');
    expect(VERSION.split('.')[0]).toBe(inject('openaiMajor'));
  });

  it('sends the tool text in the tool message and the image as image input right after it', async () => {
    mock.use(
      http.post(`${BASE}/chat/completions`, async ({ request }) => {
        seen.push((await request.json()) as Record<string, unknown>);
        return HttpResponse.json(
          seen.length === 1
            ? completion(
                {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    { id: 'call_a', type: 'function', function: { name: 'chart', arguments: '{}' } },
                  ],
                },
                'tool_calls',
              )
            : completion({ role: 'assistant', content: 'A bar chart of Q3.' }, 'stop'),
        );
      }),
    );
    const server = await stub({
      model: openAIChatModel({ baseURL: BASE, model: 'gpt-test', stream: false }),
    });
    const chart = tool({
      name: 'chart',
      description: 'Draws the Q3 chart.',
      execute: () =>
        content([
          { type: 'text', text: 'The Q3 chart:' },
          { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
        ]),
    });
    const client = new Client({ url: server.url, apiKey: 'long-calls-test-key', tools: [chart] });
    await client.connect();
    try {
      const result = await client.run(
        new Agent({ name: 'A', instructions: 'Chart.', tools: [chart] }),
        'chart Q3',
      );
      expect(result.finalOutput).toBe('A bar chart of Q3.');
      expect(result.toolCalls[0]).toMatchObject({
        output: 'The Q3 chart:\n[image: image/png, 70 bytes]',
        content: [
          { type: 'text', text: 'The Q3 chart:' },
          { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
        ],
      });
      const messages = seen[1]?.messages as Array<Record<string, unknown>>;
      expect(messages.slice(-2)).toEqual([
        { role: 'tool', tool_call_id: 'call_a', content: 'The Q3 chart:\n[image: image/png, 70 bytes]' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'The images the tool results above returned, in order:' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          ],
        },
      ]);
      const entry = server.runs.get(result.runId)?.toolCalls[0];
      expect(entry?.result).toEqual({
        type: 'content',
        value: [
          { type: 'text', text: 'The Q3 chart:' },
          { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
        ],
      });
    } finally {
      await client.close();
    }
  });
});
