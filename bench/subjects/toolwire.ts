/**
 * Subject (2): toolwire's `Client` as a Node user imports it (src/node.ts: the core and the optional parts it
 * registers, evaluated at start as `import { Client } from 'toolwire'` is in Node), with the bench tools
 * (bench/subjects/tools.ts: `add`, `size` and `hold`, zod 4 parameters; `--tools N` more for the hello-size
 * scaling), all defaults except where the orchestrator asks for room to hold 10,000 calls (`--max-concurrency`).
 *
 * @module
 */
import { Client } from '../../src/node';
import { argument, BENCH_API_KEY, exitWithParent, Holds, runHarness } from './harness';
import { benchTools } from './tools';

exitWithParent();
const holds = new Holds();
const tools = benchTools(holds, Number(argument('tools') ?? 0));

const maxConcurrency = argument('max-concurrency');
const connectStarted = performance.now();
const client = new Client({
  url: argument('url')!,
  apiKey: BENCH_API_KEY,
  tools,
  reconnect: false,
  ...(maxConcurrency === undefined ? {} : { maxConcurrency: Number(maxConcurrency) }),
});
client.on('error', (error) => console.error('toolwire subject:', error.message));
await client.connect();
runHarness(holds, () => client.close({ drain: false }), { connectMs: performance.now() - connectStarted });
