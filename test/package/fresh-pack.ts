/**
 * What a new user does with the repository, without the network: copy it as a fresh clone would have it (no
 * `dist/`), `npm pack` it (the `prepare` script builds), and install the tarball into empty projects from the
 * npm cache. Each project gets a lock file made from this repository's (the runtime dependencies of the package,
 * at the versions `npm ci` installed, and so cached), so `npm ci --offline` needs no registry metadata.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);

/** npm, as the process that runs the tests was given it (npm_execpath under `npm test`), else from PATH. */
function npm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const execpath = process.env.npm_execpath;
  const [file, prefix] =
    execpath?.endsWith('.js') === true ? [process.execPath, [execpath]] : ['npm', [] as string[]];
  // Variables npm sets for the script it runs (`npm test`) would tell the nested npm it is inside a lifecycle.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^npm_(lifecycle|package|command|config_(?:global|local)?prefix$)/i.test(name),
    ),
  );
  return run(file, [...prefix, ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
}

/** The files a fresh clone has: tracked ones, plus new ones not ignored (so uncommitted work is tested too). */
async function cloneLike(repo: string, into: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split('\0')) {
    if (file === '' || !existsSync(join(repo, file))) continue;
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(repo, file), join(into, file));
  }
  // The build tools come from the repository's own install (a clone would run `npm ci` first).
  symlinkSync(join(repo, 'node_modules'), join(into, 'node_modules'), 'dir');
}

/** One entry of a lock file's `packages`. */
interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
}

/**
 * The lock entries the package's runtime dependencies need (and the peers npm would add), taken from the
 * repository's lock at the same paths: the repository is the root there, as the empty project is here.
 */
function closure(
  repoLock: Record<string, LockEntry>,
  roots: Record<string, string>,
): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const visit = (name: string, from: string, peer: boolean, optional = false) => {
    // Node's lookup: the nearest node_modules up from the dependent.
    let base = from;
    for (;;) {
      const path = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
      const entry = repoLock[path];
      if (entry) {
        if (out[path]) {
          if (!peer) delete out[path].peer;
          return;
        }
        const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = entry;
        out[path] = peer ? { ...rest, peer: true } : rest;
        for (const dep of Object.keys(entry.dependencies ?? {})) visit(dep, path, peer);
        // Platform packages (esbuild's binaries): npm ci wants every one in the lock, and installs only this one's.
        for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(dep, path, peer, true);
        for (const dep of Object.keys(entry.peerDependencies ?? {})) {
          if (entry.peerDependenciesMeta?.[dep]?.optional !== true) visit(dep, path, true);
        }
        return;
      }
      if (base === '' && optional) return;
      if (base === '')
        throw new Error(`the repository's lock has no ${name} (needed by ${from || 'the package'})`);
      const up = base.lastIndexOf('/node_modules/');
      base = up === -1 ? '' : base.slice(0, up);
    }
  };
  for (const name of Object.keys(roots)) visit(name, '', false);
  return out;
}

/** The tarball `npm pack` made of a fresh clone of the repository. */
export interface Packed {
  /** Path of the tarball. */
  tarball: string;
  /** Paths inside the tarball. */
  files: string[];
  /** Size of the tarball, and of the files in it, in bytes. */
  size: number;
  unpackedSize: number;
  /** The package.json packed. */
  manifest: LockEntry & { name: string };
}

/** Packs `repo` as a fresh clone (under `work`), as `npm pack` does for a user: `prepare` builds it. */
export async function packFresh(repo: string, work: string): Promise<Packed> {
  const clone = join(work, 'clone');
  mkdirSync(clone, { recursive: true });
  await cloneLike(repo, clone);
  if (existsSync(join(clone, 'dist'))) throw new Error('a fresh clone has no dist/');

  const { stdout } = await npm(['pack', '--json', '--pack-destination', work], clone);
  const [packed] = JSON.parse(stdout) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  if (!packed) throw new Error(`npm pack printed no package: ${stdout}`);
  return {
    tarball: join(work, packed.filename),
    files: packed.files.map((file) => file.path),
    size: packed.size,
    unpackedSize: packed.unpackedSize,
    manifest: JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as Packed['manifest'],
  };
}

/** How long a file waits for the pack another file makes (a build with types, on a busy machine). */
const SHARED_PACK_WAIT_MS = 600_000;

/**
 * {@link packFresh}, once per test run for every file that asks: packing builds the package with its types, the
 * slowest step of the package tests. The first file to ask packs into the run's directory (`inject('packDir')`,
 * from test/package/pack-dir.ts); a file asking later, in this worker or another, waits for that pack and gets
 * the same tarball, which it must not change (each installs its own copy). Without that directory (the file run
 * under another config) the file packs on its own, into `work`.
 */
export async function sharedPack(repo: string, work: string): Promise<Packed> {
  const dir = inject('packDir');
  if (dir === undefined || dir === '') return packFresh(repo, work);
  const done = join(dir, 'packed.json');
  const failed = join(dir, 'failed.txt');
  mkdirSync(dir, { recursive: true });
  let first = true;
  try {
    // Atomic: exactly one file makes it, and packs.
    mkdirSync(join(dir, 'packing'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    first = false;
  }
  if (first) {
    try {
      const packed = await packFresh(repo, dir);
      writeFileSync(done, JSON.stringify(packed));
      return packed;
    } catch (error) {
      writeFileSync(failed, (error as Error).message);
      throw error;
    }
  }
  for (const start = Date.now(); Date.now() - start < SHARED_PACK_WAIT_MS; await sleep(250)) {
    if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as Packed;
    if (existsSync(failed))
      throw new Error(`npm pack failed in another test file: ${readFileSync(failed, 'utf8')}`);
  }
  throw new Error(`no pack in ${dir} after ${SHARED_PACK_WAIT_MS} ms`);
}

/**
 * A dependency of the test project besides the package: a name, installed at the version the repository's lock
 * holds, or `{ name, from }`: the package the repository locks as `from` (a dev alias such as `zod-lowest`,
 * `npm:zod@…`), installed as `name`. It takes the place of `name` wherever the package's own dependencies would
 * have put the repository's copy, so the project has one (`from` must have no dependencies of its own).
 */
export type Extra = string | { name: string; from: string };

/**
 * Installs `packed`, offline, into the new project `app`, with `extra` dependencies. The project's lock is made
 * from the repository's: npm checks it against every range on the way (the project's and the package's), so a
 * version outside the package's range fails the install instead of nesting a second copy.
 */
export async function installPacked(
  repo: string,
  packed: Packed,
  app: string,
  extra: Extra[] = [],
): Promise<void> {
  const { manifest } = packed;
  mkdirSync(app, { recursive: true });
  const filename = basename(packed.tarball);
  cpSync(packed.tarball, join(app, filename));
  const repoLock = (
    JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    }
  ).packages;
  const locked = (from: string): LockEntry => {
    const entry = repoLock[`node_modules/${from}`];
    if (entry?.version === undefined) throw new Error(`the repository's lock has no ${from}`);
    const { dev: _dev, devOptional: _devOptional, peer: _peer, name: _name, ...rest } = entry;
    return rest;
  };
  const extras = extra.map((item) => (typeof item === 'string' ? { name: item, from: item } : item));
  const dependencies = {
    [manifest.name]: `file:${filename}`,
    ...Object.fromEntries(extras.map(({ name, from }) => [name, locked(from).version as string])),
  };
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, dependencies }, null, 2),
  );
  const integrity = `sha512-${createHash('sha512').update(readFileSync(packed.tarball)).digest('base64')}`;
  const own: LockEntry = {
    version: manifest.version,
    resolved: `file:${filename}`,
    integrity,
    license: manifest.license,
    ...(manifest.dependencies ? { dependencies: manifest.dependencies } : {}),
    ...(manifest.bin ? { bin: manifest.bin } : {}),
    ...(manifest.engines ? { engines: manifest.engines } : {}),
    ...(manifest.peerDependencies ? { peerDependencies: manifest.peerDependencies } : {}),
    ...(manifest.peerDependenciesMeta ? { peerDependenciesMeta: manifest.peerDependenciesMeta } : {}),
  };
  const replaced = extras.filter(({ name, from }) => name !== from);
  const lock = {
    name: 'app',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'app', dependencies },
      [`node_modules/${manifest.name}`]: own,
      ...closure(repoLock, {
        ...manifest.dependencies,
        ...Object.fromEntries(extras.filter(({ name, from }) => name === from).map(({ name }) => [name, ''])),
      }),
      ...Object.fromEntries(replaced.map(({ name, from }) => [`node_modules/${name}`, locked(from)])),
    },
  };
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify(lock, null, 2));
  try {
    await npm(['ci', '--offline', '--no-audit', '--no-fund'], app);
  } catch (error) {
    throw new Error(
      `npm ci --offline in the test project failed; its packages come from the npm cache, which \`npm ci\` in the repository fills: ${(error as Error).message}`,
    );
  }
}

/** Runs npm in `cwd` (see {@link npm}). */
export function runNpm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return npm(args, cwd);
}
