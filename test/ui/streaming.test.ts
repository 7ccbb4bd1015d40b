/**
 * `npm start -- --ui --model openai` against an OpenAI-compatible mock (msw, in this process, where the embedded
 * stub's model makes its requests): the model's text streams into the page piece by piece, after a 500 and a
 * timeout the `openai` package retried.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';
import { type RunningDemo, startDemo } from './demo-process';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
const BASE = 'http://127.0.0.1:11434/v1';

const encoder = new TextEncoder();
let attempts = 0;
let release!: () => void;
const restReleased = new Promise<void>((resolve) => {
  release = resolve;
});

/** A streamed chat completion whose pieces after the first wait for `restReleased`. */
function answer(pieces: string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [index, content] of pieces.entries()) {
        if (index === 1) await restReleased;
        const chunk = { choices: [{ index: 0, delta: { content }, finish_reason: null }] };
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      }
      controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      controller.close();
    },
  });
  return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
}

const mock = setupServer(
  http.post(`${BASE}/chat/completions`, async () => {
    attempts += 1;
    if (attempts === 1) return HttpResponse.json({ error: { message: 'warming up' } }, { status: 500 });
    if (attempts === 2) await delay('infinite');
    return answer(['Hello from ', 'a streaming ', 'model.']);
  }),
);

describe('the agent UI with --model openai', { timeout: BROWSER_TIMEOUT_MS }, () => {
  const browser = useBrowser();
  const stop = new AbortController();
  let demo: RunningDemo;
  let url = '';
  let lines: string[] = [];

  beforeAll(async () => {
    mock.listen({ onUnhandledRequest: 'bypass' });
    Object.assign(process.env, {
      OPENAI_BASE_URL: BASE,
      OPENAI_MODEL: 'llama3.1',
      OPENAI_TIMEOUT_MS: '2000',
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    demo = await startDemo(['--ui', '--model', 'openai'], stop.signal);
    ({ url, lines } = demo);
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    stop.abort();
    expect(await demo.exited).toBe(0);
    mock.close();
    for (const name of ['OPENAI_BASE_URL', 'OPENAI_MODEL', 'OPENAI_TIMEOUT_MS']) delete process.env[name];
  });

  it('shows the model, and its text as it streams, then the answer', async () => {
    expect(lines).toContain(`model: llama3.1 at ${BASE}`);
    const page = await browser.page();
    await page.goto(url);
    await page.locator('.connection[data-state="online"]').waitFor();
    expect(await page.locator('.model-badge').textContent()).toBe(`model: llama3.1 at ${BASE}`);
    expect(await page.locator('.notice.scripted-model').count()).toBe(0);
    await page.getByRole('textbox', { name: 'Message' }).fill('Say hello.');
    await page.getByRole('button', { name: 'Send' }).click();

    // The first piece is on the page while the model server still holds back the rest (for less than
    // OPENAI_TIMEOUT_MS, which also bounds the silence between two pieces).
    const streaming = page.locator('.msg.streaming .bubble');
    await streaming.waitFor();
    expect(await streaming.textContent()).toBe('Hello from ');
    await page.screenshot({ path: `${ARTIFACTS}agent-ui-streaming.png` });
    expect(await page.locator('.msg.streaming .who').textContent()).toBe('Model · writing…');
    expect(await page.locator('.msg.final').count()).toBe(0);
    release();

    const final = page.locator('.msg.final .bubble');
    await final.waitFor();
    expect(await final.textContent()).toBe('Hello from a streaming model.');
    expect(await page.locator('.msg.final .who').textContent()).toBe('Answer');
    expect(await page.locator('.msg.streaming').count()).toBe(0);
    await page.locator('.run[data-status="completed"]').waitFor();
    // One 500 and one attempt slower than OPENAI_TIMEOUT_MS, both retried by the openai package.
    expect(attempts).toBe(3);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
