/**
 * The package check on the tarball a fresh clone packs, the one the other package tests install: publint, strict
 * (a warning fails too), for what package.json promises against the files shipped; and Are the Types Wrong, for
 * the types each entry point resolves to under TypeScript's node10 resolution (`moduleResolution: node`, the
 * default for `module: commonjs`, which reads no `exports`: package.json's `typesVersions` serves the subpaths
 * there), under Node's node16 resolution, from ESM and from CommonJS, and under a bundler's. `npm run
 * check:package` runs the same two on a build of the working tree.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Packed, sharedPack } from './fresh-pack';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(repo, 'node_modules/.bin', name);
/** Packing builds the package (tsup with types; once for the run's package tests): on a busy machine that takes a while. */
const SETUP_TIMEOUT_MS = 420_000;

let work: string;
let packed: Packed;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolwire-checks-'));
  packed = await sharedPack(repo, work);
}, SETUP_TIMEOUT_MS);

// Installed projects: removing them took over 10 s on a busy machine.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

/** Runs a checker; resolves with what it printed, or fails with it (both exit non-zero on a problem). */
async function check(file: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(file, args, { cwd: work, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

it('passes publint --strict', async () => {
  const printed = await check(bin('publint'), ['run', packed.tarball, '--strict']);
  expect(printed).toContain('All good!');
}, 120_000);

it('passes Are the Types Wrong under every resolution, node10 included: no problem in any entry point', async () => {
  // Exits non-zero on a problem (the default profile, strict, counts every resolution).
  const printed = await check(bin('attw'), [packed.tarball, '--format', 'json']);
  const { analysis } = JSON.parse(printed) as {
    analysis: {
      problems: Array<{ kind: string; entrypoint?: string; resolutionKind?: string }>;
      entrypoints: Record<string, unknown>;
    };
  };
  expect(analysis.problems).toEqual([]);
  expect(Object.keys(analysis.entrypoints).sort()).toEqual([
    '.',
    './ai-sdk',
    './compat',
    './json-schema',
    './mcp',
    './otel',
    './package.json',
    './server-stub',
    './strict',
    './testing',
    './tracing',
    './valibot',
    './zod3',
  ]);
}, 120_000);
