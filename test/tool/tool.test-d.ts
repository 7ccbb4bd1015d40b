import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { defineTool } from '../../src/compat';
import {
  type DefaultContext,
  invokeTool,
  type Tool,
  type ToolContext,
  type ToolInput,
  type ToolOutput,
  tool,
} from '../../src/index';
import type { EmptyInput } from '../../src/tool/tool';

describe('execute’s input is inferred from parameters', () => {
  it('zod 4: the output type, defaults filled in', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: z.object({ a: z.string(), n: z.number().default(1), s: z.enum(['x', 'y']).optional() }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ a: string; n: number; s?: 'x' | 'y' | undefined }>();
      },
    });
  });

  it('zod 3: the output type, transforms applied', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: z3.object({ a: z3.string().transform((s) => s.length), n: z3.number().default(1) }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ a: number; n: number }>();
      },
    });
  });

  it('valibot: the output type', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: v.object({ a: v.string(), n: v.optional(v.number(), 1), tags: v.array(v.string()) }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ a: string; n: number; tags: string[] }>();
      },
    });
  });

  it('arktype: the output type', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: type({ a: 'string', 'n?': 'number' }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ a: string; n?: number }>();
      },
    });
  });

  it('JSON Schema written as const: FromSchema, defaulted properties optional', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          n: { type: 'number', default: 1 },
          kind: { enum: ['x', 'y'] },
        },
        required: ['a'],
        additionalProperties: false,
      } as const,
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ a: string; n?: number; kind?: 'x' | 'y' }>();
      },
    });
  });

  it('no parameters: an empty object', () => {
    const ping = tool({
      name: 'ping',
      description: 'd',
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<EmptyInput>();
        return 'pong';
      },
    });
    expectTypeOf<ToolInput<typeof ping>>().toEqualTypeOf<Record<string, never>>();
  });
});

describe('the other option types', () => {
  it('infers the output type from execute, for toModelOutput and the Tool', () => {
    const t = tool({
      name: 't',
      description: 'd',
      parameters: z.object({ id: z.string() }),
      execute: async ({ id }) => ({ id, secret: 1 }),
      toModelOutput: (output) => {
        expectTypeOf(output).toEqualTypeOf<{ id: string; secret: number }>();
        return { id: output.id };
      },
    });
    expectTypeOf(t).toEqualTypeOf<Tool<{ id: string }, { id: string; secret: number }, DefaultContext>>();
    expectTypeOf<ToolOutput<typeof t>>().toEqualTypeOf<{ id: string; secret: number }>();
  });

  it('types the needsApproval predicate with ctx and the input', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: z.object({ amount: z.number() }),
      needsApproval: (ctx, input) => {
        expectTypeOf(ctx).toEqualTypeOf<ToolContext<DefaultContext>>();
        expectTypeOf(input).toEqualTypeOf<{ amount: number }>();
        return input.amount > 100;
      },
      execute: () => 'ok',
    });
  });

  it('types the answers of ctx.askQuestion by their schema: a string without one', () => {
    tool({
      name: 't',
      description: 'd',
      execute: async (_input, ctx) => {
        expectTypeOf(await ctx.askQuestion('Which?')).toEqualTypeOf<string>();
        expectTypeOf(await ctx.askQuestion('Which?', { choices: ['a', 'b'] })).toEqualTypeOf<string>();
        expectTypeOf(await ctx.askQuestion('How many?', { schema: z.number() })).toEqualTypeOf<number>();
        ctx.progress({ progress: 1, total: 2, message: 'half' });
        return 'ok';
      },
    });
  });

  it('infers the context type from an annotated ctx', () => {
    const t = tool({
      name: 't',
      description: 'd',
      execute: (_input, ctx: ToolContext<{ tenant: string }>) => ctx.context.tenant,
    });
    expectTypeOf(t).toEqualTypeOf<Tool<EmptyInput, string, { tenant: string }>>();
    void invokeTool(t, {}, { context: { tenant: 'acme' } });
    // @ts-expect-error the context must match the tool's
    void invokeTool(t, {}, { context: { tenant: 42 } });
  });

  it('assigns any tool to Tool, for registries and clients', () => {
    const t = tool({
      name: 't',
      description: 'd',
      parameters: z.object({ a: z.string() }),
      execute: ({ a }) => a,
    });
    expectTypeOf(t).toExtend<Tool>();
    const list: Tool[] = [t];
    expectTypeOf(list).toEqualTypeOf<Tool[]>();
  });

  it('refuses a parameters value of no accepted kind at compile time', () => {
    // @ts-expect-error a string is not a schema
    tool({ name: 't', description: 'd', parameters: 'string', execute: () => 1 });
  });
});

describe('a misspelt or conflicting option is refused on its own line', () => {
  const schema = z.object({ email: z.string() });

  it('a misspelt required option of a tool with parameters: the typo, not parameters, and the input still typed', () => {
    tool({
      name: 't',
      // @ts-expect-error 'descripton' does not exist … Did you mean to write 'description'?
      descripton: 'd',
      parameters: schema,
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ email: string }>();
      },
    });
    defineTool({
      name: 't',
      // @ts-expect-error 'descripton' does not exist … Did you mean to write 'description'?
      descripton: 'd',
      inputSchema: schema,
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ email: string }>();
      },
    });
  });

  it('another SDK’s name for execute (handler)', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: schema,
      // @ts-expect-error 'handler' does not exist
      handler: ({ email }: { email: string }) => email,
    });
  });

  it('parameters and inputSchema both: refused on inputSchema, as at run time (conflicting_options)', () => {
    tool({
      name: 't',
      description: 'd',
      parameters: schema,
      // @ts-expect-error give parameters or inputSchema, not both
      inputSchema: schema,
      execute: ({ email }) => email,
    });
    defineTool({
      name: 't',
      description: 'd',
      parameters: schema,
      // @ts-expect-error give parameters or inputSchema, not both
      inputSchema: schema,
      execute: ({ email }) => email,
    });
  });

  it('inputSchema alone types the input as parameters does', () => {
    const t = tool({
      name: 't',
      description: 'd',
      inputSchema: schema,
      execute: ({ email }) => email.length,
    });
    expectTypeOf(t).toEqualTypeOf<Tool<{ email: string }, number, DefaultContext>>();
    const u = defineTool({ name: 'u', description: 'd', inputSchema: schema, execute: ({ email }) => email });
    expectTypeOf(u).toEqualTypeOf<Tool<{ email: string }, string, DefaultContext>>();
  });
});
