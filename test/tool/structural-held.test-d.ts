/**
 * Tools held in variables, made by helpers or chosen at run time keep their place in every entry point: a name
 * typed `string` (not the record key's literal) is accepted, as the runtime accepts it (it compares the name with
 * the key when the tool is made: `name_mismatch`). Also `toolsOf()`'s per-entry typing and what a loose
 * `ToolSet` / `ToolObject` type gives `execute`'s input (`unknown`, never a silent `any`).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { toAiSdkTools } from '../../src/ai-sdk';
import {
  Agent,
  type AnyTool,
  Client,
  type ToolObject,
  ToolRegistry,
  type ToolSet,
  tool,
  toolsOf,
} from '../../src/index';
import { registerMcpTools } from '../../src/mcp/index';
import type { ToolFunction } from '../../src/tool/shapes';

declare const mcpServer: McpServer;
declare const cond: boolean;
const url = 'ws://127.0.0.1:1';
const S = z.object({ n: z.number() });

const getN = {
  name: 'get_n',
  description: 'd',
  parameters: S,
  execute: async (input: { n: number }) => input.n,
};
/** A user's helper: its result's `name` is a `string`. */
function defineTool<I>(name: string, parameters: z.ZodType<I>, execute: (input: I) => unknown) {
  return { name, description: `Calls ${name}.`, parameters, execute };
}

describe('a named object held in a variable, under its key in a record', () => {
  it('is accepted by Client, Agent, ToolRegistry, the bridges and toolsOf()', () => {
    new Client({ url, apiKey: 'k', tools: { get_n: getN } });
    new Agent({ name: 'A', instructions: 'i', tools: { get_n: getN } });
    new ToolRegistry({ get_n: getN });
    toAiSdkTools({ get_n: getN });
    registerMcpTools(mcpServer, { get_n: getN });
    toolsOf({ get_n: getN }, 'bridge()');
  });

  it('made by a helper, or included conditionally', () => {
    new Agent({ name: 'A', instructions: 'i', tools: { a: defineTool('a', S, (input) => input.n) } });
    new Agent({ name: 'A', instructions: 'i', tools: { get_n: cond ? getN : undefined } });
    new Client({ url, apiKey: 'k', tools: { get_n: cond ? getN : undefined, other: () => 1 } });
  });

  it('still checks its execute against its schema', () => {
    const wrong = { ...getN, execute: (input: { n: string }) => input.n };
    // @ts-expect-error the input is { n: number }
    new Agent({ name: 'A', instructions: 'i', tools: { get_n: wrong } });
  });
});

describe('toolsOf()', () => {
  it('types each entry of a record or an array by its own schema', () => {
    toolsOf(
      {
        a: {
          description: 'd',
          inputSchema: S,
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ n: number }>(),
        },
        b: () => 1,
      },
      'bridge()',
    );
    toolsOf(
      [
        {
          name: 'a',
          description: 'd',
          parameters: z.object({ q: z.string() }),
          execute: (input) => expectTypeOf(input).toEqualTypeOf<{ q: string }>(),
        },
      ],
      'bridge()',
    );
    expectTypeOf(toolsOf([], 'bridge()')).toEqualTypeOf<AnyTool[]>();
  });

  it('refuses what the runtime refuses', () => {
    // @ts-expect-error the input is { n: number }
    toolsOf({ a: { description: 'd', inputSchema: S, execute: (input: { b: string }) => input } }, 'x');
    // @ts-expect-error a bare function needs a record (its key is the name)
    toolsOf([() => 1], 'x');
  });
});

describe('a loose ToolSet or ToolObject types the input unknown, not any', () => {
  it('satisfies ToolSet does not hide a wrong use of the input', () => {
    const tools = {
      p: {
        description: 'd',
        inputSchema: S,
        execute: async (input) => {
          expectTypeOf(input).toBeUnknown();
          // @ts-expect-error input is unknown: annotate it, write the tool in place, or use tool()
          const v: string = input.n;
          return v;
        },
      },
    } satisfies ToolSet;
    new Agent({ name: 'A', instructions: 'i', tools });
  });

  it('an annotated execute (of any input type), a tool() result and a bare function still assign', () => {
    const tools = {
      p: { description: 'd', inputSchema: S, execute: async (input: { n: number }) => input.n },
      q: tool({ name: 'q', description: 'd', parameters: S, execute: (input) => input.n }),
      r: (input: { x?: string }) => input.x,
    } satisfies ToolSet;
    const one: ToolObject = getN;
    const fn: ToolFunction = tools.r;
    new Client({ url, apiKey: 'k', tools });
    new ToolRegistry({ get_n: one });
    void fn;
  });
});
