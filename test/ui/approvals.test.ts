/**
 * Approvals in the agent UI, in a real browser (Debian's Chromium through playwright-core): the reason the tool
 * gives, arguments edited before approving, and "for every call of this tool in this run" (docs/protocol/decisions.md).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { approvalRequired, Client, tool } from '../../src/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const browser = useBrowser();

describe('approvals in the agent UI', { timeout: BROWSER_TIMEOUT_MS }, () => {
  it('shows the reason, approves with edited arguments for the whole run, and shows both decisions', async () => {
    const stub = await startStubServer({
      apiKeys: ['key-for-ui'],
      logger: silentLogger,
      agents: [{ name: 'Refunder', instructions: '', tools: ['refund'] }],
      model: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { amount: 90 } }] },
        { toolCalls: [{ name: 'refund', arguments: { amount: 20 } }] },
        ({ messages }) => ({
          text: messages
            .filter((message) => message.role === 'tool')
            .map((message) => message.content)
            .join(' | '),
        }),
      ]),
    });
    const refund = tool({
      name: 'refund',
      description: 'Refunds an amount.',
      parameters: z.object({ amount: z.number() }),
      needsApproval: approvalRequired('Refunds move money.'),
      execute: ({ amount }) => `refunded ${amount}`,
    });
    const client = new Client({ url: stub.url, apiKey: 'key-for-ui', tools: [refund], reconnect: false });
    await client.connect();
    const page = await browser.page();
    try {
      await page.goto(`${stub.httpUrl}/#key=key-for-ui`);
      await page.getByRole('textbox', { name: 'Message' }).fill('refund please');
      await page.getByRole('button', { name: 'Send' }).click();
      const box = page.locator('.approval');
      await box.waitFor();
      expect(await box.locator('.approval-why').textContent()).toBe(
        'Approve refund? The tool needs a human decision before it runs: Refunds move money.',
      );
      await page.getByRole('textbox', { name: 'Arguments' }).fill('{ "amount": 50 }');
      await page.getByRole('checkbox', { name: 'Always' }).check();
      await page.getByRole('button', { name: 'Approve' }).click();
      const final = page.locator('.msg.final .bubble');
      await final.waitFor();
      expect(await final.textContent()).toContain('refunded 50 | refunded 20');
      const decisions = await page.locator('.call .decision').allTextContents();
      expect(decisions).toEqual([
        'Approved in this page with edited arguments {"amount":50} (for every call of this tool in this run)',
        'Approved for the whole run earlier',
      ]);
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
      await client.close({ drain: false });
      await stub.close();
    }
  });

  it('says who decided when another decision wins the race, and shows why its own was not recorded', async () => {
    const stub = await startStubServer({
      apiKeys: ['key-for-ui'],
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
      needsApproval: true,
      execute: ({ amount }) => `refunded ${amount}`,
    });
    const client = new Client({ url: stub.url, apiKey: 'key-for-ui', tools: [refund], reconnect: false });
    await client.connect();
    const page = await browser.page();
    try {
      const held = new Promise<{ runId: string; callId: string }>((resolve) => {
        stub.events.on('run_event', (info) => {
          if (info.kind === 'approval_requested')
            resolve({ runId: info.runId, callId: (info.data as { callId: string }).callId });
        });
      });
      await page.goto(`${stub.httpUrl}/#key=key-for-ui`);
      await page.getByRole('textbox', { name: 'Message' }).fill('refund please');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.approval').waitFor();
      const { runId, callId } = await held;
      // The page's decision is slow to arrive (a slow network); a colleague rejects over HTTP meanwhile.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let posted = () => {};
      const pagePosted = new Promise<void>((resolve) => {
        posted = resolve;
      });
      await page.route('**/approvals/**', async (route) => {
        posted();
        await released;
        await route.continue();
      });
      await page.getByRole('button', { name: 'Approve' }).click();
      await pagePosted;
      const colleague = await fetch(`${stub.httpUrl}/v1/runs/${runId}/approvals/${callId}`, {
        method: 'POST',
        headers: { authorization: 'Bearer key-for-ui', 'content-type': 'application/json' },
        body: JSON.stringify({ approved: false, reason: 'rejected by a colleague' }),
      });
      expect(colleague.status).toBe(200);
      const decision = page.locator('.call .decision');
      await decision.filter({ hasText: 'Rejected' }).waitFor();
      expect(await decision.textContent()).toBe('Rejected over HTTP: rejected by a colleague');
      release();
      const refusal = page.locator('.call .approval-error');
      await refusal.waitFor();
      expect(await refusal.textContent()).toBe(
        `Your approval was not recorded: tool call ${callId} was already rejected`,
      );
      expect(await decision.textContent()).toBe('Rejected over HTTP: rejected by a colleague');
      await page.locator('.run-end').waitFor();
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
      await client.close({ drain: false });
      await stub.close();
    }
  });
});
