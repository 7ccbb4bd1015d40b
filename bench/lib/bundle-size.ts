/**
 * Browser bundle size of the client, as an application's bundler would make it: esbuild, browser platform,
 * minified, code splitting on, gzipped (level 9). `ws` is never bundled (browsers use the global
 * `WebSocket`); the schema libraries a user brings (zod 3, valibot, arktype) are peers and left out.
 *
 * Figures (see `bundleSizes`):
 * - the browser build (`toolwire`'s `browser` condition, made with browser-build.ts's swaps, exactly as
 *   tsup.config.ts makes dist/browser/index.js): what the page downloads first, with zod left out (an
 *   application that already ships zod 4, whose core zod/mini shares) — the issue's target figure — and with
 *   zod in;
 * - the JSON Schema validator's chunk, downloaded the first time a tool needs it;
 * - `toolwire/zod3` and `toolwire/valibot`, for a page that imports them;
 * - the full build (the `import`/`default` condition: everything in one piece), zod left out: what every
 *   browser user paid before the browser build existed.
 *
 * @module
 */
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { browserSwaps } from '../../browser-build';
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

const PEERS = ['ws', 'zod3', 'valibot', 'arktype'];

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
  /** Each chunk imported dynamically (downloaded when first needed), with its static imports. */
  lazy: Array<Omit<BundleSize, 'label' | 'target'>>;
}

/** Sizes of a set of output files (each gzipped alone, as served), and their largest inputs together. */
function sizeOf(files: Array<{ contents: Uint8Array; inputs: Metafile['outputs'][string]['inputs'] }>) {
  return {
    minBytes: files.reduce((sum, file) => sum + file.contents.byteLength, 0),
    gzipBytes: files.reduce((sum, file) => sum + gzipSync(file.contents, { level: 9 }).byteLength, 0),
    largest: largestInputs(Object.assign({}, ...files.map((file) => file.inputs))),
  };
}

async function parts(entry: string, external: string[], browser: boolean): Promise<Parts> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    splitting: true,
    outdir: 'bench-bundle', // never written (write: false); esbuild needs a directory to split into
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    external,
    plugins: browser ? [browserSwaps()] : [],
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
  const main = Object.keys(outputs).find((path) => outputs[path]!.entryPoint === entry)!;
  const first = closure(main);
  const dynamic = outputs[main]!.imports.filter((i) => i.kind === 'dynamic-import' && i.path in outputs);
  return {
    first: sizeOf(files(first)),
    lazy: dynamic.map((i) => sizeOf(files([...closure(i.path)].filter((path) => !first.has(path))))),
  };
}

/** The figures listed in the module comment, the target figure first. */
export async function bundleSizes(): Promise<BundleSize[]> {
  const lean = await parts('src/index.ts', [...PEERS, 'zod'], true);
  const withZod = await parts('src/index.ts', PEERS, true);
  const zod3 = await parts('src/browser/zod3.ts', [...PEERS, 'zod'], false);
  const valibot = await parts('src/browser/valibot.ts', [...PEERS, 'zod'], false);
  const full = await parts('src/index.ts', [...PEERS, 'zod'], false);
  return [
    { label: 'browser build, first download, zod left out (app ships zod 4)', target: true, ...lean.first },
    { label: 'browser build, first download, zod/mini included', target: false, ...withZod.first },
    ...lean.lazy.map((size) => ({
      label: 'later, when a tool first needs it: the JSON Schema validator',
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
