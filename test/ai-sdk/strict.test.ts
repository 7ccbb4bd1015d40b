/**
 * `strict: true` through toAiSdkTools: the AI SDK hands a tool's `strict` and its input schema to the provider
 * unchanged (OpenAI's strict function calling takes the schema as it is), so a strict tool is given as the strict
 * form with `strict: true`, and its execute accepts what the model sends in that form (a `null` for an optional
 * property) as well as the ordinary form (the property left out), from a provider without strict mode.
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { tool } from 'toolwire';
import { toAiSdkTools } from 'toolwire/ai-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const parameters = z.object({ n: z.number(), o: z.string().optional() });
const echo = (input: unknown) => `got ${JSON.stringify(input)}`;
const strictTool = tool({ name: 'echo', description: 'Echoes.', parameters, strict: true, execute: echo });
const plainTool = tool({ name: 'plain', description: 'Echoes.', parameters, execute: echo });

/** One generateText step whose model calls `name` with `input`; what the provider was given, and the result. */
async function callOnce(tools: ReturnType<typeof toAiSdkTools>, name: string, input: string) {
  let given: CallOptions['tools'];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      given = options.tools;
      return {
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: name, input }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  const result = await generateText({ model, tools, stopWhen: stepCountIs(1), prompt: 'p' });
  const outcome = result.content.find((part) => part.type === 'tool-result' || part.type === 'tool-error');
  return { given, outcome };
}

describe('toAiSdkTools with strict: true', () => {
  it('gives the provider strict: true and the strict form; a tool without strict gets neither', async () => {
    const { given } = await callOnce(toAiSdkTools([strictTool, plainTool]), 'echo', '{"n":1,"o":null}');
    const byName = new Map(
      (given ?? []).map((t) => [t.name, t as { strict?: boolean; inputSchema?: object }]),
    );
    expect(byName.get('echo')?.strict).toBe(true);
    expect(byName.get('echo')?.inputSchema).toEqual(strictTool.definition.parameters);
    expect(byName.get('echo')?.inputSchema).toMatchObject({
      required: ['n', 'o'],
      additionalProperties: false,
    });
    expect(byName.get('plain')?.strict).toBeUndefined();
    expect(byName.get('plain')?.inputSchema).toEqual(plainTool.definition.parameters);
  });

  it.each([
    ['null (strict mode)', '{"n":1,"o":null}', 'got {"n":1}'],
    ['absent (a provider without strict mode)', '{"n":1}', 'got {"n":1}'],
    ['present', '{"n":1,"o":"x"}', 'got {"n":1,"o":"x"}'],
  ])('execute accepts the optional field %s', async (_, input, output) => {
    const { outcome } = await callOnce(toAiSdkTools([strictTool]), 'echo', input);
    expect(outcome).toMatchObject({ type: 'tool-result', output });
  });
});
