/**
 * The run context a list of tools needs (`ToolsContext`), checked where a context is given with tools as
 * `invokeTool` checks it for one: `toAiSdkTools()`, `registerMcpTools()` and `client.run()` refuse a context of
 * another type than their tools declare, take the right one, and take any (or none) for tools that declare none.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { toAiSdkTools } from '../../src/ai-sdk/index';
import type { AgentContext } from '../../src/client/agent';
import { Agent, type Client, type ToolContext, type ToolSet, tool } from '../../src/index';
import { registerMcpTools } from '../../src/mcp/index';
import type { ToolsContext } from '../../src/tool/shapes';

declare const client: Client;
declare const server: McpServer;

const byTenant = tool({
  name: 'by_tenant',
  description: 'Needs a tenant.',
  execute: (_input, ctx: ToolContext<{ tenantId: string }>) => ctx.context.tenantId,
});
const byUser = tool({
  name: 'by_user',
  description: 'Needs a user.',
  execute: (_input, ctx: ToolContext<{ userId: string }>) => ctx.context.userId,
});
const loose = tool({ name: 'loose', description: 'Declares no context.', execute: () => 'ok' });

describe('ToolsContext', () => {
  it('is what every tool() result declares, at once; a tool that declares none adds nothing', () => {
    type Declares<C> = { input: unknown; output: unknown; context: C };
    expectTypeOf<ToolsContext<[Declares<{ a: 1 }>, Declares<{ b: 2 }>, unknown]>>().toEqualTypeOf<
      { a: 1 } & { b: 2 }
    >();
    // biome-ignore lint/suspicious/noExplicitAny: a tool whose context is the loose default.
    expectTypeOf<ToolsContext<[Declares<any>]>>().toEqualTypeOf<unknown>();
    expectTypeOf<ToolsContext<[Declares<never>]>>().toEqualTypeOf<unknown>();
    expectTypeOf<ToolsContext<[]>>().toEqualTypeOf<unknown>();
    expectTypeOf<ToolsContext<{ x: Declares<{ a: 1 }>; y: unknown }>>().toEqualTypeOf<{ a: 1 }>();
  });
});

describe('toAiSdkTools()', () => {
  it('refuses a context of another type than its tools declare', () => {
    // @ts-expect-error tenantId is a string
    toAiSdkTools([byTenant], { context: { tenantId: 1 } });
    // @ts-expect-error in a record, and beside a tool that declares none
    toAiSdkTools({ byTenant, loose }, { context: { tenantId: 1 } });
    // @ts-expect-error two tools, two contexts: both are needed
    toAiSdkTools([byTenant, byUser], { context: { tenantId: 't1' } });
    toAiSdkTools([byTenant, { name: 'x', description: 'X.', execute: () => 'x' }], {
      // @ts-expect-error beside an object tool without a schema
      context: { tenantId: 1 },
    });
  });

  it('takes the right context, none, and any for tools that declare none', () => {
    toAiSdkTools([byTenant, loose], { context: { tenantId: 't1' } });
    toAiSdkTools([byTenant, byUser], { context: { tenantId: 't1', userId: 'u1' } });
    toAiSdkTools([byTenant]);
    toAiSdkTools([loose], { context: 42 });
    toAiSdkTools([loose], { context: { tenantId: 1 } });
  });

  it('types an object tool beside them by the same context', () => {
    toAiSdkTools(
      [
        byTenant,
        {
          name: 'echo',
          description: 'Echoes.',
          parameters: z.object({ text: z.string() }),
          execute: ({ text }, ctx) => {
            expectTypeOf(ctx.context).toEqualTypeOf<{ tenantId: string }>();
            return text;
          },
        },
      ],
      { context: { tenantId: 't1' } },
    );
  });

  it('checks nothing in a loosely typed tool set (its tools are of any context)', () => {
    const tools: ToolSet = [byTenant];
    toAiSdkTools(tools, { context: { tenantId: 1 } });
  });
});

describe('registerMcpTools()', () => {
  it('refuses a context, or a function giving one, of another type than its tools declare', () => {
    // @ts-expect-error tenantId is a string
    registerMcpTools(server, [byTenant], { context: { tenantId: 1 } });
    // @ts-expect-error the function's result is checked too
    registerMcpTools(server, { byTenant }, { context: () => ({ tenantId: 1 }) });
  });

  it('takes the right context, a function giving it, none, and any for tools that declare none', () => {
    registerMcpTools(server, [byTenant, loose], { context: { tenantId: 't1' } });
    registerMcpTools(server, [byTenant], { context: async (extra) => ({ tenantId: extra.sessionId ?? '' }) });
    registerMcpTools(server, [byTenant]);
    registerMcpTools(server, [loose], { context: 'anything' });
  });
});

describe('client.run()', () => {
  const support = new Agent({ name: 'Support', instructions: '', tools: [byTenant, loose] });

  it("refuses a context of another type than the agent's tools declare", () => {
    // @ts-expect-error tenantId is a string
    void client.run(support, 'hi', { context: { tenantId: 1 } });
    const both = new Agent({ name: 'Both', instructions: '', tools: { byTenant, byUser } });
    // @ts-expect-error the agent's two tools need both fields
    void client.run(both, 'hi', { context: { userId: 'u1' } });
  });

  it('refuses it for the tools of an agent used as a tool, whose nested run gets the same context', () => {
    const front = new Agent({ name: 'Front', instructions: '', tools: [support.asTool()] });
    expectTypeOf<AgentContext<typeof front>>().toEqualTypeOf<{ tenantId: string }>();
    // @ts-expect-error tenantId is a string
    void client.run(front, 'hi', { context: { tenantId: 1 } });
  });

  it('takes the right context, none, and any for an agent whose tools declare none', () => {
    void client.run(support, 'hi', { context: { tenantId: 't1' } });
    void client.run(support, 'hi');
    void client.run(new Agent({ name: 'Plain', instructions: '', tools: [loose] }), 'hi', { context: 42 });
    void client.run(new Agent({ name: 'Bare', instructions: '' }), 'hi', { context: null });
  });

  it('keeps agents of different tools assignable to one another and to Agent', () => {
    let agent = new Agent({ name: 'A', instructions: '', tools: [byTenant] });
    agent = new Agent({ name: 'B', instructions: '', tools: [byUser] });
    const any: Agent = agent;
    void any;
  });
});
