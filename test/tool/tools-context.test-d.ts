/**
 * The run context a list of tools needs (`ToolsContext`), checked where a context is given with tools as
 * `invokeTool` checks it for one: `toAiSdkTools()`, `registerMcpTools()`, `client.run()` and `new Client()` refuse
 * a context of another type than their tools declare, take the right one, and take any (or none) for tools that
 * declare none; tools held in an array variable (`const tools = [a, b]`) are checked as tools written in place.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { toAiSdkTools } from '../../src/ai-sdk/index';
import type { AgentContext } from '../../src/client/agent';
import { Agent, Client, type ToolContext, type ToolSet, tool } from '../../src/index';
import { registerMcpTools } from '../../src/mcp/index';
import type { ToolsContext } from '../../src/tool/shapes';

declare const client: Client;
const url = 'ws://127.0.0.1:8787';
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

  it('checks tools held in an array variable as tools written in place: each one needs its context', () => {
    const tools = [byTenant, byUser];
    // @ts-expect-error the array's element is a union of the two tools: both contexts are needed
    toAiSdkTools(tools, { context: { tenantId: 't1' } });
    toAiSdkTools(tools, { context: { tenantId: 't1', userId: 'u1' } });
    const readonlyTools: ReadonlyArray<typeof byTenant | typeof byUser> = tools;
    // @ts-expect-error a readonly array too
    toAiSdkTools(readonlyTools, { context: { userId: 'u1' } });
    const record = { byTenant, byUser };
    // @ts-expect-error and a record
    toAiSdkTools(record, { context: { userId: 'u1' } });
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

  it('checks tools held in an array variable', () => {
    const tools = [byTenant, byUser];
    // @ts-expect-error both contexts are needed
    registerMcpTools(server, tools, { context: async () => ({ userId: 'u1' }) });
    registerMcpTools(server, tools, { context: async () => ({ tenantId: 't1', userId: 'u1' }) });
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

  it("checks an agent's tools given as an array variable", () => {
    const tools = [byTenant, byUser];
    const agent = new Agent({ name: 'Held', instructions: '', tools });
    // @ts-expect-error both contexts are needed
    void client.run(agent, 'hi', { context: { tenantId: 't1' } });
    void client.run(agent, 'hi', { context: { tenantId: 't1', userId: 'u1' } });
  });

  it('keeps agents of different tools assignable to one another and to Agent', () => {
    let agent = new Agent({ name: 'A', instructions: '', tools: [byTenant] });
    agent = new Agent({ name: 'B', instructions: '', tools: [byUser] });
    const any: Agent = agent;
    void any;
  });
});

describe('new Client()', () => {
  it('refuses a context of another type than its tools declare', () => {
    // @ts-expect-error tenantId is missing
    new Client({ url, tools: [byTenant], context: {} });
    // @ts-expect-error tenantId is a string
    new Client({ url, tools: [byTenant, loose], context: { tenantId: 1 } });
    // @ts-expect-error in a record, two tools, two contexts: both are needed
    new Client({ url, tools: { byTenant, byUser }, context: { tenantId: 't1' } });
  });

  it('refuses a function, sync or async, that gives a context of another type', () => {
    // @ts-expect-error tenantId is missing
    new Client({ url, tools: [byTenant], context: () => ({}) });
    // @ts-expect-error tenantId is a string
    new Client({ url, tools: [byTenant], context: (call) => ({ tenantId: call.runId.length }) });
    // @ts-expect-error the promise's value is checked too
    new Client({ url, tools: [byTenant], context: async () => ({ tenantId: 1 }) });
  });

  it('takes the right context, as a value or a function (sync or async)', () => {
    new Client({ url, tools: [byTenant, loose], context: { tenantId: 't1' } });
    new Client({ url, tools: [byTenant], context: { tenantId: 't1', extra: true } });
    new Client({ url, tools: [byTenant], context: (call) => ({ tenantId: call.toolName }) });
    new Client({ url, tools: { byTenant, byUser }, context: async () => ({ tenantId: 't1', userId: 'u1' }) });
  });

  it('takes no context, and any context for tools that declare none', () => {
    new Client({ url, tools: [byTenant] });
    new Client({ url, tools: [loose], context: 42 });
    new Client({ url, tools: { loose }, context: async () => 'anything' });
    const tools: ToolSet = [byTenant];
    new Client({ url, tools, context: { tenantId: 1 } });
  });

  it('keeps the type of the context given as the client’s, which run() adds to the agent’s', () => {
    const plain = new Agent({ name: 'Plain', instructions: '', tools: [byUser] });
    const without = new Client({ url, tools: [byTenant] });
    void without.run(plain, 'hi', { context: { userId: 'u1' } });
    const given = new Client({ url, tools: [byTenant], context: { tenantId: 't1' } });
    // @ts-expect-error the client's context (tenantId) and the agent's (userId)
    void given.run(plain, 'hi', { context: { userId: 'u1' } });
    void given.run(plain, 'hi', { context: { tenantId: 't1', userId: 'u1' } });
  });

  it('takes tools added later, to a client made with none', () => {
    const empty = new Client({ url, tools: [], context: { userId: 'u1' } });
    empty.addTool(byTenant);
    new Client({ url, tools: {} }).addTool(byUser);
  });

  it('checks a context against written-out type arguments, not against the tools', () => {
    new Client<{ tenantId: string }>({ url, tools: [byTenant], context: { tenantId: 't1' } });
    // @ts-expect-error tenantId is a string
    new Client<{ tenantId: string }>({ url, tools: [byTenant], context: { tenantId: 1 } });
  });

  it('checks the context of an agent used as a tool: its tools’', () => {
    const support = new Agent({ name: 'Support', instructions: '', tools: [byTenant] });
    // @ts-expect-error tenantId is a string
    new Client({ url, tools: [support.asTool()], context: { tenantId: 1 } });
    new Client({ url, tools: [support.asTool(), loose], context: { tenantId: 't1' } });
  });

  it('checks tools held in an array variable', () => {
    const tools = [byTenant, byUser];
    // @ts-expect-error both contexts are needed
    new Client({ url, tools, context: { tenantId: 't1' } });
    new Client({ url, tools, context: () => ({ tenantId: 't1', userId: 'u1' }) });
  });

  it('types an object tool beside them by the context given', () => {
    new Client({
      url,
      tools: [
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
      context: { tenantId: 't1' },
    });
  });
});
