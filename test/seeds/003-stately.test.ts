/**
 * Seed 003 (Stately agent), "The tool contract": a native AI SDK tool, the same tool as a plain object, and a
 * bare function, each given as `tools: { calculate }` (a record keyed by tool name), run through the Client.
 *
 * Quoted from the document:
 *
 *   import { tool } from "ai";
 *   import { z } from "zod";
 *
 *   const calculate = tool({
 *     description: "Do arithmetic on two numbers.",
 *     inputSchema: z.object({ op: z.enum(["add", "multiply"]), a: z.number(), b: z.number() }),
 *     execute: async ({ op, a, b }) => ({ value: op === "add" ? a + b : a * b }), // typed
 *   });
 *
 *   const calculate = {
 *     description: "Do arithmetic on two numbers.",
 *     inputSchema: z.object({ op: z.enum(["add", "multiply"]), a: z.number(), b: z.number() }),
 *     execute: async (input: unknown) => {
 *       const { op, a, b } = input as { op: "add" | "multiply"; a: number; b: number };
 *       return { value: op === "add" ? a + b : a * b };
 *     },
 *   };
 *
 *   tools: { calculate },
 *
 * "A bare function is shorthand for execute": toolwire tells the model `Calls calculate.` and an object schema
 * with no properties, and passes the arguments on as sent.
 */
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/index';
import { runSeed } from './through-stub';

const script = [
  { toolCalls: [{ name: 'calculate', arguments: { op: 'divide', a: 1, b: 2 } }] },
  { toolCalls: [{ name: 'calculate', arguments: { op: 'multiply', a: 42, b: 17 } }] },
  { text: '714' },
];

const expected = [
  'calculate({"op":"divide","a":1,"b":2}) → invalid_arguments: Invalid arguments for calculate: op: expected one of "add", "multiply", received "divide"',
  'calculate({"op":"multiply","a":42,"b":17}) → ok: {"value":714}',
];

describe('seed 003: Stately agent', () => {
  it('runs a native AI SDK tool unchanged', async () => {
    const calculate = tool({
      description: 'Do arithmetic on two numbers.',
      inputSchema: z.object({ op: z.enum(['add', 'multiply']), a: z.number(), b: z.number() }),
      execute: async ({ op, a, b }) => ({ value: op === 'add' ? a + b : a * b }), // typed
    });
    expect(await runSeed({ tools: { calculate }, script })).toEqual(expected);
  });

  it('runs the plain object', async () => {
    const calculate = {
      description: 'Do arithmetic on two numbers.',
      inputSchema: z.object({ op: z.enum(['add', 'multiply']), a: z.number(), b: z.number() }),
      execute: async (input: unknown) => {
        const { op, a, b } = input as { op: 'add' | 'multiply'; a: number; b: number };
        return { value: op === 'add' ? a + b : a * b };
      },
    };
    expect(await runSeed({ tools: { calculate }, script })).toEqual(expected);
  });

  it('runs a bare function as execute', async () => {
    const calculate = async (input: unknown) => {
      const { op, a, b } = input as { op: 'add' | 'multiply'; a: number; b: number };
      return { value: op === 'add' ? a + b : a * b };
    };
    expect(await runSeed({ tools: { calculate }, script: script.slice(1) })).toEqual([expected[1]]);
  });

  it('honours toolChoice, carries metadata, and keeps the result a json part to the run result', async () => {
    const calculate = {
      description: 'Do arithmetic on two numbers.',
      inputSchema: z.object({ op: z.enum(['add', 'multiply']), a: z.number(), b: z.number() }),
      execute: async (input: unknown) => {
        const { op, a, b } = input as { op: 'add' | 'multiply'; a: number; b: number };
        return { value: op === 'add' ? a + b : a * b };
      },
    };
    const agent = new Agent({
      name: 'assistant',
      instructions: 'Answer in one sentence. Use calculate for arithmetic.',
      tools: { calculate },
      toolChoice: 'required',
    });
    let metadata: unknown;
    let part: unknown;
    const lines = await runSeed({
      tools: { calculate },
      agent,
      script: script.slice(1),
      runOptions: { toolChoice: { type: 'tool', name: 'calculate' }, metadata: { maxSteps: 5 } },
      inspect: (transcript, result) => {
        metadata = transcript?.metadata;
        part = result.toolCalls[0]?.result;
      },
    });
    expect(lines).toEqual([expected[1]]);
    expect(part).toEqual({ type: 'json', value: { value: 714 } });
    expect(metadata).toEqual({ maxSteps: 5 });
  });
});
