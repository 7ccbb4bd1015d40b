/**
 * What arguments are refused before validation: nesting past MAX_ARGUMENT_DEPTH (a recursive schema would
 * overflow the stack, and zod keeps memory when it does), numbers JSON cannot carry (an overflow that became
 * Infinity), and integers past 2^53 where the schema says integer (the model's number was rounded).
 */

import { type } from 'arktype';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { invokeTool } from '../../src/call/invoke';
import { MAX_ARGUMENT_DEPTH } from '../../src/limits';
import { tool } from '../../src/tool/tool';

type Node = { child?: Node | undefined; items?: Node[] | undefined };
const node: z.ZodType<Node> = z.lazy(() =>
  z.object({ child: z.optional(node), items: z.optional(z.array(node)) }),
);

/** Arguments exactly `levels` deep, objects and arrays mixed (`{ items: [v] }` takes two levels). */
function nested(levels: number): Node {
  let value: Node = {};
  for (let depth = 1; depth < levels; ) {
    const wrapInArray = levels - depth >= 2 && depth % 3 === 0;
    value = wrapInArray ? { items: [value] } : { child: value };
    depth += wrapInArray ? 2 : 1;
  }
  return value;
}

/** Nesting depth of a JSON value: `{}` is 1, `{ a: {} }` 2 (arrays count as objects do). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

describe('nesting depth of arguments', () => {
  it('refuses arguments 100,000 levels deep before a recursive zod 4 schema sees them', async () => {
    const validate = vi.fn();
    const tree = tool({
      name: 'tree',
      description: 'Walks a tree.',
      parameters: z.object({ child: node }).superRefine(validate),
      execute: () => 'walked',
    });
    let deep = '{}';
    for (let i = 0; i < 100_000; i++) deep = `{"child":${deep}}`;
    expect(validate).not.toHaveBeenCalled();
    for (const raw of [deep, JSON.parse(deep), JSON.stringify(deep)]) {
      const result = await invokeTool(tree, raw);
      expect(result).toMatchObject({
        status: 'invalid_arguments',
        output: `Invalid arguments for tree: the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`,
      });
    }
    expect(validate).not.toHaveBeenCalled();
  });

  it(`takes ${MAX_ARGUMENT_DEPTH} levels and refuses ${MAX_ARGUMENT_DEPTH + 1}, objects and arrays alike`, async () => {
    const tree = tool({
      name: 'tree',
      description: 'd',
      parameters: z.object({ child: z.optional(node), items: z.optional(z.array(node)) }),
      execute: () => 'walked',
    });
    expect(depthOf(nested(MAX_ARGUMENT_DEPTH))).toBe(MAX_ARGUMENT_DEPTH);
    expect(await invokeTool(tree, nested(MAX_ARGUMENT_DEPTH))).toMatchObject({ status: 'ok' });
    expect(await invokeTool(tree, nested(MAX_ARGUMENT_DEPTH + 1))).toMatchObject({
      status: 'invalid_arguments',
    });
  });

  it('refuses a cyclic object given to invokeTool as too deep, without hanging', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = { back: cyclic };
    const any = tool({ name: 'any', description: 'd', execute: () => 'ran' });
    expect(await invokeTool(any, cyclic)).toMatchObject({ status: 'invalid_arguments' });
  });

  it('refuses exactly the arguments deeper than the cap, for any JSON value', async () => {
    const any = tool({ name: 'any', description: 'd', execute: () => 'ran' });
    // A spine of random objects and arrays around the cap, with shallow JSON siblings hung along it.
    const deepJson = fc
      .tuple(
        fc.integer({ min: MAX_ARGUMENT_DEPTH - 3, max: MAX_ARGUMENT_DEPTH + 3 }),
        fc.array(fc.tuple(fc.boolean(), fc.option(fc.jsonValue({ maxDepth: 2 }))), {
          minLength: MAX_ARGUMENT_DEPTH + 3,
          maxLength: MAX_ARGUMENT_DEPTH + 3,
        }),
      )
      .map(([levels, shape]) => {
        let value: unknown = {};
        for (let i = 1; i < levels; i++) {
          const [asArray, sibling] = shape[i] as [boolean, unknown];
          value = asArray ? [sibling, value] : { sibling, value };
        }
        return value;
      });
    await fc.assert(
      fc.asyncProperty(deepJson, async (value) => {
        const args = Array.isArray(value) ? { value } : (value as object);
        const result = await invokeTool(any, args);
        expect(result.status).toBe(depthOf(args) > MAX_ARGUMENT_DEPTH ? 'invalid_arguments' : 'ok');
      }),
      { numRuns: 300 },
    );
  });
});

describe('numbers the model sends that JavaScript cannot hold', () => {
  const echo = (parameters: unknown) =>
    tool({
      name: 'echo',
      description: 'd',
      parameters: parameters as never,
      execute: (input: unknown) => input,
    });

  it('refuses a number past ±1.8e308 (it became Infinity), whatever the schema', async () => {
    for (const parameters of [z.object({ n: z.number() }), { type: 'object' }, undefined]) {
      expect(await invokeTool(echo(parameters), '{"n":1e400}')).toEqual(
        expect.objectContaining({
          status: 'invalid_arguments',
          output:
            'Invalid arguments for echo: n: the number is too large for JavaScript (past ±1.8e308); it became Infinity',
        }),
      );
    }
    expect((await invokeTool(echo(undefined), '{"list":[1,-1e999]}')).output).toBe(
      'Invalid arguments for echo: list[1]: the number is too large for JavaScript (past ±1.8e308); it became -Infinity',
    );
    expect((await invokeTool(echo(undefined), { n: Number.NaN })).output).toBe(
      'Invalid arguments for echo: n: NaN is not a number JSON can carry',
    );
  });

  it('refuses an integer past 2^53 where the schema says integer, in every schema kind', async () => {
    const big = '{"id":12345678901234567890}';
    for (const parameters of [
      z.object({ id: z.int() }),
      z.object({ id: z.number().int() }),
      z3.object({ id: z3.number().int() }),
      v.object({ id: v.pipe(v.number(), v.integer()) }),
      type({ id: 'number.integer' }),
      { type: 'object', properties: { id: { type: 'integer' } } },
      { type: 'object', properties: { id: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } },
      { type: 'object', $defs: { Id: { type: 'integer' } }, properties: { id: { $ref: '#/$defs/Id' } } },
    ]) {
      const result = await invokeTool(echo(parameters), big);
      expect(result).toMatchObject({
        status: 'invalid_arguments',
        output:
          'Invalid arguments for echo: id: 12345678901234567000 is past the integers JavaScript holds exactly (±9007199254740991), so the number sent may have been rounded; send it as a string',
      });
    }
  });

  it('lists the refusal with the schema’s other issues, in place of the schema’s own at that path', async () => {
    const strict = echo(z3.object({ name: z3.string(), id: z3.number().int() }));
    expect((await invokeTool(strict, '{"id":-12345678901234567890}')).output).toBe(
      'Invalid arguments for echo: name: expected a string, received nothing; id: -12345678901234567000 is past the integers JavaScript ' +
        'holds exactly (±9007199254740991), so the number sent may have been rounded; send it as a string',
    );
    const zod4 = echo(z.object({ name: z.string(), id: z.int() }));
    expect((await invokeTool(zod4, '{"id":1e300,"name":"x"}')).output).toBe(
      'Invalid arguments for echo: id: 1e+300 is past the integers JavaScript holds exactly (±9007199254740991), ' +
        'so the number sent may have been rounded; send it as a string',
    );
  });

  it('passes a large number through as parsed where the schema says number, or nothing', async () => {
    for (const parameters of [z.object({ x: z.number() }), { type: 'object' }]) {
      const result = await invokeTool(echo(parameters), '{"x":12345678901234567890}');
      expect(result).toMatchObject({ status: 'ok', output: '{"x":12345678901234567000}' });
    }
    const avogadro = await invokeTool(echo(z.object({ x: z.number() })), '{"x":6.02214076e23}');
    expect(avogadro.output).toBe('{"x":6.02214076e+23}');
  });

  it('passes -0 and underflow through as parsed (-0 reads 0; 1e-400 is 0)', async () => {
    const seen: unknown[] = [];
    const spy = tool({
      name: 'spy',
      description: 'd',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: (input) => {
        seen.push(input);
        return input;
      },
    });
    const result = await invokeTool(spy, '{"a":-0,"b":1e-400}');
    expect(Object.is((seen[0] as { a: number }).a, -0)).toBe(true);
    expect(result.output).toBe('{"a":0,"b":0}');
  });
});
