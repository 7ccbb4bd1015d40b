/** Break pass of issue 17: which argument order a plain object's callbacks use, odd `tools` values, class instances, read-once snapshots, sensitiveFieldNames without parameters. */
import { tool as aiTool } from 'ai';
import { type } from 'arktype';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent, Client, invokeTool, tool, toolsOf } from '../../src/index';
import { approvalOrder, toTools } from '../../src/tool/shapes';
import { definitionRefusal } from '../fixtures/schema/definition-error';

const refusal = definitionRefusal;

describe('argument order of needsApproval and toModelOutput', () => {
  it("runs an AI SDK tool's needsApproval function in the AI SDK's order, asking for approval", async () => {
    // What `ai`'s tool() returns for a zod inputSchema: no mark but the shape, and (input, options).
    const seen: unknown[] = [];
    const refund = aiTool({
      description: 'Refunds',
      inputSchema: z.object({ amount: z.number() }),
      needsApproval: async ({ amount }, { toolCallId }) => {
        seen.push(toolCallId);
        return amount > 100;
      },
      execute: async ({ amount }) => `refunded ${amount}`,
    });
    for (const made of [
      toTools({ refund }, 'test')[0]!,
      toTools([{ ...refund, name: 'refund' }], 'test')[0]!,
    ]) {
      expect(await invokeTool(made, { amount: 5000 }, { callId: 'c1' })).toMatchObject({
        status: 'rejected',
      });
      const approve = vi.fn(() => true);
      expect(await invokeTool(made, { amount: 5000 }, { callId: 'c2', approve })).toMatchObject({
        status: 'ok',
        output: 'refunded 5000',
      });
      expect(approve).toHaveBeenCalledTimes(1);
      expect(await invokeTool(made, { amount: 5 }, { callId: 'c3' })).toMatchObject({ status: 'ok' });
    }
    expect(seen).toEqual(['c1', 'c2', 'c3', 'c1', 'c2', 'c3']);
  });

  it.each([
    ['(input, options) =>', (input: { amount: number }, _options: unknown) => input.amount > 100, 'ai-sdk'],
    ['input =>', (input: { amount: number }) => input.amount > 100, 'ai-sdk'],
    ['({ amount }) =>', ({ amount }: { amount: number }) => amount > 100, 'ai-sdk'],
    ['(a, b) =>', (a: { amount: number }, _b: unknown) => a.amount > 100, 'ai-sdk'],
    ['(ctx, input) =>', (_ctx: unknown, input: { amount: number }) => input.amount > 100, 'toolwire'],
    ['(c, args) =>', (_c: unknown, args: { amount: number }) => args.amount > 100, 'toolwire'],
    [
      '({ context }, input) =>',
      ({ context }: { context: unknown }, input: { amount: number }) =>
        context !== 'admin' && input.amount > 100,
      'toolwire',
    ],
    [
      'a method (runContext, input)',
      {
        needsApproval(_runContext: unknown, input: { amount: number }) {
          return input.amount > 100;
        },
      }.needsApproval,
      'toolwire',
    ],
    [
      'function (input = {}, { toolCallId })',
      (input: { amount?: number } = {}, { toolCallId }: { toolCallId?: string } = {}) =>
        (input.amount ?? 0) > 100 && toolCallId !== '',
      'ai-sdk',
    ],
  ])(
    'reads the order of %s from its parameters, and asks for the big refund only',
    async (_shown, needsApproval, order) => {
      const refund = {
        description: 'Refunds',
        inputSchema: z.object({ amount: z.number() }),
        needsApproval,
        execute: (input: { amount: number }) => `refunded ${input.amount}`,
      };
      const [made] = toTools({ refund }, 'test');
      expect(await invokeTool(made!, { amount: 5000 })).toMatchObject({ status: 'rejected' });
      expect(await invokeTool(made!, { amount: 5 })).toMatchObject({ status: 'ok', output: 'refunded 5' });
      expect(approvalOrder(needsApproval)).toBe(order);
    },
  );

  it("reads a class instance's needsApproval method by its own parameters, not its bound copy's", async () => {
    class Refund {
      description = 'Refunds';
      inputSchema = z.object({ amount: z.number() });
      limit = 100;
      needsApproval(_ctx: unknown, input: { amount: number }) {
        return input.amount > this.limit;
      }
      execute(input: { amount: number }) {
        return `refunded ${input.amount}`;
      }
    }
    const [made] = toTools({ refund: new Refund() }, 'test');
    expect(await invokeTool(made!, { amount: 5000 })).toMatchObject({ status: 'rejected' });
    expect(await invokeTool(made!, { amount: 5 })).toMatchObject({ status: 'ok' });
    expect(approvalOrder(() => true)).toBe('ai-sdk');
    expect(approvalOrder(Math.max)).toBeUndefined();
    expect(approvalOrder(class {})).toBeUndefined();
  });

  it('refuses a predicate whose parameters cannot be read (bound), naming the tool, the field and the fix', () => {
    const refund = {
      description: 'Refunds',
      inputSchema: z.object({ amount: z.number() }),
      needsApproval: ((_ctx: unknown, input: { amount: number }) => input.amount > 100).bind(null),
      execute: (input: { amount: number }) => `refunded ${input.amount}`,
    };
    const refused = refusal(() => toTools({ refund }, 'test'));
    expect(refused.code).toBe('ambiguous_tool_shape');
    expect(refused.message).toMatch(
      /^tool "refund": needsApproval is a function whose parameters cannot be read/,
    );
    expect(refused.message).toContain("type: 'function'");
    expect(refused.message).toContain('parameters');
    expect(refusal(() => toTools([{ ...refund, name: 'refund' }], 'test')).code).toBe('ambiguous_tool_shape');
  });

  it.each([
    [
      'context',
      aiTool({
        description: 'Deploys the app to an environment.',
        inputSchema: z.object({ context: z.enum(['staging', 'production']) }),
        needsApproval: async ({ context }) => context === 'production',
        execute: async ({ context }) => `deployed to ${context}`,
      }),
    ],
    [
      'signal',
      aiTool({
        description: 'Cancels a subscription.',
        inputSchema: z.object({ userId: z.string(), signal: z.enum(['soft', 'hard']) }),
        needsApproval: async ({ signal }) => signal === 'hard',
        execute: async ({ userId, signal }) => `${signal} cancel ${userId}`,
      }),
    ],
  ])(
    'refuses an AI SDK needsApproval destructuring "%s", an input property and a ctx member alike',
    (name, given) => {
      const message = `tool "t": needsApproval destructures "${name}", which is both an input property and a member of toolwire's ctx, so nothing tells whether it takes (input, options) as in the AI SDK or (ctx, input) as in toolwire; add type: 'function' for the AI SDK's order, or give the schema as parameters (or write (ctx, input), or make the tool with toolwire's tool()) for toolwire's`;
      for (const make of [
        () => toTools({ t: given }, 'test'),
        () => toTools([{ ...given, name: 't' }], 'test'),
        () => new Agent({ name: 'Ops', instructions: 'x', tools: { t: given } }),
      ]) {
        const refused = refusal(make);
        expect(refused.code).toBe('ambiguous_tool_shape');
        expect(refused.message).toBe(message);
      }
    },
  );

  it("asks for approval once the AI SDK tool says type: 'function', or the input does not share the name", async () => {
    const deploy = aiTool({
      type: 'function',
      description: 'Deploys the app to an environment.',
      inputSchema: z.object({ context: z.enum(['staging', 'production']) }),
      needsApproval: async ({ context }) => context === 'production',
      execute: async ({ context }) => `deployed to ${context}`,
    });
    const [made] = toTools({ deploy }, 'test');
    expect(await invokeTool(made!, { context: 'production' })).toMatchObject({ status: 'rejected' });
    expect(await invokeTool(made!, { context: 'staging' })).toMatchObject({
      status: 'ok',
      output: 'deployed to staging',
    });
    // No input property is named `context`: the pattern reads toolwire's ctx.
    const scoped = {
      description: 'Deploys',
      inputSchema: z.object({ env: z.string() }),
      needsApproval: ({ context }: { context: unknown }) => context !== 'admin',
      execute: (input: { env: string }) => `deployed to ${input.env}`,
    };
    const [own] = toTools({ scoped }, 'test');
    expect(await invokeTool(own!, { env: 'prod' }, { context: 'admin' })).toMatchObject({ status: 'ok' });
    expect(await invokeTool(own!, { env: 'prod' }, { context: 'guest' })).toMatchObject({
      status: 'rejected',
    });
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

describe('a schema that is a function (arktype)', () => {
  // An arktype Type is callable, with no Function.prototype: it was bound like a method, and the bind threw.
  const Point = type({ n: 'number' });
  const execute = async ({ n }: { n: number }) => String(n * 2);
  it('is read as parameters in a plain object, a record, an AI SDK tool and a client, not bound', async () => {
    const shapes = [
      ...toTools([{ name: 'p', description: 'd', inputSchema: Point, execute }], 'test'),
      ...toTools([{ name: 'q', description: 'd', parameters: Point, execute }], 'test'),
      ...toTools({ r: { description: 'd', inputSchema: Point, execute } }, 'test'),
      ...toTools({ s: aiTool({ description: 'd', inputSchema: Point, execute }) }, 'test'),
    ];
    for (const made of shapes) {
      expect(await invokeTool(made, { n: 2 })).toMatchObject({ status: 'ok', output: '4' });
      expect(await invokeTool(made, { n: 'x' })).toMatchObject({ status: 'invalid_arguments' });
    }
    const client = new Client({
      url: 'ws://127.0.0.1:1',
      apiKey: 'k',
      tools: [{ name: 't', description: 'd', inputSchema: Point, execute }],
    });
    expect(client.removeTool('t')).toBe(true);
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

describe('every shape is read once, the first time it is given', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } } } as const;

  it('keeps the first snapshot of a plain object, wherever and under whatever key it is given after', async () => {
    const search = { name: 'search', description: 'v1', parameters: schema, execute: () => 'one' };
    expect(await invokeTool(search, {})).toMatchObject({ status: 'ok', output: 'one' });
    search.description = 'v2';
    search.execute = () => 'two';
    expect(await invokeTool(search, {})).toMatchObject({ status: 'ok', output: 'one' });
    const agent = new Agent({ name: 'A', instructions: 'i', tools: [search] });
    expect(agent.tools[0]?.definition.description).toBe('v1');
    const [keyed] = toTools({ search }, 'test');
    expect(keyed?.description).toBe('v1');
    expect(await invokeTool(keyed!, {})).toMatchObject({ output: 'one' });
    // A new object is a new tool.
    expect(await invokeTool({ ...search }, {})).toMatchObject({ output: 'two' });
  });

  it('keeps the first snapshot of a class instance and of an AI SDK tool; a tool() result is frozen', async () => {
    class Counter {
      name = 'counter';
      label = 'v1';
      get description() {
        return `Counts (${this.label})`;
      }
      execute() {
        return this.label;
      }
    }
    const counter = new Counter();
    expect(toTools([counter], 'test')[0]?.description).toBe('Counts (v1)');
    counter.label = 'v2';
    const [again] = toTools([counter], 'test');
    expect(again?.description).toBe('Counts (v1)');
    // The methods are bound to the instance, so what they read stays live: only the members are a snapshot.
    expect(await invokeTool(again!, {})).toMatchObject({ output: 'v2' });
    const weather = {
      ...aiTool({ description: 'v1', inputSchema: z.object({}), execute: async () => 'sun' }),
    };
    expect(toTools({ weather }, 'test')[0]?.description).toBe('v1');
    weather.description = 'v2';
    expect(toTools({ weather }, 'test')[0]?.description).toBe('v1');
    const made = tool({ name: 't', description: 'd', execute: () => 1 });
    expect(Object.isFrozen(made) && Object.isFrozen(made.definition)).toBe(true);
  });

  it('reads a refused object again once it is mended', () => {
    const draft: Record<string, unknown> = { name: 'draft', description: '', execute: () => 1 };
    expect(refusal(() => toTools([draft], 'test')).code).toBe('invalid_description');
    draft.description = 'Drafts.';
    expect(toTools([draft], 'test')[0]?.description).toBe('Drafts.');
  });
});

describe('sensitiveFieldNames on a tool without parameters', () => {
  const message = (name: string) =>
    `tool "${name}": sensitiveFieldNames ["password"] name input properties, but the tool has no parameters (its input is always {}); declare them in parameters, or leave sensitiveFieldNames out`;

  it('is refused naming the tool, in every shape; an empty list and a tool with parameters are accepted', () => {
    const options = { description: 'Logs in.', sensitiveFieldNames: ['password'], execute: () => 'ok' };
    expect(refusal(() => tool({ name: 'login', ...options }))).toEqual({
      code: 'invalid_option',
      message: message('login'),
    });
    expect(refusal(() => toTools({ signin: options }, 'test'))).toEqual({
      code: 'invalid_option',
      message: message('signin'),
    });
    expect(refusal(() => toTools([{ name: 'enter', ...options }], 'test')).message).toBe(message('enter'));
    expect(tool({ ...options, name: 'a', sensitiveFieldNames: [] }).name).toBe('a');
    const parameters = z.object({ password: z.string() });
    expect(tool({ ...options, name: 'b', parameters }).name).toBe('b');
  });
});

describe('toolsOf (for bridges into other frameworks)', () => {
  it('makes every tool of an array or a record, and refuses other values, entries and duplicate names', () => {
    const ping = { description: 'Pings.', execute: () => 'pong' };
    expect(toolsOf({ ping, now: () => 1 }, 'bridge()').map((made) => made.name)).toEqual(['ping', 'now']);
    const given = 'an array of tools or a record of tools keyed by name';
    // Without an owner (a caller of its own, untyped), refusals name toolsOf() itself.
    expect(refusal(() => (toolsOf as (tools: unknown) => unknown)([5]))).toMatchObject({
      code: 'not_a_tool',
      message: expect.stringMatching(/^toolsOf\(\): tools\[0\] must be a tool/),
    });
    for (const [tools, shown] of [
      [5, '5'],
      [new Set([ping]), 'a Set (give [...set])'],
      [{ name: 'ping', ...ping }, 'a single tool (give [tool] or { name: tool })'],
    ] as const) {
      // Refused at run time for a caller whose `tools` is untyped (the types refuse these too).
      expect(refusal(() => toolsOf(tools as never, 'bridge()'))).toEqual({
        code: 'invalid_tools',
        message: `bridge(): tools must be ${given}, got ${shown}`,
      });
    }
    expect(
      refusal(() =>
        toolsOf(
          [
            { name: 'a', ...ping },
            { name: 'a', ...ping },
          ],
          'bridge()',
        ),
      ),
    ).toEqual({
      code: 'duplicate_tool',
      message:
        'bridge(): two different tools are named "a"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
    });
    // @ts-expect-error a number is not a tool
    expect(refusal(() => toolsOf({ ping: 1 }, 'bridge()')).code).toBe('not_a_tool');
  });
});
