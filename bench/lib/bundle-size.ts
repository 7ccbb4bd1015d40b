/**
 * Browser bundle size of the client, as an application's bundler would make it: esbuild, browser platform,
 * minified, code splitting on, gzipped (level 9). `ws` is never bundled (browsers use the global
 * `WebSocket`); the schema libraries a user brings (zod 3, valibot, arktype) are peers and left out.
 *
 * Figures (see `bundleSizes`): what a page that imports `toolwire` downloads first (the entry and the chunks it
 * imports statically, gzipped together, as the application's bundler merges them into its own entry chunk), with
 * zod left out (an application that already ships zod 4) and with it; what it loads later by a dynamic `import()`
 * (the JSON Schema validator), each chunk named by the modules it holds; and `toolwire/zod3` and
 * `toolwire/valibot`, for a page that imports them.
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

/**
 * The modules a page loads later (by a dynamic `import()`) when it defines a plain zod 4 tool
 * (`z.object({ a: z.number() })`), connects and answers one call of it: what it pays beyond the first download.
 */
export const ZOD4_CALL_LOADS: readonly string[] = [];

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
    lazy: [...dynamic].map((path) => ({
      name: chunkName(outputs[path]!.inputs),
      modules: sourceModules(outputs[path]!.inputs),
      ...sizeOf(files([...closure(path)].filter((other) => !first.has(other)))),
    })),
  };
}

/** Each input of the browser build's first download (zod left out), largest first: what the target is made of. */
export async function firstDownloadSources(): Promise<SourceShare[]> {
  return (await parts('src/index.ts', [...PEERS, 'zod'], true)).sources;
}

/** The figures listed in the module comment, the target figure first. */
export async function bundleSizes(): Promise<BundleSize[]> {
  const lean = await parts('src/index.ts', [...PEERS, 'zod'], true);
  const withZod = await parts('src/index.ts', PEERS, true);
  const page = await parts({ page: PAGE }, [...PEERS, 'zod'], true);
  const zod3 = await parts('src/zod3.ts', [...PEERS, 'zod'], false);
  const valibot = await parts('src/valibot.ts', [...PEERS, 'zod'], false);
  const full = await parts('src/index.ts', [...PEERS, 'zod'], false);
  const zod4Call = [
    lean.first,
    ...lean.lazy.filter((chunk) => chunk.modules.some((module) => ZOD4_CALL_LOADS.includes(module))),
  ];
  return [
    { label: 'browser build, first download, zod left out (app ships zod 4)', target: true, ...lean.first },
    {
      label: 'browser build, all a zod 4 page loads to answer one call of a plain zod 4 tool, zod left out',
      target: false,
      minBytes: zod4Call.reduce((sum, part) => sum + part.minBytes, 0),
      gzipBytes: zod4Call.reduce((sum, part) => sum + part.gzipBytes, 0),
      largest: lean.first.largest,
    },
    { label: 'browser build, first download, zod/mini included', target: false, ...withZod.first },
    {
      label:
        'browser build, first download of a page that imports only `{ Client, tool }` (tree-shaken), zod left out',
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
    {
      label: 'full build (Node `default` condition), zod left out: every browser before',
      target: false,
      ...full.first,
    },
  ];
}
