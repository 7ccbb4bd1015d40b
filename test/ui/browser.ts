/**
 * Headless Chromium for the UI tests: the binary vitest.config.ts finds (Debian's `chromium`, installed by
 * `.ci/run` with apt-get, or `TOOLWIRE_CHROMIUM`), started once for the tier by test/ui/chromium-server.ts and
 * driven by playwright-core, with a fresh browser context per test file, so that no cookie, storage or cache
 * passes from one file to the next and the only traffic is to the stub on 127.0.0.1. Without a browser, the
 * config leaves these tests out and says so once.
 */
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';

/** A browser context of its own on the tier's Chromium. */
export interface TestBrowser {
  context: BrowserContext;
  /** A new tab that fails the test on uncaught page errors (collected in `errors`) and requests off loopback. */
  page(): Promise<Page & { errors: string[] }>;
  close(): Promise<void>;
}

/**
 * Connects to the tier's Chromium and opens a fresh context in it.
 * @throws Error saying how to get one when no Chromium is found.
 */
export async function openBrowser(): Promise<TestBrowser> {
  if (inject('chromium') === '') {
    throw new Error('no Chromium found: apt-get install chromium, or set TOOLWIRE_CHROMIUM to its binary');
  }
  const browser = await chromium.connect(inject('chromiumEndpoint'));
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Loopback only: anything else is aborted (and would show up as a failed resource in the page).
  await context.route(
    (url) =>
      !['127.0.0.1', 'localhost', 'localhost.', '[::1]'].includes(url.hostname) && url.protocol !== 'data:',
    (route) => route.abort('blockedbyclient'),
  );
  return {
    context,
    async page() {
      const page = Object.assign(await context.newPage(), { errors: [] as string[] });
      // A wait is for the page, not a speed test: a run of seven calls (one a 5,000-row widget the page refuses)
      // took 16.6 s once on a 2-core CI machine running the other tiers beside Chromium. The test's own limit
      // (BROWSER_TIMEOUT_MS) still bounds a page that never gets there.
      page.setDefaultTimeout(40_000);
      page.on('pageerror', (error) => page.errors.push(error.message));
      return page;
    },
    async close() {
      await context.close();
      // Leaves the tier's Chromium running for the next file: this only disconnects.
      await browser.close();
    },
  };
}

/** What a test given one browser may take, in milliseconds (a cold Chromium start included). */
export const BROWSER_TIMEOUT_MS = 90_000;

/**
 * A browser context for the test file: opened before its tests (within {@link BROWSER_TIMEOUT_MS}), closed after
 * them. Returns a handle whose `page()` opens a tab in it.
 */
export function useBrowser(): Pick<TestBrowser, 'page'> {
  let browser: TestBrowser | undefined;
  beforeAll(async () => {
    browser = await openBrowser();
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    page() {
      if (browser === undefined) throw new Error('useBrowser(): the browser context is not open yet');
      return browser.page();
    },
  };
}
