/**
 * The same toolwire tools in a local AI SDK loop: `toAiSdkTools` gives them to `generateText`, with the same
 * validation and the same texts as when the hosted agent calls them. The model here is the AI SDK's own mock
 * (`MockLanguageModelV3`), scripted to send a wrong type first; put any AI SDK model in its place.
 * Run: npx tsx examples/to-ai-sdk.ts
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { tool } from 'toolwire';
import { toAiSdkTools } from 'toolwire/ai-sdk';
import { z } from 'zod';

const convert = tool({
  name: 'convert_temperature',
  description: 'Convert a temperature between Celsius and Fahrenheit.',
  parameters: z.object({ value: z.number(), to: z.enum(['celsius', 'fahrenheit']) }),
  execute: ({ value, to }) =>
    to === 'fahrenheit' ? `${(value * 9) / 5 + 32}°F` : `${((value - 32) * 5) / 9}°C`,
});

type Turn = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const callConvert = (id: string, input: object): Turn => ({
  content: [
    { type: 'tool-call', toolCallId: id, toolName: 'convert_temperature', input: JSON.stringify(input) },
  ],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
/** The last tool output the model was sent, as it read it. */
const lastOutput = (prompt: Prompt) => {
  const part = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).at(-1);
  return part?.type === 'tool-result' && 'value' in part.output ? String(part.output.value) : '';
};
const turns: Array<(prompt: Prompt) => Turn> = [
  () => callConvert('call_1', { value: '21', to: 'fahrenheit' }), // a string for a number: refused
  () => callConvert('call_2', { value: 21, to: 'fahrenheit' }),
  (prompt) => ({
    content: [{ type: 'text', text: lastOutput(prompt) }],
    finishReason: { unified: 'stop', raw: undefined },
    usage,
    warnings: [],
  }),
];
let turn = 0;
const model = new MockLanguageModelV3({ doGenerate: async ({ prompt }) => turns[turn++]!(prompt) });

const result = await generateText({
  model,
  tools: toAiSdkTools([convert]),
  stopWhen: stepCountIs(5),
  prompt: 'What is 21°C in Fahrenheit?',
});
for (const part of result.steps.flatMap((step) => step.content)) {
  if (part.type === 'tool-result') {
    console.log(`${part.toolName}(${JSON.stringify(part.input)}) → tool-result: ${part.output}`);
  } else if (part.type === 'tool-error') {
    console.log(
      `${part.toolName}(${JSON.stringify(part.input)}) → tool-error: ${(part.error as Error).message}`,
    );
  }
}
console.log(`answer: ${result.text}`);
