/**
 * The browser side of the example: a toolwire Client running in a web page. Its tools read the page itself
 * (the service never sees the DOM); the key travels in `hello`, since browsers cannot set headers on a WebSocket.
 */
import { Agent, Client, tool } from 'toolwire';
import { z } from 'zod';

const log = (text: string) => {
  const line = document.createElement('li');
  line.textContent = text;
  document.querySelector('#log')?.append(line);
};

const pageTitle = tool({
  name: 'page_title',
  description: 'The title of the page the user has open.',
  execute: () => document.title,
});

const countElements = tool({
  name: 'count_elements',
  description: 'How many elements match a CSS selector on the page.',
  parameters: z.object({ selector: z.string().min(1) }),
  execute: ({ selector }) => document.querySelectorAll(selector).length,
});

async function start(): Promise<void> {
  const config = JSON.parse(document.querySelector('#config')?.textContent ?? '{}') as {
    url: string;
    apiKey: string;
  };
  // No WebSocket option: the page's own global WebSocket is used.
  const client = new Client({ url: config.url, apiKey: config.apiKey, tools: [pageTitle, countElements] });
  client.on('tool_result', ({ toolName, status, durationMs }) =>
    log(`${toolName} → ${status} (${durationMs} ms)`),
  );
  await client.connect();
  log(`connected, session ${client.sessionId}`);
  const agent = new Agent({
    name: 'PageHelper',
    instructions: 'Describe the page.',
    tools: [pageTitle, countElements],
  });
  const result = await client.run(agent, 'What is on this page?');
  log(`answer: ${String(result.finalOutput)}`);
  document.body.dataset.done = 'true';
  await client.close();
}

start().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  document.body.dataset.done = 'error';
});
