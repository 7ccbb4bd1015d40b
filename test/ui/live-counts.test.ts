/**
 * The agent UI's counts and layout in Debian's Chromium: the runs list counts a run's calls as they arrive and
 * finish (not at the next poll), every count of a call and of its run comes from one tally and agrees at every
 * DOM change, question buttons look like the page's other buttons, and the header stays on one line at 390 px.
 * The page's clock is faked (playwright's `page.clock`), so its runs poll never fires during a test: whatever
 * the runs list shows comes from the run's event stream.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Client, tool } from '../../src/index';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const KEY = 'live-counts-test-key';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Checks, at every DOM change, that the counts shown agree: each call's badge with its events list, progress
 * line and preliminary result, and the run's head with its cards and with the runs list. Disagreements are
 * collected in `window.countViolations`; `window.countChecks` says how many changes were checked.
 */
function watchCounts(): void {
  const state = window as unknown as { countViolations: string[]; countChecks: number };
  state.countViolations = [];
  state.countChecks = 0;
  const check = () => {
    state.countChecks += 1;
    const violations: string[] = [];
    for (const card of Array.from(document.querySelectorAll<HTMLElement>('.call'))) {
      const badge = card.querySelector<HTMLElement>('.call-counts');
      const events = card.querySelectorAll('.call-events li').length;
      if (events !== Number(badge?.dataset.events ?? 0)) {
        violations.push(`events: ${events} listed, badge ${badge?.dataset.events}`);
      }
      const line = card.querySelector<HTMLElement>('.call-progress');
      if (line && line.dataset.progress !== badge?.dataset.progress) {
        violations.push(`progress: line ${line.dataset.progress}, badge ${badge?.dataset.progress}`);
      }
      const preliminary = card.querySelector<HTMLElement>('.call-preliminary');
      if (preliminary && preliminary.dataset.count !== badge?.dataset.preliminary) {
        violations.push(
          `preliminary: block ${preliminary.dataset.count}, badge ${badge?.dataset.preliminary}`,
        );
      }
    }
    const head = document.querySelector<HTMLElement>('.run-counts');
    if (head?.dataset.calls !== undefined) {
      const cards = document.querySelectorAll('.call');
      const running = Array.from(cards).filter((card) =>
        ['', 'running', 'awaiting approval'].includes((card as HTMLElement).dataset.status ?? ''),
      ).length;
      if (Number(head.dataset.calls) !== cards.length) {
        violations.push(`calls: head ${head.dataset.calls}, ${cards.length} cards`);
      }
      if (Number(head.dataset.running) !== running) {
        violations.push(`running: head ${head.dataset.running}, ${running} cards`);
      }
      const row = document.querySelector<HTMLElement>('.run-item[aria-current="true"] .run-meta');
      if (row && (row.dataset.calls !== head.dataset.calls || row.dataset.running !== head.dataset.running)) {
        violations.push(
          `runs list ${row.dataset.calls}/${row.dataset.running}, head ${head.dataset.calls}/${head.dataset.running}`,
        );
      }
    }
    state.countViolations.push(...violations);
  };
  new MutationObserver(check).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
}

/** Opens the page with a frozen clock (no runs poll after the first), with `agent` chosen. */
async function open(page: Page, url: string, agent: string): Promise<void> {
  await page.clock.install();
  await page.goto(url);
  const select = page.getByRole('combobox', { name: 'Agent' });
  await select.locator(`option[value="${agent}"]`).waitFor({ state: 'attached' });
  await select.selectOption(agent);
}

const browser = useBrowser();

describe('live counts and layout in the agent UI', { timeout: BROWSER_TIMEOUT_MS }, () => {
  let stub: StubServer;
  let client: Client;
  const firstDone = deferred();
  const secondDone = deferred();
  const countsDone = deferred();
  let url = '';

  beforeAll(async () => {
    const first = tool({
      name: 'first',
      description: 'The first step.',
      execute: async () => {
        await firstDone.promise;
        return 'one';
      },
    });
    const second = tool({
      name: 'second',
      description: 'The second step.',
      execute: async () => {
        await secondDone.promise;
        return 'two';
      },
    });
    const count = tool({
      name: 'count_to_three',
      description: 'Counts to three, telling as it goes.',
      async *execute(_input, ctx) {
        for (let step = 1; step <= 3; step++) {
          ctx.progress({ progress: step, total: 3 });
          yield { done: step };
          ctx.emit('counted', { step });
        }
        await countsDone.promise;
        return 'three';
      },
    });
    const pick = tool({
      name: 'pick_colour',
      description: 'Asks for a colour.',
      execute: (_input, ctx) => ctx.askQuestion('Which colour?', { choices: ['Red', 'Blue'] }),
    });
    stub = await startStubServer({
      apiKeys: [KEY],
      logger: silentLogger,
      agents: [
        { name: 'Stepper', instructions: '', tools: ['first', 'second'] },
        { name: 'Counter', instructions: '', tools: ['count_to_three'] },
        { name: 'Asker', instructions: '', tools: ['pick_colour'] },
      ],
      model: scriptedModel({
        Stepper: [{ toolCalls: [{ name: 'first' }] }, { toolCalls: [{ name: 'second' }] }, { text: 'both' }],
        Counter: [{ toolCalls: [{ name: 'count_to_three' }] }, { text: 'counted' }],
        Asker: [{ toolCalls: [{ name: 'pick_colour' }] }, { text: 'picked' }],
      }),
    });
    client = new Client({
      url: stub.url,
      apiKey: KEY,
      tools: [first, second, count, pick],
      reconnect: false,
    });
    await client.connect();
    url = `${stub.httpUrl}/#key=${KEY}`;
  }, BROWSER_TIMEOUT_MS);

  afterAll(async () => {
    firstDone.resolve();
    secondDone.resolve();
    countsDone.resolve();
    await client?.close({ drain: false });
    await stub?.close();
  });

  it("updates the runs list's call count as calls arrive and finish, without waiting for the poll", async () => {
    const page = await browser.page();
    try {
      await open(page, url, 'Stepper');
      await page.getByRole('textbox', { name: 'Message' }).fill('Two steps.');
      await page.getByRole('button', { name: 'Send' }).click();
      const meta = page.locator('.run-item[aria-current="true"] .run-meta');
      await page.locator('.call[data-tool="first"]').waitFor();
      await page.locator('.run-item[aria-current="true"] .run-meta[data-calls="1"]').waitFor();
      expect(await meta.textContent()).toMatch(/ · 1 call · 1 running$/);

      firstDone.resolve();
      await page.locator('.call[data-tool="second"]').waitFor();
      await page.locator('.run-item[aria-current="true"] .run-meta[data-calls="2"]').waitFor();
      expect(await meta.textContent()).toMatch(/ · 2 calls · 1 running$/);
      expect(await page.locator('.run-counts').textContent()).toBe('2 calls · 1 running');

      secondDone.resolve();
      await page.locator('.run[data-status="completed"]').waitFor();
      expect(await meta.textContent()).toMatch(/ · 2 calls$/);
      expect(await page.locator('.run-counts').textContent()).toBe('2 calls');
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("shows a call's progress, preliminary results and events from one tally that agrees at every change", async () => {
    const page = await browser.page();
    try {
      await page.addInitScript(watchCounts);
      await open(page, url, 'Counter');
      await page.getByRole('textbox', { name: 'Message' }).fill('Count.');
      await page.getByRole('button', { name: 'Send' }).click();
      const call = page.locator('.call[data-tool="count_to_three"]');
      // Progress and preliminary results are snapshots the client coalesces (one per 250 ms, the newest
      // replacing one still waiting), but one still waiting goes before the call's next event: each step's
      // progress and preliminary result reach the page ahead of its event, none lost.
      const badge = call.locator('.call-counts[data-events="3"][data-progress="3"][data-preliminary="3"]');
      await badge.waitFor();
      expect(await badge.textContent()).toBe('progress 3 / 3 · 3 preliminary results · 3 events');
      expect(await call.locator('.call-progress').getAttribute('data-progress')).toBe('3');
      expect(await call.locator('.call-preliminary').getAttribute('data-count')).toBe('3');
      expect(await call.locator('.call-preliminary pre').textContent()).toBe('{"done":3}');
      expect(await call.locator('.call-events li').count()).toBe(3);
      expect(await page.locator('.run-counts').textContent()).toBe('1 call · 1 running');
      expect(await page.locator('.run-item[aria-current="true"] .run-meta').textContent()).toMatch(
        / · 1 call · 1 running$/,
      );

      countsDone.resolve();
      await page.locator('.run[data-status="completed"]').waitFor();
      expect(await call.locator('.call-counts').textContent()).toBe(
        'progress 3 / 3 · 3 preliminary results · 3 events',
      );
      expect(await page.locator('.run-counts').textContent()).toBe('1 call');
      const { violations, checks } = await page.evaluate(() => {
        const state = window as unknown as { countViolations: string[]; countChecks: number };
        return { violations: state.countViolations, checks: state.countChecks };
      });
      expect(violations).toEqual([]);
      expect(checks).toBeGreaterThan(10);
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("styles a question's choice buttons like the page's other buttons", async () => {
    const page = await browser.page();
    try {
      await open(page, url, 'Asker');
      await page.getByRole('textbox', { name: 'Message' }).fill('Pick one.');
      await page.getByRole('button', { name: 'Send' }).click();
      const question = page.locator('.call[data-tool="pick_colour"] .question');
      await question.waitFor();
      const look = (selector: string) =>
        page
          .locator(selector)
          .first()
          .evaluate((button) => {
            const style = getComputedStyle(button);
            return {
              background: style.backgroundColor,
              color: style.color,
              border: style.borderTopWidth,
              radius: style.borderTopLeftRadius,
              padding: style.padding,
              cursor: style.cursor,
            };
          });
      const send = await look('.send');
      expect(send).toEqual({
        background: 'rgb(37, 99, 235)',
        color: 'rgb(255, 255, 255)',
        border: '0px',
        radius: '8px',
        padding: '8px 16px',
        cursor: 'pointer',
      });
      expect(await look('.question button.choice')).toEqual(send);
      const decline = await look('.question button.decline');
      expect([decline.radius, decline.padding, decline.cursor]).toEqual(['8px', '8px 16px', 'pointer']);
      await question.getByRole('button', { name: 'Blue' }).click();
      await page.locator('.run[data-status="completed"]').waitFor();
      expect(await page.locator('.msg.final .bubble').textContent()).toBe('picked');
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('keeps the header on one line at a 390 px wide viewport', async () => {
    const page = await browser.page();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(url);
      await page.locator('.connection[data-state="online"]').waitFor();
      expect(await page.locator('.connection').textContent()).toBe('connected · 1 client');
      expect(await page.locator('.model-badge').textContent()).toBe('scripted model');
      const layout = await page.locator('header.top').evaluate((header) => {
        const box = header.getBoundingClientRect();
        const lineHeight = Number.parseFloat(getComputedStyle(header).lineHeight);
        const padding =
          Number.parseFloat(getComputedStyle(header).paddingTop) +
          Number.parseFloat(getComputedStyle(header).paddingBottom);
        const shown = Array.from(header.children).filter(
          (child) => getComputedStyle(child).display !== 'none' && !(child as HTMLElement).hidden,
        );
        return {
          oneLine: box.height <= lineHeight + padding + 6,
          overflows: header.scrollWidth > header.clientWidth,
          lines: shown.map((child) => child.getClientRects().length),
          inside: shown.every((child) => {
            const rect = child.getBoundingClientRect();
            return rect.left >= box.left && rect.right <= box.right && rect.height <= lineHeight + 6;
          }),
          names: shown.map((child) => child.className),
        };
      });
      expect(layout).toEqual({
        oneLine: true,
        overflows: false,
        lines: [1, 1, 1],
        inside: true,
        names: ['brand', 'model-badge', 'connection'],
      });
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
