/**
 * `ctx.step()` (src/call/steps.ts) through `invokeTool`: a step returns the same value
 * whether it ran now, in an earlier attempt, or in a process that died (JSON, redacted, a copy per reader); which
 * results are refused and which are kept in this process only; bad keys, the step bound, concurrent steps of one
 * key, failing steps, and steps of a call that has ended.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool } from '../../src/call/invoke';
import type { StepRecord } from '../../src/call/steps';
import { AbortError, ToolDefinitionError } from '../../src/errors';
import type { ToolContext } from '../../src/tool/tool';
import { tool } from '../../src/tool/tool';
import { STEP_LIMITS } from '../../src/wire/protocol';

/** A tool that runs `body` with a `ctx` and records what it returns or throws. */
function stepping(body: (ctx: ToolContext) => Promise<unknown>, extra: Record<string, unknown> = {}) {
  return tool({ name: 'stepping', description: 'd', execute: (_input, ctx) => body(ctx), ...extra });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('ctx.step() returns the kept form of its result', () => {
  it('returns the same JSON, redacted value in the first run, a retry and a re-dispatched process', async () => {
    const seen: unknown[] = [];
    const records: StepRecord[] = [];
    const when = new Date('2026-01-02T03:04:05.000Z');
    const provision = tool({
      name: 'provision',
      description: 'd',
      parameters: z.object({ password: z.string() }),
      sensitiveFieldNames: ['password'],
      sideEffect: 'idempotent',
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: async ({ password }, ctx) => {
        seen.push(
          await ctx.step('reserve', () => ({
            when,
            tags: ['a'],
            gone: undefined,
            password,
            nested: [undefined, -0],
            failure: new TypeError('late'),
          })),
        );
        if (ctx.attempt === 1) throw new Error('flake');
        return 'ok';
      },
    });
    const args = { password: 'hunter22-secret' };
    await invokeTool(provision, args, { callId: 'c1', onStep: (step) => records.push(step) });
    const kept = {
      when: when.toISOString(),
      tags: ['a'],
      password: '[redacted]',
      nested: [null, 0],
      failure: { name: 'TypeError', message: 'late' },
    };
    expect(records).toEqual([{ callId: 'c1', key: 'reserve', result: kept }]);
    // A re-dispatch: the service hands the kept steps to the next process.
    await invokeTool(provision, args, { callId: 'c1', steps: { reserve: records[0]!.result } });
    expect(seen).toEqual([kept, kept, kept, kept]);
  });

  it('gives each reader its own copy: a mutation in one attempt does not reach the next', async () => {
    const seen: unknown[] = [];
    const mutating = stepping(
      async (ctx) => {
        const value = (await ctx.step('list', () => ({ items: [1] }))) as { items: number[] };
        seen.push(structuredClone(value));
        value.items.push(ctx.attempt + 1);
        if (ctx.attempt === 1) throw new Error('flake');
        return 'ok';
      },
      { sideEffect: 'none', retry: { maxAttempts: 2, initialDelayMs: 0 } },
    );
    await invokeTool(mutating, {});
    expect(seen).toEqual([{ items: [1] }, { items: [1] }]);
  });

  it('keeps a step that returns nothing, as null', async () => {
    const records: StepRecord[] = [];
    const quiet = stepping(async (ctx) => ctx.step('send', () => undefined));
    const result = await invokeTool(quiet, {}, { callId: 'c2', onStep: (step) => records.push(step) });
    expect(result.output).toBe('null');
    expect(records).toEqual([{ callId: 'c2', key: 'send', result: null }]);
  });
});

describe('ctx.step() results JSON cannot hold', () => {
  const cyclic = () => {
    const node: { name: string; self?: unknown } = { name: 'n' };
    node.self = node;
    return { node };
  };
  it.each<[string, () => unknown, string]>([
    ['a BigInt', () => ({ count: 10n }), '$.count is a BigInt, which JSON cannot hold (return a string)'],
    ['a BigInt at the root', () => 10n, '$ is a BigInt, which JSON cannot hold (return a string)'],
    ['a function', () => () => 1, '$ is a function, which JSON cannot hold'],
    [
      'a nested function',
      () => ({ client: { send() {} } }),
      '$.client.send is a function, which JSON cannot hold',
    ],
    ['a symbol', () => ({ 'k y': Symbol('s') }), '$["k y"] is a symbol, which JSON cannot hold'],
    [
      'NaN',
      () => ({ rows: [1, Number.NaN] }),
      '$.rows[1] is NaN, which JSON cannot hold (return null or a string)',
    ],
    [
      'Infinity at the root',
      () => Number.POSITIVE_INFINITY,
      '$ is Infinity, which JSON cannot hold (return null or a string)',
    ],
    [
      '-Infinity, boxed',
      () => ({ low: new Number(Number.NEGATIVE_INFINITY) }),
      '$.low is -Infinity, which JSON cannot hold (return null or a string)',
    ],
    [
      'a Float64Array holding NaN',
      () => ({ samples: new Float64Array([1, Number.NaN]) }),
      '$.samples is a Float64Array holding NaN or Infinity, which JSON cannot hold',
    ],
    [
      'a Map',
      () => ({ byId: new Map([[1, 2]]) }),
      '$.byId is a Map, which JSON writes as {} (return Object.fromEntries(map) or [...map])',
    ],
    ['a Set', () => new Set([1]), '$ is a Set, which JSON writes as {} (return [...set])'],
    ['a cycle', cyclic, '$.node.self refers back to its own container (a cycle)'],
    [
      'a BigInt64Array',
      () => ({ ids: new BigInt64Array([1n]) }),
      '$.ids is a BigInt64Array, whose BigInts JSON cannot hold (return strings)',
    ],
    [
      'a field keyed by a symbol',
      () => ({ rows: [{ id: 1, [Symbol('cursor')]: 'c1' }] }),
      '$.rows[0] has a field keyed by a symbol, which JSON leaves out',
    ],
    [
      'a field whose getter throws',
      () => ({
        a: 1,
        get total(): number {
          throw new Error('boom');
        },
      }),
      '$.total could not be read (boom)',
    ],
    [
      'a proxy whose keys cannot be listed',
      () =>
        new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('revoked');
            },
          },
        ),
      'it could not be read (revoked)',
    ],
    [
      'nesting deeper than 64 levels',
      () => {
        let value: unknown = 'leaf';
        for (let i = 0; i < 66; i += 1) value = { a: value };
        return value;
      },
      'it nests deeper than 64 levels of objects and arrays, the most a kept value may',
    ],
  ])(
    'refuses %s: the step ran, nothing is kept, the error names the key and where',
    async (_kind, make, where) => {
      const records: StepRecord[] = [];
      let runs = 0;
      let thrown: unknown;
      const refused = stepping(async (ctx) => {
        thrown = await rejection(
          ctx.step('load', () => {
            runs += 1;
            return make();
          }),
        );
        // Not kept: the same key runs again.
        await rejection(ctx.step('load', make));
        return runs;
      });
      await invokeTool(refused, {}, { onStep: (step) => records.push(step) });
      expect(thrown).toBeInstanceOf(ToolDefinitionError);
      expect(thrown).toMatchObject({
        code: 'invalid_step_result',
        message: `ctx.step("load"): the result cannot be kept: ${where}; the step ran, its result is not kept`,
      });
      expect(runs).toBe(1);
      expect(records).toEqual([]);
    },
  );

  it('keeps a result over the size limit in this process only, with a warning', async () => {
    const records: StepRecord[] = [];
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (_f: unknown, message: string) => warnings.push(message),
    };
    let runs = 0;
    const big = stepping(
      async (ctx) => {
        const text = await ctx.step('big', () => {
          runs += 1;
          return 'x'.repeat(STEP_LIMITS.maxResultBytes);
        });
        if (ctx.attempt === 1) throw new Error('flake');
        return (text as string).length;
      },
      { sideEffect: 'none', retry: { maxAttempts: 2, initialDelayMs: 0 } },
    );
    const result = await invokeTool(big, {}, { logger, onStep: (step) => records.push(step) });
    expect(result.output).toBe(String(STEP_LIMITS.maxResultBytes));
    expect(runs).toBe(1);
    expect(records).toEqual([]);
    expect(warnings).toEqual([
      `step "big" is not kept: its result is ${STEP_LIMITS.maxResultBytes + 2} bytes of JSON, over the limit of ${STEP_LIMITS.maxResultBytes}: it is kept for this process only`,
    ]);
  });
});

describe('ctx.step() keys, bounds and timing', () => {
  it.each<[string, unknown, string]>([
    ['an empty key', '', 'a string of 0'],
    ['a key over 256 characters', 'k'.repeat(257), 'a string of 257'],
    ['a number', 7, 'number'],
    ['undefined', undefined, 'undefined'],
  ])('refuses %s as a rejection (never a synchronous throw), before fn runs', async (_kind, key, got) => {
    let ran = false;
    let thrown: unknown;
    const bad = stepping(async (ctx) => {
      const step = ctx.step as (key: unknown, fn: () => unknown) => Promise<unknown>;
      const promise = step(key, () => {
        ran = true;
      });
      thrown = await rejection(promise);
      return '';
    });
    await invokeTool(bad, {});
    expect(ran).toBe(false);
    expect(thrown).toBeInstanceOf(ToolDefinitionError);
    expect(thrown).toMatchObject({
      code: 'invalid_step',
      message: `ctx.step(): the key must be a string of 1 to 256 characters, got ${got}`,
    });
  });

  it('accepts a key of 256 characters', async () => {
    const long = stepping(async (ctx) => ctx.step('k'.repeat(256), () => 'fine'));
    expect((await invokeTool(long, {})).output).toBe('fine');
  });

  it('refuses the step past 32 kept ones before its fn runs (steps the service kept count)', async () => {
    const kept = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`old${i}`, i]));
    const ran: string[] = [];
    let thrown: unknown;
    const many = stepping(async (ctx) => {
      for (const key of ['old0', 'new1', 'new2', 'new3']) {
        const promise = ctx.step(key, () => ran.push(key));
        if (key === 'new3') thrown = await rejection(promise);
        else await promise;
      }
      return '';
    });
    await invokeTool(many, {}, { steps: kept });
    expect(ran).toEqual(['new1', 'new2']);
    expect(thrown).toMatchObject({
      name: 'ToolDefinitionError',
      code: 'too_many_steps',
      message:
        'ctx.step("new3"): the call already has 32 steps, the most the service keeps; the step did not run',
    });
  });

  it('runs one fn for concurrent steps of one key; each caller gets its own equal copy', async () => {
    let runs = 0;
    let results: unknown[] = [];
    const concurrent = stepping(async (ctx) => {
      results = await Promise.all(
        [1, 2, 3].map(() =>
          ctx.step('shared', async () => {
            runs += 1;
            return { n: 1 };
          }),
        ),
      );
      return '';
    });
    await invokeTool(concurrent, {});
    expect(runs).toBe(1);
    expect(results).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }]);
    expect(new Set(results).size).toBe(3);
  });

  it('rethrows what fn throws, keeps nothing, and runs fn again for the same key', async () => {
    const records: StepRecord[] = [];
    const failure = new Error('card declined');
    let runs = 0;
    let thrown: unknown;
    const failing = stepping(async (ctx) => {
      thrown = await rejection(
        ctx.step('charge', () => {
          runs += 1;
          throw failure;
        }),
      );
      return ctx.step('charge', () => {
        runs += 1;
        return 'charged';
      });
    });
    const result = await invokeTool(failing, {}, { onStep: (step) => records.push(step) });
    expect(thrown).toBe(failure);
    expect(result.output).toBe('charged');
    expect(runs).toBe(2);
    expect(records.map((step) => step.key)).toEqual(['charge']);
  });

  it('runs no step once the call is cancelled: it rejects with the abort reason', async () => {
    const controller = new AbortController();
    let ran = false;
    let thrown: unknown;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const cancelled = stepping(async (ctx) => {
      controller.abort();
      thrown = await rejection(ctx.step('late', () => (ran = true)));
      done();
      return '';
    });
    const result = await invokeTool(cancelled, {}, { signal: controller.signal });
    await finished;
    expect(result.status).toBe('cancelled');
    expect(ran).toBe(false);
    expect(thrown).toBe(controller.signal.reason);
  });

  it('runs no step once the call has its result: AbortError call_ended', async () => {
    let later: ToolContext | undefined;
    const escaping = stepping(async (ctx) => {
      later = ctx;
      return 'done';
    });
    await invokeTool(escaping, {});
    let ran = false;
    const thrown = await rejection(later!.step('late', () => (ran = true)));
    expect(ran).toBe(false);
    expect(thrown).toBeInstanceOf(AbortError);
    expect(thrown).toMatchObject({
      code: 'call_ended',
      message: 'ctx.step("late"): stepping has already ended; the step did not run',
    });
  });
});

describe('a refused step result names where, redacted', () => {
  it('redacts a secret in the path of what JSON cannot hold, in the message and the stack', async () => {
    const caught: string[] = [];
    const secret = 'hunter22-secret';
    const keyed = tool({
      name: 'keyed',
      description: 'd',
      parameters: z.object({ password: z.string() }),
      sensitiveFieldNames: ['password'],
      execute: async ({ password }, ctx) => {
        try {
          await ctx.step('by-password', () => ({ [password]: Number.NaN }));
        } catch (error) {
          caught.push(`${(error as Error).message} | ${String((error as Error).stack)}`);
        }
        return 'done';
      },
    });
    await invokeTool(keyed, { password: secret });
    expect(caught).toHaveLength(1);
    expect(caught[0]).toContain('$["[redacted]"] is NaN');
    expect(caught[0]).not.toContain(secret);
  });
});
