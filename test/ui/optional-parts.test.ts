/**
 * The optional call code in a real browser, from the package as a user gets it: the repository packed as a fresh
 * clone would be (`npm pack`), installed offline into an empty project, and a page bundled from that project with
 * esbuild for the browser (the `browser` condition: the core, which loads approval, retry, concurrency, steps,
 * questions, the widget check, tracing, `client.decide()` and the questions put to the service with `import()`).
 * The page runs test/runtimes/optional-parts.mjs, whose tools use every one of them, against the stub; the model
 * must read what it reads in Node, and each part must come as a chunk of its own.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { installPacked, sharedPack } from '../package/fresh-pack';
import { SCENARIO_ANSWER, SCENARIO_TRACE, scenarioScript } from '../runtimes/optional-parts.mjs';
import { BROWSER_TIMEOUT_MS, useBrowser } from './browser';

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** Packing builds the package with its types; on a busy machine that takes a while. */
const SETUP_TIMEOUT_MS = 300_000;

/** The page: the scenario with `toolwire` as the browser gets it; its outcome is written on `<body>`. */
const PAGE = `import * as toolwire from 'toolwire';
import { runScenario } from './optional-parts.mjs';

const config = JSON.parse(document.querySelector('#config').textContent);
runScenario(toolwire, config.url, config.apiKey).then(
  (outcome) => {
    document.body.dataset.outcome = JSON.stringify(outcome);
    document.body.dataset.done = 'true';
  },
  (error) => {
    document.body.dataset.outcome = String(error?.stack ?? error);
    document.body.dataset.done = 'error';
  },
);
`;

describe('the optional call code in Chromium, from the packed package', {
  timeout: BROWSER_TIMEOUT_MS,
}, () => {
  const browser = useBrowser();
  let work: string;
  let stub: StubServer;
  let server: Server;
  let pageUrl: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'toolwire-optional-parts-'));
    const app = join(work, 'app');
    await installPacked(repo, await sharedPack(repo, work), app, ['zod']);
    writeFileSync(join(app, 'page.mjs'), PAGE);
    copyFileSync(join(repo, 'test/runtimes/optional-parts.mjs'), join(app, 'optional-parts.mjs'));
    // As an application's bundler: the browser condition, code split, minified.
    const bundled = await build({
      absWorkingDir: app,
      entryPoints: { page: 'page.mjs' },
      bundle: true,
      write: false,
      splitting: true,
      outdir: 'out',
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      logLevel: 'warning',
    });
    const scripts = new Map(bundled.outputFiles.map((file) => [basename(file.path), file.text]));
    // The page is served from an origin of its own (an application's dev server), which the stub lets in
    // (corsOrigins): the page answers a question over the HTTP API.
    let html = '';
    server = createServer((request, response) => {
      const script = scripts.get(request.url?.slice(1) ?? '');
      if (script !== undefined) {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
      } else if (request.url === '/') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    pageUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
    stub = await startStubServer({
      apiKeys: ['page-key'],
      logger: silentLogger,
      corsOrigins: [new URL(pageUrl).origin],
      model: scriptedModel(scenarioScript() as Parameters<typeof scriptedModel>[0]),
    });
    const config = JSON.stringify({ url: stub.url, apiKey: 'page-key' });
    html = `<!doctype html><html><head><meta charset="utf-8"><title>optional parts</title></head><body>
<script type="application/json" id="config">${config}</script><script type="module" src="/page.js"></script></body></html>`;
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await stub?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  }, SETUP_TIMEOUT_MS);

  it('runs approval, retry, concurrency, steps, a question, a widget, tracing and decide() as Node does', async () => {
    const page = await browser.page();
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(basename(new URL(request.url()).pathname));
    });
    await page.goto(pageUrl);
    await page.waitForSelector('body[data-done]', { state: 'attached' });
    const outcome = (await page.getAttribute('body', 'data-outcome')) ?? '';
    expect(await page.getAttribute('body', 'data-done'), outcome).toBe('true');
    const { answer, traced, statuses, answered } = JSON.parse(outcome) as {
      answer: string;
      traced: string[];
      statuses: string[];
      answered: number[];
    };
    expect(answer).toBe(SCENARIO_ANSWER);
    expect(answered).toEqual([200]);
    expect(traced).toEqual(SCENARIO_TRACE);
    expect(statuses).toEqual(['approve_me ok', 'flaky ok', 'keyed ok', 'stepper ok', 'widget_maker ok']);
    expect(page.errors).toEqual([]);
    // Each part is a chunk of its own that the page fetched when it needed it.
    expect(scripts[0]).toBe('page.js');
    for (const part of [
      'approval',
      'policies',
      'retry',
      'concurrency',
      'steps',
      'questions',
      'widget',
      'tracing',
      'decisions',
      'socket-questions',
    ])
      expect(
        scripts.some((name) => name.startsWith(`${part}-`)),
        part,
      ).toBe(true);
  });
});
