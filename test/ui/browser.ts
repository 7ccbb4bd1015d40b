/**
 * Headless Chromium for the UI tests: the binary vitest.config.ts finds (Debian's `chromium`, installed by
 * `.ci/run` with apt-get, or `TOOLWIRE_CHROMIUM`) driven by playwright-core, with a fresh profile per launch and
 * every background service off, so that the only traffic is to the stub on 127.0.0.1. Without a browser, the
 * config leaves these tests out and says so once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';

/** The flags every launch uses (playwright adds the profile as `--user-data-dir`). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/** A browser with its own throwaway profile directory. */
export interface TestBrowser {
  context: BrowserContext;
  /** A new tab that fails the test on uncaught page errors (collected in `errors`) and requests off loopback. */
  page(): Promise<Page & { errors: string[] }>;
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh `--user-data-dir`.
 * @throws Error saying how to get one when no Chromium is found.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const executablePath = inject('chromium');
  if (executablePath === '') {
    throw new Error('no Chromium found: apt-get install chromium, or set TOOLWIRE_CHROMIUM to its binary');
  }
  const profile = await mkdtemp(join(tmpdir(), 'toolwire-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  // Loopback only: anything else is aborted (and would show up as a failed resource in the page).
  await context.route(
    (url) => !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && url.protocol !== 'data:',
    (route) => route.abort('blockedbyclient'),
  );
  return {
    context,
    async page() {
      const page = Object.assign(await context.newPage(), { errors: [] as string[] });
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => page.errors.push(error.message));
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** What a test given one browser may take, in milliseconds (a cold Chromium start included). */
export const BROWSER_TIMEOUT_MS = 90_000;

/**
 * One Chromium for the test file: launched before its tests (within {@link BROWSER_TIMEOUT_MS}), closed after
 * them. Returns a handle whose `page()` opens a tab in it.
 */
export function useBrowser(): Pick<TestBrowser, 'page'> {
  let browser: TestBrowser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    page() {
      if (browser === undefined) throw new Error('useBrowser(): the browser is not launched yet');
      return browser.page();
    },
  };
}
