/**
 * The Client in a browser. Run: npx tsx examples/browser/main.ts, then open the printed URL.
 *
 * Starts the embedded stub with a scripted model, bundles page.ts for the browser with esbuild, and serves the
 * page from a small HTTP server on 127.0.0.1. The page connects to the stub with the browser's own WebSocket.
 */
import { createServer } from 'node:http';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { scriptedModel, silentLogger, startStubServer } from 'toolwire/server-stub';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles the page script as an application would with toolwire's `browser` export condition: toolwire and zod
 * for the browser, code split. `ws` is never loaded there.
 * @returns each output file's text by its name (`page.js` and its chunks).
 */
export async function bundlePage(): Promise<Map<string, string>> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { page: 'examples/browser/page.ts' },
    bundle: true,
    write: false,
    splitting: true,
    outdir: 'examples/browser/out', // never written (write: false)
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    external: ['ws'],
    alias: { toolwire: './src/index.ts' },
    logLevel: 'warning',
  });
  return new Map(result.outputFiles.map((file) => [basename(file.path), file.text]));
}

/** Starts the stub and the page server; resolves with the page URL and a function that stops both. */
export async function startBrowserExample(port = 0): Promise<{ pageUrl: string; close(): Promise<void> }> {
  const stub = await startStubServer({
    apiKeys: ['browser-key'],
    logger: silentLogger,
    model: scriptedModel([
      { toolCalls: [{ name: 'page_title' }, { name: 'count_elements', arguments: { selector: 'ul li' } }] },
      ({ messages }) => {
        const [title, items] = messages.filter((m) => m.role === 'tool').map((m) => m.content);
        return { text: `The page is titled ${title} and has ${items} list items.` };
      },
    ]),
  });
  const scripts = await bundlePage();
  const config = JSON.stringify({ url: stub.url, apiKey: 'browser-key' }).replaceAll('<', '\\u003c');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>"toolwire in a browser"</title></head>
<body><h1>toolwire in a browser</h1><ul><li>one</li><li>two</li></ul><ol id="log"></ol>
<script type="application/json" id="config">${config}</script><script type="module" src="/page.js"></script></body></html>`;
  const server = createServer((request, response) => {
    const script = scripts.get(request.url?.slice(1) ?? '');
    if (script !== undefined) {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    } else if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  const pageUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/`;
  return {
    pageUrl,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stub.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { pageUrl, close } = await startBrowserExample(Number(process.env.PORT ?? 0));
  console.log(`open ${pageUrl} in a browser (the page runs a toolwire Client); Ctrl-C stops`);
  const stop = () => void close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
