/**
 * Stately agent seed, with only the import changed: the tool contract's `calculate`, attached with `toolChoice`
 * and request `metadata`, and its result kept as a `json` part (not a string) to the run result. Strict tsc checks
 * this file with the rest of the tests; it runs against the stub.
 */

import { Agent, Client } from 'toolwire';
import { scriptedModel, silentLogger, startStubServer } from 'toolwire/server-stub';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

describe('seed: Stately agent', () => {
  it('honours toolChoice, carries metadata, and keeps the result part from execute to the run result', async () => {
    const calculate = {
      description: 'Do arithmetic on two numbers.',
      inputSchema: z.object({ op: z.enum(['add', 'multiply']), a: z.number(), b: z.number() }),
      execute: async (input: unknown) => {
        const { op, a, b } = input as { op: 'add' | 'multiply'; a: number; b: number };
        return { value: op === 'add' ? a + b : a * b };
      },
    };
    const stub = await startStubServer({
      logger: silentLogger,
      model: scriptedModel([
        { toolCalls: [{ name: 'calculate', arguments: { op: 'multiply', a: 42, b: 17 } }] },
        { text: '714' },
      ]),
    });
    const client = new Client({ url: stub.url, apiKey: 'k', tools: { calculate } });
    try {
      await client.connect();
      const agent = new Agent({
        name: 'assistant',
        instructions: 'Answer in one sentence. Use calculate for arithmetic.',
        tools: { calculate },
        toolChoice: 'required',
      });
      const result = await client.run(agent, 'What is 42 times 17?', {
        toolChoice: { type: 'tool', name: 'calculate' },
        metadata: { maxSteps: 5 },
      });
      expect(result.finalOutput).toBe('714');
      expect(result.toolCalls[0]?.result).toEqual({ type: 'json', value: { value: 714 } });
      expect(stub.runs.get(result.runId)?.metadata).toEqual({ maxSteps: 5 });
    } finally {
      await client.close();
      await stub.close();
    }
  });
});
