/**
 * Code in the docs must compile: every ```ts block of README.md and of every page under docs/ is type-checked
 * against the sources, as a user would write it (imports from 'toolwire' and its subpaths). And their links hold:
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
    [...readFileSync(`${root}${file}`, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => ({
      name: `${file.replace(/[/.]/g, '_')}_${index}`,
      code: match[1] ?? '',
    })),
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
