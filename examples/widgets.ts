/** A tool that returns a widget for the chat UI; the model reads only the rest. Run: npx tsx examples/widgets.ts */
import { Agent, tool } from 'toolwire';
import { z } from 'zod';
import { answerWithLastOutput, runExample } from './run-example';

const sales = tool({
  name: 'sales_report',
  description: 'Sales per region for a quarter, shown as a chart.',
  parameters: z.object({ quarter: z.enum(['Q1', 'Q2', 'Q3', 'Q4']) }),
  execute: ({ quarter }) => {
    const data = [
      { label: 'EMEA', value: 120 },
      { label: 'Americas', value: 180 },
      { label: 'APAC', value: 90 },
    ];
    return {
      total: data.reduce((sum, datum) => sum + datum.value, 0),
      widget: {
        type: 'Card',
        title: `Sales ${quarter}`,
        children: [
          { type: 'Chart', kind: 'bar', data },
          { type: 'Badge', label: 'above target', color: 'success' },
        ],
      },
    };
  },
});

await runExample({
  agent: new Agent({ name: 'Analyst', instructions: 'Report sales.', tools: [sales] }),
  input: 'How did Q3 go?',
  script: [{ toolCalls: [{ name: 'sales_report', arguments: { quarter: 'Q3' } }] }, answerWithLastOutput],
});
