/**
 * The agent UI under every loopback name (server-stub/web-pages.ts): its page sends its own origin, and a stub
 * bound to loopback answers loopback names only, so the page at `localhost`, `127.0.0.1` or `[::1]` must still
 * start a run, get its approval decided and show the answer, with or without `apiKeys`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { approvalRequired, Client, tool } from '../../src/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const browser = useBrowser();

describe('the agent UI at each loopback name', { timeout: BROWSER_TIMEOUT_MS }, () => {
  it.each([
    ['localhost', undefined],
    ['127.0.0.1', undefined],
    ['localhost', 'key-for-ui'],
    ['[::1]', undefined],
  ] as const)('at %s (key %s) starts a run, decides its approval and shows the answer', async (name, key) => {
    const stub = await startStubServer({
      ...(key === undefined ? {} : { apiKeys: [key] }),
      ...(name === '[::1]' ? { host: '::1' } : {}),
      logger: silentLogger,
      agents: [{ name: 'Refunder', instructions: '', tools: ['refund'] }],
      model: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { amount: 90 } }] },
        { text: 'done' },
      ]),
    });
    const refund = tool({
      name: 'refund',
      description: 'Refunds an amount.',
      parameters: z.object({ amount: z.number() }),
      needsApproval: approvalRequired('Refunds move money.'),
      execute: ({ amount }) => `refunded ${amount}`,
    });
    const client = new Client({ url: stub.url, apiKey: key ?? 'any', tools: [refund], reconnect: false });
    await client.connect();
    const page = await browser.page();
    try {
      const base = name === '[::1]' ? stub.httpUrl : stub.httpUrl.replace('127.0.0.1', name);
      expect(new URL(base).hostname).toBe(name);
      await page.goto(`${base}/${key === undefined ? '' : `#key=${key}`}`);
      await page.getByRole('textbox', { name: 'Message' }).fill('refund please');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.approval').waitFor();
      await page.getByRole('button', { name: 'Approve' }).click();
      const final = page.locator('.msg.final .bubble');
      await final.waitFor();
      expect(await final.textContent()).toContain('done');
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
      await client.close({ drain: false });
      await stub.close();
    }
  });

  it('at a name the stub refuses says why and how to fix it, not that the stub is down', async () => {
    const stub = await startStubServer({
      logger: silentLogger,
      agents: [{ name: 'A', instructions: '', tools: [] }],
    });
    const page = await browser.page();
    try {
      // `localhost.` reaches 127.0.0.1, and is no loopback name to the stub (as an /etc/hosts alias or a proxy's).
      const { port } = new URL(stub.httpUrl);
      await page.goto(`http://localhost.:${port}/`);
      const notice = page.locator('.notice', { hasText: 'The stub refuses this page' });
      await notice.waitFor();
      expect(await notice.textContent()).toContain('open it as http://localhost with the same port');
      expect(await page.locator('.connection').textContent()).toBe('refused by the stub');
    } finally {
      await page.close();
      await stub.close();
    }
  });
});
