/** A tool without parameters: the model may send nothing, `''` or `{}`. Run: npx tsx examples/no-parameters.ts */
import { Agent, tool } from 'toolwire';
import { answerWithLastOutput, runExample } from './run-example';

const now = tool({
  name: 'server_time',
  description: 'The current date in ISO format.',
  execute: () => new Date(Date.UTC(2026, 10, 29)).toISOString().slice(0, 10),
});

await runExample({
  agent: new Agent({ name: 'Clock', instructions: 'Tell the date.', tools: [now] }),
  input: 'What day is it?',
  script: [{ toolCalls: [{ name: 'server_time', arguments: '' }] }, answerWithLastOutput],
});
