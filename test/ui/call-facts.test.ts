/**
 * The agent UI shows what the transcript knows of a call beyond its events, in a real browser (Debian's Chromium
 * through playwright-core): the side-effect class the tool announced (docs/protocol/frames.md) and the steps the stub
 * keeps for the call, by key with the size of each result (docs/protocol/steps.md).
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const browser = useBrowser();

describe('call facts in the agent UI', { timeout: BROWSER_TIMEOUT_MS }, () => {
  it("shows each call's side-effect class and its completed steps with their sizes", async () => {
    const stub = await startStubServer({
      apiKeys: ['key-for-ui'],
      logger: silentLogger,
      agents: [{ name: 'Onboarder', instructions: '', tools: ['provision', 'notify'] }],
      model: scriptedModel([
        { toolCalls: [{ name: 'provision', arguments: {} }] },
        { toolCalls: [{ name: 'notify', arguments: {} }] },
        { text: 'all done' },
      ]),
    });
    const provision = tool({
      name: 'provision',
      description: 'Creates an account.',
      sideEffect: 'idempotent',
      execute: async (_input, ctx) => {
        const account = await ctx.step('create-account', () => ({ id: 'acct_1' }));
        await ctx.step('welcome-pack', () => 'sent');
        return account;
      },
    });
    const notify = tool({ name: 'notify', description: 'Pings a human.', execute: () => 'pinged' });
    const client = new Client({
      url: stub.url,
      apiKey: 'key-for-ui',
      tools: [provision, notify],
      reconnect: false,
    });
    await client.connect();
    const page = await browser.page();
    try {
      await page.goto(`${stub.httpUrl}/#key=key-for-ui`);
      await page.getByRole('textbox', { name: 'Message' }).fill('onboard me');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.msg.final .bubble').waitFor();
      const provisionCard = page.locator('.call[data-tool="provision"]');
      await provisionCard.locator('.call-steps').waitFor();
      expect(await provisionCard.locator('.call-side-effect').textContent()).toBe('side effect: idempotent');
      expect(await provisionCard.locator('.call-steps .label').textContent()).toBe('completed steps (2)');
      expect(
        await provisionCard.getByRole('list', { name: 'Completed steps' }).locator('li').allTextContents(),
      ).toEqual(['create-account15 bytes', 'welcome-pack6 bytes']);
      const notifyCard = page.locator('.call[data-tool="notify"]');
      await notifyCard.locator('.call-side-effect').waitFor();
      // A tool that says nothing is announced with the conservative default.
      expect(await notifyCard.locator('.call-side-effect').textContent()).toBe('side effect: external');
      expect(await notifyCard.locator('.call-steps').count()).toBe(0);
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
      await client.close({ drain: false });
      await stub.close();
    }
  });
});
