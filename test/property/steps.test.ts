/**
 * `ctx.step()` over value kinds (src/call/steps.ts): for any result built from JSON values, `undefined`,
 * dates, `NaN`, arrays, objects, Maps and Sets, the step returns the same value in its first run, in a retry and in
 * a re-dispatched process (the kept result after a trip over the wire), and that value is the result's JSON
 * (`JSON.stringify`'s); a result holding a BigInt, `NaN`, a Map, a Set, a function, a symbol or a cycle anywhere
 * is refused with `invalid_step_result` and nothing is kept. Keys are unique within an object or a Map (a later entry would hide a
 * refused value).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/call/invoke';
import type { StepRecord } from '../../src/call/steps';
import { tool } from '../../src/tool/tool';

/** A value to return from a step (made afresh for each run) and whether a step must refuse it. */
type Made = { make: () => unknown; refused: boolean };

const fixed = (make: () => unknown, refused = false): Made => ({ make, refused });

const leaf: fc.Arbitrary<Made> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((value) => fixed(() => structuredClone(value))),
  fc.constantFrom(
    fixed(() => undefined),
    fixed(() => null),
    fixed(() => new Date(0)),
    fixed(() => Number.NaN, true),
    fixed(() => 10n, true),
    fixed(() => () => 1, true),
    fixed(() => Symbol('s'), true),
    fixed(() => {
      const node: Record<string, unknown> = { name: 'n' };
      node.self = node;
      return node;
    }, true),
  ),
);

const all = (parts: Made[]) => parts.some((part) => part.refused);

const { value } = fc.letrec<{ value: Made }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc
      .array(tie('value'), { maxLength: 4 })
      .map((items) => fixed(() => items.map((item) => item.make()), all(items))),
    fc
      .uniqueArray(fc.tuple(fc.string({ maxLength: 6 }), tie('value')), {
        maxLength: 4,
        selector: ([key]) => key,
      })
      .map((entries) =>
        fixed(
          () => Object.fromEntries(entries.map(([key, item]) => [key, item.make()])),
          all(entries.map(([, item]) => item)),
        ),
      ),
    fc
      .uniqueArray(fc.tuple(fc.string({ maxLength: 6 }), tie('value')), {
        maxLength: 3,
        selector: ([key]) => key,
      })
      .map((entries) => fixed(() => new Map(entries.map(([key, item]) => [key, item.make()])), true)),
    fc
      .array(tie('value'), { maxLength: 3 })
      .map((items) => fixed(() => new Set(items.map((item) => item.make())), true)),
  ),
}));

describe('ctx.step() over value kinds', () => {
  it('returns one value in every run of the call, or refuses what JSON cannot hold', async () => {
    await fc.assert(
      fc.asyncProperty(value, async (made) => {
        const seen: unknown[] = [];
        const errors: unknown[] = [];
        const records: StepRecord[] = [];
        const stepping = tool({
          name: 'stepping',
          description: 'd',
          sideEffect: 'none',
          retry: { maxAttempts: 2, initialDelayMs: 0 },
          execute: async (_input, ctx) => {
            try {
              seen.push(await ctx.step('k', made.make));
            } catch (error) {
              errors.push(error);
            }
            if (ctx.attempt === 1) throw new Error('again');
            return '';
          },
        });
        await invokeTool(stepping, {}, { onStep: (step) => records.push(step) });
        if (made.refused) {
          expect(seen).toEqual([]);
          expect(errors).toHaveLength(2);
          for (const error of errors) expect(error).toMatchObject({ code: 'invalid_step_result' });
          expect(records).toEqual([]);
          return;
        }
        expect(errors).toEqual([]);
        const raw = made.make();
        const json = JSON.parse(JSON.stringify(raw ?? null));
        expect(seen).toEqual([json, json]);
        expect(records).toHaveLength(1);
        expect(records[0]?.result).toEqual(json);
        // A re-dispatch: the kept result crosses the wire and comes back with the call.
        const wire = JSON.parse(JSON.stringify({ k: records[0]?.result }));
        await invokeTool(stepping, {}, { steps: wire });
        expect(seen.slice(2)).toEqual([json, json]);
      }),
      { numRuns: 300 },
    );
  });
});
