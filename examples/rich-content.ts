/**
 * Content parts: a tool returns text, an image, JSON and a file with `content([...])`. A model that reads only
 * text gets `output` (the text and JSON parts, and a note per image or file); the parts travel beside it, and the
 * stub's OpenAI-compatible model gets the image as image input. Run: npx tsx examples/rich-content.ts
 */
import { Agent, content, tool } from 'toolwire';
import { runExample } from './run-example';

// A 1×1 PNG (your tool would render a chart).
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

const salesChart = tool({
  name: 'sales_chart',
  description: 'Draws the sales chart of a quarter.',
  execute: () =>
    content([
      { type: 'text', text: 'Sales of Q3, by week.' },
      { type: 'image', data: PNG, mediaType: 'image/png' },
      { type: 'json', value: { quarter: 'Q3', total: 390 } },
      {
        type: 'file',
        data: new TextEncoder().encode('week,sales\n1,30\n'),
        mediaType: 'text/csv',
        filename: 'q3.csv',
      },
    ]),
});

const result = await runExample({
  agent: new Agent({ name: 'Analyst', instructions: 'Explain the numbers.', tools: [salesChart] }),
  input: 'Show me Q3.',
  script: [
    { toolCalls: [{ name: 'sales_chart', arguments: {} }] },
    ({ messages }) => {
      const tool = messages.at(-1) as { parts?: Array<{ type: string }> };
      return { text: `I got ${tool.parts?.map((part) => part.type).join(', ')} parts.` };
    },
  ],
});
for (const part of result.toolCalls[0]?.content ?? []) {
  const size = 'data' in part ? `, ${atob(part.data).length} bytes` : '';
  console.log(`part ${part.type}${'mediaType' in part ? ` ${part.mediaType}` : ''}${size}`);
}
