/**
 * The seeds' tool examples type-check under strict `tsc` as written, with only the import line changed: each
 * seed's test file (one per seed in this folder) compiled on its own with the repository's compiler options
 * (`strict`, `noUncheckedIndexedAccess`), `toolwire` and `toolwire/compat` resolved as the package's entries.
 * Then the app-wide narrowing of the run context (declaring `AppContext` by declaration merging), which cannot
 * sit in a file the repository's own type check reads (it would narrow every test's context): written to a
 * temporary folder of this one and compiled alone, once as the Cencori seed is written and once with a mistake it must catch.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const here = fileURLToPath(new URL('./', import.meta.url));
// Inside the repository, so that `zod` and `toolwire` resolve as for the seeds; removed after the test.
const work = mkdtempSync(join(here, '.app-context-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function options(): ts.CompilerOptions {
  const read = ts.readConfigFile(join(repo, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, repo);
  return { ...parsed.options, noEmit: true };
}

/** The last program made: the next one reuses what did not change (the library's, zod's and the sources' files). */
let previous: ts.Program | undefined;

/**
 * The diagnostics of compiling `files` alone, as `file(line): message` lines: those of `files` and the program's
 * global ones (the sources they import are checked with the same options by `npm run typecheck`).
 */
function diagnostics(files: string[]): string[] {
  const program = ts.createProgram(files, options(), undefined, previous);
  previous = program;
  return files
    .flatMap((file) => ts.getPreEmitDiagnostics(program, program.getSourceFile(file)))
    .map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (!diagnostic.file || diagnostic.start === undefined) return message;
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      return `${diagnostic.file.fileName.replace(repo, '')}(${line + 1}): ${message}`;
    });
}

const CENCORI_WITH_APP_CONTEXT = `
import { Agent, tool } from 'toolwire';
import { z } from 'zod';

declare module 'toolwire' {
  interface AppContext {
    tenantId: string;
  }
}

const db = { orders: { search: async (query: { email: string; status?: string; tenant: string }) => [query] } };

export const searchOrders = tool({
  name: 'search_orders',
  description: 'Find orders by customer email. Returns at most 10.',
  parameters: z.object({
    email: z.string().email(),
    status: z.enum(['open', 'shipped', 'refunded']).optional(),
  }),
  execute: async ({ email, status }, { context }) => db.orders.search({ email, status, tenant: context.tenantId }),
});
export const writer = new Agent({ name: 'Writer', tools: [searchOrders] });
`;

describe('the seeds under strict tsc', () => {
  it('compiles each seed’s test file as written', () => {
    const seeds = readdirSync(here).filter((file) => /^\d{3}-.+\.test\.ts$/.test(file));
    expect(seeds.length).toBeGreaterThanOrEqual(3);
    expect(options().strict).toBe(true);
    expect(diagnostics(seeds.map((file) => join(here, file)))).toEqual([]);
  }, 300_000);

  it('narrows tool contexts with AppContext declared in a file of its own, as the guide shows it', () => {
    const guide = readFileSync(join(repo, 'docs/guide/other-sdks.md'), 'utf8');
    const block = /```ts \[app-context\.m?ts\]\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block).toContain("declare module 'toolwire'");
    const declaration = join(work, 'app-context.ts');
    writeFileSync(declaration, block ?? '');
    const app = join(work, 'cencori-app.ts');
    writeFileSync(app, CENCORI_WITH_APP_CONTEXT.replace(/declare module 'toolwire' \{[\s\S]*?\n\}\n/, ''));
    expect(readFileSync(app, 'utf8')).not.toContain('declare module');
    expect(diagnostics([declaration, app])).toEqual([]);
  }, 300_000);

  it('narrows every untyped tool context to AppContext once the app declares it', () => {
    const good = join(work, 'cencori-app-context.ts');
    writeFileSync(good, CENCORI_WITH_APP_CONTEXT);
    expect(diagnostics([good])).toEqual([]);
    const bad = join(work, 'cencori-typo.ts');
    writeFileSync(bad, CENCORI_WITH_APP_CONTEXT.replace('context.tenantId', 'context.tenantID'));
    expect(diagnostics([bad]).join('\n')).toContain(
      "Property 'tenantID' does not exist on type 'AppContext'. Did you mean 'tenantId'?",
    );
  }, 300_000);

  it("checks a client's context against AppContext once the app declares it, for tools that say no other", () => {
    const withClient = `${CENCORI_WITH_APP_CONTEXT.replace('{ Agent, tool }', '{ Agent, Client, tool }')}
export const client = new Client({ tools: [searchOrders], context: (call) => ({ tenantId: call.runId }) });
`;
    const good = join(work, 'cencori-client.ts');
    writeFileSync(good, withClient);
    expect(diagnostics([good])).toEqual([]);
    const bad = join(work, 'cencori-client-typo.ts');
    writeFileSync(bad, withClient.replace('({ tenantId: call.runId })', '({ tenant: call.runId })'));
    expect(diagnostics([bad]).join('\n')).toContain(
      "Type '(call: CallInfo) => { tenant: string; }' is not assignable to type 'ClientContext<{ tenant: string; }, AppContext> | undefined'.",
    );
  }, 300_000);
});
