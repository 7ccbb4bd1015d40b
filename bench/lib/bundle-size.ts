/**
 * Browser bundle size of the client: `src/index.ts` bundled by esbuild for the browser, minified, gzipped
 * (level 9). `ws` is never bundled (browsers use the global `WebSocket`); the schema libraries a user brings
 * (zod 3, valibot, arktype) are peers and left out. Two figures: with the SDK's own dependencies (zod/mini for
 * frame validation, the JSON Schema converters and validator, eventemitter3), and with `zod` left out too (for
 * an application that already ships zod 4, whose core zod/mini shares).
 *
 * @module
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ROOT } from './build';

/** Sizes in bytes, and the largest inputs of the bundle. */
export interface BundleSize {
  label: string;
  /** `true` for the figure the target is about: zod left out too, with every other schema library. */
  schemaLibrariesExcluded: boolean;
  minBytes: number;
  gzipBytes: number;
  largest: Array<{ input: string; bytes: number }>;
}

const PEERS = ['ws', 'zod3', 'valibot', 'arktype'];

async function measure(label: string, external: string[]): Promise<BundleSize> {
  const schemaLibrariesExcluded = external.includes('zod');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/index.ts'],
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    external,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const output = Object.values(result.metafile.outputs)[0]!;
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const key = match ? match[1]! : 'src/ (toolwire)';
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  const largest = [...byPackage]
    .map(([input, bytes]) => ({ input, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 6);
  return {
    label,
    schemaLibrariesExcluded,
    minBytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
    largest,
  };
}

/** Both figures (see the module comment). */
export async function bundleSizes(): Promise<BundleSize[]> {
  return [
    await measure('with its own dependencies (zod/mini included)', PEERS),
    await measure('zod left out too (an app already ships zod 4)', [...PEERS, 'zod']),
  ];
}
