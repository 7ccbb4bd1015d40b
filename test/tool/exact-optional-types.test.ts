/**
 * The tool types under `exactOptionalPropertyTypes: true` (a user's tsconfig may set it; this project's does
 * not): test/tool/types/exact-optional-tools.ts must compile with it.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = `${root}test/tool/types/exact-optional-tools.ts`;

it('accepts an AI SDK tool() and every other shape under exactOptionalPropertyTypes', () => {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const program = ts.createProgram([fixture], {
    ...config?.options,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  });
  // Only the fixture's own diagnostics: the sources are compiled without the option.
  const problems = ts
    .getPreEmitDiagnostics(program, program.getSourceFile(fixture))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(problems).toEqual([]);
  // One TypeScript program over the sources: about 15 s on a busy 2-core machine.
}, 90_000);
