/**
 * Subject (2): toolwire's `Client` (src/) with the `add` tool, zod 4 parameters, all defaults except where the
 * orchestrator asks for room to hold 10,000 calls (`--max-concurrency`).
 *
 * @module
 */
import { z } from 'zod';
import { Client, tool } from '../../src/index';
import { argument, exitWithParent, Holds, runHarness } from './harness';

exitWithParent();
const holds = new Holds();

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});
const hold = tool({
  name: 'hold',
  description: 'Waits until the benchmark releases it.',
  execute: async () => {
    await holds.wait();
    return 'released';
  },
});

const maxConcurrency = argument('max-concurrency');
const client = new Client({
  url: argument('url')!,
  apiKey: 'bench',
  tools: [add, hold],
  reconnect: false,
  ...(maxConcurrency === undefined ? {} : { maxConcurrency: Number(maxConcurrency) }),
});
client.on('error', (error) => console.error('toolwire subject:', error.message));
await client.connect();
runHarness(holds, () => client.close({ drain: false }));
