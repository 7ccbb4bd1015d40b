/**
 * The agent UI's address in a real browser (Debian's Chromium through playwright-core): the `#key=…` address the
 * stub prints and a `#run=…` link work when opened in a tab that already shows the page, where only the fragment
 * changes and the page does not load again.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const browser = useBrowser();

describe('the agent UI address', { timeout: BROWSER_TIMEOUT_MS }, () => {
  it('takes a key pasted into an open tab, clears it from the address bar, and opens a pasted run link', async () => {
    const stub = await startStubServer({
      apiKeys: ['s3cret'],
      logger: silentLogger,
      agents: [{ name: 'Echo', instructions: '', tools: [] }],
      model: scriptedModel([{ text: 'hello' }]),
    });
    const page = await browser.page();
    try {
      await page.goto(`${stub.httpUrl}/`);
      await page.locator('.connection[data-state="unauthorized"]').waitFor();
      // The printed address, pasted into the same tab: a navigation within the document.
      await page.goto(`${stub.httpUrl}/#key=s3cret`);
      await page.locator('.connection[data-state="online"]').waitFor();
      expect(new URL(page.url()).hash).toBe('');
      expect(await page.locator('.key-form').count()).toBe(0);
      const started = await fetch(`${stub.httpUrl}/v1/runs`, {
        method: 'POST',
        headers: { authorization: 'Bearer s3cret', 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'Echo', input: 'hi' }),
      });
      const { runId } = (await started.json()) as { runId: string };
      await page.goto(`${stub.httpUrl}/#run=${runId}`);
      await page.locator(`.run[data-run-id="${runId}"] .msg.final .bubble`, { hasText: 'hello' }).waitFor();
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
      await stub.close();
    }
  });
});
