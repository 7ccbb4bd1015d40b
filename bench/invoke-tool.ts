/**
 * Micro-benchmark: `invokeTool` per call for each kind of parameters, on the `add` tool with valid object
 * arguments, next to the schema library's own validation alone (`~standard.validate`, or the JSON Schema
 * validator) so that what toolwire adds can be read off. One child process per kind and repetition.
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { type } from 'arktype';
import * as v from 'valibot';
import { z as z4 } from 'zod';
import { z as z3 } from 'zod3';
// The Node entry, as a Node user imports `toolwire`: it registers the zod 3, valibot and JSON Schema parts.
import { invokeTool, type Tool, tool } from '../src/node';
import { serve } from './lib/ipc';

/** The kinds measured, in table order. */
export const SCHEMA_KINDS = ['zod3', 'zod4', 'valibot', 'arktype', 'json-schema', 'none'] as const;
/** One of {@link SCHEMA_KINDS}. */
export type SchemaKindName = (typeof SCHEMA_KINDS)[number];

const ADD_JSON_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
} as const;

interface Subject {
  tool: Tool;
  /** The library's validation alone; `undefined` for no parameters. */
  validate: ((value: unknown) => unknown) | undefined;
}

const standard = (schema: StandardSchemaV1) => (value: unknown) => schema['~standard'].validate(value);

function subject(kind: SchemaKindName): Subject {
  const make = (parameters: unknown) =>
    tool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: parameters as never,
      execute: (input: { a?: number; b?: number }) => (input.a ?? 0) + (input.b ?? 0),
    }) as unknown as Tool;
  switch (kind) {
    case 'zod3': {
      const schema = z3.object({ a: z3.number(), b: z3.number() });
      return { tool: make(schema), validate: standard(schema) };
    }
    case 'zod4': {
      const schema = z4.object({ a: z4.number(), b: z4.number() });
      return { tool: make(schema), validate: standard(schema) };
    }
    case 'valibot': {
      const schema = v.object({ a: v.number(), b: v.number() });
      return { tool: make(schema), validate: standard(schema) };
    }
    case 'arktype': {
      const schema = type({ a: 'number', b: 'number' });
      return { tool: make(schema), validate: standard(schema) };
    }
    case 'json-schema': {
      const validator = new Validator(structuredClone(ADD_JSON_SCHEMA) as never, '2020-12', false);
      return { tool: make(ADD_JSON_SCHEMA), validate: (value) => validator.validate(value) };
    }
    case 'none':
      return { tool: make(undefined), validate: undefined };
  }
}

/** Runs `step` (awaited when `async`) for about `budgetMs`; returns wall-clock and CPU µs per call. */
async function time(
  step: (i: number) => unknown,
  budgetMs: number,
  async: boolean,
): Promise<{ usPerCall: number; cpuUsPerCall: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + budgetMs;
  let calls = 0;
  while (performance.now() < deadline) {
    if (async) for (let i = 0; i < 256; i++) await step(calls + i);
    else for (let i = 0; i < 256; i++) step(calls + i);
    calls += 256;
  }
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { usPerCall: (elapsedMs * 1000) / calls, cpuUsPerCall: (used.user + used.system) / calls };
}

/** Measures one kind: `invokeTool` and the library alone. */
export async function measureKind(kind: SchemaKindName, budgetMs: number) {
  const { tool: made, validate } = subject(kind);
  const invoke = async (i: number) => {
    const result = await invokeTool(made, { a: i, b: 1 });
    if (result.output !== (kind === 'none' ? '0' : String(i + 1)))
      throw new Error(`${kind}: wrong output ${result.output}`);
  };
  await time(invoke, budgetMs / 2, true); // warm-up
  const invoked = await time(invoke, budgetMs, true);
  let library: number | undefined;
  if (validate) {
    const alone = (i: number) => validate({ a: i, b: 1 });
    await time(alone, budgetMs / 4, false);
    library = (await time(alone, budgetMs / 2, false)).usPerCall;
  }
  return { kind, invokeUs: invoked.usPerCall, invokeCpuUs: invoked.cpuUsPerCall, libraryUs: library };
}

if (process.send !== undefined && process.argv.includes('--micro')) {
  process.on('disconnect', () => process.exit(0));
  serve(async (request) => {
    if (request.cmd === 'exit') {
      setTimeout(() => process.exit(0), 10);
      return {};
    }
    return measureKind(request.kind as SchemaKindName, Number(request.budgetMs));
  });
  process.send({ id: 0, ready: true });
}
