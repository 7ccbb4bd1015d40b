/**
 * One headless Chromium for the whole browser tier (vitest `globalSetup` of the `browser` project): launched once
 * before its first file, shut after its last. Each test file connects to it and gets a fresh browser context of
 * its own (test/ui/browser.ts), as clean as a fresh profile, without paying a Chromium start per file.
 */
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

/** The flags Chromium runs with: every background service off, so that the only traffic is to the stub. */
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

declare module 'vitest' {
  interface ProvidedContext {
    /** The WebSocket address of the tier's Chromium, for playwright's `chromium.connect()`. */
    chromiumEndpoint: string;
  }
}

export default async function launchChromium(project: TestProject): Promise<() => Promise<void>> {
  const { chromium: executablePath } = project.getProvidedContext();
  const server = await chromium.launchServer({ executablePath, args: CHROMIUM_ARGS });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
