/**
 * Bundles the benchmark's entry points (driver, subjects, micro-benchmarks) with esbuild into bench/.build, so
 * that child processes start as plain Node (no loader hooks) and CPU profiles map to src/ through source maps.
 * Packages stay external (loaded from node_modules, as a user's process would); src/ is bundled.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';

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
 * The entries of src/ that register optional parts when evaluated (src/node.ts and the subpath entries). The
 * package's `sideEffects` names only their built files in dist/, so esbuild takes their sources for pure modules
 * and, where only their re-exports are used, leaves out the registrations: a zod 3 tool is then refused. The
 * bench bundles src/, so it says of these sources what `sideEffects` says of their builds.
 */
export const REGISTERING_ENTRIES = ['src/node.ts', 'src/zod3.ts', 'src/valibot.ts', 'src/json-schema.ts'];

/** Marks {@link REGISTERING_ENTRIES} as having side effects, as the package marks their builds. */
export const registeringEntries: Plugin = {
  name: 'registering-entries',
  setup(context) {
    const files = new Set(REGISTERING_ENTRIES.map((entry) => `${ROOT}${entry}`));
    context.onResolve({ filter: /^\.{1,2}\/.*(?:node|zod3|valibot|json-schema)(?:\.ts)?$/ }, async (args) => {
      if (args.pluginData === registeringEntries) return undefined;
      const resolved = await context.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: registeringEntries,
      });
      if (resolved.errors.length > 0 || !files.has(resolved.path)) return undefined;
      return { path: resolved.path, sideEffects: true };
    });
  },
};

/** How a subject's process is bundled: ESM for Node 20, its packages loaded from node_modules as a user's are. */
const SUBJECT_BUILD = {
  absWorkingDir: ROOT,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * Bundles every entry point into `outDir` (inside the repository, so that packages resolve from its
 * node_modules); resolves with the path of each bundle.
 */
export async function buildEntries(outDir: string = OUT_DIR): Promise<Record<EntryName, string>> {
  const { floor, ...others } = ENTRIES;
  await build({
    ...SUBJECT_BUILD,
    entryPoints: others,
    outdir: outDir,
    sourcemap: true,
    plugins: [registeringEntries],
  });
  await build({
    ...SUBJECT_BUILD,
    entryPoints: { floor },
    outdir: outDir,
    sourcemap: true,
    plugins: [registeringEntries],
    // The floor imports toolwire's tool definitions only for the hello-size scaling (`--tools N`): split, they stay
    // in a file of their own that only that import loads. In one bundle every package they import (zod, zod/mini,
    // eventemitter3, @cfworker/json-schema, @valibot/to-json-schema) was loaded at the floor's start and the 451 KB
    // of src/ with them parsed: 334 million of the 981 million instructions of its cold start (callgrind, issue 28).
    splitting: true,
  });
  return Object.fromEntries(Object.keys(ENTRIES).map((name) => [name, `${outDir}/${name}.mjs`])) as Record<
    EntryName,
    string
  >;
}

/**
 * Resolves the subjects' `src/node` to the package's built Node entry, `dist/node.js`, left external: toolwire as
 * a user's program loads it (its ES modules as the build splits them, its packages from node_modules), not one
 * bundle of src/.
 */
const builtPackage: Plugin = {
  name: 'built-package',
  setup(context) {
    context.onResolve({ filter: /\/src\/node$/ }, () => ({ path: `${ROOT}dist/node.js`, external: true }));
  },
};

/**
 * Builds the package (`npm run build`, from src/ as it is now) and the toolwire subject against it, as
 * `toolwire-package.mjs` in `outDir`; resolves with its path. For the cold start, whose start-up CPU includes
 * loading toolwire: Node's ESM loader pays per file, so a bundle of src/ would start faster than the package does.
 */
export async function buildPackagedSubject(outDir: string = OUT_DIR): Promise<string> {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
  await build({
    ...SUBJECT_BUILD,
    entryPoints: { 'toolwire-package': ENTRIES.toolwire },
    outdir: outDir,
    plugins: [builtPackage],
  });
  return `${outDir}/toolwire-package.mjs`;
}
