/**
 * The tools every protocol subject offers: `add` (zod 4 `{ a, b }` → a + b), `size` (zod 4 `{ data }` → its
 * length, for the argument-size scaling), `hold` (waits until released), and with `--tools N` N more tools
 * for the hello-size scaling (`extra_<i>`, three typed fields each, never called).
 *
 * @module
 */
import { z } from 'zod';
import { type Tool, type ToolDefinition, tool } from '../../src/node';
import type { Holds } from './harness';

/** `add`, `size`, `hold` and `count` extra tools, for toolwire's `Client`. */
export function benchTools(holds: Holds, count: number): Tool[] {
  return [
    tool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    }),
    tool({
      name: 'size',
      description: 'Counts the characters of a string.',
      parameters: z.object({ data: z.string() }),
      execute: ({ data }) => data.length,
    }),
    tool({
      name: 'hold',
      description: 'Waits until the benchmark releases it.',
      // The floor's handler shape (`wait().then(...)`), not an async function: an async function's suspended
      // frame (~240 B) is the tool's own memory, and the held-call figure is about what toolwire adds.
      execute: () => holds.wait().then(() => 'released'),
    }),
    ...extraTools(count),
  ] as Tool[];
}

function extraTools(count: number): Tool[] {
  return Array.from({ length: count }, (_, i) =>
    tool({
      name: `extra_${i}`,
      description: `Looks up record ${i} of the inventory by its id, and returns its fields.`,
      parameters: z.object({ id: z.string(), limit: z.number().int().optional(), exact: z.boolean() }),
      execute: () => i,
    }),
  ) as Tool[];
}

/** The definitions toolwire announces for the same tools (the floor sends them as they are). */
export function benchDefinitions(count: number): ToolDefinition[] {
  return count === 0
    ? []
    : benchTools({ wait: () => Promise.resolve() } as unknown as Holds, count).map((t) => t.definition);
}
