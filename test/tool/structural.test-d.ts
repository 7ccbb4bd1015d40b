/** Types of the structural contract: `execute`'s input stays inferred from the schema for every typed shape. */
import { tool as aiTool, type ToolExecutionOptions } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent, Client, invokeTool, type ToolContext, tool } from '../../src/index';
import type { ToolSource } from '../../src/tool/shapes';

describe('execute’s input is inferred for every accepted shape', () => {
  it('tool() with inputSchema, requiresApproval and strict', () => {
    const made = tool({
      name: 'transfer',
      description: 'd',
      inputSchema: z.object({ to: z.string(), amount: z.number().optional() }),
      requiresApproval: (_ctx, input) => {
        expectTypeOf(input).toEqualTypeOf<{ to: string; amount?: number | undefined }>();
        return true;
      },
      strict: true,
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ to: string; amount?: number | undefined }>();
        return input.to;
      },
    });
    expectTypeOf(made).toExtend<ToolSource>();
  });

  it('tool() with a JSON Schema under inputSchema, as const', () => {
    tool({
      name: 'echo',
      description: 'd',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string' } },
        required: ['message'],
      } as const,
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ [x: string]: unknown; message: string }>();
      },
    });
  });

  it('OpenAI Agents style options through tool(): execute(input, runContext), errorFunction: null', () => {
    tool({
      name: 'refund',
      description: 'd',
      parameters: z.object({ orderId: z.string() }),
      strict: true,
      execute: (input, runContext: ToolContext<{ shop: string }>) => {
        expectTypeOf(input).toEqualTypeOf<{ orderId: string }>();
        return `${runContext.context.shop} ${input.orderId}`;
      },
      errorFunction: null,
      needsApproval: async (_runContext, input, callId) => {
        expectTypeOf(callId).toEqualTypeOf<string>();
        return input.orderId === 'big';
      },
    });
  });

  it('an AI SDK tool keeps its own inference and is accepted by Client, Agent, addTool and invokeTool', () => {
    const weather = aiTool({
      description: 'd',
      inputSchema: z.object({ city: z.string() }),
      execute: async (input, options) => {
        expectTypeOf(input).toEqualTypeOf<{ city: string }>();
        expectTypeOf(options).toEqualTypeOf<ToolExecutionOptions>();
        return input.city;
      },
    });
    const client = new Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: { weather } });
    new Agent({ name: 'A', instructions: '', tools: { weather, now: () => Date.now() } });
    client.addTool({ name: 'weather2', ...weather });
    void invokeTool({ name: 'weather', ...weather }, {});
  });

  it('gives the AI SDK names of ctx fields to the execute of a tool given as an object, not to ctx', () => {
    tool({
      name: 'n',
      description: 'd',
      execute: (_input, ctx: ToolContext<{ tenant: string }>) => {
        expectTypeOf(ctx).not.toHaveProperty('toolCallId');
        expectTypeOf(ctx).not.toHaveProperty('abortSignal');
        expectTypeOf(ctx).not.toHaveProperty('messages');
        expectTypeOf(ctx).not.toHaveProperty('experimental_context');
      },
    });
    new Client({
      url: 'ws://127.0.0.1:1',
      apiKey: 'k',
      context: { tenant: 't1' },
      tools: {
        n: {
          description: 'd',
          parameters: z.object({}),
          execute: (_input, ctx) => {
            expectTypeOf(ctx.toolCallId).toEqualTypeOf<string>();
            expectTypeOf(ctx.abortSignal).toEqualTypeOf<AbortSignal>();
            expectTypeOf(ctx.messages).toEqualTypeOf<never[]>();
            expectTypeOf(ctx.experimental_context).toEqualTypeOf<{ tenant: string }>();
            expectTypeOf(ctx.context).toEqualTypeOf<{ tenant: string }>();
          },
        },
      },
    });
  });

  it('refuses, in the types too, a misspelt key of a plain object in tools', () => {
    new Agent({
      name: 'A',
      instructions: '',
      // @ts-expect-error `needApproval` is not an option (the client refuses it at run time as well)
      tools: { refund: { description: 'd', execute: () => 1, needApproval: true } },
    });
  });
});
