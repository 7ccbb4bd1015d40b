/**
 * Browser bundle size of the client, as an application's bundler would make it: esbuild, browser platform,
 * minified, code splitting on, gzipped (level 9). `ws` is never bundled (browsers use the global
 * `WebSocket`); the schema libraries a user brings (zod 3, valibot, arktype) are peers and left out.
 *
 * Figures (see `bundleSizes`), all of the browser build (`src/index.ts`: every condition of `toolwire` but `node`,
 * tsup.config.ts):
 * - what the page downloads first, with zod left out (an application that already ships zod 4) — the issue's
 *   target figure — and with zod in. The first download is the entry and the chunks it imports statically,
 *   gzipped together: the application's bundler merges them into its own entry chunk;
 * - the first download of a page that imports only `{ Client, tool }` (what tree-shaking leaves);
 * - each chunk loaded later by a dynamic `import()` (the JSON Schema validator), downloaded when first needed;
 * - `toolwire/zod3`, `toolwire/valibot` and `toolwire/strict`, for a page that imports them;
 * - the peers built the same way ({@link peerBundles}), to print side by side.
 *
 * @module
 */
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { ROOT } from './build';

/** Sizes in bytes, and the largest inputs of the bundle. */
export interface BundleSize {
  label: string;
  /** `true` for the figure the target is about: the browser build's first download, zod left out. */
  target: boolean;
  minBytes: number;
  gzipBytes: number;
  largest: Array<{ input: string; bytes: number }>;
}

/** One input file of the first download: minified bytes, and gzip bytes estimated at the bundle's ratio. */
export interface SourceShare {
  input: string;
  minBytes: number;
  gzipEstimate: number;
}

const PEERS = ['ws', 'zod3', 'valibot', 'arktype'];

/** The source modules in a chunk's inputs, without `.ts`. */
function sourceModules(inputs: Inputs): string[] {
  return Object.keys(inputs)
    .filter((input) => input.startsWith('src/'))
    .map((input) => input.replace(/\.ts$/, ''));
}

/** A page that answers tool calls and nothing more: what its bundler keeps of the browser build. */
const PAGE = `import { Client, tool } from './src/index.ts';
const ping = tool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' });
await new Client({ url: 'ws://127.0.0.1:8787', apiKey: 'key', tools: [ping] }).connect();`;

function largestInputs(inputs: Metafile['outputs'][string]['inputs']): BundleSize['largest'] {
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const key = match ? match[1]! : 'src/ (toolwire)';
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  return [...byPackage]
    .map(([input, bytes]) => ({ input, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6);
}

interface Parts {
  /** What the page downloads first: the entry and the chunks it imports statically. */
  first: Omit<BundleSize, 'label' | 'target'>;
  /** Each input of the first download, largest first. */
  sources: SourceShare[];
  /** Each chunk imported dynamically (downloaded when first needed), with its static imports. */
  lazy: Array<Omit<BundleSize, 'label' | 'target'> & { name: string; modules: string[] }>;
}

type Inputs = Metafile['outputs'][string]['inputs'];

/** Sizes of a set of output files (gzipped together: one chunk of the application), and their largest inputs. */
function sizeOf(files: Array<{ contents: Uint8Array; inputs: Inputs }>) {
  return {
    minBytes: files.reduce((sum, file) => sum + file.contents.byteLength, 0),
    gzipBytes: gzipSync(Buffer.concat(files.map((file) => file.contents)), { level: 9 }).byteLength,
    largest: largestInputs(Object.assign({}, ...files.map((file) => file.inputs))),
  };
}

/** What a lazy chunk holds, for its label: the lazy modules in it, else its packages. */
function chunkName(inputs: Inputs): string {
  const modules = sourceModules(inputs).map((module) => module.replace(/^src\//, ''));
  if (modules.length > 0) return modules.join(', ');
  return largestInputs(inputs)
    .map((part) => part.input)
    .join(', ');
}

/** Each input of `inputs`, largest first, with its gzip bytes estimated at the ratio `gzip / min`. */
function sourcesOf(inputs: Inputs, ratio: number): SourceShare[] {
  return Object.entries(inputs)
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .map(([input, { bytesInOutput }]) => ({
      input: input.replace(/^.*node_modules\//, ''),
      minBytes: bytesInOutput,
      gzipEstimate: Math.round(bytesInOutput * ratio),
    }))
    .sort((a, b) => b.minBytes - a.minBytes);
}

/** `entry`: a file, or the text of a page's module (resolved from the repository root). */
async function parts(
  entry: string | { page: string },
  external: string[],
  _browser: boolean,
): Promise<Parts> {
  const result = await build({
    absWorkingDir: ROOT,
    ...(typeof entry === 'string'
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.page, resolveDir: ROOT, loader: 'ts' as const } }),
    bundle: true,
    minify: true,
    splitting: true,
    outdir: 'bench-bundle', // never written (write: false); esbuild needs a directory to split into
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    external,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const contents = (path: string) =>
    result.outputFiles.find((file) => file.path.endsWith(`/${path}`))!.contents;
  /** `path` and every output it imports statically, transitively. */
  const closure = (path: string, seen = new Set<string>()): Set<string> => {
    seen.add(path);
    for (const imported of outputs[path]!.imports) {
      if (imported.kind === 'import-statement' && imported.path in outputs && !seen.has(imported.path))
        closure(imported.path, seen);
    }
    return seen;
  };
  const files = (paths: Iterable<string>) =>
    [...paths].map((path) => ({ contents: contents(path), inputs: outputs[path]!.inputs }));
  const entryPoint = typeof entry === 'string' ? entry : '<stdin>';
  const main = Object.keys(outputs).find((path) => outputs[path]!.entryPoint === entryPoint)!;
  const first = closure(main);
  const dynamic = new Set(
    Object.values(outputs).flatMap((output) =>
      output.imports.filter((i) => i.kind === 'dynamic-import' && i.path in outputs).map((i) => i.path),
    ),
  );
  const firstSize = sizeOf(files(first));
  const firstInputs: Inputs = Object.assign({}, ...[...first].map((path) => outputs[path]!.inputs));
  return {
    first: firstSize,
    sources: sourcesOf(firstInputs, firstSize.gzipBytes / firstSize.minBytes),
    lazy: [...dynamic].map((path) => {
      const later = [...closure(path)].filter((other) => !first.has(other));
      // A module other lazy chunks import too is in a chunk they share: this one only imports it.
      const own = outputs[path]!.inputs;
      const inputs: Inputs =
        sourceModules(own).length > 0
          ? own
          : Object.assign({}, ...later.map((other) => outputs[other]!.inputs));
      return { name: chunkName(inputs), modules: sourceModules(inputs), ...sizeOf(files(later)) };
    }),
  };
}

/**
 * The concept each source file of the first download belongs to, by path: what a user could do without (a
 * capability) and what every client needs (the wire, the call path, defining tools). A file not listed is
 * `other`.
 */
const CONCEPTS: ReadonlyArray<readonly [concept: string, files: readonly string[]]> = [
  ['wire: socket, frames, reconnect, heartbeat', ['wire/']],
  ['defining tools: tool(), shapes, option checks', ['tool/tool', 'tool/shapes', 'tool/check-options']],
  ['schemas: zod 4, arktype, announcements', ['tool/schema/']],
  ['strict: true (OpenAI strict schemas)', ['tool/strict']],
  [
    'results: output, content, model texts',
    ['tool/output', 'tool/content', 'tool/model-text', 'client/result-parts'],
  ],
  [
    'the call path: pipeline, arguments, ctx, signal, registry',
    [
      'call/pipeline',
      'call/arguments',
      'call/context',
      'call/signal',
      'call/registry',
      'call/invoke',
      'call/yields',
    ],
  ],
  // Loaded by src/call/parts.ts when a tool or the client needs them: in the first download, only the loader.
  [
    'optional call code: gate, approval, retry, concurrency, steps, questions, widgets, field redaction',
    ['call/parts', 'call/approval', 'call/policies', 'call/retry', 'call/concurrency', 'call/steps'],
  ],
  ['', ['call/questions', 'tool/widget', 'call/redaction']],
  [
    'the client: calls, slots, outbox, deadlines',
    ['client/calls', 'client/execution', 'client/slots', 'client/outbox'],
  ],
  ['', ['client/deadlines', 'client/call-map', 'client/signals']],
  [
    'the client: Client, options, agents',
    ['client/client', 'client/client-options', 'client/agent', 'eventemitter3'],
  ],
  [
    'updates: progress, events, leases, step results',
    ['client/call-updates', 'client/lease-renewal', 'client/leases', 'client/step-results'],
  ],
  [
    'approvals (service side), decide(), questions',
    ['client/approvals', 'client/decisions', 'client/questions', 'client/socket-questions', 'call/decision'],
  ],
  ['tracing', ['client/tracing']],
  ['secrets: redactor, logger', ['redact', 'logger']],
  ['leaves: errors, json, limits, maybe, version', ['errors', 'json', 'limits', 'maybe', 'version']],
];

/** The concept of `input` ({@link CONCEPTS}). */
export function conceptOf(input: string): string {
  const path = input.replace(/^src\//, '').replace(/\.(ts|js|mjs)$/, '');
  let named = 'other';
  for (const [concept, files] of CONCEPTS) {
    if (concept !== '') named = concept;
    if (
      files.some((file) =>
        file.endsWith('/') ? path.startsWith(file) : path === file || path.startsWith(`${file}/`),
      )
    )
      return named;
  }
  return 'other';
}

/** The first download by concept ({@link CONCEPTS}), largest first, with the files of each. */
export async function firstDownloadConcepts(): Promise<Array<SourceShare & { files: string[] }>> {
  const byConcept = new Map<string, SourceShare & { files: string[] }>();
  for (const source of await firstDownloadSources()) {
    const concept = conceptOf(source.input);
    const entry = byConcept.get(concept) ?? { input: concept, minBytes: 0, gzipEstimate: 0, files: [] };
    entry.minBytes += source.minBytes;
    entry.gzipEstimate += source.gzipEstimate;
    entry.files.push(source.input.replace(/^src\//, '').replace(/\.ts$/, ''));
    byConcept.set(concept, entry);
  }
  return [...byConcept.values()].sort((a, b) => b.minBytes - a.minBytes);
}

/** Each input of the browser build's first download (zod left out), largest first: what the target is made of. */
export async function firstDownloadSources(): Promise<SourceShare[]> {
  return (await parts('src/index.ts', [...PEERS, 'zod'], true)).sources;
}

/*
 * The peers, built the same way (esbuild, browser, minified, one file gzipped at level 9, zod left out), each a page
 * that does with the peer what the toolwire page does: answers a tool call (MCP: a client over the SDK's
 * WebSocket transport calls one; the AI SDK: `tool` and `generateText`; socket.io-client: a `tool_call` handler).
 */
/** A peer's page, by label. */
export const PEER_PAGES: Readonly<Record<string, string>> = {
  'MCP SDK `Client` + `WebSocketClientTransport`': `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
const client = new Client({ name: 'page', version: '1.0.0' });
await client.connect(new WebSocketClientTransport(new URL('ws://127.0.0.1:8787')));
console.log(await client.callTool({ name: 'ping', arguments: {} }));`,
  'AI SDK `tool` + `generateText`': `import { generateText, tool } from 'ai';
import { z } from 'zod';
const ping = tool({ description: 'Answers pong.', inputSchema: z.object({}), execute: async () => 'pong' });
console.log(await generateText({ model: (globalThis as any).model, tools: { ping }, prompt: 'ping' }));`,
  'socket.io-client `io`': `import { io } from 'socket.io-client';
const socket = io('ws://127.0.0.1:8787', { transports: ['websocket'] });
socket.on('tool_call', (call, ack) => ack({ callId: call.callId, status: 'ok', output: 'pong' }));`,
};

/** Each peer's page ({@link PEER_PAGES}) as one minified browser file, zod left out. */
export async function peerBundles(): Promise<BundleSize[]> {
  const sizes: BundleSize[] = [];
  for (const [label, page] of Object.entries(PEER_PAGES)) {
    const result = await build({
      absWorkingDir: ROOT,
      stdin: { contents: page, resolveDir: ROOT, loader: 'ts' },
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      external: ['zod', 'zod/*'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    sizes.push({
      label,
      target: false,
      ...sizeOf([{ contents: result.outputFiles[0]!.contents, inputs: output.inputs }]),
    });
  }
  return sizes;
}

/** The figures listed in the module comment, the target figure first (the peers apart: {@link peerBundles}). */
export async function bundleSizes(): Promise<BundleSize[]> {
  const lean = await parts('src/index.ts', [...PEERS, 'zod'], true);
  const withZod = await parts('src/index.ts', PEERS, true);
  const page = await parts({ page: PAGE }, [...PEERS, 'zod'], true);
  const zod3 = await parts('src/zod3.ts', [...PEERS, 'zod'], false);
  const valibot = await parts('src/valibot.ts', [...PEERS, 'zod'], false);
  const strict = await parts('src/strict.ts', [...PEERS, 'zod'], false);
  return [
    { label: 'first download, zod left out (the app ships zod 4)', target: true, ...lean.first },
    { label: 'first download, zod/mini included', target: false, ...withZod.first },
    {
      label: 'first download of a page that imports only `{ Client, tool }` (tree-shaken), zod left out',
      target: false,
      ...page.first,
    },
    ...lean.lazy.map(({ name, modules: _modules, ...size }) => ({
      label: `later, on first use: ${name}`,
      target: false,
      ...size,
    })),
    { label: "`import 'toolwire/zod3'` (zod 3 parameters)", target: false, ...zod3.first },
    { label: "`import 'toolwire/valibot'` (valibot parameters)", target: false, ...valibot.first },
    { label: "`import 'toolwire/strict'` (`strict: true` tools)", target: false, ...strict.first },
  ];
}
