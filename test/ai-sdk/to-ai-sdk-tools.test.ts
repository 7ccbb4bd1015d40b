/** toolwire tools inside a real AI SDK `generateText` loop, driven by the AI SDK's own mock model. */
import { tool as aiTool, convertToModelMessages, generateText, type ModelMessage, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  Agent,
  Client,
  content,
  invokeTool,
  OptionsError,
  type Tool,
  type ToolContext,
  ToolDefinitionError,
  tool,
  toolsOf,
} from 'toolwire';
import { ToolResultError, toAiSdkTools } from 'toolwire/ai-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAKE_URL, fakeWebSocket, useFakeService } from '../client/fake-service';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function callsTools(...calls: Array<{ id: string; name: string; input: string }>): GenerateResult {
  return {
    content: calls.map(({ id, name, input }) => ({
      type: 'tool-call',
      toolCallId: id,
      toolName: name,
      input,
    })),
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}

/** The tool outputs the model was sent in the last prompt, as `toolCallId → output part`. */
function toolOutputs(options: CallOptions): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const message of options.prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content)
      if (part.type === 'tool-result') outputs[part.toolCallId] = part.output;
  }
  return outputs;
}

/** A model that calls the given tools, then answers with the JSON of the tool outputs it was sent. */
function model(...calls: Array<{ id: string; name: string; input: string }>) {
  const responses: Array<(options: CallOptions) => GenerateResult> = [
    () => callsTools(...calls),
    (options) => ({
      content: [{ type: 'text', text: JSON.stringify(toolOutputs(options)) }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    }),
  ];
  let turn = 0;
  return new MockLanguageModelV3({ doGenerate: async (options) => responses[turn++]!(options) });
}

const seen: ToolContext[] = [];
const convert = tool({
  name: 'convert_temperature',
  description: 'Converts Celsius to Fahrenheit.',
  parameters: z.object({ value: z.number() }),
  execute: ({ value }, ctx) => {
    seen.push(ctx);
    return `${(value * 9) / 5 + 32}°F`;
  },
});
const failing = tool({
  name: 'charge',
  description: 'Charges a card.',
  execute: () => {
    throw new Error('card declined');
  },
});

describe('toAiSdkTools', () => {
  it('gives each tool its description and announced JSON Schema', async () => {
    const tools = toAiSdkTools([convert, failing]);
    expect(Object.keys(tools)).toEqual(['convert_temperature', 'charge']);
    const converted = tools.convert_temperature!;
    expect(converted.description).toBe('Converts Celsius to Fahrenheit.');
    const mock = model();
    await generateText({ model: mock, tools, prompt: 'hi' });
    expect(mock.doGenerateCalls[0]!.tools).toEqual([
      {
        type: 'function',
        name: 'convert_temperature',
        description: 'Converts Celsius to Fahrenheit.',
        inputSchema: convert.definition.parameters,
      },
      {
        type: 'function',
        name: 'charge',
        description: 'Charges a card.',
        inputSchema: failing.definition.parameters,
      },
    ]);
  });

  it('takes every shape a client takes: a record with a plain object, an AI SDK tool and a bare function', async () => {
    const tools = toAiSdkTools({
      double: {
        description: 'Doubles n.',
        inputSchema: z.object({ n: z.number() }),
        execute: async ({ n }) => n * 2,
      },
      shout: aiTool({
        description: 'Shouts.',
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }, options) => `${text.toUpperCase()} (${options.toolCallId})`,
      }),
      now: () => 'noon',
    });
    expect(Object.keys(tools)).toEqual(['double', 'shout', 'now']);
    const result = await generateText({
      model: model(
        { id: 'c1', name: 'double', input: '{"n":21}' },
        { id: 'c2', name: 'shout', input: '{"text":"hi"}' },
        { id: 'c3', name: 'now', input: '{}' },
      ),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'go',
    });
    expect(JSON.parse(result.text)).toEqual({
      c1: { type: 'text', value: '42' },
      c2: { type: 'text', value: 'HI (c2)' },
      c3: { type: 'text', value: 'noon' },
    });
  });

  it('runs a call in generateText and the model reads the same text as from the hosted service', async () => {
    seen.length = 0;
    const result = await generateText({
      model: model({ id: 'call_1', name: 'convert_temperature', input: '{"value":21}' }),
      tools: toAiSdkTools([convert]),
      stopWhen: stepCountIs(3),
      experimental_context: { tenant: 'acme' },
      prompt: 'What is 21°C in Fahrenheit?',
    });
    expect(JSON.parse(result.text)).toEqual({ call_1: { type: 'text', value: '69.8°F' } });
    expect(result.steps[0]!.toolResults.map(({ toolCallId, output }) => ({ toolCallId, output }))).toEqual([
      { toolCallId: 'call_1', output: '69.8°F' },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      callId: 'call_1',
      context: { tenant: 'acme' },
      toolName: 'convert_temperature',
    });
  });

  it('gives the model toolwire’s texts for invalid arguments and throws, as tool errors', async () => {
    const result = await generateText({
      model: model(
        { id: 'a', name: 'convert_temperature', input: '{"value":"21"}' },
        { id: 'b', name: 'charge', input: '' },
      ),
      tools: toAiSdkTools([convert, failing]),
      stopWhen: stepCountIs(3),
      prompt: 'Go.',
    });
    expect(JSON.parse(result.text)).toEqual({
      a: {
        type: 'error-text',
        value: 'Invalid arguments for convert_temperature: value: expected a number, received "21"',
      },
      b: { type: 'error-text', value: 'Error running charge: card declined' },
    });
    const errors = result.steps[0]!.content.filter((part) => part.type === 'tool-error');
    expect(errors.map((part) => part.error)).toEqual([
      expect.any(ToolResultError),
      expect.any(ToolResultError),
    ]);
    expect((errors[1]!.error as ToolResultError).result).toMatchObject({
      status: 'error',
      output: 'Error running charge: card declined',
    });
    expect(errors[1]!.error).toMatchObject({ name: 'ToolResultError', code: 'error' });
  });

  it('reads arguments the AI SDK parsed to a string as invokeTool reads that JSON text, never parsing twice', async () => {
    seen.length = 0;
    const result = await generateText({
      model: model(
        { id: 's', name: 'convert_temperature', input: '"hello"' },
        { id: 'd', name: 'convert_temperature', input: JSON.stringify('{"value":100}') },
      ),
      tools: toAiSdkTools([convert]),
      stopWhen: stepCountIs(3),
      prompt: 'Go.',
    });
    expect(JSON.parse(result.text)).toEqual({
      s: {
        type: 'error-text',
        value: (await invokeTool(convert, '"hello"')).output,
      },
      d: { type: 'text', value: '212°F' },
    });
    expect((await invokeTool(convert, '"hello"')).output).toBe(
      'Invalid arguments for convert_temperature: expected a JSON object, got string',
    );
    expect(seen).toHaveLength(1);
  });

  it('leaves arguments that are not JSON to the AI SDK, which refuses them with its own text', async () => {
    seen.length = 0;
    const result = await generateText({
      model: model({ id: 'j', name: 'convert_temperature', input: '{value: 21' }),
      tools: toAiSdkTools([convert]),
      stopWhen: stepCountIs(3),
      prompt: 'Go.',
    });
    const read = JSON.parse(result.text) as Record<string, { type: string; value: string }>;
    expect(read.j?.type).toBe('error-text');
    expect(read.j?.value).toMatch(/^Invalid input for tool convert_temperature: JSON parsing failed/);
    expect(seen).toEqual([]);
  });

  it('uses options.context when the AI SDK gives no experimental_context', async () => {
    seen.length = 0;
    await generateText({
      model: model({ id: 'c', name: 'convert_temperature', input: '{"value":0}' }),
      tools: toAiSdkTools([convert], { context: { tenant: 'default' } }),
      stopWhen: stepCountIs(3),
      prompt: 'Go.',
    });
    expect(seen[0]?.context).toEqual({ tenant: 'default' });
  });

  it('aborts ctx.signal when the AI SDK call is aborted', async () => {
    let signal: AbortSignal | undefined;
    const controller = new AbortController();
    const slow = tool({
      name: 'slow',
      description: 'Waits for its signal.',
      execute: (_input, ctx) =>
        new Promise<string>((_resolve, reject) => {
          signal = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
          controller.abort(new Error('the user left'));
        }),
    });
    const running = generateText({
      model: model({ id: 's', name: 'slow', input: '{}' }),
      tools: toAiSdkTools([slow]),
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
      prompt: 'Go.',
    });
    await expect(running).rejects.toThrow('the user left');
    expect(signal?.aborted).toBe(true);
  });

  it('leaves needsApproval: true to the AI SDK’s approval flow, and runs the call once approved there', async () => {
    const ran: string[] = [];
    const remove = tool({
      name: 'delete_user',
      description: 'Deletes a user.',
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      execute: ({ id }) => {
        ran.push(id);
        return `deleted ${id}`;
      },
    });
    const tools = toAiSdkTools([remove]);
    expect(tools.delete_user!.needsApproval).toBe(true);
    const mock = model({ id: 'd', name: 'delete_user', input: '{"id":"u_1"}' });
    const prompt: ModelMessage[] = [{ role: 'user', content: 'Delete u_1.' }];
    const first = await generateText({ model: mock, tools, stopWhen: stepCountIs(3), messages: prompt });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    expect(ran).toEqual([]);
    const second = await generateText({
      model: mock,
      tools,
      stopWhen: stepCountIs(3),
      messages: [
        ...prompt,
        ...first.response.messages,
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }],
        },
      ],
    });
    expect(ran).toEqual(['u_1']);
    expect(JSON.parse(second.text)).toEqual({ d: { type: 'text', value: 'deleted u_1' } });
  });

  it('passes strict on, and maps a needsApproval predicate onto the AI SDK’s needsApproval(input, options)', async () => {
    const ran: number[] = [];
    const transfer = tool({
      name: 'transfer',
      description: 'Transfers money.',
      strict: true,
      parameters: z.object({ amountEur: z.number() }),
      needsApproval: (ctx, { amountEur }) => ctx.callId !== '' && amountEur > 1_000,
      execute: ({ amountEur }) => {
        ran.push(amountEur);
        return `sent €${amountEur}`;
      },
    });
    const tools = toAiSdkTools([transfer]);
    expect(tools.transfer!.strict).toBe(true);
    const needs = tools.transfer!.needsApproval as (input: unknown, options: unknown) => Promise<boolean>;
    expect(typeof needs).toBe('function');
    const mock = model(
      { id: 'small', name: 'transfer', input: '{"amountEur":50}' },
      { id: 'big', name: 'transfer', input: '{"amountEur":5000}' },
    );
    const prompt: ModelMessage[] = [{ role: 'user', content: 'Pay.' }];
    const first = await generateText({ model: mock, tools, stopWhen: stepCountIs(3), messages: prompt });
    const requests = first.content.filter((part) => part.type === 'tool-approval-request');
    expect(requests.map((part) => part.toolCall.toolCallId)).toEqual(['big']);
    expect(ran).toEqual([50]);
    await generateText({
      model: mock,
      tools,
      stopWhen: stepCountIs(3),
      messages: [
        ...prompt,
        ...first.response.messages,
        {
          role: 'tool',
          content: [{ type: 'tool-approval-response', approvalId: requests[0]!.approvalId, approved: true }],
        },
      ],
    });
    expect(ran).toEqual([50, 5000]);
  });

  it('keeps the ids of at most 10,000 approvals asked and never run, forgetting the oldest', async () => {
    const transfer = tool({
      name: 'transfer',
      description: 'Transfers money.',
      parameters: z.object({ amountEur: z.number() }),
      needsApproval: (_ctx, { amountEur }) => amountEur > 1_000,
      execute: ({ amountEur }) => `sent €${amountEur}`,
    });
    const { transfer: given } = toAiSdkTools([transfer]);
    const needs = given!.needsApproval as (
      input: unknown,
      options: { toolCallId: string },
    ) => Promise<boolean>;
    const execute = (toolCallId: string) =>
      Promise.resolve(
        given!.execute!({ amountEur: 5000 }, { toolCallId, messages: [] }) as string | Promise<string>,
      );
    const run = (toolCallId: string) =>
      execute(toolCallId).catch((error: ToolResultError) => error.result.status);
    // Asked, answered `true`, then approved in the AI SDK (which asks again right before execute): it runs.
    await needs({ amountEur: 5000 }, { toolCallId: 'kept' });
    expect(await run('kept')).toBe('sent €5000');
    // Asked and never run (declined, or left unanswered in a chat): each id is held until 10,000 newer ones.
    await needs({ amountEur: 5000 }, { toolCallId: 'oldest' });
    for (let i = 0; i < 10_000; i++) await needs({ amountEur: 5000 }, { toolCallId: `abandoned_${i}` });
    expect(await run('oldest')).toBe('rejected');
    expect(await run('abandoned_9999')).toBe('sent €5000');
  });

  it('decides approvals in this process with approve, predicates included', async () => {
    const transfer = tool({
      name: 'transfer',
      description: 'Transfers money.',
      parameters: z.object({ amountEur: z.number() }),
      needsApproval: (_ctx, { amountEur }) => amountEur > 1_000,
      execute: ({ amountEur }) => `sent €${amountEur}`,
    });
    const asked: unknown[] = [];
    const tools = toAiSdkTools([transfer], {
      approve: (request) => {
        asked.push(request.input);
        return { approved: false, reason: 'over the limit' };
      },
    });
    expect(tools.transfer!.needsApproval).toBeUndefined();
    const result = await generateText({
      model: model(
        { id: 'small', name: 'transfer', input: '{"amountEur":50}' },
        { id: 'big', name: 'transfer', input: '{"amountEur":5000}' },
      ),
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'Pay.',
    });
    expect(JSON.parse(result.text)).toEqual({
      small: { type: 'text', value: 'sent €50' },
      big: { type: 'error-text', value: 'transfer was not run: the user declined. Reason: over the limit' },
    });
    expect(asked).toEqual([{ amountEur: 5000 }]);
  });

  it("aborts the approver's request.signal when the AI SDK call is aborted while it decides", async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const transfer = tool({
      name: 'transfer',
      description: 'Transfers money.',
      needsApproval: true,
      execute: () => 'sent',
    });
    const tools = toAiSdkTools([transfer], {
      approve: (request) =>
        new Promise((resolve) => {
          signal = request.signal;
          request.signal.addEventListener('abort', () => resolve(false));
          controller.abort(new Error('the user left'));
        }),
    });
    const running = generateText({
      model: model({ id: 't', name: 'transfer', input: '{}' }),
      tools,
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
      prompt: 'Pay.',
    });
    await expect(running).rejects.toThrow('the user left');
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toEqual(new Error('the user left'));
  });

  it('refuses what is not a tool and two tools of one name', () => {
    expect(() => toAiSdkTools([{ name: 'x' } as unknown as Tool])).toThrow(
      new ToolDefinitionError(
        'not_a_tool',
        'toAiSdkTools(): tools[0] must be a tool (made with tool(), or an object with description and execute), got an object named "x"',
      ),
    );
    expect(() => toAiSdkTools(convert as never)).toThrow(
      new ToolDefinitionError(
        'invalid_tools',
        'toAiSdkTools(): tools must be an array of tools or a record of tools keyed by name, got a single tool (give [tool] or { name: tool })',
      ),
    );
    expect(() => toAiSdkTools(new Map([['convert', convert]]) as never)).toThrow(
      new ToolDefinitionError(
        'invalid_tools',
        'toAiSdkTools(): tools must be an array of tools or a record of tools keyed by name, got a Map (give Object.fromEntries(map) or [...map.values()])',
      ),
    );
    expect(Object.keys(toAiSdkTools({ execute: () => 'x', description: () => 'y' }))).toEqual([
      'execute',
      'description',
    ]);
    expect(Object.keys(toAiSdkTools([convert, convert]))).toEqual(['convert_temperature']);
    expect(() =>
      toAiSdkTools([
        convert,
        tool({ name: 'convert_temperature', description: 'Other.', execute: () => '' }),
      ]),
    ).toThrow(
      new ToolDefinitionError(
        'duplicate_tool',
        'toAiSdkTools(): two different tools are named "convert_temperature"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
      ),
    );
    expect(() => toAiSdkTools([convert], { abortSignal: undefined } as never)).toThrow(
      new OptionsError(
        'unknown_option',
        'toAiSdkTools(): unknown option "abortSignal"; known options: context, approve',
      ),
    );
    expect(() => toAiSdkTools([convert], { experimental_context: {} } as never)).toThrow(
      new OptionsError(
        'unknown_option',
        'toAiSdkTools(): unknown option "experimental_context" (did you mean "context"?)',
      ),
    );
  });
});

const PNG = 'iVBORw0KGgo=';
const report = tool({
  name: 'report',
  description: 'The weekly report.',
  execute: () =>
    content([
      { type: 'text', text: 'Week 12.' },
      { type: 'image', data: PNG, mediaType: 'image/png' },
      { type: 'file', data: 'JVBERg==', mediaType: 'application/pdf', filename: 'week 12.pdf' },
      { type: 'json', value: { total: 390 } },
    ]),
});
const REPORT_OUTPUT =
  'Week 12.\n[image: image/png, 8 bytes]\n[file week 12.pdf: application/pdf, 4 bytes]\n{"total":390}';
const REPORT_PARTS = [
  { type: 'text', text: 'Week 12.' },
  { type: 'image-data', data: PNG, mediaType: 'image/png' },
  { type: 'file-data', data: 'JVBERg==', mediaType: 'application/pdf', filename: 'week 12.pdf' },
  { type: 'text', text: '{"total":390}' },
];

describe('toAiSdkTools: content parts', () => {
  it('gives the model a content() result as parts through toModelOutput, and the app { output, content }', async () => {
    const result = await generateText({
      model: model(
        { id: 'c1', name: 'report', input: '{}' },
        { id: 'c2', name: 'convert_temperature', input: '{"value":21}' },
      ),
      tools: toAiSdkTools([report, convert]),
      stopWhen: stepCountIs(3),
      prompt: 'The report, and 21°C in °F.',
    });
    expect(JSON.parse(result.text)).toEqual({
      c1: { type: 'content', value: REPORT_PARTS },
      c2: { type: 'text', value: '69.8°F' },
    });
    const outputs = result.steps[0]!.toolResults.map(({ toolCallId, output }) => ({ toolCallId, output }));
    expect(outputs).toEqual([
      {
        toolCallId: 'c1',
        output: { output: REPORT_OUTPUT, content: (await invokeTool(report, {})).content },
      },
      // A tool without content returns its text, a string, as before.
      { toolCallId: 'c2', output: '69.8°F' },
    ]);
  });

  it('gives the model the parts of an output kept in UI messages (convertToModelMessages)', async () => {
    const tools = toAiSdkTools([report]);
    const { content: parts } = await invokeTool(report, {});
    const kept = JSON.parse(JSON.stringify({ output: REPORT_OUTPUT, content: parts })) as unknown;
    const messages = await convertToModelMessages(
      [
        {
          role: 'assistant',
          parts: [
            { type: 'tool-report', toolCallId: 'c1', state: 'output-available', input: {}, output: kept },
          ],
        },
      ] as never,
      { tools },
    );
    const toolMessage = messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'report',
        output: { type: 'content', value: REPORT_PARTS },
      },
    ]);
  });
});

describe('a tool from toAiSdkTools() given back to toolwire', () => {
  const { service, clients } = useFakeService();

  it('is the toolwire tool it was made from, however many toAiSdkTools() calls made it', async () => {
    const twice = { ...toAiSdkTools([convert, failing]), ...toAiSdkTools([convert]) };
    const agent = new Agent({ name: 'A', instructions: '', tools: twice });
    expect(agent.tools).toHaveLength(2);
    expect(agent.tools[0]).toBe(convert);
    expect(agent.tools[1]).toBe(failing);
    // Unnamed in an array, beside the tool itself: one tool.
    const [view] = Object.values(toAiSdkTools([convert]));
    expect(toolsOf([convert, view as never])).toEqual([convert]);
    // Run as toolwire runs the tool: its own text, not an AI SDK error wrapped in another.
    expect((await invokeTool(toAiSdkTools([failing]).charge as never, {})).output).toBe(
      'Error running charge: card declined',
    );
    // Under another key it is refused as the tool itself is.
    expect(() => toolsOf({ other: view as never })).toThrow(
      new ToolDefinitionError(
        'name_mismatch',
        'toolsOf(): tools.other: the tool is named "convert_temperature", but its key in tools is "other"',
      ),
    );
  });

  it("runs an agent's tools from one toAiSdkTools() call in a client given them by another", async () => {
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: 'key-123456',
      tools: toAiSdkTools([failing]),
    });
    clients.push(client);
    const connection = await service.connect(client);
    const started = connection.next('run_start');
    const running = client.run(
      new Agent({ name: 'A', instructions: '', tools: toAiSdkTools([failing]) }),
      'go',
    );
    running.catch(() => {});
    // A refusal of the agent's tool ends the test at once (it rejects before anything is sent).
    await Promise.race([started, running]);
    const result = connection.next('tool_result');
    connection.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'charge', arguments: {} });
    expect(await result).toMatchObject({
      callId: 'c1',
      status: 'error',
      output: 'Error running charge: card declined',
    });
  });
});
