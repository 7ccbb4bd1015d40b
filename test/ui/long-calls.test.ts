/**
 * The agent UI with long-running and talking calls (docs/protocol/updates.md), in Debian's Chromium: the progress bar
 * and its message under a running call, and its preliminary result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Client, content, tool } from '../../src/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';
import { type RunningDemo, startDemo } from './demo-process';

// A 1×1 PNG.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const browser = useBrowser();

describe('long calls in the agent UI', { timeout: BROWSER_TIMEOUT_MS }, () => {
  let stub: StubServer;
  let client: Client;
  const release = deferred();

  beforeAll(async () => {
    const exportTables = tool({
      name: 'export_tables',
      description: 'Exports every table.',
      async *execute(_input, ctx) {
        ctx.progress({ progress: 40, total: 100, message: 'exported orders' });
        ctx.emit('table.exported', { table: 'orders', rows: 1200 });
        yield { tables: 40, widget: { type: 'Badge', label: '40 tables so far', color: 'info' } };
        await release.promise;
        ctx.progress({ progress: 100, total: 100, message: 'all tables exported' });
        return 'exported 100 tables';
      },
    });
    const shipExport = tool({
      name: 'ship_export',
      description: 'Ships the export to a warehouse.',
      execute: async (_input, ctx) => {
        const warehouse = await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] });
        const copies = await ctx.askQuestion('How many copies?', { schema: { type: 'integer', minimum: 1 } });
        return `shipped ${String(copies)} copies to ${warehouse}`;
      },
    });
    const drawChart = tool({
      name: 'draw_chart',
      description: 'Draws the Q3 chart.',
      execute: () =>
        content([
          { type: 'text', text: 'The Q3 chart.' },
          { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
          { type: 'json', value: { total: 390 } },
          { type: 'file', data: 'YSxiCjEsMgo=', mediaType: 'text/csv', filename: 'q3.csv' },
        ]),
    });
    stub = await startStubServer({
      apiKeys: ['long-calls-test-key'],
      logger: silentLogger,
      agents: [
        { name: 'Exporter', instructions: 'Export.', tools: ['export_tables'] },
        { name: 'Shipper', instructions: 'Ship.', tools: ['ship_export'] },
        { name: 'Charter', instructions: 'Chart.', tools: ['draw_chart'] },
      ],
      model: scriptedModel({
        Exporter: [{ toolCalls: [{ name: 'export_tables' }] }, { text: 'Export finished.' }],
        Charter: [{ toolCalls: [{ name: 'draw_chart' }] }, { text: 'Here is the chart.' }],
        Shipper: [
          { toolCalls: [{ name: 'ship_export' }] },
          ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
        ],
      }),
    });
    client = new Client({
      url: stub.url,
      apiKey: 'long-calls-test-key',
      tools: [exportTables, shipExport, drawChart],
    });
    await client.connect();
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    release.resolve();
    await client?.close({ drain: false });
    await stub?.close();
  });

  it('draws the progress bar and message, the events and the preliminary result under the running call, then the result', async () => {
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/#key=long-calls-test-key`);
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
    expect(await call.locator('.call-events li').allTextContents()).toEqual([
      'table.exported {"table":"orders","rows":1200}',
    ]);
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

  it('asks the questions of a running call, and posts the answers given in the page', async () => {
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/#key=long-calls-test-key`);
    const select = page.getByRole('combobox', { name: 'Agent' });
    await select.locator('option[value="Shipper"]').waitFor({ state: 'attached' });
    await select.selectOption('Shipper');
    await page.getByRole('textbox', { name: 'Message' }).fill('Ship the export.');
    await page.getByRole('button', { name: 'Send' }).click();
    const call = page.locator('.call[data-tool="ship_export"]');
    const first = call.locator('.question[data-question-id="q1"]');
    await first.waitFor();
    expect(await first.locator('.question-text').textContent()).toBe('Which warehouse?');
    expect(await first.locator('button.choice').allTextContents()).toEqual(['Berlin', 'Lyon']);
    await first.getByRole('button', { name: 'Lyon' }).click();
    const second = call.locator('.question[data-question-id="q2"]');
    await second.waitFor();
    expect(await call.locator('.question-outcome[data-question-id="q1"]').textContent()).toBe(
      'Which warehouse? Answered: Lyon',
    );
    // The stub checks the answer against the schema: 0 is refused, and the box says why and works again.
    await second.getByRole('textbox', { name: 'Answer (JSON)' }).fill('0');
    await second.getByRole('button', { name: 'Answer' }).click();
    await second.locator('.question-error:not([hidden])').waitFor();
    expect(await second.locator('.question-error').textContent()).toContain(
      'answer does not match the question',
    );
    await second.getByRole('textbox', { name: 'Answer (JSON)' }).fill('2');
    await second.getByRole('button', { name: 'Answer' }).click();
    await page.locator('.run[data-status="completed"]').waitFor();
    expect(await call.locator('.call-output pre').textContent()).toBe('shipped 2 copies to Lyon');
    expect(await page.locator('.msg.final .bubble').textContent()).toBe('shipped 2 copies to Lyon');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('draws the content parts of a result: the image, the JSON and the file', async () => {
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/#key=long-calls-test-key`);
    const select = page.getByRole('combobox', { name: 'Agent' });
    await select.locator('option[value="Charter"]').waitFor({ state: 'attached' });
    await select.selectOption('Charter');
    await page.getByRole('textbox', { name: 'Message' }).fill('Chart Q3.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.run[data-status="completed"]').waitFor();
    const call = page.locator('.call[data-tool="draw_chart"]');
    expect(await call.locator('.call-output pre').textContent()).toBe(
      'The Q3 chart.\n[image: image/png, 70 bytes]\n{"total":390}\n[file q3.csv: text/csv, 8 bytes]',
    );
    const image = call.locator('.call-content img');
    await image.scrollIntoViewIfNeeded();
    await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    expect(await call.locator('.call-content .content-json').textContent()).toBe('{\n  "total": 390\n}');
    expect(await call.locator('.call-content .content-file').textContent()).toBe(
      'q3.csv (text/csv, 8 bytes)',
    );
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

describe('the demo export in the agent UI (npm start -- --ui)', { timeout: BROWSER_TIMEOUT_MS }, () => {
  const stop = new AbortController();
  let demo: RunningDemo;

  beforeAll(async () => {
    demo = await startDemo(['--ui'], stop.signal);
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    stop.abort();
    expect(await demo.exited).toBe(0);
  });

  it('asks which warehouse in the page, then shows the export progress, its events and the result', async () => {
    const page = await browser.page();
    await page.goto(demo.url);
    const select = page.getByRole('combobox', { name: 'Agent' });
    await select.locator('option[value="Operations"]').waitFor({ state: 'attached' });
    await select.selectOption('Operations');
    await page.getByRole('textbox', { name: 'Message' }).fill("Export today's orders to the warehouse.");
    await page.getByRole('button', { name: 'Send' }).click();
    const call = page.locator('.call[data-tool="export_orders"]');
    const question = call.locator('.question');
    await question.waitFor();
    expect(await question.locator('.question-text').textContent()).toBe(
      'Which warehouse should the export go to?',
    );
    await question.getByRole('button', { name: 'Lyon' }).click();
    await call.locator('.call-progress').waitFor();
    await page.locator('.run[data-status="completed"]').waitFor({ timeout: 30_000 });
    expect(await call.locator('.call-progress .progress-text').textContent()).toBe(
      '513 / 513 · all 513 orders are in Lyon',
    );
    expect(await call.locator('.call-events li').count()).toBe(11);
    expect(await call.locator('.call-output pre').textContent()).toBe(
      '{"warehouse":"Lyon","orders":513,"batches":11}',
    );
    expect(await page.locator('.msg.final .bubble').textContent()).toBe(
      'Exported 513 orders to Lyon in 11 batches.',
    );
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
