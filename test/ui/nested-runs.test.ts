/**
 * Nested runs in the agent UI, in a real browser (Debian's Chromium through playwright-core): an approval or a
 * question of a run nested in the one in view is taken on the outer run (docs/guide/agents.md), and its card
 * ends with the call, labelled with the nested run it belongs to.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Agent, Client, tool } from '../../src/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const browser = useBrowser();

describe('nested runs in the agent UI', { timeout: BROWSER_TIMEOUT_MS }, () => {
  it('ends the card of a nested approval and of a nested question with their calls', async () => {
    const stub = await startStubServer({
      logger: silentLogger,
      agents: [{ name: 'Outer', instructions: '', tools: ['ask_inner'] }],
      model: scriptedModel({
        Outer: [
          ({ messages }) => ({
            toolCalls: [{ name: 'ask_inner', arguments: { input: String(messages.at(-1)?.content) } }],
          }),
          ({ messages }) => ({ text: `outer: ${messages.at(-1)?.content}` }),
        ],
        Inner: [
          ({ messages }) => ({
            toolCalls: [{ name: messages.at(-1)?.content === 'refund' ? 'refund' : 'warehouse' }],
          }),
          ({ messages }) => ({ text: `inner: ${messages.at(-1)?.content}` }),
        ],
      }),
    });
    const refund = tool({
      name: 'refund',
      description: 'Refunds.',
      needsApproval: true,
      execute: () => 'refunded',
    });
    const warehouse = tool({
      name: 'warehouse',
      description: 'Picks a warehouse.',
      parameters: z.object({}),
      execute: async (_input, ctx) =>
        `chose ${String(await ctx.askQuestion('Which?', { choices: ['Berlin', 'Lyon'] }))}`,
    });
    const inner = new Agent({ name: 'Inner', instructions: '', tools: [refund, warehouse] });
    const client = new Client({
      url: stub.url,
      apiKey: 'any',
      tools: [refund, warehouse, inner.asTool({ toolName: 'ask_inner', toolDescription: 'Asks Inner.' })],
      reconnect: false,
    });
    await client.connect();
    const page = await browser.page();
    try {
      await page.goto(`${stub.httpUrl}/#key=any`);
      await page.locator('.connection[data-state="online"]').waitFor();
      for (const [message, tool, act, output] of [
        ['refund', 'refund', 'Approve', 'refunded'],
        ['warehouse', 'warehouse', 'Lyon', 'chose Lyon'],
      ] as const) {
        await page.getByRole('button', { name: '+ New message' }).click();
        await page.getByRole('textbox', { name: 'Message' }).fill(message);
        await page.getByRole('button', { name: 'Send' }).click();
        const card = page.locator(`.call[data-tool="${tool}"]`);
        await card.getByRole('button', { name: act }).click();
        await page.locator('.run-end').waitFor();
        expect(await page.locator('.msg.final .bubble').textContent()).toBe(`outer: inner: ${output}`);
        const nested = stub.runs.list().find((run) => run.inputPreview === message && run.depth === 1);
        expect(await card.locator('.run-meta', { hasText: 'nested run' }).textContent()).toBe(
          `nested run ${nested?.runId}`,
        );
        await card.locator('.call-output pre', { hasText: output }).waitFor();
        expect(await card.getAttribute('data-status')).toBe('ok');
        // The head counts this run's own call (the agent's), which has ended.
        const counts = page.locator('.run-head .run-counts');
        expect(await counts.textContent()).toBe('1 call');
        expect(await counts.getAttribute('data-running')).toBe('0');
      }
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
      await client.close({ drain: false });
      await stub.close();
    }
  });
});
