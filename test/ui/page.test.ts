/**
 * The agent UI in a real browser (Debian's Chromium through playwright-core): the demo's conversation with its
 * widgets and both approval outcomes, hostile and broken widget payloads, the missing-client message, the API
 * key, and a stub restart. Screenshots go to test/artifacts/ (git-ignored).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_INPUT } from '../../examples/demo/script';
import { type StubServer, scriptedModel, startStubServer } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { TestClient, toolDef } from '../stub/test-client';
import { startTcpProxy } from '../support/tcp-proxy';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';
import { type RunningDemo, startDemo } from './demo-process';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

const browser = useBrowser();
beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
});

/** Grows the window to the transcript's height and saves a screenshot; returns the PNG's bytes. */
async function screenshot(page: Page, name: string): Promise<Buffer> {
  const height = await page.evaluate(() => document.querySelector('.scroller')?.scrollHeight ?? 900);
  await page.setViewportSize({ width: 1280, height: Math.min(Math.max(900, height + 200), 6000) });
  const path = `${ARTIFACTS}${name}`;
  await page.screenshot({ path });
  return readFile(path);
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('the agent UI with the demo (npm start -- --ui)', { timeout: BROWSER_TIMEOUT_MS }, () => {
  const stop = new AbortController();
  let demo: RunningDemo;
  let url = '';

  beforeAll(async () => {
    demo = await startDemo(['--ui'], stop.signal);
    url = demo.url;
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    stop.abort();
    expect(await demo.exited).toBe(0);
  });

  it('prints a loopback URL carrying the key in its fragment', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#key=demo-key$/);
  });

  it('streams a run with its calls and widgets, takes the approval in the page and shows the answer', async () => {
    const page = await browser.page();
    await page.goto(url);
    // The key moved from the address bar to the tab's session storage.
    expect(new URL(page.url()).hash).toBe('');
    await page.locator('.connection[data-state="online"]').waitFor();
    expect(await page.locator('.connection').textContent()).toBe('connected · 1 client');
    // The demo's model is a script, and the page says so: in the top bar and above the composer.
    expect(await page.locator('.model-badge').textContent()).toBe('scripted model');
    expect(await page.locator('.notices .notice').allTextContents()).toEqual([
      'This stub plays a scripted model: its answers come from a script, not a language model, and it plays the same turns whatever you type.',
    ]);
    expect(await page.getByRole('combobox', { name: 'Agent' }).inputValue()).toBe('Support');

    await page.getByRole('textbox', { name: 'Message' }).fill(DEMO_INPUT);
    await page.getByRole('button', { name: 'Send' }).click();
    expect(await page.locator('.msg.user .bubble').textContent()).toBe(DEMO_INPUT);

    // The order card: a Card with a coloured Badge, a Text and a Table.
    const card = page.locator('.w-card', { hasText: 'Order ord_7001' });
    await card.waitFor();
    expect(await card.locator('.w-card-title').textContent()).toBe('Order ord_7001');
    const badge = card.locator('.w-badge');
    expect(await badge.textContent()).toBe('shipped');
    expect(await badge.evaluate((node) => getComputedStyle(node).backgroundColor)).toBe('rgb(22, 163, 74)');
    expect(await card.locator('.w-table th').allTextContents()).toEqual(['Product', 'Qty', 'Price']);
    expect(await card.locator('.w-table tbody tr').first().locator('td').allTextContents()).toEqual([
      'Mechanical keyboard',
      '1',
      '$89.00',
    ]);

    // Each call: its arguments, status, duration and what the model read.
    const search = page.locator('.call[data-tool="search_orders"]');
    expect(await search.locator('.call-args pre').textContent()).toBe('{\n  "email": "ada@example.com"\n}');
    expect(await search.getAttribute('data-status')).toBe('ok');
    expect(await search.locator('.duration').textContent()).toMatch(/^\d+ ms$/);
    expect(await search.locator('.call-output pre').textContent()).toContain('"count":2');
    const sloppy = page.locator('.call[data-status="invalid_arguments"]');
    expect(await sloppy.locator('.call-output pre').textContent()).toBe(
      'Invalid arguments for show_order: id: expected a string matching /^ord_\\d+$/, received "order 7001"',
    );
    const charge = page.locator('.call[data-tool="charge_card"]');
    await charge.locator('.pill', { hasText: 'error' }).waitFor();
    expect(await charge.locator('.call-output pre').textContent()).toBe(
      'The charge failed. Ask the user to update their card.',
    );

    // The refund is held by the stub until someone decides in the page.
    const refund = page.locator('.call[data-tool="issue_refund"]');
    await refund.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await refund.locator('.pill').textContent()).toBe('awaiting approval');
    expect(await page.locator('.msg.final').count()).toBe(0);
    await refund.getByRole('button', { name: 'Approve' }).click();
    await refund.locator('.decision.approved').waitFor();
    expect(await refund.locator('.decision').textContent()).toBe('Approved in this page');

    const answer = page.locator('.msg.final .bubble');
    await answer.waitFor();
    expect(await page.locator('.msg.final .who').textContent()).toBe(
      'Answer · scripted, not a language model',
    );
    expect(await answer.textContent()).toContain('I refunded $427.00 (refund re_ord_7001).');
    expect(await answer.textContent()).toContain('her most bought product is 27" monitor.');
    await page.locator('.run[data-status="completed"]').waitFor();
    expect(await refund.getAttribute('data-status')).toBe('ok');
    expect(await refund.locator('.call-output pre').textContent()).toBe(
      '{"refundId":"re_ord_7001","amount":"$427.00","status":"refunded"}',
    );
    // The tools ran in the demo's process, which says so in the terminal.
    expect(demo.lines.some((line) => /call issue_refund ok/.test(line))).toBe(true);

    const png = await screenshot(page, 'agent-ui-demo-run.png');
    expect(png.length).toBeGreaterThan(20_000);
    expect(pngSize(png).width).toBe(1280);
    expect(pngSize(png).height).toBeGreaterThan(1200);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('rejects a refund with a reason: the tool does not run and the model reads why', async () => {
    const page = await browser.page();
    await page.goto(url);
    await page.getByRole('textbox', { name: 'Message' }).fill('Please refund my keyboard order.');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const refund = page.locator('.call[data-tool="issue_refund"]');
    await refund.getByRole('button', { name: 'Reject' }).waitFor();
    await refund.getByRole('textbox', { name: 'Reason' }).fill('Refunds over $100 need a manager');
    await refund.getByRole('button', { name: 'Reject' }).click();
    await refund.locator('.decision.rejected').waitFor();
    expect(await refund.locator('.decision').textContent()).toBe(
      'Rejected in this page: Refunds over $100 need a manager',
    );
    await refund.locator('.pill', { hasText: 'rejected' }).waitFor();
    expect(await refund.locator('.call-output pre').textContent()).toBe(
      'issue_refund was not run: the user declined. Reason: Refunds over $100 need a manager',
    );
    const answer = page.locator('.msg.final .bubble');
    await answer.waitFor();
    expect(await answer.textContent()).toContain(
      'The refund was not made: issue_refund was not run: the user declined. Reason: Refunds over $100 need a manager',
    );
    // The first run refunded the order, so the card now shows it refunded, in the neutral colour.
    const badge = page.locator('.w-card .w-badge');
    expect(await badge.textContent()).toBe('refunded');
    expect(await badge.evaluate((node) => node.className)).toBe('w-badge w-badge-neutral');

    // The runs list: newest first, each nested Researcher run under the Support run that asked it.
    await expect
      .poll(
        () =>
          page
            .locator('.runs li')
            .evaluateAll((items) =>
              items.map(
                (item) =>
                  `${(item as HTMLElement).style.paddingLeft} ${item.querySelector('strong')?.textContent} ${(item as HTMLElement).dataset.status}`,
              ),
            ),
        { timeout: 10_000 },
      )
      .toEqual([
        '0px Support completed',
        '14px Researcher completed',
        '0px Support completed',
        '14px Researcher completed',
      ]);
    expect(await page.locator('.runs li').first().locator('.run-preview').textContent()).toBe(
      'Please refund my keyboard order.',
    );
    await page.locator('.runs li').nth(1).getByRole('button').click();
    await page.locator('.run h2', { hasText: 'Researcher' }).waitFor();
    await page.locator('.call[data-tool="customer_stats"][data-status="ok"]').waitFor();
    expect(await page.locator('.msg.user .who').textContent()).toBe('Calling agent');
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';
const SVG_WITH_SCRIPT = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="window.__pwned=1"><rect width="40" height="20" fill="#2563eb"/></svg>',
)}`;

// A 1×1 PNG: images are shown from https:, http: and base64 PNG/JPEG/GIF/WebP data: URLs only.
const PNG_PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function deepCard(levels: number): unknown {
  let widget: unknown = { type: 'Text', value: 'bottom' };
  for (let level = 0; level < levels; level++) widget = { type: 'Card', children: [widget] };
  return widget;
}

const BROKEN: Record<string, unknown> = {
  unknown_type: { type: 'Gauge', value: 3 },
  missing_field: { type: 'Card', title: 'ok', children: [{ type: 'Badge', color: 'info' }] },
  huge_table: {
    type: 'Table',
    columns: ['n', 'square'],
    rows: Array.from({ length: 5000 }, (_, n) => [n, n * n]),
  },
  too_deep: deepCard(40),
  not_an_object: 'just a string',
  svg_image: { type: 'Image', url: SVG_WITH_SCRIPT, alt: 'svg' },
};

describe('widgets from any client', { timeout: BROWSER_TIMEOUT_MS }, () => {
  let stub: StubServer;
  let client: TestClient;

  beforeAll(async () => {
    stub = await startStubServer({
      apiKeys: ['k'],
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      agents: [{ name: 'Probe', instructions: 'Show widgets.', tools: ['probe', 'broken'] }],
      model: scriptedModel({
        Probe: [
          {
            text: `Showing widgets ${HOSTILE}`,
            toolCalls: [
              { name: 'probe' },
              ...Object.keys(BROKEN).map((kind) => ({ name: 'broken', arguments: { kind } })),
            ],
          },
          { text: `Done. ${HOSTILE}` },
        ],
      }),
    });
    // A raw protocol client: it can send what the SDK would refuse to (the SDK drops invalid widgets).
    client = await TestClient.connect(stub.url, {
      apiKey: 'k',
      tools: [toolDef('probe'), toolDef('broken')],
    });
    client.serve({
      probe: () => ({
        output: HOSTILE,
        widget: {
          type: 'Card',
          title: HOSTILE,
          children: [
            { type: 'Text', value: HOSTILE },
            { type: 'Badge', label: '<b>bold</b>', color: 'danger' },
            { type: 'Table', columns: ['<th>x</th>', 'n'], rows: [[HOSTILE, 1]] },
            { type: 'List', items: [HOSTILE, 'second'], ordered: true },
            {
              type: 'Chart',
              kind: 'bar',
              title: 'Tickets <i>per</i> day',
              data: [
                { label: '<i>Mon</i>', value: 3 },
                { label: 'Tue', value: 5 },
                { label: 'Wed', value: 2 },
              ],
            },
            {
              type: 'Chart',
              kind: 'pie',
              data: [
                { label: 'a', value: 1 },
                { label: 'b', value: 2 },
              ],
            },
            { type: 'Image', url: PNG_PIXEL, alt: HOSTILE },
          ],
        },
      }),
      broken: (args) => ({ output: 'broken on purpose', widget: BROKEN[(args as { kind: string }).kind] }),
    });
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    await client?.drop();
    await stub?.close();
  });

  it('renders strings from tools and the model as text, never as HTML', async () => {
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/#key=k`);
    await page.getByRole('textbox', { name: 'Message' }).fill(HOSTILE);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.run[data-status="completed"]').waitFor();

    const probe = page.locator('.call[data-tool="probe"]');
    expect(await probe.locator('.w-card-title').textContent()).toBe(HOSTILE);
    expect(await probe.locator('.w-text').textContent()).toBe(HOSTILE);
    expect(await probe.locator('.w-badge').textContent()).toBe('<b>bold</b>');
    expect(await probe.locator('.w-badge').getAttribute('class')).toBe('w-badge w-badge-danger');
    expect(await probe.locator('.w-table th').allTextContents()).toEqual(['<th>x</th>', 'n']);
    expect(await probe.locator('.w-table td').allTextContents()).toEqual([HOSTILE, '1']);
    expect(await probe.locator('.w-list li').allTextContents()).toEqual([HOSTILE, 'second']);
    expect(await probe.locator('.call-output pre').textContent()).toBe(HOSTILE);
    expect(await page.locator('.msg.user .bubble').textContent()).toBe(HOSTILE);
    expect(await page.locator('.msg.final .bubble').textContent()).toBe(`Done. ${HOSTILE}`);
    expect(await page.locator('.runs .run-preview').first().textContent()).toBe(HOSTILE);
    // Nothing was parsed: no element from the payloads exists, and nothing ran.
    expect(
      await page.locator('.thread img[src="x"], .thread script, .thread b, .thread i, .runs img').count(),
    ).toBe(0);
    // The image is an <img>, with the hostile alt text as an attribute (an SVG image is refused: see below).
    const image = probe.locator('.w-image img');
    expect(await image.getAttribute('alt')).toBe(HOSTILE);
    // Images load lazily: bring it into view, then wait for it to be decoded.
    await image.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => (document.querySelector('.w-image img') as HTMLImageElement).complete);
    expect(await image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();

    // Charts are drawn by Chart.js on canvases of the box's size.
    const charts = probe.locator('.w-chart canvas');
    expect(await charts.count()).toBe(2);
    const sizes = await charts.evaluateAll((canvases) =>
      canvases.map((canvas) => [(canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height]),
    );
    for (const [width, height] of sizes) {
      expect(width).toBeGreaterThan(100);
      expect(height).toBeGreaterThan(100);
    }
    expect(await charts.first().getAttribute('aria-label')).toBe('bar chart: Tickets <i>per</i> day');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows a bad widget as a contained error box and carries on', async () => {
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/#key=k`);
    await page.getByRole('textbox', { name: 'Message' }).fill('show me broken widgets');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.run[data-status="completed"]').waitFor();
    const broken = page.locator('.call[data-tool="broken"]');
    // Every broken call, each with its result drawn (a completed run of an earlier test may be on screen first).
    await expect.poll(() => broken.count(), { timeout: 10_000 }).toBe(Object.keys(BROKEN).length);
    await expect
      .poll(() => page.locator('.call[data-tool="broken"] .widget-error').count(), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(Object.keys(BROKEN).length - 1);
    const boxes = await broken.evaluateAll((cards) =>
      cards.map((card) => {
        const box = card.querySelector('.widget-error:not(.widget-notice)');
        return box
          ? `${box.querySelector('strong')?.textContent}${box.querySelector('span')?.textContent}`
          : 'none';
      }),
    );
    expect(boxes).toEqual([
      'Gauge widget not shown — type: expected one of "Card", "Text", "Badge", "Table", "Chart", "List", "Image"',
      'Card widget not shown — children[0].label: expected string',
      'none',
      'Card widget not shown — cards are nested more than 8 levels deep',
      'Widget not shown — (root): expected object',
      'Image widget not shown — url: must be an https: or http: URL, or a data:image/(png|jpeg|gif|webp);base64, URL',
    ]);
    // A huge table is cut, under a notice saying so.
    const huge = broken.nth(2);
    expect(await huge.locator('.widget-notice').textContent()).toBe(
      'table too large: 5000 rows; the first 200 are shown',
    );
    expect(await huge.locator('.w-table tbody tr').count()).toBe(200);
    // The box keeps the payload to look at, and the rest of the run is intact.
    expect(await broken.first().locator('.widget-error details pre').textContent()).toBe(
      '{\n  "type": "Gauge",\n  "value": 3\n}',
    );
    expect(await page.locator('.msg.final .bubble').textContent()).toBe(`Done. ${HOSTILE}`);
    const png = await screenshot(page, 'agent-ui-widgets.png');
    expect(png.length).toBeGreaterThan(20_000);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});

describe('connection, clients and keys', { timeout: BROWSER_TIMEOUT_MS }, () => {
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const open: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(open.map((item) => item.close()));
  });

  it('says when no connected client offers the tools the agent needs', async () => {
    const stub = await startStubServer({
      logger: quiet,
      agents: [{ name: 'Lookup', instructions: '', tools: ['lookup', 'notes'] }],
    });
    open.push(stub);
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/`);
    await page.locator('.notice.no-client').waitFor();
    expect(await page.locator('.notice.no-client').textContent()).toContain(
      'No client is connected to the stub, so no tool can run.',
    );
    const other = await TestClient.connect(stub.url, { tools: [toolDef('notes')] });
    open.push({ close: () => other.drop() });
    await page.locator('.notice.missing-tools').waitFor();
    expect(await page.locator('.notice.missing-tools').textContent()).toBe(
      'No connected client offers lookup, which Lookup needs; calls to it would fail with unknown_tool. Connect a client with that tool.',
    );
    const full = await TestClient.connect(stub.url, { tools: [toolDef('lookup'), toolDef('notes')] });
    open.push({ close: () => full.drop() });
    await page.locator('.notice.missing-tools').waitFor({ state: 'detached' });
    // Started without a model, the stub has an empty script: the page says every run would fail.
    expect(await page.locator('.notices .notice').allTextContents()).toEqual([
      'This stub plays a scripted model with no script: every run fails. Give it a script (toolwire-stub --script turns.json) or a real model (--openai-base-url).',
    ]);
    expect(await page.locator('.connection').textContent()).toBe('connected · 2 clients');
    await page.close();
  });

  it('asks for the API key when the URL carries none, and never shows data without it', async () => {
    const stub = await startStubServer({
      apiKeys: ['s3cret'],
      logger: quiet,
      agents: [{ name: 'Echo', instructions: '', tools: [] }],
    });
    open.push(stub);
    const page = await browser.page();
    const served = await page.goto(`${stub.httpUrl}/`);
    expect(await served?.text()).not.toContain('s3cret');
    await page.locator('.connection[data-state="unauthorized"]').waitFor();
    expect(await page.getByRole('combobox', { name: 'Agent' }).locator('option').count()).toBe(0);
    expect(await page.locator('.key-form').textContent()).toContain('The stub wants an API key.');
    await page.getByLabel('API key').fill('wrong');
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.locator('.key-form', { hasText: 'The stub refused that API key.' }).waitFor();
    await page.getByLabel('API key').fill('s3cret');
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.locator('.connection[data-state="online"]').waitFor();
    expect(await page.getByRole('combobox', { name: 'Agent' }).inputValue()).toBe('Echo');
    await page.close();
  });

  it('replays a run after its event stream drops, and the run goes on', async () => {
    const stub = await startStubServer({
      apiKeys: ['k'],
      logger: quiet,
      agents: [{ name: 'Refunder', instructions: '', tools: ['refund'] }],
      model: scriptedModel([{ toolCalls: [{ name: 'refund' }] }, { text: 'refunded' }]),
    });
    open.push(stub);
    const client = await TestClient.connect(stub.url, { apiKey: 'k', tools: [toolDef('refund', true)] });
    client.serve({ refund: () => 'ok' });
    open.push({ close: () => client.drop() });
    const proxy = await startTcpProxy({ targetPort: stub.port });
    open.push(proxy);
    const page = await browser.page();
    await page.goto(`http://127.0.0.1:${proxy.port}/#key=k`);
    await page.getByRole('textbox', { name: 'Message' }).fill('refund please');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    // Mark what is on screen, break every connection, and wait for the view to be rebuilt from the replay.
    await page.locator('.approve').evaluate((button) => {
      (button as HTMLElement & { stale?: boolean }).stale = true;
    });
    expect(proxy.dropAll()).toBeGreaterThan(0);
    await page.waitForFunction(() => {
      const button = document.querySelector('.approve') as (HTMLElement & { stale?: boolean }) | null;
      return button !== null && button.stale !== true;
    });
    expect(await page.locator('.call[data-tool="refund"]').count()).toBe(1);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.msg.final .bubble', { hasText: 'refunded' }).waitFor();
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('shows a run the stub forgot as no longer live: no running calls, no Cancel, nothing to decide', async () => {
    const stub = await startStubServer({
      apiKeys: ['k'],
      logger: quiet,
      agents: [{ name: 'Refunder', instructions: '', tools: ['refund', 'slow'] }],
      model: scriptedModel([{ toolCalls: [{ name: 'refund' }, { name: 'slow' }] }, { text: 'done' }]),
    });
    open.push(stub);
    const refund = tool({
      name: 'refund',
      description: 'Refunds.',
      needsApproval: true,
      execute: () => 'ok',
    });
    const slow = tool({
      name: 'slow',
      description: 'Works until cancelled.',
      execute: async (_input, ctx) => {
        await ctx.progress({ progress: 1, message: 'working' });
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return 'stopped';
      },
    });
    const client = new Client({ url: stub.url, apiKey: 'k', tools: [refund, slow], reconnect: false });
    await client.connect();
    open.push({ close: () => client.close({ drain: false }) });
    const proxy = await startTcpProxy({ targetPort: stub.port });
    open.push(proxy);
    const page = await browser.page();
    await page.goto(`http://127.0.0.1:${proxy.port}/#key=k`);
    await page.getByRole('textbox', { name: 'Message' }).fill('refund please');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await page.locator('.call[data-tool="slow"] .progress-bar').waitFor();
    const runId = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('run');
    // The stub restarts (as after a crash): the stream breaks without its end, and the run is unknown from now on.
    await page.route(`**/v1/runs/${runId}`, (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'unknown_run', message: `no run "${runId}"` } }),
      }),
    );
    expect(proxy.dropAll()).toBeGreaterThan(0);
    await page.locator('.thread .notice', { hasText: 'not on the stub any more' }).waitFor();
    const counts = page.locator('.run-head .run-counts');
    expect(await counts.textContent()).toBe('2 calls');
    expect(await counts.getAttribute('data-running')).toBe('0');
    expect(await page.locator('.run').getAttribute('data-status')).toBe('unknown');
    expect(await page.locator('.run-head .run-status').textContent()).toBe('unknown');
    expect(await page.locator('.run-head .cancel-run').isVisible()).toBe(false);
    expect(await page.locator('.run-head .live').textContent()).toBe('');
    expect(await page.locator('.progress-bar').count()).toBe(0);
    expect(await page.locator('.approval').count()).toBe(0);
    expect(
      await page
        .locator('.call')
        .evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.status)),
    ).toEqual(['unknown', 'unknown']);
    expect(await page.locator('.call .decision').textContent()).toBe(
      'No decision: the stub no longer knows this run',
    );
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('follows the stub through a restart on the same port', async () => {
    const options = {
      apiKeys: ['k'],
      logger: quiet,
      agents: [{ name: 'Refunder', instructions: '', tools: ['refund'] }],
      model: scriptedModel([{ toolCalls: [{ name: 'refund' }] }, { text: 'refunded' }]),
    };
    let stub = await startStubServer(options);
    const port = stub.port;
    let client = await TestClient.connect(stub.url, { apiKey: 'k', tools: [toolDef('refund', true)] });
    client.serve({ refund: () => 'ok' });
    const page = await browser.page();
    await page.goto(`${stub.httpUrl}/#key=k`);
    await page.getByRole('textbox', { name: 'Message' }).fill('refund please');
    await page.getByRole('button', { name: 'Send' }).click();
    // The run waits for an approval while the stub shuts down, which cancels it.
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await client.drop();
    await stub.close();
    await page.locator('.run-end', { hasText: 'Run cancelled' }).waitFor();
    expect(await page.locator('.call .decision').textContent()).toBe('No decision');
    await page.locator('.connection[data-state="offline"]').waitFor();
    expect(await page.locator('.notices .notice').textContent()).toContain('is not answering');

    stub = await startStubServer({ ...options, port });
    open.push(stub);
    client = await TestClient.connect(stub.url, { apiKey: 'k', tools: [toolDef('refund', true)] });
    client.serve({ refund: () => 'ok' });
    open.push({ close: () => client.drop() });
    await page.locator('.connection[data-state="online"]').waitFor();
    await page.locator('.runs .runs-empty').waitFor();
    // The new stub does not know the old run (runs live in memory); opening it says so instead of spinning.
    await page.reload();
    await page.locator('.thread .notice', { hasText: 'not on the stub any more' }).waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('again');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.msg.final .bubble', { hasText: 'refunded' }).waitFor();
    expect(await page.locator('.runs li').count()).toBe(1);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
