import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ZOD4_CALL_LOADS } from '../../bench/lib/bundle-size';
import { LAZY_MODULES } from '../../browser-build';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import type * as Toolwire from '../../src/index';
import { buildBrowser, root } from './browser-bundle';

/**
 * The browser build's waits for its lazy chunks (src/browser/lazy.ts): each real lazy module is built with a
 * first line that asks `globalThis.__chunkGate` whether to load now, later, never, or fail as a chunk that
 * cannot be fetched does. Each case has a build of its own (a module that failed to load stays failed in Node).
 */
const outRoot = join(root, 'test/artifacts', `browser-lazy-waits-${process.pid}`);
afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

type Gate = (module: string) => Promise<void> | undefined;
const globals = globalThis as { __chunkGate?: Gate };

/** Every real lazy module, made to wait on `globalThis.__chunkGate` before it runs. */
function gated(): Plugin {
  const modules = new Set(LAZY_MODULES.map((module) => join(root, `${module}.ts`)));
  return {
    name: 'gated-chunks',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!modules.has(args.path)) return undefined;
        const name = args.path.slice(root.length + 1, -3);
        const gate = `await globalThis.__chunkGate?.(${JSON.stringify(name)});\n`;
        return {
          contents: gate + readFileSync(args.path, 'utf8'),
          loader: 'ts',
          resolveDir: join(args.path, '..'),
        };
      });
    },
  };
}

let builds = 0;
/** A fresh build, its chunks gated by `gate`. */
async function fresh(gate: Gate): Promise<typeof Toolwire> {
  const outDir = join(outRoot, String(builds++));
  mkdirSync(outDir, { recursive: true });
  await buildBrowser(outDir, { plugins: [gated()] });
  globals.__chunkGate = gate;
  return (await import(pathToFileURL(join(outDir, 'index.js')).href)) as typeof Toolwire;
}

const never = new Promise<void>(() => {});
/** `module`'s chunk never arrives. */
const hangs =
  (module: string): Gate =>
  (name) =>
    name === module ? never : undefined;
/** `module`'s chunk cannot be fetched. */
const fails =
  (module: string): Gate =>
  (name) =>
    name === module
      ? Promise.reject(new TypeError(`Failed to fetch dynamically imported module: ${name}.js`))
      : undefined;
/** `module`'s chunk arrives when `release()` is called. */
function held(module: string): { gate: Gate; release: () => void } {
  let release = () => {};
  const arrived = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { gate: (name) => (name === module ? arrived : undefined), release };
}

const tracing: Toolwire.ToolTracing = { startCall: () => ({ event() {}, run: (fn) => fn(), end() {} }) };

describe('the browser build, waiting for a chunk', () => {
  it('a zod 4 page answering one call of its tool loads only the chunks bench/lib/bundle-size.ts counts', async () => {
    const loaded: string[] = [];
    const lean = await fresh((name) => {
      loaded.push(name);
      return undefined;
    });
    const server = await startStubServer({
      logger: silentLogger,
      model: scriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'done' }]),
    });
    const add = lean.tool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    });
    const client = new lean.Client({ url: server.url, apiKey: 'browser-waits-key', tools: [add] });
    try {
      await client.connect();
      const answered = new Promise<string>((resolve) =>
        client.once('tool_result', (info) => resolve(info.output)),
      );
      const response = await fetch(`${server.httpUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer browser-waits-key' },
        body: JSON.stringify({ agent: { name: 'A', instructions: '', tools: ['add'] }, input: 'go' }),
      });
      expect(response.status).toBe(201);
      expect(await answered).toBe('3');
      expect(loaded.sort()).toEqual([...ZOD4_CALL_LOADS].sort());
    } finally {
      await client.close({ drain: false });
      await server.close();
    }
  }, 30_000);

  it('connect(): the wait for the tracing code counts toward connectTimeoutMs', async () => {
    const lean = await fresh(hangs('src/client/tracing'));
    const client = new lean.Client({
      url: 'ws://127.0.0.1:9',
      apiKey: 'browser-waits-key',
      tools: [],
      tracing,
      connectTimeoutMs: 50,
    });
    const error = await client.connect().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(lean.ConnectionError);
    expect(error).toMatchObject({ code: 'connect_timeout' });
  }, 30_000);

  it('connect(): close() during the wait for the tracing code rejects it `closed` at once', async () => {
    const lean = await fresh(hangs('src/client/tracing'));
    const client = new lean.Client({
      url: 'ws://127.0.0.1:9',
      apiKey: 'browser-waits-key',
      tools: [],
      tracing,
    });
    const connecting = client.connect().catch((thrown: unknown) => thrown);
    await client.close();
    expect(await connecting).toMatchObject({ name: 'ConnectionError', code: 'closed' });
    expect(client.state).toBe('closed');
  }, 30_000);

  it('connect(): tracing code that cannot load rejects `load_failed`, the client still idle', async () => {
    const lean = await fresh(fails('src/client/tracing'));
    const client = new lean.Client({
      url: 'ws://127.0.0.1:9',
      apiKey: 'browser-waits-key',
      tools: [],
      tracing,
    });
    const error = await client.connect().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(lean.ConnectionError);
    expect(error).toMatchObject({
      code: 'load_failed',
      message: expect.stringContaining('the tracing code'),
    });
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(client.state).toBe('idle');
  }, 30_000);

  it('run(): its signal and close() end the wait for the runs code; a failed load is RunError `load_failed`', async () => {
    const server = await startStubServer({ logger: silentLogger, model: scriptedModel([{ text: 'done' }]) });
    try {
      const lean = await fresh(hangs('src/client/runs'));
      const client = new lean.Client({ url: server.url, apiKey: 'browser-waits-key', tools: [] });
      await client.connect();
      const agent = new lean.Agent({ name: 'A', instructions: '', tools: [] });
      const abort = new AbortController();
      const aborted = client.run(agent, 'go', { signal: abort.signal }).catch((thrown: unknown) => thrown);
      const closed = client.run(agent, 'go').catch((thrown: unknown) => thrown);
      abort.abort(new Error('user abort'));
      expect(await aborted).toBeInstanceOf(lean.AbortError);
      await client.close({ drain: false });
      expect(await closed).toMatchObject({ name: 'ConnectionError', code: 'closed' });

      const failing = await fresh(fails('src/client/runs'));
      const other = new failing.Client({ url: server.url, apiKey: 'browser-waits-key', tools: [] });
      await other.connect();
      const agent2 = new failing.Agent({ name: 'A', instructions: '', tools: [] });
      const error = await other.run(agent2, 'go').catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(failing.RunError);
      expect(error).toMatchObject({ code: 'load_failed', message: expect.stringContaining('runs code') });
      await other.close({ drain: false });
    } finally {
      await server.close();
    }
  }, 30_000);

  it('ctx.step() called before the call ended runs once its code loads, as it would have at once', async () => {
    const { gate, release } = held('src/call/steps');
    const lean = await fresh(gate);
    let late: Promise<unknown> | undefined;
    let ran = false;
    const tool = lean.tool({
      name: 'fire_and_forget',
      description: 'Starts a step and returns.',
      execute: (_input, ctx) => {
        late = ctx.step('late', () => {
          ran = true;
          return 'kept';
        });
        return 'returned';
      },
    });
    expect(await lean.invokeTool(tool, {})).toMatchObject({ status: 'ok', output: 'returned' });
    release();
    expect(await late).toBe('kept');
    expect(ran).toBe(true);
  }, 30_000);

  it('ctx.step(): a cancel during the load rejects the step, fn not run', async () => {
    const lean = await fresh(hangs('src/call/steps'));
    const abort = new AbortController();
    let step: Promise<unknown> | undefined;
    let ran = false;
    const tool = lean.tool({
      name: 'stepper',
      description: 'Waits on a step.',
      execute: (_input, ctx) => {
        step = ctx.step('s', () => {
          ran = true;
        });
        abort.abort(new Error('stop'));
        return step;
      },
    });
    expect(await lean.invokeTool(tool, {}, { signal: abort.signal })).toMatchObject({ status: 'cancelled' });
    await expect(step).rejects.toThrow('stop');
    expect(ran).toBe(false);
  }, 30_000);

  it('a call waiting for the gate code ends on its cancel and its timeout; a failed load is `load_failed`', async () => {
    const lean = await fresh(hangs('src/call/gate'));
    const tool = lean.tool({
      name: 'gated',
      description: 'Only for Support.',
      allowedAgentNames: ['Support'],
      execute: () => 'ran',
    });
    const abort = new AbortController();
    const cancelled = lean.invokeTool(tool, {}, { agentName: 'Support', signal: abort.signal });
    abort.abort();
    expect(await cancelled).toMatchObject({ status: 'cancelled' });
    expect(await lean.invokeTool(tool, {}, { agentName: 'Support', timeoutMs: 20 })).toMatchObject({
      status: 'timeout',
    });
    const failing = await fresh(fails('src/call/gate'));
    const other = failing.tool({ name: 'g', description: 'd', allowedAgentNames: ['S'], execute: () => 1 });
    const result = await failing.invokeTool(other, {}, { agentName: 'S' });
    expect(result).toMatchObject({ status: 'error' });
    expect(result.error).toMatchObject({ name: 'ToolwireError', code: 'load_failed' });
  }, 30_000);

  it('a call waiting for the refusal of an unusual number ends on its cancel and its timeout; a failed load is `load_failed`', async () => {
    const lean = await fresh(hangs('src/call/number-refusals'));
    const big = '{"n":1e400}';
    const tool = lean.tool({
      name: 'count',
      description: 'Counts.',
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
      execute: () => 'ran',
    });
    const abort = new AbortController();
    const cancelled = lean.invokeTool(tool, big, { signal: abort.signal });
    abort.abort();
    expect(await cancelled).toMatchObject({ status: 'cancelled' });
    expect(await lean.invokeTool(tool, big, { timeoutMs: 20 })).toMatchObject({ status: 'timeout' });
    expect(await lean.invokeTool(tool, '{"n":1}')).toMatchObject({ status: 'ok', output: 'ran' });
    const failing = await fresh(fails('src/call/number-refusals'));
    const other = failing.tool({ name: 'c', description: 'd', execute: () => 1 });
    const result = await failing.invokeTool(other, big);
    expect(result).toMatchObject({ status: 'error' });
    expect(result.error).toMatchObject({ name: 'ToolwireError', code: 'load_failed' });
  }, 30_000);

  it('ctx.askQuestion(): a failed load is QuestionError `load_failed`, which the tool can catch', async () => {
    const lean = await fresh(fails('src/call/questions'));
    const tool = lean.tool({
      name: 'asker',
      description: 'Asks.',
      execute: async (_input, ctx) => {
        try {
          return String(await ctx.askQuestion('Which?'));
        } catch (error) {
          return `${(error as Error).name} ${(error as { code?: string }).code}`;
        }
      },
    });
    const result = await lean.invokeTool(tool, {}, { onQuestion: () => ({ answer: 'x' }) });
    expect(result).toMatchObject({ status: 'ok', output: 'QuestionError load_failed' });
  }, 30_000);
});
