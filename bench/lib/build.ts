/**
 * Bundles the benchmark's entry points (driver, subjects, micro-benchmarks) with esbuild into bench/.build, so
 * that child processes start as plain Node (no loader hooks) and CPU profiles map to src/ through source maps.
 * Packages stay external (loaded from node_modules, as a user's process would); src/ is bundled.
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the bundles go (git-ignored). */
export const OUT_DIR = `${ROOT}bench/.build`;

/** Entry points by name: `<name>.mjs` in {@link OUT_DIR}. */
export const ENTRIES = {
  driver: 'bench/driver.ts',
  floor: 'bench/subjects/floor.ts',
  toolwire: 'bench/subjects/toolwire.ts',
  socketio: 'bench/subjects/socketio.ts',
  mcp: 'bench/subjects/mcp.ts',
  'invoke-tool': 'bench/invoke-tool.ts',
} as const;

/** Name of a bundled entry point. */
export type EntryName = keyof typeof ENTRIES;

/**
 * Bundles every entry point into `outDir` (inside the repository, so that packages resolve from its
 * node_modules); resolves with the path of each bundle.
 */
export async function buildEntries(outDir: string = OUT_DIR): Promise<Record<EntryName, string>> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES)),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  return Object.fromEntries(Object.keys(ENTRIES).map((name) => [name, `${outDir}/${name}.mjs`])) as Record<
    EntryName,
    string
  >;
}
