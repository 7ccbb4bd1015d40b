/**
 * The README's Quick Start, run exactly as the README shows it: the repository packed as a fresh clone would be
 * (`npm pack`), the tarball installed with the README's install line into an empty CommonJS project (as
 * `npm init -y` makes one; offline, from the npm cache), the README's file saved under the README's name, and
 * the README's command run. What it prints is compared with what the README says it prints.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installPacked, sharedPack } from './fresh-pack';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** Packing builds the package (tsup with types; once for the run's package tests): on a busy machine that takes a while. */
const SETUP_TIMEOUT_MS = 300_000;

/** What the README's Quick Start section says, read from the README itself. */
interface QuickStart {
  /** The packages the install line names after the tarball (`zod tsx`). */
  packages: string[];
  /** The file name the README tells to save the code as. */
  file: string;
  /** The code block. */
  code: string;
  /** The command that runs it, and what the README says it prints. */
  command: string[];
  printed: string;
}

function quickStart(): QuickStart {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const install =
    /^mkdir \.\.\/my-app && cd \.\.\/my-app && npm init -y && npm install \.\.\/toolwire\/toolwire-[\d.]+\.tgz (.+)$/m.exec(
      readme,
    );
  const section = readme.slice(
    readme.indexOf('## Quick Start'),
    readme.indexOf('\n## ', readme.indexOf('## Quick Start') + 1),
  );
  const file = /save this as `([^`]+)`/.exec(section);
  const code = /```ts\n([\s\S]*?)```/.exec(section);
  const shell = /```sh\n(npx [^\n]+)\n# ([^\n]+)\n```/.exec(section);
  if (!install || !file || !code || !shell)
    throw new Error("the README's Quick Start section is not where this test reads it");
  return {
    packages: (install[1] as string).split(' '),
    file: file[1] as string,
    code: code[1] as string,
    command: (shell[1] as string).split(' '),
    printed: shell[2] as string,
  };
}

const readme = quickStart();
let work: string;
let app: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolwire-quick-start-'));
  // The install line's other packages, at the versions this repository's lock (and so the npm cache) holds.
  app = join(work, 'app');
  await installPacked(repo, await sharedPack(repo, work), app, readme.packages);
}, SETUP_TIMEOUT_MS);

// Installed projects: removing them took over 10 s on a busy machine.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

it('reads the install line, the file and the command from the README', () => {
  expect(readme.packages).toEqual(['zod', 'tsx']);
  expect(readme.file).toBe('quickstart.mts');
  expect(readme.command).toEqual(['npx', 'tsx', 'quickstart.mts']);
});

it('runs in an empty CommonJS project as pasted, and prints the model’s answer', async () => {
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { type?: string };
  expect(manifest.type ?? 'commonjs').toBe('commonjs');
  writeFileSync(join(app, readme.file), readme.code);
  const [command, ...args] = readme.command as [string, ...string[]];
  const { stdout } = await run(command, args, {
    cwd: app,
    // npx finds tsx in the project; offline, so that it never looks anywhere else.
    env: { ...process.env, npm_config_offline: 'true' },
    timeout: 60_000,
  });
  expect(stdout).toBe(`${readme.printed}\n`);
  expect(readme.printed).toBe('Your orders: [{"id":"ord_1","email":"ada@example.com","status":"shipped"}]');
}, 90_000);
