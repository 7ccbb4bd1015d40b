import { build } from 'esbuild';
import { browserSwaps } from '../browser-build';
const r = await build({ absWorkingDir: process.cwd(), entryPoints: ['src/index.ts'], bundle: true, minify: true, splitting: true, outdir: 'bb', platform: 'browser', format: 'esm', external: ['ws','zod3','valibot','arktype','zod'], plugins: [browserSwaps()], write: false, metafile: true, logLevel: 'silent' });
for (const [k, v] of Object.entries(r.metafile.outputs)) console.log(k, v.bytes, v.entryPoint, Object.keys(v.inputs).length, v.imports.map(i=>i.path+':'+i.kind).join(' '));
for (const f of r.outputFiles) console.log(f.path);
