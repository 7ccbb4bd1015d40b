/**
 * Code in the docs must compile: every ```ts block of README.md and of every page under docs/ is type-checked
 * against the sources, as a user would write it (imports from 'toolwire' and its subpaths), all in one program as
 * in one app that follows several pages: a block named for a file of the app (```ts [app-context.mts]) is
 * checked too, so the `AppContext` other-sdks.md declares holds for every other block. And their links hold:
 * every relative link names a file that exists, and a heading of it when it has a `#fragment`.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, expect, it } from 'vitest';
import { deadLinks, docFiles } from '../docs/.vitepress/links';

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = `${root}test/.doc-snippets/`;

/** Names the snippets use without defining: the reader's own database. */
const PRELUDE = 'declare const db: { orders: { search(query: object): Promise<object[]> } };\n';

function snippets(): Array<{ name: string; code: string }> {
  return docFiles(root).flatMap((file) =>
    [...readFileSync(`${root}${file}`, 'utf8').matchAll(/```ts(?: \[[^\]\n]+\])?\n([\s\S]*?)```/g)].map(
      (match, index) => ({
        name: `${file.replace(/[/.]/g, '_')}_${index}`,
        code: match[1] ?? '',
      }),
    ),
  );
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('has no dead link in README.md and docs/, anchors included', () => {
  expect(deadLinks(root)).toEqual([]);
});

it('keeps the README and every page of docs/ under 15 KB', () => {
  const sizes = docFiles(root).map((file) => [file, readFileSync(`${root}${file}`).byteLength] as const);
  expect(sizes.filter(([, bytes]) => bytes > 15 * 1024)).toEqual([]);
});

it('type-checks every TypeScript block in README.md and docs/', () => {
  const found = snippets();
  expect(found.length).toBeGreaterThan(0);
  mkdirSync(scratch, { recursive: true });
  const paths = found.map(({ name, code }) => {
    const path = `${scratch}${name}.ts`;
    // Each snippet is its own module, so top-level await and repeated names are fine.
    writeFileSync(path, `${PRELUDE}${code}\nexport {};\n`);
    return path;
  });
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  const program = ts.createProgram(paths, {
    ...config?.options,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
  });
  // The snippets' own diagnostics: the sources they import are checked by `npm run typecheck`, and checking them
  // again here took most of this test's time.
  const problems = paths
    .flatMap((path) => ts.getPreEmitDiagnostics(program, program.getSourceFile(path)))
    .filter((d) => d.file && paths.includes(d.file.fileName))
    .map(
      (d) =>
        `${d.file?.fileName.replace(scratch, '')}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  expect(problems).toEqual([]);
  // One TypeScript program over every snippet: about 25 s on a busy 2-core machine.
}, 90_000);

/** The fenced blocks of a page, in order, with their language. */
function blocks(text: string): Array<{ lang: string; code: string; at: number }> {
  return [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((match) => ({
    lang: match[1] ?? '',
    code: match[2] ?? '',
    at: match.index ?? 0,
  }));
}

it('names the file and the command of every program a page runs against the stub it starts', () => {
  // A TypeScript block that connects a client with top-level await, in the section where a page starts the
  // stand-in with `npx toolwire-stub`, is a program the reader runs against it: the page must say which file (an
  // ES module, `.mts`, since `npm init -y` makes a CommonJS project where a `.ts` file with top-level await does
  // not run) and how.
  const problems: string[] = [];
  for (const file of docFiles(root)) {
    const text = readFileSync(`${root}${file}`, 'utf8');
    const found = blocks(text);
    const stub = found.find((block) => block.lang === 'sh' && /npx toolwire-stub /.test(block.code));
    if (stub === undefined) continue;
    for (const block of found.filter((other) => other.at > stub.at)) {
      if (/^#{1,6} /m.test(text.slice(stub.at, block.at))) break;
      if (block.lang !== 'ts' || !/^await \w+\.connect\(/m.test(block.code)) continue;
      const named =
        [...text.slice(Math.max(0, block.at - 400), block.at).matchAll(/save this as `([^`]+)`/g)].at(
          -1,
        )?.[1] ?? /^\/\/ (\S+\.m?ts)\b/.exec(block.code)?.[1];
      const where = `${file}: the block at line ${text.slice(0, block.at).split('\n').length}`;
      if (named === undefined) problems.push(`${where} names no file`);
      else if (!named.endsWith('.mts')) problems.push(`${where} is named ${named}, not an .mts module`);
      else if (!found.some((other) => other.lang === 'sh' && other.code.includes(`npx tsx ${named}`)))
        problems.push(`${where} has no command running it (npx tsx ${named})`);
    }
  }
  expect(problems).toEqual([]);
});

it('starts the stand-in with a script and closes the client wherever a page runs an agent against it', () => {
  // A block that connects to the stand-in at ws://127.0.0.1:8787 and starts a run needs a script for its model on
  // the page (without one every run fails `run_failed`); and a program that connects and runs must close its
  // client, since an open client keeps the process alive.
  const problems: string[] = [];
  for (const file of docFiles(root)) {
    const text = readFileSync(`${root}${file}`, 'utf8');
    const found = blocks(text);
    const scripted = found.some(
      (block) => block.lang === 'sh' && /npx toolwire-stub .*--script /.test(block.code),
    );
    for (const block of found) {
      // The run may be anywhere in the block: at its top level, or in a function it calls (`return await
      // client.run(…)` in a helper); the client to close is the one the block connects.
      const connects = /^await (\w+)\.connect\(/m.exec(block.code);
      if (block.lang !== 'ts' || connects === null || !/\b\w+\.run\(/.test(block.code)) continue;
      const where = `${file}: the block at line ${text.slice(0, block.at).split('\n').length}`;
      if (block.code.includes('ws://127.0.0.1:8787') && !scripted)
        problems.push(
          `${where} runs against the stand-in, and no \`npx toolwire-stub … --script\` starts it`,
        );
      if (!block.code.includes(`await ${connects[1]}.close()`))
        problems.push(`${where} never closes ${connects[1]}`);
    }
  }
  expect(problems).toEqual([]);
});

it('names the install of every package an integration page imports besides toolwire', () => {
  // An integration page is read on its own: the packages its blocks import (a peer such as `ai` at the major
  // toolwire supports, not npm's latest) are in an `npm install` on the page.
  const problems: string[] = [];
  for (const file of docFiles(root).filter((path) => path.startsWith('docs/integrations/'))) {
    const text = readFileSync(`${root}${file}`, 'utf8');
    const installed = [...text.matchAll(/npm install((?:\s+[^\s`]+)+)/g)].flatMap((match) =>
      (match[1] ?? '')
        .trim()
        .split(/\s+/)
        .map((spec) => spec.replace(/(.)@.*$/, '$1')),
    );
    const imported = blocks(text)
      .filter((block) => block.lang === 'ts')
      .flatMap((block) => [...block.code.matchAll(/ from '([^'.][^']*)'/g)].map((match) => match[1] ?? ''))
      .filter((specifier) => !specifier.startsWith('node:'))
      .map((specifier) => (/^(@[^/]+\/)?[^/]+/.exec(specifier) ?? [''])[0]);
    for (const name of new Set(imported))
      if (name !== 'toolwire' && !installed.includes(name))
        problems.push(`${file} imports ${name}, never installed`);
  }
  expect(problems).toEqual([]);
});

it('installs tsx with the tarball wherever a page installs it, for the `npx tsx` its commands run', () => {
  const lines = docFiles(root).flatMap((file) =>
    [...readFileSync(`${root}${file}`, 'utf8').matchAll(/^.*npm install \S*toolwire-[\d.]+\.tgz.*$/gm)].map(
      (match) => `${file}: ${match[0]}`,
    ),
  );
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.filter((line) => !/\btsx\b/.test(line))).toEqual([]);
});
