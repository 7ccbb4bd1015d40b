/**
 * A tool whose parameters are a zod 3 schema. Run: npx tsx examples/zod3.ts
 * (This repository installs zod 3 under the alias `zod3`; in your project it is `import { z } from 'zod'`.)
 */
import { Agent, tool } from 'toolwire';
import { z } from 'zod3';
import { answerWithLastOutput, runExample } from './run-example';

const shipping = tool({
  name: 'shipping_quote',
  description: 'Quote shipping for a parcel.',
  parameters: z.object({
    weightKg: z.number().positive(),
    express: z.boolean().default(false),
  }),
  execute: ({ weightKg, express }) => ({
    priceEur: Math.round(weightKg * (express ? 9 : 4) * 100) / 100,
    express,
  }),
});

await runExample({
  agent: new Agent({ name: 'Shop', instructions: 'Quote shipping.', tools: [shipping] }),
  input: 'How much to ship 2.5 kg?',
  script: [{ toolCalls: [{ name: 'shipping_quote', arguments: '{"weightKg":2.5}' }] }, answerWithLastOutput],
});
