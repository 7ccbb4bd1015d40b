/** Types of the structural contract: `execute`'s input stays inferred from the schema for every typed shape. */
import { tool as aiTool, jsonSchema, type ToolExecutionOptions } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { toAiSdkTools } from '../../src/ai-sdk';
import { Agent, Client, invokeTool, type ToolContext, ToolRegistry, tool } from '../../src/index';
import { registerMcpTools } from '../../src/mcp/index';
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

declare const mcpServer: Parameters<typeof registerMcpTools>[0];

describe('an AI SDK tool is accepted whatever its execute returns', () => {
  const url = 'ws://127.0.0.1:1';
  const Url = z.object({ url: z.string() });
  const Text = jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } } });
  // `any`: the AI SDK's `Tool` type then makes `execute` optional.
  const anyZod = aiTool({
    description: 'd',
    inputSchema: Url,
    execute: async ({ url }) => (await fetch(url)).json(),
  });
  const anyJson = aiTool({ description: 'd', inputSchema: Text, execute: ({ text }) => JSON.parse(text) });
  const unknownZod = aiTool({
    description: 'd',
    inputSchema: Url,
    execute: async ({ url }): Promise<unknown> => url,
  });
  const unknownJson = aiTool({ description: 'd', inputSchema: Text, execute: ({ text }): unknown => text });
  const typedZod = aiTool({
    description: 'd',
    inputSchema: Url,
    execute: async ({ url }) => ({ status: 200, url }),
  });
  const typedJson = aiTool({
    description: 'd',
    inputSchema: Text,
    execute: ({ text }) => ({ length: text.length }),
  });

  it('the AI SDK types execute optional when it returns any, and keeps its input typed', () => {
    expectTypeOf<undefined>().toExtend<(typeof anyZod)['execute']>();
    expectTypeOf<undefined>().toExtend<(typeof anyJson)['execute']>();
    expectTypeOf<Parameters<NonNullable<(typeof anyZod)['execute']>>[0]>().toEqualTypeOf<{ url: string }>();
    expectTypeOf<Parameters<NonNullable<(typeof anyJson)['execute']>>[0]>().toEqualTypeOf<{ text: string }>();
  });

  it('in a record and an array of Client, Agent and ToolRegistry', () => {
    const tools = { anyZod, anyJson, unknownZod, unknownJson, typedZod, typedJson };
    new Client({ url, apiKey: 'k', tools });
    new Client({ url, apiKey: 'k', tools: { anyZod, anyJson } });
    new Client({
      url,
      apiKey: 'k',
      tools: [
        { ...anyZod, name: 'a' },
        { ...anyJson, name: 'b' },
      ],
    });
    new Agent({ name: 'A', instructions: '', tools: { anyZod, anyJson, typedZod } });
    new Agent({
      name: 'A',
      instructions: '',
      tools: [
        { ...anyZod, name: 'a' },
        { ...unknownJson, name: 'b' },
      ],
    });
    new ToolRegistry({ anyZod, anyJson });
    new ToolRegistry([{ ...anyZod, name: 'a' }]);
  });

  it('in addTool(), invokeTool(), registry.add() and the bridges', () => {
    const client = new Client({ url, apiKey: 'k', tools: {} });
    client.addTool({ ...anyZod, name: 'a' });
    client.addTool({ ...anyJson, name: 'b' });
    void invokeTool({ ...anyZod, name: 'a' }, { url: 'https://example.com' });
    void invokeTool({ ...anyJson, name: 'b' }, { text: '1' });
    new ToolRegistry().add({ ...anyJson, name: 'b' });
    toAiSdkTools({ anyZod, anyJson });
    registerMcpTools(mcpServer, { anyZod, unknownZod, typedJson });
  });
});
