/** A tool whose parameters are an ArkType type. Run: npx tsx examples/arktype.ts */
import { type } from 'arktype';
import { Agent, tool } from 'toolwire';
import { answerWithLastOutput, runExample } from './run-example';

const book = tool({
  name: 'book_room',
  description: 'Book a meeting room.',
  parameters: type({ room: "'atlas' | 'borealis'", people: '1 <= number.integer <= 12' }),
  execute: ({ room, people }) => `Booked ${room} for ${people}`,
});

await runExample({
  agent: new Agent({ name: 'Office', instructions: 'Book rooms.', tools: [book] }),
  input: 'Book atlas for 20 people, or fewer if it must be.',
  script: [
    { toolCalls: [{ name: 'book_room', arguments: { room: 'atlas', people: 20 } }] },
    { toolCalls: [{ name: 'book_room', arguments: { room: 'atlas', people: 12 } }] },
    answerWithLastOutput,
  ],
});
