import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

const drop = (process.env.DROP ?? '').split(',').filter(Boolean);
const plugin: Plugin = {
  name: 'drop',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (a) => {
      if (a.kind === 'entry-point') return undefined;
      const p = a.path.startsWith('.')
        ? path.relative(process.cwd(), path.resolve(a.resolveDir, a.path))
        : a.path;
      if (drop.some((d) => p === d || p.startsWith(d))) return { path: p, external: true };
      return undefined;
    });
  },
};
const r = await build({
  absWorkingDir: process.cwd(),
  entryPoints: [process.env.ENTRY ?? 'src/index.ts'],
  bundle: true,
  minify: true,
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  external: ['ws', 'zod3', 'valibot', 'arktype', 'zod'],
  plugins: [plugin],
  write: false,
  metafile: true,
  logLevel: 'silent',
});
const code = r.outputFiles[0]!.contents;
console.log('min', code.byteLength, 'gz', gzipSync(code, { level: 9 }).byteLength);
