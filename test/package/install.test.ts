/**
 * The package as a user gets it: `npm pack` in a fresh clone (no `dist/`: `prepare` builds it), the tarball
 * installed into empty projects (offline, from the npm cache), one with the newest zod the repository locks and
 * one with the oldest its range admits (`zod-lowest`), every entry point imported from ESM and from CommonJS, and
 * the README's Quick Start run against the `toolwire-stub` binary of each install.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Extra, installPacked, type Packed, runNpm, sharedPack } from './fresh-pack';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** Packing builds the package (tsup with types; once for the run's package tests), then two projects install it: on a busy machine that takes a while. */
const SETUP_TIMEOUT_MS = 420_000;

const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string }>;
};
/** The two projects: the zod each has, and what else it installs. */
const PROJECTS = {
  newest: {
    zod: lock.packages['node_modules/zod']?.version,
    extra: ['zod', '@opentelemetry/api'] as Extra[],
  },
  lowest: {
    zod: lock.packages['node_modules/zod-lowest']?.version,
    extra: [{ name: 'zod', from: 'zod-lowest' }] as Extra[],
  },
};
type Project = keyof typeof PROJECTS;

let work: string;
let packed: Packed;
const apps = {} as Record<Project, string>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolwire-package-'));
  packed = await sharedPack(repo, work);
  await Promise.all(
    (Object.entries(PROJECTS) as Array<[Project, (typeof PROJECTS)[Project]]>).map(([project, { extra }]) => {
      apps[project] = join(work, project);
      return installPacked(repo, packed, apps[project], extra);
    }),
  );
}, SETUP_TIMEOUT_MS);

// Installed projects: removing them took over 10 s on a busy machine.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

/** Runs a script in a project with `node`; resolves with what it printed as JSON on its last line. */
async function node(
  project: Project,
  file: string,
  source: string,
  env: Record<string, string> = {},
): Promise<unknown> {
  writeFileSync(join(apps[project], file), source);
  const { stdout } = await run(process.execPath, [file], {
    cwd: apps[project],
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null');
}

/** Every copy of `name` under a project's node_modules (nested ones too), with its version. */
function copiesOf(app: string, name: string): Array<{ path: string; version: string }> {
  const found: Array<{ path: string; version: string }> = [];
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      const scoped = entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((inner) => `${entry}/${inner}`)
        : [entry];
      for (const pkg of scoped) {
        const dir = join(modules, pkg);
        if (pkg === name) {
          const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
            version: string;
          };
          found.push({ path: posix.relative(app, dir.split('\\').join('/')), version });
        }
        visit(join(dir, 'node_modules'));
      }
    }
  };
  visit(join(app, 'node_modules'));
  return found;
}

const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  exports: Record<string, { node?: { import: { default: string } }; import?: { default: string } } | string>;
};
/** The subpaths of package.json `exports` a page may import (all but the server stub, a Node program). */
const SUBPATHS = Object.keys(manifest.exports)
  .filter((key) => key.startsWith('./') && key !== './package.json' && key !== './server-stub')
  .map((key) => key.slice(2));
/**
 * The entry points of the Node build, as dist/ paths without extension (tsup.config.ts): what each entry of
 * `exports` gives Node's `import`.
 */
const ENTRIES = Object.values(manifest.exports).flatMap((target) => {
  const file = typeof target === 'string' ? undefined : (target.node?.import ?? target.import)?.default;
  return file?.startsWith('./dist/') ? [file.slice('./dist/'.length, -'.js'.length)] : [];
});

describe('npm pack in a fresh clone', () => {
  it('ships the built entry points with their types, the CLI, README, CHANGELOG and LICENSE, and nothing else', () => {
    const files = packed.files;
    for (const entry of ENTRIES) {
      for (const ext of ['.js', '.cjs', '.d.ts', '.d.cts']) {
        expect(files, `${entry}${ext}`).toContain(`dist/${entry}${ext}`);
      }
    }
    // The browser build: the same entries but the server stub, the core as `index`, ES modules only.
    for (const entry of [
      'index',
      ...ENTRIES.filter((name) => name !== 'node' && !name.startsWith('server-stub')),
    ]) {
      expect(files, `browser/${entry}.js`).toContain(`dist/browser/${entry}.js`);
    }
    // No source maps: the package ships no sources for them to point at.
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/server-stub/cli.js']) {
      expect(files, file).toContain(file);
    }
    expect(files.filter((file) => !/^dist\//.test(file)).sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'package.json',
    ]);
  });

  // Two builds of the one source (tsup.config.ts): 1.02 MB when the Node build came, 0.87 MB before it; 1.20 MB on
  // 2026-12-07 (the Node chunks, ESM and CommonJS, 0.81 and 0.89 MB unpacked; the stub's 0.5 MB each; types 0.54 MB).
  it('packs into at most 1.25 MB', () => {
    expect(packed.size).toBeLessThanOrEqual(1_250_000);
  });

  // V8 holds a module's source for as long as the program runs: as Latin-1 when every character fits, else as
  // UTF-16, twice the bytes (the Node core's chunk: 1.55 MB of heap for 775 KB); and Node decodes a file's UTF-8
  // on its fast path only when every byte is ASCII (tsup.config.ts `asciiText`).
  it('ships JavaScript that is ASCII: no character above U+007F, even in a comment', () => {
    const wide = packed.files.filter(
      (file) =>
        /\.c?js$/.test(file) &&
        /[\u0080-\uffff]/.test(readFileSync(join(apps.newest, 'node_modules/toolwire', file), 'utf8')),
    );
    expect(wide).toEqual([]);
  });

  it('keeps OpenTelemetry out of the core: only toolwire/otel loads @opentelemetry/api', () => {
    const loading = packed.files.filter(
      (file) =>
        /\.c?js$/.test(file) &&
        readFileSync(join(apps.newest, 'node_modules/toolwire', file), 'utf8').includes('@opentelemetry'),
    );
    expect(loading.sort()).toEqual([
      'dist/browser/otel/index.js',
      'dist/otel/index.cjs',
      'dist/otel/index.js',
    ]);
  });

  it('keeps each registration in a file sideEffects lists: the Node build whole, the browser build by entry', () => {
    const dist = join(apps.newest, 'node_modules/toolwire');
    const { sideEffects } = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8')) as {
      sideEffects: string[];
    };
    const browserRegistering = ['zod3', 'valibot', 'json-schema', 'strict'].map(
      (entry) => `./dist/browser/${entry}.js`,
    );
    expect(sideEffects).toEqual(['./dist/*.js', './dist/*.cjs', ...browserRegistering]);
    // The Node build's registrations are in its shared chunk (src/node.ts, which every entry imports): every file
    // at the top of dist/ is listed.
    const nodeChunks = packed.files.filter((file) => /^dist\/chunk-[^/]+\.c?js$/.test(file));
    expect(nodeChunks.length).toBeGreaterThan(0);
    const registering = nodeChunks.filter((file) =>
      readFileSync(join(dist, file), 'utf8').includes('registerPart("valibot"'),
    );
    // One chunk of each format (their hashed names sort either way).
    expect(registering.map((file) => file.slice(file.lastIndexOf('.'))).sort()).toEqual(['.cjs', '.js']);
    // In the browser build a bundler drops an import of a file that sideEffects does not list and whose exports go
    // unused, so the code that registers must be in the listed file itself, and no file may import a listed one.
    const importing = packed.files
      .filter((file) => /^dist\/browser\/.*\.js$/.test(file))
      .flatMap((file) => {
        const text = readFileSync(join(dist, file), 'utf8');
        return [...text.matchAll(/(?:from|import|require\()\s*["']\.{1,2}\/([^"']+)["']/g)]
          .map((match) => posix.join(posix.dirname(file), match[1] as string))
          .filter((target) => browserRegistering.includes(`./${target}`))
          .map((target) => `${file} -> ${target}`);
      });
    expect(importing).toEqual([]);
  });
});

describe('the declarations users compile against', () => {
  it('name every type as declared: no bundler-renamed alias (AnyTool$2, Tool$1) in any shipped .d.ts', () => {
    const dist = join(apps.newest, 'node_modules/toolwire/dist');
    const declarations = packed.files
      .filter((file) => /^dist\/.*\.d\.c?ts$/.test(file))
      .map((file) => file.slice('dist/'.length));
    // Every entry point's, the shared chunks' too.
    for (const entry of ENTRIES) {
      expect(declarations, entry).toEqual(expect.arrayContaining([`${entry}.d.ts`, `${entry}.d.cts`]));
    }
    for (const file of declarations) {
      const renamed = readFileSync(join(dist, file), 'utf8').match(/\b[A-Za-z_]\w*\$\d+\b/g) ?? [];
      expect([...new Set(renamed)], file).toEqual([]);
    }
  });

  // A browser project: its lib has neither lib.esnext.disposable nor @types/node (where `Symbol.asyncDispose` is
  // declared), and it checks every declaration file (no skipLibCheck). Every entry point whose peers the project
  // has (toolwire/mcp and toolwire/ai-sdk need theirs), through `import` (the `browser`/`import` types, .d.ts)
  // and through `require` (the .d.cts). That the package's own declaration of `Symbol.asyncDispose` merges with
  // lib.esnext.disposable's and @types/node's is checked by `npm run typecheck`, whose config has both.
  it.each([
    ['import', 'Bundler', 'mts'],
    ['require', 'NodeNext', 'cts'],
  ])(
    'type-check under lib ES2022 + DOM, strict, without skipLibCheck or @types/node (%s)',
    async (how, resolution, ext) => {
      const dir = join(apps.newest, `browser-types-${how}`);
      mkdirSync(dir, { recursive: true });
      // Every entry but those whose peers the project lacks (toolwire/mcp and toolwire/ai-sdk).
      const specifiers = [
        '',
        ...SUBPATHS.filter((subpath) => subpath !== 'mcp' && subpath !== 'ai-sdk'),
        'server-stub',
      ];
      const lines = specifiers.map((subpath, index) => {
        const spec = subpath === '' ? 'toolwire' : `toolwire/${subpath}`;
        return how === 'import'
          ? `import * as m${index} from '${spec}';`
          : `import m${index} = require('${spec}');`;
      });
      const code = `${lines.join('\n')}
const client = new m0.Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [] });
export const used = [client, ${specifiers.map((_, index) => `m${index}`).join(', ')}];
`;
      writeFileSync(join(dir, `main.${ext}`), code);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2022', 'DOM'],
            module: resolution === 'Bundler' ? 'ESNext' : 'NodeNext',
            moduleResolution: resolution,
            strict: true,
            noEmit: true,
            types: [],
          },
          files: [`main.${ext}`],
        }),
      );
      const tsc = join(repo, 'node_modules/typescript/bin/tsc');
      const problems = await run(process.execPath, [tsc, '-p', dir], { cwd: dir, timeout: 60_000 }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(problems).toBe('');
    },
    90_000,
  );
});

describe.each(Object.keys(PROJECTS) as Project[])('a project with the %s zod', (project) => {
  it(`has one zod, its own (${PROJECTS[project].zod}), within the range the package asks for`, async () => {
    expect(copiesOf(apps[project], 'zod')).toEqual([
      { path: 'node_modules/zod', version: PROJECTS[project].zod },
    ]);
    // npm ls exits non-zero on any dependency outside its range (`invalid`) or missing.
    const { stdout } = await runNpm(['ls', '--all', '--json'], apps[project]);
    const tree = JSON.parse(stdout) as { problems?: string[]; dependencies: Record<string, unknown> };
    expect(tree.problems ?? []).toEqual([]);
    expect(tree.dependencies.toolwire).toMatchObject({
      dependencies: { zod: { version: PROJECTS[project].zod } },
    });
  });
});

describe.each(Object.keys(PROJECTS) as Project[])(
  'a zod 4 tool called through the stub, with the %s zod',
  (project) => {
    // The same announcement and the same calls with every zod the range admits: optional, default, union and
    // transform fields, a check after .trim() and a case-insensitive pattern (which zod announces without its flag:
    // toolwire leaves both out, or the check against the announcement would refuse what zod accepts).
    const SCRIPT = `import { Agent, Client, invokeTool, tool } from 'toolwire';
import { scriptedModel, silentLogger, startStubServer } from 'toolwire/server-stub';
import { z } from 'zod';
const seen = [];
const book = tool({
  name: 'book',
  description: 'Books a room.',
  parameters: z.object({
    room: z.string().trim().max(4),
    code: z.string().regex(/^[a-z]+$/i),
    nights: z.number().int().positive().optional(),
    plan: z.enum(['basic', 'full']).default('basic'),
    guest: z.union([z.string(), z.object({ name: z.string() })]),
    tags: z.string().transform((text) => text.split(',')),
  }),
  execute: (input) => {
    seen.push(input);
    return 'booked';
  },
});
const service = await startStubServer({
  logger: silentLogger,
  model: scriptedModel([
    { toolCalls: [{ name: 'book', arguments: { room: ' 101 ', code: 'ABC', guest: { name: 'Ada' }, tags: 'a,b' } }] },
    ({ messages }) => ({ text: 'done: ' + messages.at(-1)?.content }),
  ]),
});
const client = new Client({ url: service.url, apiKey: 'k', tools: [book], logger: silentLogger });
await client.connect();
const result = await client.run(new Agent({ name: 'A', instructions: 'Book.', tools: [book] }), 'book');
await client.close();
await service.close();
const refused = await invokeTool(book, { room: 'big room', code: 'a1', guest: 1, tags: 'x' });
console.log(JSON.stringify({ parameters: book.definition.parameters, finalOutput: result.finalOutput, seen, refused: refused.output }));
`;

    it('announces the same JSON Schema and gives the same results as with the newest zod', async () => {
      expect(await node(project, 'zod-tool.mjs', SCRIPT)).toEqual({
        parameters: {
          type: 'object',
          properties: {
            room: { type: 'string' },
            code: { type: 'string' },
            nights: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
            plan: { default: 'basic', type: 'string', enum: ['basic', 'full'] },
            guest: {
              anyOf: [
                { type: 'string' },
                { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
              ],
            },
            tags: { type: 'string' },
          },
          required: ['room', 'code', 'guest', 'tags'],
        },
        finalOutput: 'done: booked',
        seen: [{ room: '101', code: 'ABC', plan: 'basic', guest: { name: 'Ada' }, tags: ['a', 'b'] }],
        refused:
          'Invalid arguments for book: guest: expected a string or an object, received 1; room: Too big: expected string to have <=4 characters; code: Invalid string: must match pattern /^[a-z]+$/i',
      });
    });
  },
);

describe('the installed tarball', () => {
  // tsup.config.ts: a page gets the browser build whole, whether its code imports toolwire or a CommonJS module in
  // it requires it; a subpath from the Node build would bring Node's modules and a second core.
  it.each(['import', 'require'])(
    'bundles for a browser page with every entry reached by %s, all from the browser build',
    async (how) => {
      const specifiers = ['toolwire', ...SUBPATHS.map((subpath) => `toolwire/${subpath}`)];
      const lines = specifiers.map((spec, index) =>
        how === 'import' ? `import * as m${index} from '${spec}';` : `const m${index} = require('${spec}');`,
      );
      const file = join(apps.newest, `page-${how}.${how === 'import' ? 'mjs' : 'cjs'}`);
      writeFileSync(
        file,
        `${lines.join('\n')}\nconsole.log(${specifiers.map((_, index) => `m${index}`).join(', ')});\n`,
      );
      const result = await build({
        entryPoints: [file],
        bundle: true,
        platform: 'browser',
        format: 'esm',
        write: false,
        metafile: true,
        // The page's own libraries, which it brings or leaves out.
        external: ['ai', 'valibot', 'zod3', 'arktype', '@modelcontextprotocol/sdk'],
        logLevel: 'silent',
      });
      const fromToolwire = Object.keys(result.metafile.inputs)
        .filter((input) => input.includes('node_modules/toolwire/'))
        .map((input) =>
          input.slice(input.indexOf('node_modules/toolwire/') + 'node_modules/toolwire/'.length),
        );
      expect(fromToolwire.length).toBeGreaterThan(0);
      expect(fromToolwire.filter((input) => !input.startsWith('dist/browser/'))).toEqual([]);
    },
    60_000,
  );

  const EXPORTS = `{
    tool: typeof toolwire.tool,
    Client: typeof toolwire.Client,
    Agent: typeof toolwire.Agent,
    invokeTool: typeof toolwire.invokeTool,
    startStubServer: typeof stub.startStubServer,
    scriptedModel: typeof stub.scriptedModel,
    openAIChatModel: typeof stub.openAIChatModel,
    otelTracing: typeof otel.otelTracing,
  }`;
  const EXPECTED = {
    tool: 'function',
    Client: 'function',
    Agent: 'function',
    invokeTool: 'function',
    startStubServer: 'function',
    scriptedModel: 'function',
    openAIChatModel: 'function',
    otelTracing: 'function',
  };
  // openai is an optional peer dependency, not installed here: the model says what to install when it is used.
  const WITHOUT_OPENAI = `stub
    .openAIChatModel({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })
    .nextTurn({ messages: [], tools: [], agent: { name: 'a', instructions: '', tools: [] }, runId: 'r', depth: 0, turn: 0, signal: new AbortController().signal })
    .catch((error) => ({ name: error.name, code: error.code, message: error.message.split(':')[0] }))`;
  const MISSING_OPENAI = {
    name: 'ModelError',
    code: 'model_unavailable',
    message: 'openAIChatModel needs the openai package (npm install openai@6)',
  };

  it('declares toolwire/tracing without OpenTelemetry: a tracer of your own type-checks without it', async () => {
    // Every module the declarations of toolwire/tracing import, followed through the package's own chunks.
    const printed = await node(
      'newest',
      'tracing-types.cjs',
      `const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const dist = dirname(require.resolve('toolwire/tracing'));
const seen = new Set();
const outside = new Set();
const visit = (file) => {
  if (seen.has(file)) return;
  seen.add(file);
  for (const match of readFileSync(join(dist, file), 'utf8').matchAll(/(?:from|import) '([^']+)'/g)) {
    const spec = match[1];
    if (spec.startsWith('./')) visit(spec.slice(2).replace(/\\.js$/, '.d.ts'));
    else outside.add(spec);
  }
};
visit('tracing.d.ts');
console.log(JSON.stringify([...outside].sort()));
`,
    );
    expect(printed).not.toEqual(expect.arrayContaining([expect.stringMatching(/opentelemetry/)]));
    expect(printed).toEqual(expect.arrayContaining(['@standard-schema/spec']));
  });

  it('imports the entry points from ESM', async () => {
    const printed = await node(
      'newest',
      'esm.mjs',
      `import * as toolwire from 'toolwire';
import * as stub from 'toolwire/server-stub';
import * as otel from 'toolwire/otel';
console.log(JSON.stringify({ exports: ${EXPORTS}, openai: await ${WITHOUT_OPENAI} }));
`,
    );
    expect(printed).toEqual({ exports: EXPECTED, openai: MISSING_OPENAI });
  });

  it('requires the entry points from CommonJS', async () => {
    const printed = await node(
      'newest',
      'cjs.cjs',
      `const toolwire = require('toolwire');
const stub = require('toolwire/server-stub');
const otel = require('toolwire/otel');
(async () => console.log(JSON.stringify({ exports: ${EXPORTS}, openai: await ${WITHOUT_OPENAI} })))();
`,
    );
    expect(printed).toEqual({ exports: EXPECTED, openai: MISSING_OPENAI });
  });
});

/**
 * `script` (which defines `main()`) run in the newest project twice, with `entries` (name → specifier) taken by
 * `import` then by `require`, in that order; each run must print `expected`.
 */
function underImportAndRequire(
  file: string,
  entries: Record<string, string>,
  script: string,
  expected: unknown,
): void {
  const names = Object.entries(entries);
  it('under import', async () => {
    const imports = names.map(([name, spec]) => `import * as ${name} from '${spec}';`).join('\n');
    const source = `${imports}\n${script}\nconsole.log(JSON.stringify(await main()));\n`;
    expect(await node('newest', `${file}.mjs`, source)).toEqual(expected);
  });
  it('under require', async () => {
    const requires = names.map(([name, spec]) => `const ${name} = require('${spec}');`).join('\n');
    const source = `${requires}\n${script}\nmain().then((value) => console.log(JSON.stringify(value)));\n`;
    expect(await node('newest', `${file}.cjs`, source)).toEqual(expected);
  });
}

/** An MCP client's listTools/callTool, enough for importMcpTools: one tool `echo` with a plain JSON Schema. */
const ECHO_MCP_CLIENT = `
const echo = {
  listTools: async () => ({
    tools: [{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
  }),
  callTool: async ({ arguments: input }) => ({ content: [{ type: 'text', text: input.text }] }),
};
`;

describe('the subpaths that define tools, imported before the root (Node)', () => {
  // A program whose first toolwire import is a subpath: every optional part is there all the same (each of these
  // subpaths imports the package's own Node entry), not only once something imports `toolwire`.
  const SCRIPT = `${ECHO_MCP_CLIENT}
async function main() {
  const strict = compat.defineTool({
    name: 'strict_add',
    description: 'Adds.',
    strict: true,
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, note: { type: 'string' } }, required: ['a'] },
    execute: ({ a }) => String(a + 1),
  });
  const [imported] = await mcp.importMcpTools(echo);
  return {
    strictRequired: strict.definition.parameters.required,
    strictCall: (await testing.invokeTool(strict, { a: 1, note: null })).output,
    mcpCall: (await testing.invokeTool(imported, { text: 'hi' })).output,
  };
}
`;
  underImportAndRequire(
    'subpaths-first',
    { compat: 'toolwire/compat', mcp: 'toolwire/mcp', testing: 'toolwire/testing' },
    SCRIPT,
    { strictRequired: ['a', 'note'], strictCall: '2', mcpCall: 'hi' },
  );
});

describe('one core for the root and the adapters', () => {
  // toolwire/mcp and toolwire/otel throw the root's own error classes (a second copy of the core would have its
  // own, and instanceof would be false), a tool an adapter made runs in the root's invokeTool, and
  // toolwire/testing's invokeTool is the root's. An MCP client is only needed for its listTools/callTool, so a
  // stand-in does without the MCP SDK.
  const SCRIPT = `${ECHO_MCP_CLIENT}const thrown = async (fn) => {
  try {
    await fn();
  } catch (error) {
    return error;
  }
};
async function main() {
  const renamed = await thrown(() => mcp.importMcpTools(echo, { rename: () => 'bad name!' }));
  const option = await thrown(() => otel.otelTracing({ nope: true }));
  const [imported] = await mcp.importMcpTools(echo);
  const result = await toolwire.invokeTool(imported, { text: 'hi' });
  const seen = (error, cls) => ({ name: error.name, code: error.code, message: error.message, fromRoot: error instanceof cls });
  return {
    definition: seen(renamed, toolwire.ToolDefinitionError),
    options: seen(option, toolwire.OptionsError),
    rootError: renamed instanceof toolwire.ToolwireError,
    call: { status: result.status, output: result.output },
    testing: {
      sameInvokeTool: testing.invokeTool === toolwire.invokeTool,
      replayError: new testing.ReplayError('not_recorded', 'x') instanceof toolwire.ToolwireError,
    },
    traceEvents: Object.keys(tracing.TRACE_EVENTS).length > 0 && !('TRACE_EVENTS' in otel),
    // Every exported class is named as exported (logs, test diffs and constructor.name show it).
    misnamedClasses: [toolwire, testing, mcp, otel]
      .flatMap((entry) => Object.entries(entry))
      .filter(([key, value]) => typeof value === 'function' && /^class\\b/.test(Function.prototype.toString.call(value)) && value.name !== key)
      .map(([key, value]) => key + ' is named ' + value.name),
    classes: Object.values(toolwire).filter((value) => typeof value === 'function' && /^class\\b/.test(Function.prototype.toString.call(value))).length,
  };
}
`;
  const EXPECTED = {
    definition: {
      name: 'ToolDefinitionError',
      code: 'invalid_name',
      message:
        'importMcpTools(): the MCP tool "echo" would be named "bad name!", which is not 1 to 64 letters, digits, _ or -; give a rename option, or leave it out with filter',
      fromRoot: true,
    },
    options: {
      name: 'OptionsError',
      code: 'unknown_option',
      message: 'otelTracing(): unknown option "nope" (known: tracer, recordArguments, recordOutputs)',
      fromRoot: true,
    },
    rootError: true,
    call: { status: 'ok', output: 'hi' },
    testing: { sameInvokeTool: true, replayError: true },
    traceEvents: true,
    misnamedClasses: [],
    classes: 13,
  };

  underImportAndRequire(
    'one-core',
    {
      toolwire: 'toolwire',
      mcp: 'toolwire/mcp',
      otel: 'toolwire/otel',
      testing: 'toolwire/testing',
      tracing: 'toolwire/tracing',
    },
    SCRIPT,
    EXPECTED,
  );
});

describe("zod 3's converter in Node: loaded by the first zod 3 tool, not at start-up", () => {
  it("leaves zod-to-json-schema out of the Node entry's imports (ESM and CommonJS)", () => {
    const dist = join(apps.newest, 'node_modules/toolwire/dist');
    for (const entry of ['node.js', 'node.cjs']) {
      const reached = new Set<string>();
      const visit = (file: string) => {
        if (reached.has(file)) return;
        reached.add(file);
        const text = readFileSync(join(dist, file), 'utf8');
        for (const match of text.matchAll(/(?:from|import|require\()\s*["']\.\/([^"']+)["']/g))
          visit(match[1] as string);
      };
      visit(entry);
      const loading = [...reached].filter((file) =>
        /(?:from|import|require\()\s*["']zod-to-json-schema["']/.test(readFileSync(join(dist, file), 'utf8')),
      );
      expect(loading, entry).toEqual([]);
    }
  });

  const SCRIPT = `const loaded = () => Object.keys(createRequire(process.cwd() + '/').cache).some((key) => key.includes('zod-to-json-schema'));
async function main() {
  const zod4 = toolwire.tool({ name: 'now', description: 'Now.', parameters: zod.z.object({ a: zod.z.number() }), execute: () => 'ok' });
  const before = loaded();
  const legacy = toolwire.tool({ name: 'echo', description: 'Echoes.', parameters: v3.z.object({ text: v3.z.string().min(1) }), execute: ({ text }) => text });
  return {
    zod4: zod4.definition.parameters.required,
    before,
    after: loaded(),
    parameters: legacy.definition.parameters,
    call: (await toolwire.invokeTool(legacy, { text: 'hi' })).output,
    refused: (await toolwire.invokeTool(legacy, { text: '' })).status,
  };
}
`;
  it('refuses a zod 3 tool in a program bundled without node_modules, naming toolwire/zod3, which serves imported before the tool', async () => {
    // A one-file bundle (a serverless function, say) has no node_modules for require to find the converter in.
    const bundled = mkdtempSync(join(tmpdir(), 'toolwire-bundled-'));
    try {
      const program = (first: string) => `${first}
import { tool } from 'toolwire';
import { z } from 'zod/v3';
try {
  const echo = tool({ name: 'echo', description: 'Echoes.', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
  console.log(JSON.stringify({ required: echo.definition.parameters.required }));
} catch (error) {
  console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message }));
}
`;
      // ES modules run in import order: an entry that imports the tools' module before `toolwire/zod3` has its
      // tools defined before the converter is registered (docs/reference/errors-loading.md says so).
      writeFileSync(join(apps.newest, 'tools-then-zod3-tools.mjs'), program(''));
      const outcomes: unknown[] = [];
      for (const [name, text] of [
        ['plain', program('')],
        ['tools-then-zod3', "import './tools-then-zod3-tools.mjs';\nimport 'toolwire/zod3';\n"],
        ['with-zod3', program("import 'toolwire/zod3';")],
      ]) {
        writeFileSync(join(apps.newest, `${name}.mjs`), text as string);
        await build({
          entryPoints: [join(apps.newest, `${name}.mjs`)],
          bundle: true,
          platform: 'node',
          format: 'esm',
          external: ['ws'],
          outfile: join(bundled, `${name}.mjs`),
          logLevel: 'silent',
        });
        const { stdout } = await run(process.execPath, [`${name}.mjs`], { cwd: bundled, timeout: 30_000 });
        outcomes.push(JSON.parse(stdout.trim()));
      }
      const refused = {
        name: 'ToolDefinitionError',
        code: 'unsupported_schema',
        message:
          'tool "echo": parameters could not be read: toolwire could not load its zod 3 converter, zod-to-json-schema (a bundled program imports `toolwire/zod3` at the top of each module that defines zod 3 tools): Cannot find module \'zod-to-json-schema\'',
      };
      expect(outcomes).toEqual([refused, refused, { required: ['text'] }]);
    } finally {
      rmSync(bundled, { recursive: true, force: true });
    }
  });

  underImportAndRequire(
    'zod3-on-demand',
    { toolwire: 'toolwire', zod: 'zod', v3: 'zod/v3', nodeModule: 'node:module' },
    `const { createRequire } = nodeModule;\n${SCRIPT}`,
    {
      zod4: ['a'],
      before: false,
      after: true,
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1 } },
        required: ['text'],
      },
      call: 'hi',
      refused: 'invalid_arguments',
    },
  );
});

describe.each(Object.keys(PROJECTS) as Project[])(
  "the README's Quick Start against the toolwire-stub binary, with the %s zod",
  (project) => {
    let stub: ChildProcess;
    let url = '';
    let stderr = '';

    beforeAll(async () => {
      writeFileSync(
        join(apps[project], 'turns.json'),
        JSON.stringify({
          Support: [
            { toolCalls: [{ name: 'search_orders', arguments: { email: 'ada@example.com' } }] },
            { text: 'Your order ord_1 is open.' },
          ],
        }),
      );
      stub = spawn(
        join(apps[project], 'node_modules/.bin/toolwire-stub'),
        ['--port', '0', '--api-key', 'dev', '--script', 'turns.json'],
        { cwd: apps[project], stdio: ['ignore', 'pipe', 'pipe'] },
      );
      // The banner ends with the agent UI's address, after the model's line.
      const banner = new Promise<void>((resolve) => {
        stub.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('agent UI at')) resolve();
        });
      });
      url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        stub.stdout?.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const line = stdout.split('\n')[0];
          if (stdout.includes('\n') && line) resolve(line);
        });
        stub.once('exit', (code) => reject(new Error(`toolwire-stub exited with ${code}: ${stderr}`)));
      });
      await banner;
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      if (stub.exitCode !== null) return;
      const exited = new Promise<number | null>((resolve) => stub.once('exit', (code) => resolve(code)));
      stub.kill('SIGTERM');
      expect(await exited).toBe(0);
    });

    const QUICK_START = (imports: string) => `${imports}
const searchOrders = tool({
  name: 'search_orders',
  description: 'Find orders by customer email. Returns at most 10.',
  parameters: z.object({ email: z.string().email(), status: z.enum(['open', 'shipped']).optional() }),
  execute: async ({ email, status }, { context }) => [{ id: 'ord_1', email, status: status ?? 'open', tenant: context.tenant }],
});

async function main() {
  const client = new Client({
    url: process.env.TOOLWIRE_URL,
    apiKey: process.env.TOOLWIRE_API_KEY,
    tools: [searchOrders],
    context: { tenant: 'acme' },
  });
  await client.connect();
  const support = new Agent({ name: 'Support', instructions: 'Help with orders.', tools: [searchOrders] });
  const result = await client.run(support, 'Where is my order? ada@example.com', { context: { tenant: 'acme' } });
  // An agent the script has no turns for: the run fails, it does not make up an answer.
  const unscripted = await client
    .run(new Agent({ name: 'Billing', instructions: 'Bills.', tools: [] }), 'hello?')
    .then(() => 'completed', (error) => ({ name: error.name, code: error.code, isRunError: error instanceof RunError }));
  await client.close({ timeoutMs: 10_000 });
  return {
    finalOutput: result.finalOutput,
    model: result.model,
    toolCalls: result.toolCalls.map(({ toolName, status, output }) => ({ toolName, status, output })),
    unscripted,
  };
}
`;
    const EXPECTED = {
      finalOutput: 'Your order ord_1 is open.',
      model: 'scripted',
      toolCalls: [
        {
          toolName: 'search_orders',
          status: 'ok',
          output: '[{"id":"ord_1","email":"ada@example.com","status":"open","tenant":"acme"}]',
        },
      ],
      unscripted: { name: 'RunError', code: 'run_failed', isRunError: true },
    };

    it('prints its URL and says its model is a script', () => {
      expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
      expect(stderr).toContain(
        'toolwire-stub: model: scripted (turns for Support): a script, not a language model; it plays the same turns whatever is asked',
      );
    });

    it('connects a client with one tool, runs an agent through the script, and closes (ESM)', async () => {
      const printed = await node(
        project,
        'quick-start.mjs',
        `${QUICK_START(`import { Agent, Client, RunError, tool } from 'toolwire';\nimport { z } from 'zod';`)}
console.log(JSON.stringify(await main()));
`,
        { TOOLWIRE_URL: url, TOOLWIRE_API_KEY: 'dev' },
      );
      expect(printed).toEqual(EXPECTED);
    });

    it.runIf(project === 'newest')(
      'runs bundled into one file from an empty folder: CommonJS, or ESM given a require; told what to do without one',
      async () => {
        // docs/guide/workers.md, "One file per worker": `ws` is CommonJS, and an ES module bundle gives its
        // require() of Node's own modules nothing to call.
        writeFileSync(
          join(apps[project], 'worker-bundled.mjs'),
          `${QUICK_START(`import { Agent, Client, RunError, tool } from 'toolwire';\nimport { z } from 'zod';`)}
main().then((value) => console.log(JSON.stringify(value)), (error) => console.log(JSON.stringify({ name: error.name, code: error.code, message: error.message })));
`,
        );
        const bundled = mkdtempSync(join(tmpdir(), 'toolwire-worker-'));
        const REQUIRE_BANNER =
          "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);";
        try {
          const printed: Record<string, unknown> = {};
          for (const [name, format, banner] of [
            ['esm.mjs', 'esm', undefined],
            ['esm-with-require.mjs', 'esm', REQUIRE_BANNER],
            ['commonjs.cjs', 'cjs', undefined],
          ] as const) {
            await build({
              entryPoints: [join(apps[project], 'worker-bundled.mjs')],
              bundle: true,
              platform: 'node',
              format,
              ...(banner === undefined ? {} : { banner: { js: banner } }),
              outfile: join(bundled, name),
              logLevel: 'silent',
            });
            const { stdout } = await run(process.execPath, [name], {
              cwd: bundled,
              env: { ...process.env, TOOLWIRE_URL: url, TOOLWIRE_API_KEY: 'dev' },
              timeout: 30_000,
            });
            printed[name] = JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null');
          }
          expect(printed).toEqual({
            'esm.mjs': {
              name: 'ConnectionError',
              code: 'no_websocket',
              message:
                'no WebSocket implementation found: `ws` was bundled into an ES module, where its require() of Node\'s own modules fails (Dynamic require of "events" is not supported); bundle the program as CommonJS, keep `ws` out of the bundle and install it, or give the bundle a `require` (docs/guide/workers.md, "One file per worker")',
            },
            'esm-with-require.mjs': EXPECTED,
            'commonjs.cjs': EXPECTED,
          });
        } finally {
          rmSync(bundled, { recursive: true, force: true });
        }
      },
    );

    it('does the same from CommonJS', async () => {
      const printed = await node(
        project,
        'quick-start.cjs',
        `${QUICK_START(`const { Agent, Client, RunError, tool } = require('toolwire');\nconst { z } = require('zod');`)}
main().then((value) => console.log(JSON.stringify(value)));
`,
        { TOOLWIRE_URL: url, TOOLWIRE_API_KEY: 'dev' },
      );
      expect(printed).toEqual(EXPECTED);
    });
  },
);
