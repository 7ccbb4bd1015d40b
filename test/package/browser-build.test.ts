import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as z3 from 'zod3';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { TRACE_EVENTS } from '../../src/client/tracing';
import type * as Toolwire from '../../src/index';
import { buildBrowser, root } from './browser-bundle';

/**
 * The core as a browser page gets it (src/index.ts, what `toolwire` is without the `node` condition), bundled here
 * as an application's bundler would, with `toolwire/zod3`, `toolwire/valibot` and `toolwire/json-schema` as
 * entries of their own, then run in Node. The zod 3 and valibot converters and the JSON Schema validator are not
 * in its first download; a tool that needs the validator gets it by a dynamic import; a zod 3, valibot or plain
 * JSON Schema tool is refused with the one line that fixes it, and works once its subpath was imported.
 *
 * The tests share one bundle and run in order: those before the import of `toolwire/json-schema` see the
 * validator loaded by the core itself.
 */
const outDir = join(root, 'test/artifacts', `browser-build-${process.pid}`);
let lean: typeof Toolwire;
let metafile: Metafile;

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  metafile = await buildBrowser(outDir, {
    entryPoints: {
      index: 'src/index.ts',
      zod3: 'src/zod3.ts',
      valibot: 'src/valibot.ts',
      'json-schema': 'src/json-schema.ts',
      strict: 'src/strict.ts',
    },
  });
  lean = (await import(pathToFileURL(join(outDir, 'index.js')).href)) as typeof Toolwire;
}, 60_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const add = (a: number, b: number) => a + b;

/** `path` and every output it imports statically, transitively. */
function closure(path: string, seen = new Set<string>()): Set<string> {
  seen.add(path);
  for (const imported of metafile.outputs[path]?.imports ?? []) {
    if (imported.kind === 'import-statement' && imported.path in metafile.outputs && !seen.has(imported.path))
      closure(imported.path, seen);
  }
  return seen;
}

/** The output made for the entry point `entry` (`src/index.ts`). */
function output(entry: string): string {
  const found = Object.keys(metafile.outputs).find((path) => metafile.outputs[path]?.entryPoint === entry);
  if (found === undefined) throw new Error(`no output for ${entry}`);
  return found;
}

describe('the core in a browser bundle', () => {
  it('leaves the framework adapters to their subpaths: nothing of toolwire/ai-sdk, toolwire/mcp, `ai` or the MCP SDK in any chunk (issue 17)', () => {
    const inputs = Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    const imports = Object.values(metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    expect(inputs.filter((path) => /src\/(ai-sdk|mcp)\//.test(path))).toEqual([]);
    expect(inputs.filter((path) => /node_modules\/(ai|@ai-sdk|@modelcontextprotocol)\//.test(path))).toEqual(
      [],
    );
    expect(imports.filter((path) => /^(ai|@ai-sdk\/|@modelcontextprotocol\/)/.test(path))).toEqual([]);
  });

  it('leaves the zod 3 and valibot converters, the JSON Schema checks and the validator out of the first download', () => {
    // What a page loads with index.js: it and every chunk it imports statically.
    const first = [...closure(output('src/index.ts'))];
    const inputs = first.flatMap((path) => Object.keys(metafile.outputs[path]?.inputs ?? {}));
    const imports = first.flatMap((path) => metafile.outputs[path]?.imports.map((i) => i.path) ?? []);
    const optional = /^(zod-to-json-schema|@valibot\/to-json-schema|@cfworker\/json-schema)(\/|$)/;
    expect(imports.filter((path) => optional.test(path))).toEqual([]);
    expect(
      inputs.filter((path) => /src\/tool\/schema\/(zod3|valibot|json-schema|validator)\.ts$/.test(path)),
    ).toEqual([]);
    // So is the rewrite of `strict: true` parameters, which `toolwire/strict` registers.
    expect(inputs.filter((path) => /src\/tool\/strict\.ts$/.test(path))).toEqual([]);
    // The validator's code is in one chunk, which toolwire/json-schema imports statically and the core by import().
    const holders = Object.keys(metafile.outputs).filter((path) =>
      Object.keys(metafile.outputs[path]?.inputs ?? {}).includes('src/tool/schema/validator.ts'),
    );
    expect(holders).toHaveLength(1);
    const [validator] = holders as [string];
    expect(metafile.outputs[validator]?.imports.map((i) => i.path)).toContain('@cfworker/json-schema');
    expect(closure(output('src/json-schema.ts')).has(validator)).toBe(true);
    const loaded = first.flatMap(
      (path) =>
        metafile.outputs[path]?.imports
          .filter((i) => i.kind === 'dynamic-import' && i.path in metafile.outputs)
          .map((i) => i.path) ?? [],
    );
    expect(loaded.some((path) => closure(path).has(validator))).toBe(true);
  });

  it('leaves runs out of the first download: a page loads them on its first client.run()', () => {
    const first = [...closure(output('src/index.ts'))];
    const inputs = first.flatMap((path) => Object.keys(metafile.outputs[path]?.inputs ?? {}));
    expect(inputs.filter((path) => /src\/client\/(runs|run-events)\.ts$/.test(path))).toEqual([]);
    const holders = Object.keys(metafile.outputs).filter((path) =>
      Object.keys(metafile.outputs[path]?.inputs ?? {}).includes('src/client/runs.ts'),
    );
    expect(holders).toHaveLength(1);
    const dynamic = first.flatMap(
      (path) =>
        metafile.outputs[path]?.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path) ?? [],
    );
    expect(dynamic).toContain(holders[0]);
    // So is what only a finished run reads: its final output checked against the agent's `outputType`.
    const code = first.map((path) => readFileSync(join(root, path), 'utf8')).join('\n');
    expect(code).not.toContain('the service sent its size in its place');
    expect(readFileSync(join(root, holders[0] as string), 'utf8')).toContain(
      'the service sent its size in its place',
    );
  });

  it.each([
    ['client.decide()', 'src/client/decisions.ts'],
    ['questions put to the service', 'src/client/socket-questions.ts'],
  ])(
    'leaves the code of %s out of the first download, in a chunk of its own loaded by import()',
    (_what, file) => {
      const first = [...closure(output('src/index.ts'))];
      const inputs = first.flatMap((path) => Object.keys(metafile.outputs[path]?.inputs ?? {}));
      expect(inputs).not.toContain(file);
      const holders = Object.keys(metafile.outputs).filter((path) =>
        Object.keys(metafile.outputs[path]?.inputs ?? {}).includes(file),
      );
      expect(holders).toHaveLength(1);
      const dynamic = first.flatMap(
        (path) =>
          metafile.outputs[path]?.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path) ?? [],
      );
      expect(dynamic).toContain(holders[0]);
    },
  );

  // The parts of a call a tool asks for (src/call/parts.ts) come by import(); code every client has must not import
  // them statically (an ApprovalRequest's signal once pulled approval.ts into every page: +3.2 KB minified).
  it.each([
    'src/call/approval.ts',
    'src/call/policies.ts',
    'src/call/retry.ts',
    'src/call/concurrency.ts',
    'src/call/steps.ts',
    'src/call/questions.ts',
    'src/tool/widget.ts',
  ])('leaves %s, a part of a call loaded on first use, out of the first download', (file) => {
    const first = [...closure(output('src/index.ts'))];
    const inputs = first.flatMap((path) => Object.keys(metafile.outputs[path]?.inputs ?? {}));
    expect(inputs).not.toContain(file);
  });

  it('leaves the schemas of the frames a client sends out of the first download (only the service decodes them)', () => {
    const first = [...closure(output('src/index.ts'))];
    const code = first.map((path) => readFileSync(join(root, path), 'utf8')).join('\n');
    // Messages only those schemas hold (approval's refinement, tool_progress's total); the service frames' are in.
    expect(code).not.toContain('arguments may only be edited when approving');
    expect(code).not.toContain('must be a number > 0');
    expect(code).toContain('approval_applied');
  });

  it('runs the gate, approval, retry and questions', async () => {
    let attempts = 0;
    const flaky = lean.tool({
      name: 'flaky',
      description: 'Fails once, then answers.',
      sideEffect: 'idempotent',
      retry: { maxAttempts: 2, initialDelayMs: 1 },
      allowedAgentNames: ['Support'],
      needsApproval: true,
      execute: async (_input, ctx) => {
        attempts += 1;
        if (attempts === 1) throw new Error('once');
        return `${attempts} ${String(await ctx.askQuestion('Which?'))}`;
      },
    });
    const onQuestion = () => ({ answer: 'that one' });
    expect(await lean.invokeTool(flaky, {}, { agentName: 'Other' })).toMatchObject({ status: 'rejected' });
    expect(await lean.invokeTool(flaky, {}, { agentName: 'Support', approve: () => false })).toMatchObject({
      status: 'rejected',
    });
    expect(
      await lean.invokeTool(flaky, {}, { agentName: 'Support', approve: () => true, onQuestion }),
    ).toMatchObject({ status: 'ok', output: '2 that one' });
    const blocked = await lean.invokeTool(
      flaky,
      {},
      {
        agentName: 'Support',
        policies: [() => ({ block: 'not today' })],
      },
    );
    expect(blocked).toMatchObject({ status: 'rejected', output: 'not today' });
  });

  it('runs an agent whose tool needs a decision and asks a question, over the stub', async () => {
    const server = await startStubServer({
      logger: silentLogger,
      model: scriptedModel([
        { toolCalls: [{ name: 'export' }] },
        ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
      ]),
    });
    const exporter = lean.tool({
      name: 'export',
      description: 'Exports to a warehouse.',
      needsApproval: true,
      execute: async (_input, ctx) => `exported to ${String(await ctx.askQuestion('Which warehouse?'))}`,
    });
    const client = new lean.Client({ url: server.url, apiKey: 'browser-build-key', tools: [exporter] });
    try {
      client.on('approval_requested', ({ callId }) => void client.decide(callId, true));
      server.events.on('run_event', (info: { runId: string; kind: string; data: unknown }) => {
        if (info.kind !== 'question_asked') return;
        const { callId, questionId } = info.data as { callId: string; questionId: string };
        void fetch(`${server.httpUrl}/v1/runs/${info.runId}/calls/${callId}/questions/${questionId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answer: 'Lyon' }),
        });
      });
      await client.connect();
      const agent = new lean.Agent({ name: 'A', instructions: '', tools: [exporter] });
      expect((await client.run(agent, 'go')).finalOutput).toBe('exported to Lyon');
    } finally {
      await client.close({ drain: false });
      await server.close();
    }
  });

  it('runs ctx.step, kept steps replayed', async () => {
    let runs = 0;
    const stepper = lean.tool({
      name: 'stepper',
      description: 'Runs one step twice.',
      execute: async (_input, ctx) => {
        const once = () => {
          runs += 1;
          return { n: runs };
        };
        const [a, b] = await Promise.all([ctx.step('a', once), ctx.step('a', once)]);
        return JSON.stringify([a, b, await ctx.step('b', once)]);
      },
    });
    const kept: unknown[] = [];
    expect(await lean.invokeTool(stepper, {}, { onStep: (step) => kept.push(step) })).toMatchObject({
      status: 'ok',
      output: '[{"n":1},{"n":1},{"n":2}]',
    });
    expect(kept).toMatchObject([
      { key: 'a', result: { n: 1 } },
      { key: 'b', result: { n: 2 } },
    ]);
    const replayed = await lean.invokeTool(stepper, {}, { steps: { a: { n: 7 } } });
    expect(replayed).toMatchObject({ status: 'ok', output: '[{"n":7},{"n":7},{"n":3}]' });
    await expect(
      lean.invokeTool(
        lean.tool({ name: 's', description: 's', execute: (_input, ctx) => ctx.step('', () => 1) }),
        {},
      ),
    ).resolves.toMatchObject({ status: 'error' });
  });

  it('traces every call of a client with `tracing`', async () => {
    const server = await startStubServer({
      logger: silentLogger,
      model: scriptedModel([{ toolCalls: [{ name: 'ping' }] }, { text: 'done' }]),
    });
    const seen: string[] = [];
    const tracing: Toolwire.ToolTracing = {
      startCall: (call) => {
        seen.push(`start ${call.toolName}`);
        return {
          event: (name) => seen.push(name),
          run: (fn) => fn(),
          end: (result) => seen.push(`end ${result.status} ${result.output}`),
        };
      },
    };
    const ping = lean.tool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' });
    const client = new lean.Client({ url: server.url, apiKey: 'browser-build-key', tools: [ping], tracing });
    try {
      await client.connect();
      const agent = new lean.Agent({ name: 'A', instructions: '', tools: [ping] });
      expect((await client.run(agent, 'go')).finalOutput).toBe('done');
      expect(seen).toEqual(['start ping', TRACE_EVENTS.started, 'end ok pong']);
    } finally {
      await client.close({ drain: false });
      await server.close();
    }
  });

  it('runs zod 4 tools as the Node entry does', async () => {
    const sum = lean.tool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => add(a, b),
    });
    expect(await lean.invokeTool(sum, { a: 1, b: 2 })).toMatchObject({ status: 'ok', output: '3' });
    expect(await lean.invokeTool(sum, { a: 1 })).toMatchObject({ status: 'invalid_arguments' });
  });

  it('checks a zod 4 schema that was not proved faithful against its announcement, with the validator it loads by import()', async () => {
    // `z.coerce.number()` accepts "3", which the announced "type": "number" refuses: the guard checks it.
    const double = lean.tool({
      name: 'double',
      description: 'Doubles n.',
      parameters: z.object({ n: z.coerce.number() }),
      execute: ({ n }) => n * 2,
    });
    expect(await lean.invokeTool(double, { n: '3' })).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for double: n: expected a number, received "3"',
    });
    expect(await lean.invokeTool(double, { n: 3 })).toMatchObject({ status: 'ok', output: '6' });
  });

  it('refuses strict: true until toolwire/strict is imported, then restores a strict tool’s arguments (optional nulls removed, in union branches too) with the validator it loads by import()', async () => {
    const seen: unknown[] = [];
    const define = () =>
      lean.tool({
        name: 'ship',
        description: 'Ships a parcel.',
        strict: true,
        parameters: z.object({ note: z.string().optional() }),
        execute: () => 'shipped',
      });
    expect(define).toThrow(
      expect.objectContaining({
        name: 'ToolDefinitionError',
        code: 'unsupported_schema',
        message:
          'tool "ship": strict is true, which toolwire reads only after `import \'toolwire/strict\'` (once, before the tools are defined)',
      }),
    );
    await import(pathToFileURL(join(outDir, 'strict.js')).href);
    const ship = lean.tool({
      name: 'ship',
      description: 'Ships a parcel.',
      strict: true,
      parameters: z.object({
        note: z.string().optional(),
        to: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('home'), floor: z.number().optional() }),
          z.object({ kind: z.literal('shop'), code: z.string() }),
        ]),
      }),
      execute: (input) => {
        seen.push(input);
        return 'shipped';
      },
    });
    expect(ship.definition.parameters).toMatchObject({
      required: ['note', 'to'],
      additionalProperties: false,
    });
    const args = { note: null, to: { kind: 'home', floor: null } };
    expect(await lean.invokeTool(ship, args)).toMatchObject({ status: 'ok', output: 'shipped' });
    expect(await lean.invokeTool(ship, { note: 'x', to: { kind: 'shop', code: 'A1' } })).toMatchObject({
      status: 'ok',
    });
    expect(seen).toEqual([{ to: { kind: 'home' } }, { note: 'x', to: { kind: 'shop', code: 'A1' } }]);
  });

  it('refuses plain JSON Schema parameters until toolwire/json-schema is imported, then validates them', async () => {
    const define = () =>
      lean.tool({
        name: 'add',
        description: 'Adds two numbers.',
        parameters: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        execute: ({ a, b }) => add(a as number, b as number),
      });
    expect(define).toThrow(lean.ToolDefinitionError);
    expect(define).toThrow(
      'tool "add": parameters is a plain JSON Schema, which toolwire reads only after `import \'toolwire/json-schema\'` (once, before the tools are defined)',
    );
    await import(pathToFileURL(join(outDir, 'json-schema.js')).href);
    const sum = define();
    const invalid = await lean.invokeTool(sum, { a: 1, b: 'two' });
    expect(invalid).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for add: b: expected a number, received "two"',
    });
    expect(await lean.invokeTool(sum, { a: 1, b: 2 })).toMatchObject({ status: 'ok', output: '3' });
  });

  it('refuses unusual numbers in arguments', async () => {
    const echo = lean.tool({
      name: 'echo',
      description: 'Echoes an id.',
      parameters: z.object({ id: z.number(), n: z.number().optional() }),
      execute: ({ id }) => String(id),
    });
    expect(await lean.invokeTool(echo, '{"id":12345678901234567890}')).toMatchObject({ status: 'ok' });
    expect(await lean.invokeTool(echo, '{"id":1,"n":1e400}')).toEqual(
      expect.objectContaining({
        status: 'invalid_arguments',
        output:
          'Invalid arguments for echo: n: the number is too large for JavaScript (past ±1.8e308); it became Infinity',
      }),
    );
    const ids = lean.tool({
      name: 'ids',
      description: 'Takes an integer id.',
      parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      execute: () => 'ran',
    });
    expect((await lean.invokeTool(ids, '{"id":12345678901234567890}')).output).toBe(
      'Invalid arguments for ids: id: 12345678901234567000 is past the integers JavaScript holds exactly (±9007199254740991), so the number sent may have been rounded; send it as a string',
    );
  });

  it('checks a valibot schema against its announcement too, once the converter is imported', async () => {
    const define = () =>
      lean.tool({
        name: 'add',
        description: 'Adds two numbers.',
        parameters: v.object({ a: v.number(), b: v.number() }),
        execute: ({ a, b }) => add(a, b),
      });
    expect(define).toThrow(lean.ToolDefinitionError);
    expect(define).toThrow(/tool "add": parameters .*`import 'toolwire\/valibot'`/);
    await import(pathToFileURL(join(outDir, 'valibot.js')).href);
    const sum = define();
    expect(sum.definition.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] });
    expect(await lean.invokeTool(sum, { a: 1, b: 2 })).toMatchObject({ status: 'ok', output: '3' });
    // valibot takes an array for a record; the announced "type": "object" does not, and wins.
    const record = lean.tool({
      name: 'r',
      description: 'r',
      execute: () => 'ok',
      parameters: v.object({ r: v.record(v.string(), v.number()) }),
    });
    expect(await lean.invokeTool(record, { r: [] })).toMatchObject({ status: 'invalid_arguments' });
  });

  it('converts zod 3 schemas once toolwire/zod3 is imported, with toolwire’s own rules', async () => {
    const define = () =>
      lean.tool({
        name: 'add',
        description: 'Adds two numbers.',
        parameters: z3.object({ a: z3.number(), b: z3.number(), s: z3.string().trim().max(2).optional() }),
        execute: ({ a, b }) => add(a, b),
      });
    const error = (() => {
      try {
        define();
      } catch (caught) {
        return caught as InstanceType<typeof lean.ToolDefinitionError>;
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'unsupported_schema' });
    expect(error?.message).toContain("`import 'toolwire/zod3'`");
    await import(pathToFileURL(join(outDir, 'zod3.js')).href);
    const sum = define();
    // The checks after .trim() are not announced (parseStringDef); the rest as zod-to-json-schema makes it.
    expect(sum.definition.parameters).toMatchObject({ properties: { s: { type: 'string' } } });
    expect(JSON.stringify(sum.definition.parameters)).not.toContain('maxLength');
    expect(await lean.invokeTool(sum, { a: 1, b: 2 })).toMatchObject({ status: 'ok', output: '3' });
    // The override's refusals and its "let the converter decide" both reach the real converter.
    expect(() =>
      lean.tool({
        name: 'd',
        description: 'd',
        execute: () => 'ok',
        parameters: z3.object({ d: z3.date() }),
      }),
    ).toThrow(/z\.date\(\) cannot be represented/);
  });
});
