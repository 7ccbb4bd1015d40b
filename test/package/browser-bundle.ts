import { join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';

/** The repository's root, where the builds below start. */
export const root = join(import.meta.dirname, '../..');

/**
 * toolwire's browser build as an application's bundler makes it (esbuild, ESM, code splitting, the `browser`
 * condition's swaps from browser-build.ts, dependencies left external) into `outDir`. `entryPoints` defaults to
 * `src/index.ts` as `index`; `plugins` run after the swaps; `minify` as an app's production build.
 */
export async function buildBrowser(
  outDir: string,
  options: {
    entryPoints?: Record<string, string>;
    plugins?: NonNullable<BuildOptions['plugins']>;
    minify?: boolean;
  } = {},
): Promise<Metafile> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: options.entryPoints ?? { index: 'src/index.ts' },
    bundle: true,
    splitting: true,
    minify: options.minify ?? false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outdir: outDir,
    packages: 'external',
    plugins: options.plugins ?? [],
    metafile: true,
    logLevel: 'silent',
  });
  return result.metafile;
}
