/** A tool whose parameters are a zod 4 schema. Run: npx tsx examples/zod4.ts */
import { Agent, tool } from 'toolwire';
import { z } from 'zod';
import { answerWithLastOutput, runExample } from './run-example';

const convert = tool({
  name: 'convert_temperature',
  description: 'Convert a temperature between Celsius and Fahrenheit.',
  parameters: z.object({
    value: z.number().describe('The temperature to convert'),
    to: z.enum(['celsius', 'fahrenheit']),
  }),
  execute: ({ value, to }) =>
    to === 'fahrenheit' ? `${(value * 9) / 5 + 32}°F` : `${((value - 32) * 5) / 9}°C`,
});

await runExample({
  agent: new Agent({ name: 'Weather', instructions: 'Convert temperatures.', tools: [convert] }),
  input: 'What is 21°C in Fahrenheit?',
  script: [
    // The model first sends a wrong type; the tool's schema refuses it and the model is told why.
    { toolCalls: [{ name: 'convert_temperature', arguments: { value: '21', to: 'fahrenheit' } }] },
    { toolCalls: [{ name: 'convert_temperature', arguments: { value: 21, to: 'fahrenheit' } }] },
    answerWithLastOutput,
  ],
});
