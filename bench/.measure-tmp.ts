import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { browserSwaps } from '../browser-build';

const ROOT = '/work/wt/h20b';
const PEERS = ['ws', 'zod3', 'valibot', 'arktype', 'zod'];
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: ['src/index.ts'],
  bundle: true,
  minify: true,
  splitting: true,
  outdir: 'bench-bundle',
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  external: PEERS,
  plugins: [browserSwaps()],
  write: false,
  metafile: true,
  logLevel: 'silent',
});
const outputs = result.metafile.outputs;
const main = Object.keys(outputs).find((p) => outputs[p]!.entryPoint === 'src/index.ts')!;
const closure = (path: string, seen = new Set<string>()): Set<string> => {
  seen.add(path);
  for (const i of outputs[path]!.imports)
    if (i.kind === 'import-statement' && i.path in outputs && !seen.has(i.path)) closure(i.path, seen);
  return seen;
};
const first = closure(main);
let total = 0,
  gz = 0;
const rows: [string, number][] = [];
for (const p of first) {
  const f = result.outputFiles.find((f) => f.path.endsWith('/' + p))!;
  total += f.contents.byteLength;
  gz += gzipSync(f.contents, { level: 9 }).byteLength;
  for (const [inp, { bytesInOutput }] of Object.entries(outputs[p]!.inputs)) rows.push([inp, bytesInOutput]);
}
const ratio = gz / total;
rows.sort((a, b) => b[1] - a[1]);
const cat = Buffer.concat(
  [...first].map((p) => result.outputFiles.find((f) => f.path.endsWith('/' + p))!.contents),
);
console.log('concatenated gzip', gzipSync(cat, { level: 9 }).byteLength);
console.log(`first: ${first.size} files, min ${total} gzip ${gz} (ratio ${ratio.toFixed(3)})`);
const byDir = new Map<string, number>();
for (const [i, b] of rows) {
  const k = i.includes('node_modules')
    ? i.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
    : i.split('/').slice(0, 2).join('/');
  byDir.set(k, (byDir.get(k) ?? 0) + b);
}
console.log(
  [...byDir]
    .sort((a, b) => b[1] - a[1])
    .map(([k, b]) => `${k.padEnd(40)} ${b}  ~${Math.round(b * ratio)}`)
    .join('\n'),
);
console.log('---');
console.log(
  rows
    .filter((r) => r[1] > 0)
    .map(([i, b]) => `${i.padEnd(50)} ${String(b).padStart(6)} ~${Math.round(b * ratio)}`)
    .join('\n'),
);
for (const p of Object.keys(outputs))
  if (!first.has(p)) {
    const f = result.outputFiles.find((f) => f.path.endsWith('/' + p))!;
    console.log(
      'lazy',
      p,
      f.contents.byteLength,
      gzipSync(f.contents, { level: 9 }).byteLength,
      Object.keys(outputs[p]!.inputs).join(','),
    );
  }
