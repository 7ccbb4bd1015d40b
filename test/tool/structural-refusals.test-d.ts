/**
 * TypeScript refuses what the runtime refuses when a tool is made (src/tool/shapes.ts), in every entry
 * point: each `@ts-expect-error` below is a `ToolDefinitionError` at run time (test/tool/structural.test.ts).
 */
import { tool as aiTool, jsonSchema } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { toAiSdkTools } from '../../src/ai-sdk';
import { Agent, Client, invokeTool, ToolRegistry, tool } from '../../src/index';
import { registerMcpTools } from '../../src/mcp/index';

declare const client: Client;
declare const mcpServer: Parameters<typeof registerMcpTools>[0];
const url = 'ws://127.0.0.1:1';
const schema = z.object({ a: z.number() });
const weather = aiTool({ description: 'd', inputSchema: schema, execute: async ({ a }) => a });

describe('execute annotated with another input type than its schema gives', () => {
  it('is refused in a record and an array of Client, Agent and ToolRegistry', () => {
    new Client({
      url,
      apiKey: 'k',
      // @ts-expect-error the input is { a: number }
      tools: { t: { description: 'd', inputSchema: schema, execute: (input: { b: string }) => input.b } },
    });
    new Client({
      url,
      apiKey: 'k',
      // @ts-expect-error the input is { a: number }
      tools: [{ name: 't', description: 'd', parameters: schema, execute: (input: { b: string }) => input }],
    });
    new Agent({
      name: 'A',
      instructions: '',
      // @ts-expect-error the input is { a: number }
      tools: { t: { description: 'd', inputSchema: schema, execute: (input: { b: string }) => input.b } },
    });
    new Agent({
      name: 'A',
      instructions: '',
      // @ts-expect-error the input is { a: number }
      tools: [{ name: 't', description: 'd', parameters: schema, execute: (input: { b: string }) => input }],
    });
    new ToolRegistry({
      // @ts-expect-error the input is { a: number }
      t: { description: 'd', inputSchema: schema, execute: (input: { b: string }) => input.b },
    });
    // @ts-expect-error the input is { a: number } (no signature matches: the error is on the call)
    new ToolRegistry([
      { name: 't', description: 'd', inputSchema: schema, execute: (input: { b: string }) => input.b },
    ]);
  });

  it('is refused by addTool(), invokeTool() and registry.add()', () => {
    // @ts-expect-error the input is { a: number }
    client.addTool({
      name: 't',
      description: 'd',
      inputSchema: schema,
      execute: (input: { b: string }) => input,
    });
    void invokeTool(
      // @ts-expect-error the input is { a: number }
      { name: 't', description: 'd', parameters: schema, execute: (i: { b: string }) => i },
      {},
    );
    // @ts-expect-error the input is { a: number }
    new ToolRegistry().add({ name: 't', description: 'd', parameters: schema, execute: (i: { b: 1 }) => i });
  });

  it('is refused for a narrower input too (a key the schema does not have)', () => {
    new Client({
      url,
      apiKey: 'k',
      tools: {
        // @ts-expect-error the input has no `extra`
        t: { description: 'd', inputSchema: schema, execute: (input: { a: number; extra: string }) => input },
      },
    });
  });

  it('is refused by toAiSdkTools() and registerMcpTools() (no untyped fallback signature)', () => {
    toAiSdkTools({
      // @ts-expect-error the input is { a: number }
      t: { description: 'd', inputSchema: schema, execute: (input: { b: string }) => input.b },
    });
    registerMcpTools(mcpServer, [
      // @ts-expect-error the input is { a: number }
      { name: 't', description: 'd', inputSchema: schema, execute: (input: { b: string }) => input.b },
    ]);
  });

  it('types the input of a ToolRegistry entry (not any)', () => {
    new ToolRegistry([
      {
        name: 't',
        description: 'd',
        inputSchema: schema,
        execute: (input) => {
          expectTypeOf(input).not.toBeAny();
          expectTypeOf(input).toEqualTypeOf<{ a: number }>();
        },
      },
    ]);
  });
});

describe('shapes the runtime refuses', () => {
  it('an object without execute', () => {
    // @ts-expect-error execute is missing
    new Client({ url, apiKey: 'k', tools: { t: { description: 'd', inputSchema: schema } } });
    // @ts-expect-error execute is missing
    new Agent({ name: 'A', instructions: '', tools: [{ name: 't', description: 'd' }] });
    // @ts-expect-error execute is missing
    client.addTool({ name: 't', description: 'd', parameters: schema });
    // @ts-expect-error execute is missing
    void invokeTool({ name: 't', description: 'd' }, {});
    // @ts-expect-error execute is missing
    new ToolRegistry({ t: { description: 'd' } });
  });

  it('an object without execute whose schema is an AI SDK one (only the AI SDK’s Tool type may lack execute)', () => {
    const text = jsonSchema<{ text: string }>({ type: 'object' });
    // @ts-expect-error execute is missing
    new Client({ url, apiKey: 'k', tools: { t: { description: 'd', inputSchema: text } } });
    // @ts-expect-error execute is missing
    new Agent({ name: 'A', instructions: '', tools: [{ name: 't', description: 'd', inputSchema: text }] });
    // @ts-expect-error execute is missing
    client.addTool({ name: 't', description: 'd', inputSchema: text });
    new Client({
      url,
      apiKey: 'k',
      // @ts-expect-error execute is undefined
      tools: { t: { description: 'd', inputSchema: schema, execute: undefined } },
    });
  });

  it('both parameters and inputSchema', () => {
    new Client({
      url,
      apiKey: 'k',
      // @ts-expect-error one of the two
      tools: { t: { description: 'd', parameters: schema, inputSchema: schema, execute: () => 1 } },
    });
    new Agent({
      name: 'A',
      instructions: '',
      // @ts-expect-error one of the two
      tools: [{ name: 't', description: 'd', parameters: schema, inputSchema: schema, execute: () => 1 }],
    });
    // @ts-expect-error one of the two
    client.addTool({
      name: 't',
      description: 'd',
      parameters: schema,
      inputSchema: schema,
      execute: () => 1,
    });
    // @ts-expect-error one of the two
    void invokeTool({ name: 't', description: 'd', parameters: {}, inputSchema: {}, execute: () => 1 }, {});
    // @ts-expect-error one of the two
    new ToolRegistry([
      { name: 't', description: 'd', parameters: schema, inputSchema: schema, execute: () => 1 },
    ]);
  });

  it('both needsApproval and requiresApproval', () => {
    new Client({
      url,
      apiKey: 'k',
      // @ts-expect-error one of the two
      tools: { t: { description: 'd', needsApproval: true, requiresApproval: true, execute: () => 1 } },
    });
    new Agent({
      name: 'A',
      instructions: '',
      // @ts-expect-error one of the two
      tools: { t: { description: 'd', needsApproval: true, requiresApproval: false, execute: () => 1 } },
    });
    // @ts-expect-error one of the two
    client.addTool({
      name: 't',
      description: 'd',
      needsApproval: true,
      requiresApproval: true,
      execute: () => 1,
    });
    void invokeTool(
      // @ts-expect-error one of the two
      { name: 't', description: 'd', needsApproval: true, requiresApproval: true, execute: () => 1 },
      {},
    );
    // @ts-expect-error one of the two
    new ToolRegistry().add({
      name: 't',
      description: 'd',
      needsApproval: true,
      requiresApproval: true,
      execute: () => 1,
    });
  });

  it('a bare function in an array (only a record gives it a name)', () => {
    // @ts-expect-error a bare function needs a record
    new Client({ url, apiKey: 'k', tools: [() => 1] });
    // @ts-expect-error a bare function needs a record
    new Agent({ name: 'A', instructions: '', tools: [() => 1] });
    // @ts-expect-error a bare function needs a record
    new ToolRegistry([() => 1]);
    // @ts-expect-error a bare function needs a record
    client.addTool(() => 1);
    // @ts-expect-error a bare function needs a record
    void invokeTool(() => 1, {});
  });

  it('an object without a name in an array, addTool() or invokeTool(): an AI SDK tool as it is', () => {
    // @ts-expect-error an AI SDK tool has no name: give { name: 'weather', ...weather } or a record
    new Client({ url, apiKey: 'k', tools: [weather] });
    // @ts-expect-error a name is needed
    new Agent({ name: 'A', instructions: '', tools: [{ description: 'd', execute: () => 1 }] });
    // @ts-expect-error a name is needed
    new ToolRegistry([weather]);
    // @ts-expect-error a name is needed
    client.addTool(weather);
    // @ts-expect-error a name is needed
    void invokeTool({ description: 'd', execute: () => 1 }, {});
  });

  it('not a name that differs from its record key: the runtime refuses it (name_mismatch)', () => {
    // A name held in a variable is a `string`, which no type tells from a differing literal; the runtime
    // compares it with the key when the tool is made (test/tool/structural.test.ts).
    new Client({
      url,
      apiKey: 'k',
      tools: { weather: { name: 'forecast', description: 'd', execute: () => 1 } },
    });
    new ToolRegistry({ weather: { name: 'forecast', ...weather } });
    new Agent({
      name: 'A',
      instructions: '',
      tools: { p: tool({ name: 'q', description: 'd', execute: () => 1 }) },
    });
  });

  it('undefined in an array (a record leaves it out)', () => {
    const made = tool({ name: 'made', description: 'd', execute: () => 1 });
    // @ts-expect-error an array item must be a tool
    new Client({ url, apiKey: 'k', tools: [made, undefined] });
    new Client({ url, apiKey: 'k', tools: { made, other: undefined } });
  });
});
