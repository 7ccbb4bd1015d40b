/**
 * The package as a user gets it: `npm pack` in a fresh clone (no `dist/`: `prepare` builds it), the tarball
 * installed into an empty project (offline, from the npm cache), both entry points imported from ESM and from
 * CommonJS, and the README's Quick Start run against the `toolwire-stub` binary of that install.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Installed, packAndInstall } from './fresh-pack';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** Packing builds the package (tsup with types): on a busy machine that takes a while. */
const SETUP_TIMEOUT_MS = 300_000;

let work: string;
let installed: Installed;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolwire-package-'));
  installed = await packAndInstall(repo, work, ['zod', '@opentelemetry/api']);
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs a script in the project with `node`; resolves with what it printed as JSON on its last line. */
async function node(file: string, source: string, env: Record<string, string> = {}): Promise<unknown> {
  writeFileSync(join(installed.app, file), source);
  const { stdout } = await run(process.execPath, [file], {
    cwd: installed.app,
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null');
}

describe('npm pack in a fresh clone', () => {
  it('ships the built code of both entry points, their types and the CLI, and no sources', () => {
    const files = installed.files;
    for (const file of [
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'dist/index.js',
      'dist/index.cjs',
      'dist/index.d.ts',
      'dist/index.d.cts',
      'dist/server-stub/index.js',
      'dist/server-stub/index.cjs',
      'dist/server-stub/index.d.ts',
      'dist/server-stub/index.d.cts',
      'dist/server-stub/cli.js',
      'dist/otel/index.js',
      'dist/otel/index.cjs',
      'dist/otel/index.d.ts',
      'dist/otel/index.d.cts',
    ]) {
      expect(files, file).toContain(file);
    }
    expect(files.filter((file) => /^(src|server-stub|test|examples|bench)\//.test(file))).toEqual([]);
  });

  it('keeps OpenTelemetry out of the core: only toolwire/otel loads @opentelemetry/api', () => {
    const dist = join(installed.app, 'node_modules/toolwire/dist');
    for (const file of ['index.js', 'index.cjs']) {
      expect(readFileSync(join(dist, file), 'utf8'), file).not.toContain('@opentelemetry');
    }
    expect(readFileSync(join(dist, 'otel/index.js'), 'utf8')).toContain('@opentelemetry/api');
  });
});

describe('the declarations users compile against', () => {
  it('name every type as declared: no bundler-renamed alias (AnyTool$2, Tool$1) in any shipped .d.ts', () => {
    const dist = join(installed.app, 'node_modules/toolwire/dist');
    const declarations = installed.files
      .filter((file) => /^dist\/.*\.d\.c?ts$/.test(file))
      .map((file) => file.slice('dist/'.length));
    // Every entry point's, the shared chunks' too.
    for (const entry of [
      'index',
      'server-stub/index',
      'mcp/index',
      'ai-sdk/index',
      'otel/index',
      'zod3',
      'valibot',
    ]) {
      expect(declarations, entry).toEqual(expect.arrayContaining([`${entry}.d.ts`, `${entry}.d.cts`]));
    }
    for (const file of declarations) {
      const renamed = readFileSync(join(dist, file), 'utf8').match(/\b[A-Za-z_]\w*\$\d+\b/g) ?? [];
      expect([...new Set(renamed)], file).toEqual([]);
    }
  });
});

describe('the installed tarball', () => {
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

  it('imports the entry points from ESM', async () => {
    const printed = await node(
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

describe("the README's Quick Start against the toolwire-stub binary", () => {
  let stub: ChildProcess;
  let url = '';
  let stderr = '';

  beforeAll(async () => {
    writeFileSync(
      join(installed.app, 'turns.json'),
      JSON.stringify({
        Support: [
          { toolCalls: [{ name: 'search_orders', arguments: { email: 'ada@example.com' } }] },
          { text: 'Your order ord_1 is open.' },
        ],
      }),
    );
    stub = spawn(
      join(installed.app, 'node_modules/.bin/toolwire-stub'),
      ['--port', '0', '--api-key', 'dev', '--script', 'turns.json'],
      { cwd: installed.app, stdio: ['ignore', 'pipe', 'pipe'] },
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
      'quick-start.mjs',
      `${QUICK_START(`import { Agent, Client, RunError, tool } from 'toolwire';\nimport { z } from 'zod';`)}
console.log(JSON.stringify(await main()));
`,
      { TOOLWIRE_URL: url, TOOLWIRE_API_KEY: 'dev' },
    );
    expect(printed).toEqual(EXPECTED);
  });

  it('does the same from CommonJS', async () => {
    const printed = await node(
      'quick-start.cjs',
      `${QUICK_START(`const { Agent, Client, RunError, tool } = require('toolwire');\nconst { z } = require('zod');`)}
main().then((value) => console.log(JSON.stringify(value)));
`,
      { TOOLWIRE_URL: url, TOOLWIRE_API_KEY: 'dev' },
    );
    expect(printed).toEqual(EXPECTED);
  });
});
