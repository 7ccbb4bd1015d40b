/**
 * The optional parts of schema support (src/tool/schema/optional-parts.ts), seen from the core alone: the source
 * loaded afresh (`vi.resetModules()`), so that none of the registrations test/setup.ts makes for every other file
 * is there.
 */
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import type * as Core from '../../../src/index';
import { resolveSchema } from '../../../src/tool/schema';
import { controlLoads } from '../../helpers/code-loads';

/** The core (src/index.ts) with nothing registered. */
async function freshCore(): Promise<typeof Core> {
  vi.resetModules();
  return import('../../../src/index');
}

/** The ToolDefinitionError `define` throws, as its class name, code and message. */
function refusal(define: () => unknown): { name: string; code: string; message: string } {
  try {
    define();
  } catch (error) {
    const { name, code, message } = error as Core.ToolDefinitionError;
    return { name, code, message };
  }
  throw new Error('expected a refusal');
}

afterEach(() => {
  vi.resetModules();
});

/** Counts (and, `offline`, fails) the fresh core's loads of the JSON Schema validator: call after freshCore(). */
async function validatorLoads(options: { offline?: boolean } = {}) {
  const { setCodeLoader } = await import('../../../src/code-on-demand');
  return controlLoads(setCodeLoader, 'JSON Schema validator', options);
}

describe('the core without the optional parts', () => {
  it('refuses zod 3, valibot and plain JSON Schema parameters, naming the import that registers each', async () => {
    const core = await freshCore();
    const define = (parameters: Core.ToolParameters) => () =>
      core.tool({ name: 'add', description: 'Adds.', parameters, execute: () => 'ok' });
    expect(refusal(define(z3.object({ a: z3.number() })))).toEqual({
      name: 'ToolDefinitionError',
      code: 'unsupported_schema',
      message:
        'tool "add": parameters is a zod 3 schema, which toolwire reads only after `import \'toolwire/zod3\'` (once, before the tools are defined)',
    });
    expect(refusal(define(v.object({ a: v.number() })))).toEqual({
      name: 'ToolDefinitionError',
      code: 'unsupported_schema',
      message:
        'tool "add": parameters is a valibot schema, which toolwire reads only after `import \'toolwire/valibot\'` (once, before the tools are defined)',
    });
    expect(refusal(define({ type: 'object', properties: { a: { type: 'number' } } }))).toEqual({
      name: 'ToolDefinitionError',
      code: 'unsupported_schema',
      message:
        'tool "add": parameters is a plain JSON Schema, which toolwire reads only after `import \'toolwire/json-schema\'` (once, before the tools are defined)',
    });
  });

  it('refuses strict: true with any kind of parameters until toolwire/strict is imported, then rewrites them', async () => {
    const core = await freshCore();
    const define = () =>
      core.tool({
        name: 'add',
        description: 'Adds.',
        strict: true,
        parameters: z.object({ a: z.number(), note: z.string().optional() }),
        execute: () => 'ok',
      });
    expect(refusal(define)).toEqual({
      name: 'ToolDefinitionError',
      code: 'unsupported_schema',
      message:
        'tool "add": strict is true, which toolwire reads only after `import \'toolwire/strict\'` (once, before the tools are defined)',
    });
    // `strict: false` (or none) needs nothing.
    expect(() =>
      core.tool({
        name: 'add',
        description: 'Adds.',
        strict: false,
        parameters: z.object({}),
        execute: () => 'ok',
      }),
    ).not.toThrow();
    await import('../../../src/strict');
    expect(define().definition.parameters).toMatchObject({
      required: ['a', 'note'],
      additionalProperties: false,
    });
    // A schema strict mode cannot express is still refused by the part, naming its JSON Pointer.
    expect(
      refusal(() =>
        core.tool({
          name: 'add',
          description: 'Adds.',
          strict: true,
          parameters: z.object({ tags: z.record(z.string(), z.string()) }),
          execute: () => 'ok',
        }),
      ),
    ).toMatchObject({ code: 'unsupported_schema', message: expect.stringContaining('#/properties/tags') });
  });

  it('refuses a definition needing several imports once, naming every one', async () => {
    const core = await freshCore();
    const plain = { type: 'object', properties: { a: { type: 'number' } } } as const;
    expect(
      refusal(() =>
        core.tool({
          name: 'add',
          description: 'Adds.',
          strict: true,
          parameters: plain,
          execute: () => 'ok',
        }),
      ),
    ).toEqual({
      name: 'ToolDefinitionError',
      code: 'unsupported_schema',
      message:
        "tool \"add\": parameters is a plain JSON Schema and strict is true, which toolwire reads only after `import 'toolwire/json-schema'` and `import 'toolwire/strict'` (once, before the tools are defined)",
    });
    // Each import named once, whatever needs it; an outputSchema of a Standard Schema needs none.
    expect(
      refusal(() =>
        core.tool({
          name: 'add',
          description: 'Adds.',
          strict: true,
          parameters: v.object({ a: v.number() }),
          outputSchema: plain,
          execute: () => 'ok',
        }),
      ).message,
    ).toBe(
      "tool \"add\": parameters is a valibot schema, outputSchema is a plain JSON Schema and strict is true, which toolwire reads only after `import 'toolwire/valibot'`, `import 'toolwire/json-schema'` and `import 'toolwire/strict'` (once, before the tools are defined)",
    );
    expect(
      refusal(() =>
        core.tool({
          name: 'add',
          description: 'Adds.',
          parameters: plain,
          outputSchema: plain,
          execute: () => 'ok',
        }),
      ).message,
    ).toBe(
      'tool "add": parameters is a plain JSON Schema and outputSchema is a plain JSON Schema, which toolwire reads only after `import \'toolwire/json-schema\'` (once, before the tools are defined)',
    );
    expect(
      refusal(() =>
        core.tool({
          name: 'add',
          description: 'Adds.',
          strict: true,
          parameters: z.object({ a: z.number() }),
          outputSchema: z3.object({ n: z3.number() }),
          execute: () => 'ok',
        }),
      ).message,
    ).toBe(
      'tool "add": strict is true, which toolwire reads only after `import \'toolwire/strict\'` (once, before the tools are defined)',
    );
    // With both imported, the same definition is made.
    await import('../../../src/json-schema');
    await import('../../../src/strict');
    const made = core.tool({
      name: 'add',
      description: 'Adds.',
      strict: true,
      parameters: plain,
      execute: () => 'ok',
    });
    expect(made.definition.parameters).toMatchObject({ required: ['a'], additionalProperties: false });
  });

  it('still validates a zod 3 or valibot outputSchema, which is never announced', async () => {
    const core = await freshCore();
    const answer = core.tool({
      name: 'answer',
      description: 'Answers.',
      outputSchema: z3.object({ n: z3.number() }),
      execute: () => ({ n: 'one' }),
    });
    expect(await core.invokeTool(answer, {})).toMatchObject({
      status: 'error',
      output:
        'Error running answer: the result does not match the output schema: n: Expected number, received string',
    });
    const valid = core.tool({
      name: 'valid',
      description: 'Answers.',
      outputSchema: v.object({ n: v.number() }),
      execute: () => ({ n: 1 }),
    });
    expect(await core.invokeTool(valid, {})).toMatchObject({ status: 'ok', output: '{"n":1}' });
  });

  it('loads the validator with import() at the first validation a zod 4 guard needs, once', async () => {
    const core = await freshCore();
    const loads = await validatorLoads();
    // `z.coerce.number()` accepts "3", which the announced "type": "number" refuses: the guard checks it.
    const double = core.tool({
      name: 'double',
      description: 'Doubles n.',
      parameters: z.object({ n: z.coerce.number() }),
      execute: ({ n }) => n * 2,
    });
    expect(loads.begun).toBe(0);
    expect(await core.invokeTool(double, { n: '3' })).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for double: n: expected a number, received "3"',
    });
    expect(await core.invokeTool(double, { n: 3 })).toMatchObject({ status: 'ok', output: '6' });
    expect(loads.begun).toBe(1);
  });

  it('reads the bare functions of a tools record without toolwire/json-schema, and loads no validator', async () => {
    const core = await freshCore();
    const loads = await validatorLoads();
    const [echo] = core.toolsOf({ echo: (args: Record<string, unknown>) => JSON.stringify(args) }, 'test');
    expect(echo!.definition.parameters).toEqual({ type: 'object' });
    // Any object, handed on as the model sent it; a call without arguments gets `{}`.
    expect(await core.invokeTool(echo!, { q: 'x', n: [1, { deep: true }] })).toMatchObject({
      status: 'ok',
      output: '{"q":"x","n":[1,{"deep":true}]}',
    });
    expect(await core.invokeTool(echo!, undefined)).toMatchObject({ status: 'ok', output: '{}' });
    expect(
      () => new core.Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: { now: () => 'noon' } }),
    ).not.toThrow();
    expect(loads.begun).toBe(0);
    // A user's own `{ type: 'object' }` is a plain JSON Schema like any other.
    expect(
      refusal(() =>
        core.tool({ name: 'own', description: 'Own.', parameters: { type: 'object' }, execute: () => 'ok' }),
      ).message,
    ).toContain("`import 'toolwire/json-schema'`");
  });

  it('makes an agent a tool with the validator it loads by import(), as the Node entry does', async () => {
    const node = await import('../../../src/node');
    const nodeTool = new node.Agent({ name: 'Researcher', instructions: 'Looks up.' }).asTool({
      toolDescription: 'Looks things up.',
    });
    const core = await freshCore();
    const loads = await validatorLoads();
    const coreTool = new core.Agent({ name: 'Researcher', instructions: 'Looks up.' }).asTool({
      toolDescription: 'Looks things up.',
    });
    expect(coreTool.definition).toEqual(nodeTool.definition);
    expect(loads.begun).toBe(0);
    // The same text for the model, whatever the input (outside a client, a valid one ends in the tool's error).
    const inputs: unknown[] = [
      { input: 'who?' },
      {},
      { input: 3 },
      { input: 'who?', extra: 1 },
      { input: undefined },
      'who?',
      null,
    ];
    for (const input of inputs) {
      const { durationMs: _core, ...fromCore } = await core.invokeTool(coreTool, input);
      const { durationMs: _node, ...fromNode } = await node.invokeTool(nodeTool, input);
      expect(fromCore, JSON.stringify(input)).toEqual(fromNode);
    }
    expect(loads.begun).toBe(1);
  });

  it('fails the validation whose load failed with ToolwireError load_failed, and loads again at the next', async () => {
    const core = await freshCore();
    const loads = await validatorLoads({ offline: true });
    const double = core.tool({
      name: 'double',
      description: 'Doubles n.',
      parameters: z.object({ n: z.coerce.number() }),
      execute: ({ n }) => n * 2,
    });
    const failed = await core.invokeTool(double, { n: 3 });
    const error = failed.error as Core.ToolwireError;
    expect(error).toBeInstanceOf(core.ToolwireError);
    expect({ name: error.name, code: error.code }).toEqual({ name: 'ToolwireError', code: 'load_failed' });
    const reason = (error.cause as Error).message;
    expect(error.message).toBe(
      `toolwire could not load its JSON Schema validator code (\`import 'toolwire/json-schema'\` loads it with the page): ${reason}`,
    );
    expect(failed).toMatchObject({ status: 'error', output: `Error running double: ${error.message}` });
    loads.offline = false;
    expect(await core.invokeTool(double, { n: 3 })).toMatchObject({ status: 'ok', output: '6' });
  });
});

describe('the core with toolwire/json-schema registered', () => {
  it('takes the registered validator when toolwire/json-schema was imported: validation answers at once', () => {
    // This file's own modules, with test/setup.ts's registrations.
    const adapter = resolveSchema(z.object({ n: z.coerce.number() }), {
      owner: 'tool "double"',
      field: 'parameters',
      requireObject: true,
    });
    expect(adapter.validate({ n: '3' })).toEqual({
      ok: false,
      issues: [{ path: 'n', message: 'expected a number, received "3"' }],
    });
  });
});
