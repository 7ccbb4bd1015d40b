/**
 * zod validation runs each refinement, check and transform once per call (src/tool/schema/zod-parse.ts), where
 * zod's `~standard.validate` parses synchronously, meets the promise, and parses again asynchronously.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { z as z3 } from 'zod3';
import { z as z323 } from 'zod323';
import { invokeTool, type ToolParameters, tool } from '../../../src/index';
import { isThenable } from '../../../src/maybe';
import { resolveSchema } from '../../../src/tool/schema';
import { zod4Adapter } from '../../../src/tool/schema/zod4';

/** Calls of each counted function, by name. */
function counter() {
  const counts: Record<string, number> = {};
  const hit = (name: string) => {
    counts[name] = (counts[name] ?? 0) + 1;
  };
  return { counts, hit };
}

/** The counts each of three calls of a tool made of `parameters` adds, with the results' statuses. */
async function perCall(parameters: ToolParameters, counts: Record<string, number>, args: object) {
  const made = tool({ name: 't', description: 'd', parameters, execute: (input) => input });
  const calls: Array<{ status: string; counts: Record<string, number> }> = [];
  for (let call = 0; call < 3; call++) {
    const before = { ...counts };
    const { status } = await invokeTool(made, args);
    calls.push({
      status,
      counts: Object.fromEntries(Object.entries(counts).map(([key, n]) => [key, n - (before[key] ?? 0)])),
    });
  }
  return calls;
}

const thrice = (status: string, counts: Record<string, number>) => [
  { status, counts },
  { status, counts },
  { status, counts },
];

describe('zod 4 validation', () => {
  it('runs an async refinement, and the sync transform beside it, once per call from the first', async () => {
    const { counts, hit } = counter();
    const parameters = z.object({
      a: z.string().transform((s) => {
        hit('transform');
        return s;
      }),
      b: z.string().refine(async () => {
        hit('refine');
        return true;
      }),
    });
    expect(await perCall(parameters, counts, { a: 'x', b: 'y' })).toEqual(
      thrice('ok', { transform: 1, refine: 1 }),
    );
  });

  it('runs an async transform once, and a failing async check once, with its message', async () => {
    const { counts, hit } = counter();
    const transformed = z.object({
      a: z.string().transform(async (s) => {
        hit('transform');
        return s.toUpperCase();
      }),
    });
    expect(await perCall(transformed, counts, { a: 'x' })).toEqual(thrice('ok', { transform: 1 }));
    const refused = tool({
      name: 'refused',
      description: 'd',
      parameters: z.object({
        a: z.string().refine(async () => {
          hit('failing');
          return false;
        }, 'nope'),
      }),
      execute: () => 'x',
    });
    const result = await invokeTool(refused, { a: 'x' });
    expect(result).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for refused: a: nope',
    });
    expect(counts.failing).toBe(1);
  });

  it('runs a zod/mini async check once per call', async () => {
    const { counts, hit } = counter();
    const parameters = zm.object({
      a: zm.string().check(
        zm.refine(async () => {
          hit('mini');
          return true;
        }),
      ),
    });
    expect(await perCall(parameters, counts, { a: 'x' })).toEqual(thrice('ok', { mini: 1 }));
  });

  it('runs an async refinement inside a recursive schema once per call', async () => {
    const { counts, hit } = counter();
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.object({
      name: z.string().refine(async () => {
        hit('name');
        return true;
      }),
      get children() {
        return z.array(node);
      },
    });
    expect(await perCall(node, counts, { name: 'a', children: [] })).toEqual(thrice('ok', { name: 1 }));
  });

  it('runs twice, on the first call only, what ran before a promise from a function not written async', async () => {
    const { counts, hit } = counter();
    const lookup = (id: string) => Promise.resolve(id !== 'gone');
    const parameters = z.object({
      a: z.string().transform((s) => {
        hit('transform');
        return s;
      }),
      id: z.string().refine((id) => {
        hit('lookup');
        return lookup(id);
      }),
    });
    const calls = await perCall(parameters, counts, { a: 'x', id: 'i' });
    expect(calls).toEqual([
      { status: 'ok', counts: { transform: 2, lookup: 2 } },
      { status: 'ok', counts: { transform: 1, lookup: 1 } },
      { status: 'ok', counts: { transform: 1, lookup: 1 } },
    ]);
  });

  it('validates a schema without async parts synchronously, without a promise', () => {
    const adapter = zod4Adapter(z.object({ a: z.string().transform((s) => s.length) }));
    const result = adapter.validate({ a: 'abc' });
    expect(isThenable(result)).toBe(false);
    expect(result).toEqual({ ok: true, value: { a: 3 } });
  });

  it('runs an async refinement of an outputSchema once per call', async () => {
    const { counts, hit } = counter();
    const made = tool({
      name: 'out',
      description: 'd',
      outputSchema: z.object({
        n: z.number().refine(async () => {
          hit('output');
          return true;
        }),
      }),
      execute: () => ({ n: 1 }),
    });
    for (let call = 0; call < 2; call++) expect((await invokeTool(made, {})).status).toBe('ok');
    expect(counts.output).toBe(2);
  });
});

describe('zod 3 validation', () => {
  it('runs an async transform and an async superRefine once per call from the first', async () => {
    const { counts, hit } = counter();
    const parameters = z3.object({
      a: z3.string().transform(async (s) => {
        hit('transform');
        return s;
      }),
      b: z3.string().superRefine(async () => {
        hit('superRefine');
      }),
    });
    expect(await perCall(parameters, counts, { a: 'x', b: 'y' })).toEqual(
      thrice('ok', { transform: 1, superRefine: 1 }),
    );
  });

  it('runs twice, on the first call only, what ran before the promise of .refine(async …), which zod wraps', async () => {
    const { counts, hit } = counter();
    const parameters = z3.object({
      a: z3.string().transform((s) => {
        hit('transform');
        return s;
      }),
      b: z3.string().refine(async () => {
        hit('refine');
        return true;
      }),
    });
    expect(await perCall(parameters, counts, { a: 'x', b: 'y' })).toEqual([
      { status: 'ok', counts: { transform: 2, refine: 2 } },
      { status: 'ok', counts: { transform: 1, refine: 1 } },
      { status: 'ok', counts: { transform: 1, refine: 1 } },
    ]);
  });
});

describe('zod 3 before 3.24 validation', () => {
  it('runs an async transform once per call, where every call ran it twice', async () => {
    const { counts, hit } = counter();
    const parameters = z323.object({
      a: z323.string().transform(async (s) => {
        hit('transform');
        return s;
      }),
    });
    expect(await perCall(parameters as unknown as ToolParameters, counts, { a: 'x' })).toEqual(
      thrice('ok', { transform: 1 }),
    );
  });

  it('runs .refine(async …) twice on the first call only, then once', async () => {
    const { counts, hit } = counter();
    const schema = z323.object({
      b: z323.string().refine(async () => {
        hit('refine');
        return true;
      }),
    });
    expect(await perCall(schema as unknown as ToolParameters, counts, { b: 'y' })).toEqual([
      { status: 'ok', counts: { refine: 2 } },
      { status: 'ok', counts: { refine: 1 } },
      { status: 'ok', counts: { refine: 1 } },
    ]);
    // A failing one says why, as zod does.
    const failing = resolveSchema(z323.object({ b: z323.string().refine(async () => false, 'no') }), {
      owner: 'tool "t"',
      field: 'parameters',
      requireObject: true,
    });
    expect(await failing.validate({ b: 'y' })).toEqual({ ok: false, issues: [{ path: 'b', message: 'no' }] });
  });
});
