import { build } from 'esbuild';
import { browserSwaps } from '../browser-build';

const PEERS = ['ws', 'zod3', 'valibot', 'arktype', 'zod'];
const r = await build({
  absWorkingDir: process.cwd(),
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
const m = r.metafile;
const size = new Map<string, number>();
for (const o of Object.values(m.outputs))
  for (const [i, { bytesInOutput }] of Object.entries(o.inputs)) size.set(i, bytesInOutput);
const edges = new Map<string, string[]>();
for (const [i, v] of Object.entries(m.inputs))
  edges.set(
    i,
    v.imports.filter((x) => x.kind === 'import-statement' && !x.external).map((x) => x.path),
  );
const reach = (root: string, cut: string | null) => {
  const seen = new Set<string>();
  const st = [root];
  while (st.length) {
    const n = st.pop()!;
    if (n === cut || seen.has(n)) continue;
    seen.add(n);
    for (const e of edges.get(n) ?? []) st.push(e);
  }
  return seen;
};
const all = reach('src/index.ts', null);
const tot = [...all].reduce((s, n) => s + (size.get(n) ?? 0), 0);
const rows: [string, number, number][] = [];
for (const n of all) {
  if (n === 'src/index.ts') continue;
  const rest = reach('src/index.ts', n);
  const gone = [...all].filter((x) => !rest.has(x));
  rows.push([n, gone.reduce((s, x) => s + (size.get(x) ?? 0), 0), gone.length]);
}
rows.sort((a, b) => b[1] - a[1]);
console.log('total', tot);
for (const [n, b, c] of rows.slice(0, Number(process.argv[2] ?? 60)))
  console.log(n.padEnd(45), String(b).padStart(6), c);
// importers
if (process.argv[3])
  for (const [i, es] of edges) if (es.includes(process.argv[3])) console.log('imported by', i);
