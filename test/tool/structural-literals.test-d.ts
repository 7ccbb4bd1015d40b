/** Plain-object tools written in place keep `execute`'s input inferred from their schema, wherever tools go. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { jsonSchema } from 'ai';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { toAiSdkTools } from '../../src/ai-sdk';
import {
  Agent,
  approvalRequired,
  Client,
  invokeTool,
  ToolRegistry,
  type ToolSet,
  tool,
} from '../../src/index';
import { registerMcpTools } from '../../src/mcp/index';
import type { EmptyInput } from '../../src/tool/tool';

declare const client: Client<{ tenant: string }>;
declare const mcpServer: McpServer;

describe('a plain object written in place', () => {
  it('in new Client({ tools }) as a record: every schema kind types the input, ctx.context the context', () => {
    new Client({
      url: 'ws://127.0.0.1:1',
      apiKey: 'k',
      context: { tenant: 'acme' },
      tools: {
        zod4: {
          description: 'd',
          inputSchema: z.object({ city: z.string(), days: z.number().default(1) }),
          execute: async (input, ctx) => {
            expectTypeOf(input).toEqualTypeOf<{ city: string; days: number }>();
            expectTypeOf(ctx.context).toEqualTypeOf<{ tenant: string }>();
            return input.city;
          },
        },
        zod3: {
          description: 'd',
          parameters: z3.object({ n: z3.number() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ n: number }>(),
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
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ [x: string]: unknown; q: string }>(),
        },
        jsonPlain: {
          description: 'd',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
          execute: (input) => expectTypeOf(input).toEqualTypeOf<Record<string, unknown>>(),
        },
        aiJsonSchema: {
          description: 'd',
          inputSchema: jsonSchema<{ id: number }>({ type: 'object' }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ id: number }>(),
        },
        none: { description: 'd', execute: (input) => expectTypeOf(input).toEqualTypeOf<EmptyInput>() },
        bare: () => 1,
        made: tool({ name: 'made', description: 'd', execute: () => 1 }),
      },
    });
  });

  it('in new Client({ tools }) as an array, beside tool() results', () => {
    new Client({
      url: 'ws://127.0.0.1:1',
      apiKey: 'k',
      tools: [
        {
          name: 'weather',
          description: 'd',
          inputSchema: z.object({ city: z.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ city: string }>(),
        },
        tool({ name: 'made', description: 'd', execute: () => 1 }),
      ],
    });
  });

  it('in new Agent({ tools }), as a record and as an array', () => {
    new Agent({
      name: 'A',
      instructions: '',
      tools: {
        lookup: {
          description: 'd',
          inputSchema: z.object({ orderId: z.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ orderId: string }>(),
        },
      },
    });
    new Agent({
      name: 'A',
      instructions: '',
      tools: [
        {
          name: 'lookup',
          description: 'd',
          parameters: v.object({ orderId: v.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ orderId: string }>(),
        },
      ],
    });
  });

  it('in client.addTool() and invokeTool()', () => {
    client.addTool({
      name: 'lookup',
      description: 'd',
      inputSchema: z.object({ orderId: z.string() }),
      execute: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ orderId: string }>();
        expectTypeOf(ctx.context).toEqualTypeOf<{ tenant: string }>();
      },
    });
    void invokeTool(
      {
        name: 'lookup',
        description: 'd',
        parameters: type({ orderId: 'string' }),
        execute: (input) => expectTypeOf(input).toEqualTypeOf<{ orderId: string }>(),
      },
      {},
    );
  });

  it('in toAiSdkTools(), registerMcpTools() and ToolRegistry.add()', () => {
    toAiSdkTools({
      lookup: {
        description: 'd',
        inputSchema: z.object({ orderId: z.string() }),
        execute: (input) => expectTypeOf(input).toEqualTypeOf<{ orderId: string }>(),
      },
    });
    registerMcpTools(mcpServer, [
      {
        name: 'lookup',
        description: 'd',
        inputSchema: z.object({ orderId: z.string() }),
        execute: (input) => expectTypeOf(input).toEqualTypeOf<{ orderId: string }>(),
      },
    ]);
    new ToolRegistry().add({
      name: 'lookup',
      description: 'd',
      inputSchema: z.object({ orderId: z.string() }),
      execute: (input) => expectTypeOf(input).toEqualTypeOf<{ orderId: string }>(),
    });
  });

  it('a wrong use of the input is a type error', () => {
    new Client({
      url: 'ws://127.0.0.1:1',
      apiKey: 'k',
      tools: {
        lookup: {
          description: 'd',
          inputSchema: z.object({ orderId: z.string() }),
          // @ts-expect-error orderId is a string
          execute: (input): number => input.orderId,
        },
      },
    });
  });

  it('a ToolSet held in a variable is still accepted everywhere', () => {
    const tools: ToolSet = { ping: () => 'pong' };
    new Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools });
    new Agent({ name: 'A', instructions: '', tools });
    toAiSdkTools(tools);
    registerMcpTools(mcpServer, tools);
    new ToolRegistry(tools);
  });
});

describe('every option tool() takes is accepted in a plain object', () => {
  it('sideEffect, retry, allowedAgentNames, sensitiveFieldNames and an approvalRequired() policy', () => {
    new Agent({
      name: 'A',
      instructions: '',
      tools: {
        quote: {
          description: 'd',
          inputSchema: z.object({ sku: z.string() }),
          sideEffect: 'none',
          retry: { maxAttempts: 2 },
          allowedAgentNames: ['A'],
          sensitiveFieldNames: ['card'],
          needsApproval: approvalRequired('Costs money.', 'none'),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ sku: string }>(),
        },
      },
    });
  });
});
