/**
 * The agent UI's composer in a real browser (Debian's Chromium through playwright-core): one message starts one
 * run, however often it is sent while the first start is on its way.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const browser = useBrowser();

describe('the composer', { timeout: BROWSER_TIMEOUT_MS }, () => {
  it('starts one run when Enter is pressed again while the first start is in flight', async () => {
    const stub = await startStubServer({
      logger: silentLogger,
      agents: [{ name: 'Echo', instructions: '', tools: [] }],
      model: scriptedModel([{ text: 'hello' }]),
    });
    const page = await browser.page();
    try {
      // Counts the page's run starts as they are made (before any answer).
      await page.addInitScript(() => {
        const counted = window as unknown as { runStarts: number };
        counted.runStarts = 0;
        const original = window.fetch.bind(window);
        window.fetch = (input, init) => {
          if (init?.method === 'POST' && String(input) === '/v1/runs') counted.runStarts += 1;
          return original(input, init);
        };
      });
      // The stub's answer is held until both presses are done: a slow network.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route('**/v1/runs', async (route) => {
        if (route.request().method() === 'POST') await released;
        await route.continue();
      });
      await page.goto(`${stub.httpUrl}/#key=any`);
      await page.locator('.connection[data-state="online"]').waitFor();
      const message = page.getByRole('textbox', { name: 'Message' });
      await message.fill('hi');
      await message.press('Enter');
      await message.press('Enter');
      await page.getByRole('button', { name: 'Send' }).click({ force: true });
      expect(await page.evaluate(() => (window as unknown as { runStarts: number }).runStarts)).toBe(1);
      release();
      await page.locator('.msg.final .bubble', { hasText: 'hello' }).waitFor();
      expect(stub.runs.list()).toHaveLength(1);
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
      await stub.close();
    }
  });
});
