/**
 * The agent UI with long-running and talking calls (PROTOCOL.md §18), in Debian's Chromium: the progress bar
 * and its message under a running call, and its preliminary result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { launchBrowser, type TestBrowser } from './browser';

const BROWSER_TIMEOUT_MS = 90_000;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('long calls in the agent UI', { timeout: BROWSER_TIMEOUT_MS }, () => {
  let browser: TestBrowser;
  let stub: StubServer;
  let client: Client;
  const release = deferred();

  beforeAll(async () => {
    browser = await launchBrowser();
    const exportTables = tool({
      name: 'export_tables',
      description: 'Exports every table.',
      async *execute(_input, ctx) {
        ctx.progress({ progress: 40, total: 100, message: 'exported orders' });
        yield { tables: 40, widget: { type: 'Badge', label: '40 tables so far', color: 'info' } };
        await release.promise;
        ctx.progress({ progress: 100, total: 100, message: 'all tables exported' });
        return 'exported 100 tables';
      },
    });
    stub = await startStubServer({
      apiKeys: ['k'],
      logger: silentLogger,
      agents: [{ name: 'Exporter', instructions: 'Export.', tools: ['export_tables'] }],
      model: scriptedModel({
        Exporter: [{ toolCalls: [{ name: 'export_tables' }] }, { text: 'Export finished.' }],
      }),
    });
    client = new Client({ url: stub.url, apiKey: 'k', tools: [exportTables] });
    await client.connect();
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    release.resolve();
    await client?.close({ drain: false });
    await stub?.close();
    await browser?.close();
  });

  it('draws the progress bar and message, and the preliminary result, under the running call, then the result', async () => {
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/#key=k`);
    await page.getByRole('textbox', { name: 'Message' }).fill('Export everything.');
    await page.getByRole('button', { name: 'Send' }).click();
    const call = page.locator('.call[data-tool="export_tables"]');
    const line = call.locator('.call-progress[data-progress="40"]');
    await line.waitFor();
    expect(await line.locator('.progress-text').textContent()).toBe('40 / 100 · exported orders');
    expect(
      await line
        .locator('progress')
        .evaluate((bar) => [(bar as HTMLProgressElement).value, (bar as HTMLProgressElement).max]),
    ).toEqual([40, 100]);
    expect(await call.getAttribute('data-status')).toBeNull();
    const preliminary = call.locator('.call-preliminary');
    await preliminary.locator('.w-badge').waitFor();
    expect(await preliminary.locator('pre').textContent()).toBe('{"tables":40}');
    expect(await preliminary.locator('.w-badge').textContent()).toBe('40 tables so far');
    release.resolve();
    await page.locator('.run[data-status="completed"]').waitFor();
    expect(await call.locator('.call-progress .progress-text').textContent()).toBe(
      '100 / 100 · all tables exported',
    );
    expect(await call.locator('.call-progress').count()).toBe(1);
    // The result replaces the preliminary one.
    expect(await call.locator('.call-preliminary').count()).toBe(0);
    expect(await call.locator('.call-output pre').textContent()).toBe('exported 100 tables');
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
