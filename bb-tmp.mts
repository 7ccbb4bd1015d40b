import { build } from 'esbuild';
import * as acorn from 'acorn';
import { gzipSync } from 'node:zlib';
const r = await build({ absWorkingDir: process.cwd(), entryPoints: ['src/index.ts'], bundle: true, minify: true, splitting: true, outdir: 'x', platform: 'browser', format: 'esm', target: 'es2022', external: ['ws','zod3','valibot','arktype','zod'], write: false, metafile: true, logLevel: 'silent' });
const main = r.outputFiles.find(f => f.path.endsWith('/index.js'))!;
const t = main.text;
const ast = acorn.parse(t, { ecmaVersion: 'latest', sourceType: 'module' });
let strBytes = 0; const ranges: [number, number][] = [];
(function walk(n: any) { if (!n || typeof n.type !== 'string') return;
  if ((n.type === 'Literal' && typeof n.value === 'string') || n.type === 'TemplateElement') { strBytes += n.end - n.start; ranges.push([n.start, n.end]); }
  for (const k in n) { const v = n[k]; if (Array.isArray(v)) v.forEach(walk); else if (v && typeof v === 'object' && k !== 'loc') walk(v); } })(ast);
ranges.sort((a, b) => a[0] - b[0]);
let code = '', last = 0, strs = '';
for (const [s, e] of ranges) { code += t.slice(last, s) + (e - s > 10 ? '""' : t.slice(s, e)); if (e - s > 10) strs += t.slice(s, e) + '\n'; last = e; }
code += t.slice(last);
console.log({ len: t.length, strBytes, gzipAll: gzipSync(t, { level: 9 }).length, gzipCodeOnly: gzipSync(code, { level: 9 }).length, gzipStringsOnly: gzipSync(strs, { level: 9 }).length });
