/** An agent used as a tool by another agent: a nested run whose answer is the tool's result. Run: npx tsx examples/agents-as-tools.ts */
import { Agent, tool } from 'toolwire';
import { z } from 'zod';
import { answerWithLastOutput, runExample } from './run-example';

const population = tool({
  name: 'population',
  description: 'Population of a city, in millions.',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ Lisbon: 0.55, Oslo: 0.71 })[city] ?? 'unknown',
});

const researcher = new Agent({ name: 'Researcher', instructions: 'Look facts up.', tools: [population] });
const writer = new Agent({
  name: 'Writer',
  instructions: 'Write short answers; ask the researcher for facts.',
  tools: [
    researcher.asTool({
      toolName: 'ask_researcher',
      toolDescription: 'Ask the researcher a factual question.',
    }),
  ],
});

await runExample({
  agent: writer,
  input: 'How many people live in Oslo?',
  script: {
    Writer: [
      { toolCalls: [{ name: 'ask_researcher', arguments: { input: 'Population of Oslo?' } }] },
      ({ messages }) => ({ text: `According to the researcher: ${answerWithLastOutput({ messages }).text}` }),
    ],
    Researcher: [
      { toolCalls: [{ name: 'population', arguments: { city: 'Oslo' } }] },
      ({ messages }) => ({
        text: `Oslo has about ${answerWithLastOutput({ messages }).text} million people.`,
      }),
    ],
  },
});
