import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserExample } from '../../examples/browser/main';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

describe('examples/browser: the Client in a web page', { timeout: BROWSER_TIMEOUT_MS }, () => {
  const browser = useBrowser();
  let example: Awaited<ReturnType<typeof startBrowserExample>>;
  beforeAll(async () => {
    example = await startBrowserExample();
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await example?.close();
  });

  it('connects with the browser WebSocket, runs the page tools and shows the answer', async () => {
    const page = await browser.page();
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    await page.goto(example.pageUrl);
    await page.waitForSelector('body[data-done]');
    expect(await page.getAttribute('body', 'data-done')).toBe('true');
    const log = await page.locator('#log li').allTextContents();
    expect(log[0]).toMatch(/^connected, session /);
    expect(log.some((line) => /^page_title → ok \(\d+ ms\)$/.test(line))).toBe(true);
    expect(log.some((line) => /^count_elements → ok \(\d+ ms\)$/.test(line))).toBe(true);
    expect(log.at(-1)).toBe('answer: The page is titled "toolwire in a browser" and has 2 list items.');
    expect(page.errors).toEqual([]);
    expect(scripts[0]).toBe('/page.js');
  });
});
