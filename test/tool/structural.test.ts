/** The structural tool contract: every accepted shape made into a tool, and each refusal naming tool and field. */
import { tool as aiTool, jsonSchema } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent, Client, invokeTool, type ToolContext, tool } from '../../src/index';
import { toTools } from '../../src/tool/shapes';
import { definitionRefusal, expectDefinitionError } from '../fixtures/schema/definition-error';
import { unknownOptionMessage } from '../support/known-options';

const refusal = definitionRefusal;

describe('plain objects', () => {
  it('takes inputSchema for parameters and requiresApproval for needsApproval', async () => {
    const add = {
      name: 'add',
      description: 'Adds.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      requiresApproval: true,
      execute: ({ a, b }: { a: number; b: number }) => a + b,
    };
    const [made] = toTools([add], 'test');
    expect(made?.definition).toEqual({
      name: 'add',
      description: 'Adds.',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      needsApproval: true,
      sideEffect: 'external',
    });
    expect(await invokeTool(add, { a: 2, b: 3 }, { approved: true })).toMatchObject({
      status: 'ok',
      output: '5',
    });
  });

  it('refuses both names of one option, naming the tool and both fields', () => {
    const execute = () => 1;
    expect(
      refusal(() => tool({ name: 'x', description: 'd', parameters: {}, inputSchema: {}, execute } as never)),
    ).toEqual({ code: 'conflicting_options', message: 'tool "x": give parameters or inputSchema, not both' });
    expect(
      refusal(() =>
        tool({ name: 'x', description: 'd', needsApproval: true, requiresApproval: true, execute }),
      ),
    ).toEqual({
      code: 'conflicting_options',
      message: 'tool "x": give needsApproval or requiresApproval, not both',
    });
  });

  it('names inputSchema, not parameters, when the schema given under it is refused', () => {
    expect(
      refusal(() => tool({ name: 'x', description: 'd', inputSchema: 'text' as never, execute: () => 1 })),
    ).toEqual({
      code: 'invalid_parameters',
      message:
        'tool "x": inputSchema must be a Standard Schema (zod, valibot, arktype, …), a JSON Schema object or undefined, got a string',
    });
  });
});

describe('records keyed by name', () => {
  it('uses the key as the name, skips undefined, and makes a bare function a tool', async () => {
    const greet = vi.fn((input: unknown) => `hi ${JSON.stringify(input)}`);
    const made = toTools(
      {
        lookup: {
          description: 'Looks up.',
          inputSchema: { type: 'object', properties: {} },
          execute: () => 'x',
        },
        later: undefined,
        greet,
      },
      'test',
    );
    expect(made.map((t) => t.definition)).toEqual([
      {
        name: 'lookup',
        description: 'Looks up.',
        parameters: { type: 'object', properties: {} },
        needsApproval: false,
        sideEffect: 'external',
      },
      {
        name: 'greet',
        description: 'Calls greet.',
        parameters: { type: 'object' },
        needsApproval: false,
        sideEffect: 'external',
      },
    ]);
    const result = await invokeTool(made[1]!, '{"who":"Ada"}');
    expect(result).toMatchObject({ status: 'ok', output: 'hi {"who":"Ada"}' });
  });

  it('refuses a name that differs from its key, naming both', () => {
    const named = tool({ name: 'search', description: 'd', execute: () => 1 });
    expect(refusal(() => toTools({ find: named }, 'Agent "A"'))).toEqual({
      code: 'name_mismatch',
      message: 'Agent "A": tools.find: the tool is named "search", but its key in tools is "find"',
    });
    expect(
      refusal(() => toTools({ find: { name: 'search', description: 'd', execute: () => 1 } }, 'x')),
    ).toEqual({
      code: 'name_mismatch',
      message: 'tool "find": its name is "search", but its key in tools is "find"',
    });
  });

  it('refuses a record value of no accepted shape, naming its key', () => {
    expect(refusal(() => new Agent({ name: 'A', instructions: '', tools: { calc: 42 as never } }))).toEqual({
      code: 'not_a_tool',
      message:
        'Agent "A": tools.calc must be a tool (made with tool(), or an object with description and execute), got 42',
    });
  });
});

describe('AI SDK tools (ai@6 tool())', () => {
  it('runs execute(input, options) with toolCallId, abortSignal, messages and experimental_context', async () => {
    const seen: unknown[] = [];
    const weather = aiTool({
      description: 'Weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }, options) => {
        seen.push({
          toolCallId: options.toolCallId,
          aborted: options.abortSignal?.aborted,
          messages: options.messages,
          context: options.experimental_context,
        });
        return { city, celsius: 21 };
      },
    });
    const [made] = toTools({ weather }, 'test');
    const result = await invokeTool(made!, { city: 'Oslo' }, { callId: 'call_7', context: { tenant: 't1' } });
    expect(result).toMatchObject({ status: 'ok', output: '{"city":"Oslo","celsius":21}' });
    expect(seen).toEqual([{ toolCallId: 'call_7', aborted: false, messages: [], context: { tenant: 't1' } }]);
  });

  it('honours toModelOutput({ toolCallId, input, output }) and maps its { type, value } answer', async () => {
    const base = {
      description: 'Finds a record.',
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }: { id: string }) => ({ id, secret: 's3', summary: `record ${id}` }),
    };
    const text = aiTool({
      ...base,
      toModelOutput: ({ toolCallId, input, output }) => ({
        type: 'text',
        value: `${toolCallId}/${input.id}: ${output.summary}`,
      }),
    });
    const json = aiTool({
      ...base,
      toModelOutput: ({ output }) => ({ type: 'json', value: { s: output.summary } }),
    });
    const failed = aiTool({ ...base, toModelOutput: () => ({ type: 'error-text', value: 'not found' }) });
    const made = toTools({ text, json, failed }, 'test');
    const call = (index: number) => invokeTool(made[index]!, { id: '9' }, { callId: 'c1' });
    expect(await call(0)).toMatchObject({ status: 'ok', output: 'c1/9: record 9' });
    expect(await call(1)).toMatchObject({ status: 'ok', output: '{"s":"record 9"}' });
    expect(await call(2)).toMatchObject({ status: 'error', output: 'Error running failed: not found' });
  });

  it('ends a call whose toModelOutput answers execution-denied as rejected, the model reading the reason', async () => {
    const transfer = aiTool({
      description: 'Transfers money.',
      inputSchema: z.object({ amount: z.number() }),
      execute: async ({ amount }: { amount: number }) => ({ denied: amount > 100 }),
      toModelOutput: ({ output }) =>
        output.denied
          ? { type: 'execution-denied', reason: 'over the limit' }
          : { type: 'text', value: 'sent' },
    });
    const silent = aiTool({
      description: 'Deletes.',
      inputSchema: z.object({}),
      execute: async () => 'gone',
      toModelOutput: () => ({ type: 'execution-denied' }),
    });
    const [big, quiet] = toTools({ transfer, silent }, 'test');
    expect(await invokeTool(big!, { amount: 500 })).toEqual({
      status: 'rejected',
      output: 'transfer was not run: the user declined. Reason: over the limit',
      // `execute` ran: what it returned is kept, as for an `ok` call.
      value: { denied: true },
      durationMs: expect.any(Number),
    });
    expect(await invokeTool(big!, { amount: 5 })).toMatchObject({ status: 'ok', output: 'sent' });
    expect(await invokeTool(quiet!, {})).toMatchObject({
      status: 'rejected',
      output: 'silent was not run: the user declined.',
    });
  });

  it('gives toModelOutput’s images of a type the service takes as images, and the others (SVG, TIFF) as files', async () => {
    const drawing = aiTool({
      description: 'Draws.',
      inputSchema: z.object({}),
      execute: async () => 'drawn',
      toModelOutput: () => ({
        type: 'content',
        value: [
          { type: 'image-data', data: 'PHN2Zy8+', mediaType: 'image/svg+xml' },
          { type: 'media', data: 'SUkqAA==', mediaType: 'image/tiff' },
          { type: 'image-data', data: 'AAAA', mediaType: 'IMAGE/PNG' },
        ],
      }),
    });
    const [made] = toTools({ drawing }, 'test');
    const result = await invokeTool(made!, {});
    expect(result).toMatchObject({
      status: 'ok',
      output: '[file: image/svg+xml, 6 bytes]\n[file: image/tiff, 4 bytes]\n[image: image/png, 3 bytes]',
    });
    expect(result.content).toEqual([
      { type: 'file', data: 'PHN2Zy8+', mediaType: 'image/svg+xml' },
      { type: 'file', data: 'SUkqAA==', mediaType: 'image/tiff' },
      { type: 'image', data: 'AAAA', mediaType: 'image/png' },
    ]);
  });

  it('asks needsApproval(input, options) in the AI SDK order', async () => {
    const predicate = vi.fn((input: { amount: number }, options: { toolCallId: string }) => {
      expect(options.toolCallId).toBe('c2');
      return input.amount > 100;
    });
    // `type: 'function'` tells the predicate's order (see `readsAiSdkConventions` in src/tool/tool.ts): without it, it is refused.
    const pay = aiTool({
      type: 'function',
      description: 'Pays.',
      inputSchema: z.object({ amount: z.number() }),
      needsApproval: predicate,
      execute: async ({ amount }) => `paid ${amount}`,
    });
    const [made] = toTools({ pay }, 'test');
    expect(await invokeTool(made!, { amount: 5 }, { callId: 'c2' })).toMatchObject({ status: 'ok' });
    expect(await invokeTool(made!, { amount: 500 }, { callId: 'c2' })).toMatchObject({ status: 'rejected' });
  });

  it("runs a jsonSchema() input schema's own validate after its JSON Schema, as the AI SDK does", async () => {
    const execute = vi.fn(async ({ amount }: { amount: number }) => `transferred ${amount}`);
    const transfer = aiTool({
      description: 'Transfers an amount.',
      inputSchema: jsonSchema<{ amount: number }>(
        { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
        {
          validate: async (value) => {
            const { amount } = value as { amount: number };
            return amount > 0
              ? { success: true, value: { amount: Math.round(amount) } }
              : { success: false, error: new Error('amount must be positive') };
          },
        },
      ),
      execute,
    });
    const [made] = toTools({ transfer }, 'test');
    expect(await invokeTool(made!, { amount: -500 })).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for transfer: (root): amount must be positive',
    });
    expect(execute).not.toHaveBeenCalled();
    // The JSON Schema first: validate sees only what it accepts.
    expect(await invokeTool(made!, { amount: 'x' })).toMatchObject({ status: 'invalid_arguments' });
    // validate's value is the input.
    expect(await invokeTool(made!, { amount: 2.4 })).toMatchObject({ status: 'ok', output: 'transferred 2' });
    const throwing = {
      ...transfer,
      inputSchema: jsonSchema<{ amount: number }>(
        { type: 'object', properties: { amount: { type: 'number' } } },
        {
          validate: () => {
            throw new Error('the limits service is down');
          },
        },
      ),
    };
    expect(await invokeTool(toTools({ transfer: throwing }, 'test')[0]!, { amount: 1 })).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for transfer: (root): the limits service is down',
    });
  });

  it('validates outputSchema and reads a jsonSchema() input schema', async () => {
    const lookup = aiTool({
      description: 'Looks up.',
      inputSchema: jsonSchema<{ q: string }>({
        type: 'object',
        properties: { q: { type: 'string' } },
        required: ['q'],
      }),
      outputSchema: z.object({ hits: z.number() }),
      execute: async ({ q }) => ({ hits: q === 'bad' ? ('many' as unknown as number) : 2 }),
    });
    const [made] = toTools({ lookup }, 'test');
    expect(made?.definition.parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    });
    expect(await invokeTool(made!, { q: 'ok' })).toMatchObject({ status: 'ok', output: '{"hits":2}' });
    expect(await invokeTool(made!, { q: 1 })).toMatchObject({ status: 'invalid_arguments' });
    expect((await invokeTool(made!, { q: 'bad' })).status).toBe('error');
  });

  it('refuses a provider-executed tool, naming the field', () => {
    const provider = { type: 'provider', id: 'openai.web_search', args: {}, inputSchema: z.object({}) };
    expect(refusal(() => toTools({ web_search: provider as never }, 'test')).message).toEqual(
      unknownOptionMessage(
        'tool "web_search": unknown options "id" and "args"',
        'name',
        'inputSchema',
        'execute',
      ),
    );
  });
});

describe('OpenAI Agents style tools (mirrored shapes)', () => {
  it('runs execute(input, runContext) with runContext.context, errorFunction(ctx, error) and needsApproval(runContext, input, callId)', async () => {
    const approvals: unknown[] = [];
    const refund = {
      name: 'refund',
      description: 'Refunds an order.',
      parameters: {
        type: 'object',
        properties: { orderId: { type: 'string' }, note: { type: ['string', 'null'] } },
        required: ['orderId', 'note'],
        additionalProperties: false,
      },
      strict: true,
      execute: async (input: { orderId: string }, runContext?: ToolContext<{ shop: string }>) => {
        if (input.orderId === 'x') throw new Error('unknown order');
        return `${runContext?.context.shop}: refunded ${input.orderId}`;
      },
      errorFunction: (_ctx: ToolContext, error: unknown) => `refund failed (${(error as Error).message})`,
      // The OpenAI Agents SDK's ToolApprovalFunction: (runContext, input, callId?) => Promise<boolean>.
      needsApproval: async (runContext: ToolContext, input: { orderId: string }, callId?: string) => {
        approvals.push([runContext.callId, input.orderId, callId]);
        return false;
      },
    };
    const context = { shop: 'acme' };
    expect(await invokeTool(refund, { orderId: '1', note: null }, { callId: 'k', context })).toMatchObject({
      status: 'ok',
      output: 'acme: refunded 1',
    });
    expect(await invokeTool(refund, { orderId: 'x', note: 'n' }, { context })).toMatchObject({
      status: 'error',
      output: 'refund failed (unknown order)',
    });
    expect(approvals[0]).toEqual(['k', '1', 'k']);
  });

  it("refuses the object the Agents SDK's tool() returns, saying what it is and what to give", () => {
    // The keys of @openai/agents' FunctionTool: its execute is reachable only through invoke.
    const made = {
      type: 'function',
      name: 'get_weather',
      description: 'Weather.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: true,
      invoke: async () => 'sunny',
      needsApproval: async () => false,
      isEnabled: async () => true,
      timeoutMs: undefined,
      inputGuardrails: [],
      outputGuardrails: [],
    };
    const message =
      "is a tool made by the OpenAI Agents SDK's tool() (it has invoke and isEnabled, no execute), which toolwire cannot run: give toolwire the options you gave that tool() ({ name, description, parameters, execute, … }), or make it with toolwire's tool()";
    for (const give of [
      () => toTools([made], 'tools'),
      () => toTools({ get_weather: made }, 'tools'),
      () => tool(made as never),
      () => new Agent({ name: 'A', tools: [made as never] }),
    ]) {
      expect(give).toThrow(
        expect.objectContaining({
          name: 'ToolDefinitionError',
          code: 'not_a_tool',
          message: expect.stringContaining(message),
        }),
      );
    }
  });

  it('refuses a copy of a tool() result ({ ...tool }), saying that it lost its execute and what to do', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'Finds an order.',
      parameters: z.object({ id: z.string() }),
      execute: ({ id }) => id,
    });
    const message =
      "tool \"lookup\" is a copy of a tool() result ({ ...tool }): it has the tool's definition but not its execute, which toolwire cannot run: to change a tool, call tool() again with the options you gave it (tool({ ...options, description: '…' }))";
    const refusal = expect.objectContaining({ name: 'ToolDefinitionError', code: 'not_a_tool', message });
    const copy = { ...lookup, description: 'Finds an order fast.' };
    expect(() => toTools([copy], 'tools')).toThrow(refusal);
    expect(() => new Agent({ name: 'A', tools: { lookup: copy } })).toThrow(
      expect.objectContaining({ code: 'not_a_tool', message: expect.stringContaining(message) }),
    );
    // With an execute of its own, the copy's definition is still not an option of tool().
    expect(() => tool({ ...lookup, execute: () => 'x' } as never)).toThrow(refusal);
    await expect(invokeTool(copy, { id: 'o_1' })).rejects.toThrow(
      expect.objectContaining({ code: 'not_a_tool', message: expect.stringContaining(message) }),
    );
  });

  it('reads errorFunction: null as the default text', async () => {
    const failing = {
      name: 'f',
      description: 'd',
      errorFunction: null,
      execute: () => Promise.reject(new Error('boom')),
    };
    expect(await invokeTool(failing, {})).toMatchObject({ status: 'error', output: 'Error running f: boom' });
  });
});

describe('strict: true', () => {
  it('announces every property required, optionals nullable, no extra keys, and maps null back to absent', async () => {
    const search = tool({
      name: 'search',
      description: 'Searches.',
      strict: true,
      parameters: z.object({ q: z.string(), limit: z.number().default(5), after: z.string().optional() }),
      execute: (input) => input,
    });
    expect(search.definition.parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string' },
        limit: { type: ['number', 'null'] },
        after: { type: ['string', 'null'] },
      },
      required: ['q', 'limit', 'after'],
      additionalProperties: false,
    });
    const viaNull = await invokeTool(search, { q: 'a', limit: null, after: null });
    const absent = await invokeTool(search, { q: 'a' });
    expect(viaNull.value).toEqual({ q: 'a', limit: 5 });
    expect(absent.value).toEqual(viaNull.value);
  });

  it.each([
    [
      z.object({ name: z.string().min(1) }),
      'at #/properties/name/minLength: strict mode does not support "minLength"',
    ],
    [
      z.object({ note: z.string().nullable().optional() }),
      'at #/properties/note: an optional property that also accepts null cannot be made strict (a null would mean two things)',
    ],
    [
      { type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } } },
      'at #/properties/tags: an object without properties takes any keys (a record, a map, a free-form object), which strict mode would narrow to {}',
    ],
    [
      { type: 'object', properties: { any: {} } },
      'at #/properties/any: a schema without "type" accepts any value, which strict mode cannot express',
    ],
    [
      { type: 'object', properties: { meta: { type: 'object' } }, required: ['meta'] },
      'at #/properties/meta: an object without properties takes any keys (a record, a map, a free-form object), which strict mode would narrow to {}',
    ],
    [
      { type: 'object', properties: { meta: { type: 'object', additionalProperties: true } } },
      'at #/properties/meta: an object without properties takes any keys (a record, a map, a free-form object), which strict mode would narrow to {}',
    ],
    [
      { type: 'object', properties: { when: { type: 'string', format: 'uri' } } },
      'at #/properties/when/format: strict mode does not support the format "uri"',
    ],
  ])('refuses a schema that cannot be made strict, naming the part (%#)', (parameters, where) => {
    expect(
      refusal(() => tool({ name: 's', description: 'd', strict: true, parameters, execute: () => 1 })),
    ).toEqual({
      code: 'unsupported_schema',
      message: `tool "s": parameters cannot be made strict ${where}`,
    });
  });
});

describe("an MCP tool listing (an entry of what an MCP client's listTools() answers)", () => {
  const IMPORT =
    "which toolwire cannot run: import the MCP server's tools with importMcpTools(mcpClient) from 'toolwire/mcp', which calls each through that MCP client";
  // As the MCP SDK 1.x client lists a tool of McpServer.registerTool (its name need not be a toolwire name).
  const listed = {
    name: 'read.file',
    description: 'Reads a file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
    execution: { taskSupport: 'forbidden' },
  };
  const entry = (name: string, keys: string) =>
    `tool "${name}" is an MCP tool listing (an entry of what an MCP client's listTools() answers: it has inputSchema and ${keys}, no execute), ${IMPORT}`;
  const options = { url: 'ws://127.0.0.1:1', apiKey: 'k' };

  it('refuses it wherever a tool is taken, naming the tool and importMcpTools()', () => {
    for (const give of [
      () => tool(listed as never),
      () => toTools([listed], 'tools'),
      () => toTools({ 'read.file': listed }, 'tools'),
      () => new Agent({ name: 'A', tools: [listed as never] }),
      () => new Client({ ...options, tools: [listed as never] }),
      () => new Client({ ...options, tools: [] }).addTool(listed as never),
    ]) {
      expectDefinitionError(give, 'not_a_tool', entry('read.file', 'execution'));
    }
    // Under a record key of its own: what it is, before its name differs from the key.
    expectDefinitionError(
      () => toTools({ read_file: listed }, 'tools'),
      'not_a_tool',
      entry('read_file', 'execution'),
    );
  });

  it('refuses one written by hand by its MCP keys, not as a misspelt option', () => {
    const written = {
      name: 'read_file',
      title: 'Read a file',
      description: 'Reads a file',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      annotations: { readOnlyHint: true },
      _meta: { owner: 'files' },
    };
    expectDefinitionError(
      () => tool(written as never),
      'not_a_tool',
      entry('read_file', 'annotations, _meta, title, outputSchema'),
    );
    expectDefinitionError(
      () => tool({ ...written, title: undefined, outputSchema: undefined, _meta: undefined } as never),
      'not_a_tool',
      entry('read_file', 'annotations'),
    );
  });

  it("refuses listTools()'s answer given as tools or as one tool, saying to import it", () => {
    const answer = { tools: [listed], nextCursor: 'c' };
    expectDefinitionError(
      () => new Client({ ...options, tools: answer as never }),
      'not_a_tool',
      `new Client(options): tools.tools holds MCP tool listings (what an MCP client's listTools() answers), ${IMPORT}`,
    );
    expectDefinitionError(
      () => new Client({ ...options, tools: [] }).addTool(answer as never),
      'not_a_tool',
      `addTool() holds MCP tool listings (what an MCP client's listTools() answers), ${IMPORT}`,
    );
    expect(() => new Client({ ...options, tools: listed as never })).toThrow(
      expect.objectContaining({
        name: 'OptionsError',
        code: 'invalid_option',
        message: `new Client(options): tools must be an array of tools or a record of tools keyed by name, got an MCP tool listing (an entry of what an MCP client's listTools() answers), ${IMPORT}`,
      }),
    );
  });

  it('takes a tool with execute under inputSchema and outputSchema, and refuses one with neither MCP key nor execute as before', async () => {
    const summarize = {
      name: 'summarize',
      title: 'Summarize',
      description: 'Summarizes.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
      execute: ({ text }: { text: string }) => ({ summary: text.slice(0, 3) }),
    };
    expect(await invokeTool(summarize, { text: 'abcdef' })).toMatchObject({ status: 'ok' });
    const ai = aiTool({
      title: 'Add',
      description: 'Adds.',
      inputSchema: jsonSchema<{ a: number }>({ type: 'object', properties: { a: { type: 'number' } } }),
      outputSchema: z.number(),
      execute: async ({ a }) => a + 1,
    });
    expect(await invokeTool({ ...ai, name: 'add' }, { a: 1 })).toMatchObject({ status: 'ok', output: '2' });
    expectDefinitionError(
      () => tool({ name: 'bare', description: 'd', inputSchema: { type: 'object' } } as never),
      'invalid_execute',
      'tool "bare": execute must be a function, got undefined',
    );
  });
});
