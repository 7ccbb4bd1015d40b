/**
 * The public types under `exactOptionalPropertyTypes: true` (a user's tsconfig may set it; this project's does
 * not): the fixtures must compile with it. test/tool/types/exact-optional-tools.ts gives tools of every shape to
 * every `tools` option; test/tool/types/exact-optional-options.ts gives every optional option of `tool()`,
 * `new Client()`, `connect()`, `run()`, `close()`, `new Agent()`, `asTool()` and `invokeTool()` as `undefined`.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = ['exact-optional-tools.ts', 'exact-optional-options.ts'].map(
  (name) => `${root}test/tool/types/${name}`,
);

it('accepts every tool shape, and every optional option given as undefined, under exactOptionalPropertyTypes', () => {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const program = ts.createProgram(fixtures, {
    ...config?.options,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  });
  // Only the fixtures' own diagnostics: the sources are compiled without the option.
  const problems = fixtures.flatMap((fixture) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(fixture)).map((d) => {
      const line =
        d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `${fixture.slice(root.length)}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    }),
  );
  expect(problems).toEqual([]);
  // One TypeScript program over the sources: about 15 s on a busy 2-core machine.
}, 90_000);
