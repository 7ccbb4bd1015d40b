/**
 * What of the browser first download a plain page never runs: `npx tsx bench/coverage.ts` bundles a page that
 * defines two zod tools and connects (as bench/lib/bundle-size.ts builds it: esbuild, browser, minified, split),
 * serves it to headless Chromium next to the stub, lets the stub's model call both tools, and takes V8's block
 * coverage of the page's first download. Prints the bytes never run by source file (minified, and gzip estimated
 * at the bundle's ratio), and with `--runs` each never-run stretch with its source line, to group by concept.
 *
 * @module
 */
import { createServer } from 'node:http';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tokenizer } from 'acorn';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { SourceMapConsumer } from 'source-map-js';
import { scriptedModel, silentLogger, startStubServer } from '../server-stub/index';
import { ROOT } from './lib/build';
import { conceptOf } from './lib/bundle-size';

const PAGE = `import { Client, tool } from './src/index.ts';
import { z } from 'zod';
const add = tool({ name: 'add', description: 'Adds two numbers.', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => ({ sum: a + b, note: 'an object the model reads as JSON' }) });
const echo = tool({ name: 'echo', description: 'Says it back.', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
const config = JSON.parse(document.querySelector('#config').textContent);
const client = new Client({ url: config.url, apiKey: config.apiKey, tools: [add, echo] });
client.connect().then(() => { document.body.dataset.connected = 'true'; }, (e) => console.log(String(e)));`;

const stub = await startStubServer({
  apiKeys: ['tw_live_4f9c2a7e1b3d5a60'],
  logger: silentLogger,
  model: scriptedModel([
    {
      toolCalls: [
        { name: 'add', arguments: { a: 1, b: 2 } },
        { name: 'echo', arguments: { text: 'A longer text, as a page answers: 100% done, path C:\\tmp.' } },
      ],
    },
    { toolCalls: [{ name: 'add', arguments: { a: 3, b: 4 } }] },
    { text: 'done' },
  ]),
});

const result = await build({
  absWorkingDir: ROOT,
  stdin: { contents: PAGE, resolveDir: ROOT, loader: 'ts', sourcefile: 'page.ts' },
  bundle: true,
  minify: true,
  splitting: true,
  sourcemap: 'external',
  outdir: 'bench-coverage', // never written
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  external: ['ws'],
  write: false,
  metafile: true,
  logLevel: 'silent',
});
const files = new Map(result.outputFiles.map((file) => [basename(file.path), file.text]));
const entry = Object.keys(result.metafile.outputs).find(
  (path) => result.metafile.outputs[path]!.entryPoint === 'page.ts',
)!;
const config = JSON.stringify({ url: stub.url, apiKey: 'tw_live_4f9c2a7e1b3d5a60' });
const html = `<!doctype html><html><body><script type="application/json" id="config">${config}</script><script type="module" src="/${basename(entry)}"></script></body></html>`;
const server = createServer((request, response) => {
  const script = files.get(request.url?.slice(1) ?? '');
  if (script !== undefined) response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
  else if (request.url === '/') response.writeHead(200, { 'content-type': 'text/html' }).end(html);
  else response.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;

const browser = await chromium.launch({
  executablePath: process.env.TOOLWIRE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
const page = await browser.newPage();
const errors: string[] = [];
page.on('pageerror', (error) => errors.push(error.message));
page.on('requestfailed', (request) => errors.push(`failed to load ${request.url()}`));
await page.coverage.startJSCoverage({ resetOnNavigation: false });
await page.goto(`http://127.0.0.1:${port}/`);
await page.waitForSelector('body[data-connected]', { state: 'attached' });
const runId = stub.runs.start(
  { name: 'Page', instructions: 'Use the tools.', tools: ['add', 'echo'] },
  'go',
  { apiKey: 'tw_live_4f9c2a7e1b3d5a60' },
);
const transcript = await stub.runs.waitFor(runId);
// The acks of the last results.
await new Promise((resolve) => setTimeout(resolve, 300));
const coverage = await page.coverage.stopJSCoverage();
await browser.close();
server.close();
await stub.close();
if (errors.length > 0) console.log('page errors:', errors);
console.log(`run ${transcript.status}`);

interface Stretch {
  source: string;
  line: number;
  bytes: number;
  text: string;
}
const bySource = new Map<string, { total: number; unrun: number }>();
const stretches: Stretch[] = [];
const unrunParts: string[] = [];
const srcParts: string[] = [];
const srcSources: string[] = [];
const srcUnrun: boolean[] = [];
/** Whether each src/ byte is inside a string or template literal (a message text, mostly). */
const srcInText: boolean[] = [];
const mine = (source: string) => source.startsWith('src/');
const runParts: string[] = [];
for (const entryCoverage of coverage) {
  const name = basename(new URL(entryCoverage.url).pathname);
  const text = files.get(name);
  if (text === undefined) continue;
  const count = new Int32Array(text.length).fill(-1);
  // Ranges nest, outer first: the innermost wins.
  for (const fn of entryCoverage.functions) {
    for (const range of fn.ranges) count.fill(range.count, range.startOffset, range.endOffset);
  }
  const map = new SourceMapConsumer(JSON.parse(files.get(`${name}.map`)!));
  // Each mapping starts a segment, at its offset in the output (minified output has a line per template
  // literal's line break).
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const segments: Array<{ column: number; source: string; line: number }> = [];
  map.eachMapping((m) => {
    segments.push({
      column: lineStarts[m.generatedLine - 1]! + m.generatedColumn,
      source: m.source ?? '?',
      line: m.originalLine ?? 0,
    });
  });
  segments.sort((a, b) => a.column - b.column);
  const firstLineEnd = text.length;
  const inText = new Uint8Array(text.length);
  for (const token of tokenizer(text, { ecmaVersion: 'latest', sourceType: 'module' })) {
    if (token.type.label === 'string' || token.type.label === 'template')
      inText.fill(1, token.start, token.end);
  }
  let segment = 0;
  let open: Stretch | undefined;
  for (let i = 0; i < firstLineEnd; i++) {
    while (segment + 1 < segments.length && segments[segment + 1]!.column <= i) segment++;
    const at = segments[segment];
    const source = at === undefined ? '?' : at.source.replace(/^.*?(src\/|node_modules\/)/, '$1');
    const stats = bySource.get(source) ?? { total: 0, unrun: 0 };
    bySource.set(source, stats);
    stats.total++;
    if (!mine(source)) continue;
    srcParts.push(text[i]!);
    srcSources.push(source);
    srcUnrun.push(count[i] === 0);
    srcInText.push(inText[i] === 1);
    if (count[i] === 0) {
      stats.unrun++;
      unrunParts.push(text[i]!);
      if (open === undefined || open.source !== source) {
        open = { source, line: at?.line ?? 0, bytes: 0, text: '' };
        stretches.push(open);
      }
      open.bytes++;
      open.text += text[i];
    } else {
      runParts.push(text[i]!);
      open = undefined;
    }
  }
}
const all = [...files].filter(
  ([name]) => name.endsWith('.js') && coverage.some((c) => c.url.endsWith(`/${name}`)),
);
let total = 0;
let unrun = 0;
for (const [source, stats] of bySource) {
  if (!mine(source)) continue;
  total += stats.total;
  unrun += stats.unrun;
}
const gz = (s: string) => gzipSync(s, { level: 9 }).byteLength;
console.log(`loaded: ${all.map(([name]) => name).join(', ')}`);
console.log(
  `src/: ${total} B min, of which never run ${unrun} B (${((unrun / total) * 100).toFixed(1)}%); all loaded: gzip ${gz(all.map(([, t]) => t).join(''))} B; run part alone gzip ${gz(runParts.join(''))} B, never-run part alone gzip ${gz(unrunParts.join(''))} B`,
);
const srcGzip = gz(srcParts.join(''));
console.log(`src/ alone gzip ${srcGzip} B`);
/** What gzip saves when the never-run bytes of the files `which` picks are left out. */
const saved = (which: (source: string) => boolean) =>
  srcGzip - gz(srcParts.filter((_, i) => !(srcUnrun[i] && which(srcSources[i]!))).join(''));
console.log(`all never-run bytes left out: -${saved(() => true)} B gzip`);
console.log(
  `never-run bytes in string and template literals: ${srcParts.filter((_, i) => srcUnrun[i] && srcInText[i]).length} B min, -${srcGzip - gz(srcParts.filter((_, i) => !(srcUnrun[i] && srcInText[i])).join(''))} B gzip left out`,
);
console.log("\nnever run, by concept (gzip: what leaving out that concept's never-run bytes saves):");
const concepts = new Map<string, number>();
for (let i = 0; i < srcParts.length; i++) {
  if (srcUnrun[i])
    concepts.set(conceptOf(`${srcSources[i]!}`), (concepts.get(conceptOf(srcSources[i]!)) ?? 0) + 1);
}
for (const [concept, bytes] of [...concepts].sort((a, b) => b[1] - a[1])) {
  console.log(
    `${String(bytes).padStart(7)} min -${String(saved((s) => conceptOf(s) === concept)).padStart(5)} gzip  ${concept}`,
  );
}
console.log('');
const ratio = 0.333;
for (const [source, stats] of [...bySource]
  .filter(([s]) => mine(s))
  .sort((a, b) => b[1].unrun - a[1].unrun)) {
  if (stats.unrun === 0) continue;
  console.log(
    `${String(stats.unrun).padStart(7)} of ${String(stats.total).padStart(6)} min never run (~${Math.round(stats.unrun * ratio)} gzip at ratio, -${saved((s) => s === source)} gzip left out)  ${source}`,
  );
}
if (process.argv.includes('--runs')) {
  for (const s of stretches.filter((s) => mine(s.source) && s.bytes >= 40)) {
    console.log(`\n${s.source}:${s.line} ${s.bytes} B\n  ${s.text.slice(0, 400)}`);
  }
}
