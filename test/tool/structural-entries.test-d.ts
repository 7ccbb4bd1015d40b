/**
 * Every accepted tool shape, in every entry point (`new Client({ tools })`, `new Agent({ tools })`,
 * `client.addTool()`, `invokeTool()`, `new ToolRegistry()` and `registry.add()`), keeps `execute`'s input
 * inferred from its own schema. The refusals are in structural-refusals.test-d.ts.
 */
import { tool as aiTool, jsonSchema, type ToolExecutionOptions } from 'ai';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { z as z323 } from 'zod323';
import { Agent, Client, invokeTool, type ToolContext, ToolRegistry, tool } from '../../src/index';
import type { ToolSource } from '../../src/tool/shapes';
import type { AiSdkContext, EmptyInput } from '../../src/tool/tool';

type Ctx = { tenant: string };
declare const client: Client<Ctx>;
const url = 'ws://127.0.0.1:1';

/** The input types the schemas below give. */
type Zod4In = { city: string; days: number };
type JsonIn = { [x: string]: unknown; q: string };

const weather = aiTool({
  description: 'Weather in a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: async (input, options) => {
    expectTypeOf(input).toEqualTypeOf<{ city: string }>();
    expectTypeOf(options).toEqualTypeOf<ToolExecutionOptions>();
    return input.city;
  },
});
const made = tool({
  name: 'made',
  description: 'd',
  parameters: z.object({ n: z.number() }),
  execute: (input) => input.n,
});

describe('a record of every shape', () => {
  it('in new Client({ tools }): each entry typed by its own schema, ctx by the client context', () => {
    new Client({
      url,
      apiKey: 'k',
      context: { tenant: 'acme' },
      tools: {
        zod4: {
          description: 'd',
          inputSchema: z.object({ city: z.string(), days: z.number().default(1) }),
          execute: (input, ctx) => {
            expectTypeOf(input).toEqualTypeOf<Zod4In>();
            expectTypeOf(ctx).toEqualTypeOf<AiSdkContext<Ctx>>();
          },
        },
        zod3: {
          description: 'd',
          parameters: z3.object({ n: z3.number() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ n: number }>(),
        },
        zod323: {
          description: 'd',
          parameters: z323.object({ q: z323.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ q: string }>(),
        },
        valibot: {
          description: 'd',
          inputSchema: v.object({ id: v.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ id: string }>(),
        },
        arktype: {
          description: 'd',
          parameters: type({ ok: 'boolean' }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ ok: boolean }>(),
        },
        jsonConst: {
          description: 'd',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const,
          execute: (input) => expectTypeOf(input).toEqualTypeOf<JsonIn>(),
        },
        jsonPlain: {
          description: 'd',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
          execute: (input) => expectTypeOf(input).toEqualTypeOf<Record<string, unknown>>(),
        },
        jsonAnnotated: {
          description: 'd',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
          // A JSON Schema types cannot read: the input may be annotated with the shape it has.
          execute: (input: { q?: string }) => input.q,
        },
        aiJsonSchema: {
          description: 'd',
          inputSchema: jsonSchema<{ id: number }>({ type: 'object' }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ id: number }>(),
        },
        none: { description: 'd', execute: (input) => expectTypeOf(input).toEqualTypeOf<EmptyInput>() },
        weather,
        made,
        bare: (input, ctx) => [input, ctx],
        sometimes: Math.random() > 0.5 ? made : undefined,
      },
    });
  });

  it('in new Agent({ tools })', () => {
    new Agent({
      name: 'A',
      instructions: '',
      tools: {
        zod4: {
          description: 'd',
          inputSchema: z.object({ city: z.string(), days: z.number().default(1) }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<Zod4In>(),
        },
        valibot: {
          description: 'd',
          parameters: v.object({ id: v.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ id: string }>(),
        },
        jsonConst: {
          description: 'd',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const,
          execute: (input) => expectTypeOf(input).toEqualTypeOf<JsonIn>(),
        },
        none: { description: 'd', execute: (input) => expectTypeOf(input).toEqualTypeOf<EmptyInput>() },
        weather,
        made,
        now: () => Date.now(),
      },
    });
  });

  it('in new ToolRegistry()', () => {
    new ToolRegistry({
      zod3: {
        description: 'd',
        inputSchema: z3.object({ n: z3.number() }),
        execute: (input) => expectTypeOf(input).toEqualTypeOf<{ n: number }>(),
      },
      arktype: {
        description: 'd',
        parameters: type({ ok: 'boolean' }),
        execute: (input) => expectTypeOf(input).toEqualTypeOf<{ ok: boolean }>(),
      },
      weather,
      made,
      bare: () => 'bare',
    });
  });
});

describe('an array of every shape (each with a name)', () => {
  it('in new Client({ tools }), new Agent({ tools }) and new ToolRegistry()', () => {
    new Client({
      url,
      apiKey: 'k',
      tools: [
        {
          name: 'zod4',
          description: 'd',
          inputSchema: z.object({ city: z.string(), days: z.number().default(1) }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<Zod4In>(),
        },
        {
          name: 'valibot',
          description: 'd',
          parameters: v.object({ id: v.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ id: string }>(),
        },
        { name: 'weather', ...weather },
        made,
      ],
    });
    new Agent({
      name: 'A',
      instructions: '',
      tools: [
        {
          name: 'arktype',
          description: 'd',
          inputSchema: type({ ok: 'boolean' }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ ok: boolean }>(),
        },
        {
          name: 'zod323',
          description: 'd',
          parameters: z323.object({ q: z323.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ q: string }>(),
        },
        { name: 'weather', ...weather },
        made,
      ],
    });
    new ToolRegistry([
      {
        name: 'jsonConst',
        description: 'd',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const,
        execute: (input) => expectTypeOf(input).toEqualTypeOf<JsonIn>(),
      },
      {
        name: 'none',
        description: 'd',
        execute: (input) => expectTypeOf(input).toEqualTypeOf<EmptyInput>(),
      },
      { name: 'weather', ...weather },
      made,
    ]);
  });

  it('an OpenAI Agents style object with strict, errorFunction and needsApproval', () => {
    new Client({
      url,
      apiKey: 'k',
      context: { tenant: 'acme' },
      tools: [
        {
          name: 'refund',
          description: 'd',
          parameters: z.object({ orderId: z.string() }),
          strict: true,
          execute: (input, runContext) => {
            expectTypeOf(input).toEqualTypeOf<{ orderId: string }>();
            return `${runContext.context.tenant} ${input.orderId}`;
          },
          errorFunction: (_ctx: ToolContext, error: unknown) => String(error),
          needsApproval: async () => true,
        },
      ],
    });
  });
});

describe('one tool alone, in every shape', () => {
  it('in client.addTool()', () => {
    client.addTool({
      name: 'zod4',
      description: 'd',
      inputSchema: z.object({ city: z.string(), days: z.number().default(1) }),
      execute: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<Zod4In>();
        expectTypeOf(ctx.context).toEqualTypeOf<Ctx>();
      },
    });
    client.addTool({
      name: 'zod3',
      description: 'd',
      parameters: z3.object({ n: z3.number() }),
      execute: (input) => expectTypeOf(input).toEqualTypeOf<{ n: number }>(),
    });
    client.addTool({
      name: 'valibot',
      description: 'd',
      inputSchema: v.object({ id: v.string() }),
      execute: (input) => expectTypeOf(input).toEqualTypeOf<{ id: string }>(),
    });
    client.addTool({
      name: 'jsonPlain',
      description: 'd',
      inputSchema: { type: 'object' },
      execute: (input) => expectTypeOf(input).toEqualTypeOf<Record<string, unknown>>(),
    });
    client.addTool({ name: 'weather', ...weather });
    client.addTool(made);
  });

  it('in invokeTool()', () => {
    void invokeTool(
      {
        name: 'arktype',
        description: 'd',
        parameters: type({ ok: 'boolean' }),
        execute: (input) => expectTypeOf(input).toEqualTypeOf<{ ok: boolean }>(),
      },
      {},
    );
    void invokeTool(
      {
        name: 'zod323',
        description: 'd',
        inputSchema: z323.object({ q: z323.string() }),
        execute: (input) => expectTypeOf(input).toEqualTypeOf<{ q: string }>(),
      },
      {},
    );
    void invokeTool(
      {
        name: 'jsonConst',
        description: 'd',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const,
        execute: (input) => expectTypeOf(input).toEqualTypeOf<JsonIn>(),
      },
      {},
    );
    void invokeTool({ name: 'none', description: 'd', execute: (input) => input }, {});
    void invokeTool({ name: 'weather', ...weather }, {});
    void invokeTool(made, { n: 1 });
  });

  it('in registry.add()', () => {
    const registry = new ToolRegistry();
    registry.add({
      name: 'aiJsonSchema',
      description: 'd',
      inputSchema: jsonSchema<{ id: number }>({ type: 'object' }),
      execute: (input) => expectTypeOf(input).toEqualTypeOf<{ id: number }>(),
    });
    registry.add({
      name: 'none',
      description: 'd',
      execute: (input) => expectTypeOf(input).toEqualTypeOf<EmptyInput>(),
    });
    registry.add({ name: 'weather', ...weather });
    registry.add(made);
  });
});

describe('tools typed loosely', () => {
  it('a Set of tools in new ToolRegistry()', () => {
    new ToolRegistry(new Set<ToolSource>([made, { name: 'weather', ...weather }]));
  });

  it('with an explicit context type argument, the shapes are still checked (inputs untyped)', () => {
    new Client<Ctx>({
      url,
      apiKey: 'k',
      context: { tenant: 'acme' },
      tools: [{ name: 'x', description: 'd', execute: (input) => expectTypeOf(input).toBeAny() }],
    });
    new Client<Ctx>({
      url,
      apiKey: 'k',
      context: { tenant: 'acme' },
      // @ts-expect-error a bare function needs a record (its key is the name)
      tools: [() => 1],
    });
  });
});
