import { join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';

/** The repository's root, where the builds below start. */
export const root = join(import.meta.dirname, '../..');

/**
 * toolwire's core as an application's bundler makes it for a browser page (esbuild, ESM, code splitting, every
 * dependency left external: it is the page's to bundle) into `outDir`. `entryPoints` defaults to `src/index.ts`
 * as `index`; `plugins` are esbuild plugins; `minify` as an app's production build.
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
