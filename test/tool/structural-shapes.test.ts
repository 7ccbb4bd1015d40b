/** Break pass of issue 17: which argument order a plain object's callbacks use, odd `tools` values, class instances. */
import { tool as aiTool } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent, invokeTool } from '../../src/index';
import { toTools } from '../../src/tool/structural';
import { definitionRefusal } from '../fixtures/schema/definition-error';

const refusal = definitionRefusal;

describe('argument order of needsApproval and toModelOutput', () => {
  it('refuses a predicate whose order cannot be known, naming the tool, the field and the fix', () => {
    const refund = {
      description: 'Refunds',
      inputSchema: z.object({ amount: z.number() }),
      needsApproval: (_ctx: unknown, input: { amount: number }) => input.amount > 100,
      execute: (input: { amount: number }) => `refunded ${input.amount}`,
    };
    const refused = refusal(() => toTools({ refund }, 'test'));
    expect(refused.code).toBe('ambiguous_tool_shape');
    expect(refused.message).toMatch(/^tool "refund": needsApproval is a function/);
    expect(refused.message).toContain("type: 'function'");
    expect(refused.message).toContain('parameters');
    expect(refusal(() => toTools([{ ...refund, name: 'refund' }], 'test')).code).toBe('ambiguous_tool_shape');
  });

  it("reads toolwire's order when the object says so (parameters, or a toolwire-only key)", async () => {
    const predicate = vi.fn((_ctx: unknown, input: { amount: number }) => input.amount > 100);
    const refund = {
      description: 'Refunds',
      parameters: z.object({ amount: z.number() }),
      needsApproval: predicate,
      execute: (input: { amount: number }) => `refunded ${input.amount}`,
    };
    const [made] = toTools({ refund }, 'test');
    expect(await invokeTool(made!, { amount: 5000 })).toMatchObject({ status: 'rejected' });
    const timed = { ...refund, parameters: undefined, inputSchema: refund.parameters, timeoutMs: 1000 };
    expect(await invokeTool(toTools({ refund: timed }, 'test')[0]!, { amount: 5000 })).toMatchObject({
      status: 'rejected',
    });
  });

  it("keeps the AI SDK's order for a named AI SDK tool marked type: 'function'", async () => {
    const weather = aiTool({
      type: 'function',
      description: 'Weather',
      inputSchema: z.object({ city: z.string() }),
      needsApproval: async ({ city }) => city === 'Danger',
      execute: async ({ city }) => ({ city, t: 20 }),
      toModelOutput: ({ output }) => ({ type: 'text', value: `${output.city}=${output.t}` }),
    });
    const [made] = toTools([{ ...weather, name: 'weather' }], 'test');
    expect(await invokeTool(made!, { city: 'Danger' })).toMatchObject({ status: 'rejected' });
    expect(await invokeTool(made!, { city: 'Oslo' })).toMatchObject({ status: 'ok', output: 'Oslo=20' });
  });

  it("reads an unmarked AI SDK tool's toModelOutput in the AI SDK's order, named in an array too", async () => {
    const echo = aiTool({
      description: 'Echo',
      inputSchema: z.object({ s: z.string() }),
      execute: async ({ s }) => s,
      toModelOutput: ({ input, output }) => ({ type: 'text', value: `${input.s}/${output}` }),
    });
    const [named] = toTools([{ ...echo, name: 'echo' }], 'test');
    const [keyed] = toTools({ echo }, 'test');
    for (const made of [named, keyed]) {
      expect(await invokeTool(made!, { s: 'hi' })).toMatchObject({ status: 'ok', output: 'hi/hi' });
    }
  });
});

describe('odd tools values', () => {
  const t = { description: 'd', execute: () => 1 };
  it.each([
    ['a Map', new Map([['a', t]])],
    ['a Set', new Set([{ ...t, name: 'a' }])],
    ['a Date', new Date(0)],
  ])('refuses %s as tools', (kind, tools) => {
    const refused = refusal(() => new Agent({ name: 'A', instructions: 'x', tools: tools as never }));
    expect(refused.code).toMatch(/^(not_a_tool|invalid_agent)$/);
    expect(refused.message).toContain('tools');
    expect(refused.message).toContain(kind);
  });
});

describe('class instances', () => {
  class Lookup {
    name = 'lookup';
    description = 'Looks up';
    #db = new Map([['a', '1']]);
    get timeoutMs() {
      return 1000;
    }
    execute(input: { k: string }) {
      return String(this.#db.get(input.k ?? 'a'));
    }
  }
  it('reads prototype methods and getters, and calls them on the instance, in an array and a record', async () => {
    const [fromArray] = toTools([new Lookup()], 'test');
    const [fromRecord] = toTools({ lookup: new Lookup() }, 'test');
    for (const made of [fromArray, fromRecord]) {
      expect(await invokeTool(made!, { k: 'a' })).toMatchObject({ status: 'ok', output: '1' });
    }
  });
});

describe('records keyed like a tool option', () => {
  it.each(['execute', 'description', 'parameters', 'inputSchema'])(
    'reads { %s: fn, search: fn } as a record',
    (key) => {
      const tools = toTools({ [key]: () => 'x', search: () => 'y' }, 'test');
      expect(tools.map((made) => made.name)).toEqual([key, 'search']);
    },
  );
  it('tells a single tool given as tools to wrap it', () => {
    expect(refusal(() => toTools({ description: 'd', execute: () => 1 }, 'test')).message).toMatch(
      /a single tool.*\[tool\]/,
    );
  });
});

describe('an unnamed tool outside a record', () => {
  it('is refused naming its place, with the two ways to name it', () => {
    const echo = { description: 'Echo', execute: () => 1 };
    expect(refusal(() => toTools([echo], 'Agent "A"'))).toEqual({
      code: 'invalid_name',
      message:
        'Agent "A": tools[0] has no name: add name: "…" to it, or give tools as a record keyed by name ({ my_tool: … })',
    });
  });
});
