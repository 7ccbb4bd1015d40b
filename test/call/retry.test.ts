/**
 * `tool({ sideEffect, retry })` and `ctx.attempt`: checked when the tool is made, attempts told apart, each with
 * its own `timeoutMs`, the last failure read by the model, `retry.when` choosing, a cancel ending the backoff.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool } from '../../src/call/invoke';
import { TimeoutError } from '../../src/errors';
import { type ToolContext, tool } from '../../src/tool/tool';
import { expectDefinitionError } from '../fixtures/schema/definition-error';

const execute = () => 'ok';

describe('tool({ sideEffect })', () => {
  it('announces the side-effect class, external when none is given', () => {
    expect(tool({ name: 'read', description: 'd', execute, sideEffect: 'none' }).definition.sideEffect).toBe(
      'none',
    );
    expect(tool({ name: 'write', description: 'd', execute }).definition.sideEffect).toBe('external');
  });

  it('refuses an unknown class, naming the tool and the field', () => {
    expectDefinitionError(
      () => tool({ name: 'w', description: 'd', execute, sideEffect: 'read-only' as never }),
      'invalid_side_effect',
      `tool "w": sideEffect must be 'none', 'idempotent' or 'external', got "read-only"`,
    );
  });
});

describe('tool({ retry })', () => {
  it('is refused for an external tool, saying why, and for a tool that does not say', () => {
    expectDefinitionError(
      () =>
        tool({
          name: 'charge',
          description: 'd',
          execute,
          sideEffect: 'external',
          retry: { maxAttempts: 3 },
        }),
      'retry_not_allowed',
      `tool "charge": retry is allowed only for sideEffect 'none' or 'idempotent', since a retry runs execute again; got sideEffect 'external'`,
    );
    expectDefinitionError(
      () => tool({ name: 'charge', description: 'd', execute, retry: { maxAttempts: 3 } }),
      'retry_not_allowed',
      `tool "charge": retry is allowed only for sideEffect 'none' or 'idempotent', since a retry runs execute again; got no sideEffect (which means 'external')`,
    );
  });

  it('checks its fields, with "did you mean" for the names other SDKs use', () => {
    expectDefinitionError(
      () => tool({ name: 'r', description: 'd', execute, sideEffect: 'none', retry: { maxAttempts: 0 } }),
      'invalid_retry',
      'tool "r": retry.maxAttempts must be a positive integer up to 100, got 0',
    );
    for (const [retry, message] of [
      [
        { initialDelayMs: 500, maxDelayMs: 100 },
        'retry.initialDelayMs (500) must not exceed retry.maxDelayMs (100)',
      ],
      [
        { initialDelayMs: 5_000 },
        'retry.initialDelayMs (5000) must not exceed retry.maxDelayMs (2000, the default)',
      ],
      [{ maxDelayMs: 50 }, 'retry.initialDelayMs (100, the default) must not exceed retry.maxDelayMs (50)'],
    ] as const) {
      expectDefinitionError(
        () =>
          tool({
            name: 'r',
            description: 'd',
            execute,
            sideEffect: 'none',
            retry: { maxAttempts: 2, ...retry },
          }),
        'invalid_retry',
        `tool "r": ${message}`,
      );
    }
    // Equal is a fixed ceiling: allowed.
    tool({
      name: 'r',
      description: 'd',
      execute,
      sideEffect: 'none',
      retry: { maxAttempts: 2, initialDelayMs: 2_000 },
    });
    expectDefinitionError(
      () =>
        tool({ name: 'r', description: 'd', execute, sideEffect: 'none', retry: { maxRetries: 2 } as never }),
      'unknown_option',
      'tool "r": unknown option "retry.maxRetries" (did you mean "retry.maxAttempts"?)',
    );
  });

  it.each([
    ['maxRetries', 'retry.maxAttempts'],
    ['attempts', 'retry.maxAttempts'],
    ['retries', 'retry.maxAttempts'],
    ['maxAttempts', 'retry.maxAttempts'],
    ['max_retries', 'retry.maxAttempts'],
    ['shouldRetry', 'retry.when'],
    ['retryIf', 'retry.when'],
    ['retryOn', 'retry.when'],
    ['maxDelayMs', 'retry.maxDelayMs'],
  ])('hints %s given beside retry instead of in it as "%s"', (key, hint) => {
    expectDefinitionError(
      () => tool({ name: 'r', description: 'd', execute, sideEffect: 'none', [key]: 2 } as never),
      'unknown_option',
      `tool "r": unknown option "${key}" (did you mean "${hint}"?)`,
    );
  });

  it.each([
    ['experimental_toToolResultContent', 'toModelOutput'], // the AI SDK 4
    ['strict_mode', 'strict'], // the OpenAI Agents SDK for Python
    ['strict_json_schema', 'strict'],
    ['name_override', 'name'],
    ['annotations', 'sideEffect'], // MCP
    ['readOnlyHint', 'sideEffect'],
    ['destructiveHint', 'sideEffect'],
    ['_meta', 'metadata'],
    ['requireApproval', 'needsApproval'], // Mastra
  ])("hints another SDK's top-level %s as %s", (key, hint) => {
    expectDefinitionError(
      () => tool({ name: 'r', description: 'd', execute, [key]: true } as never),
      'unknown_option',
      `tool "r": unknown option "${key}" (did you mean "${hint}"?)`,
    );
  });

  it('runs execute again until it succeeds, with ctx.attempt from 1 and the same idempotency key', async () => {
    const seen: Array<{ attempt: number; key: string; callId: string }> = [];
    const flaky = tool({
      name: 'lookup',
      description: 'd',
      sideEffect: 'none',
      retry: { maxAttempts: 3, initialDelayMs: 0 },
      execute: (_input, ctx) => {
        seen.push({ attempt: ctx.attempt, key: ctx.idempotencyKey('q'), callId: ctx.callId });
        if (ctx.attempt < 3) throw new Error(`flake ${ctx.attempt}`);
        return 'found';
      },
    });
    const result = await invokeTool(flaky, {}, { callId: 'c1' });
    expect(result).toMatchObject({ status: 'ok', output: 'found' });
    expect(seen).toEqual([1, 2, 3].map((attempt) => ({ attempt, key: 'toolwire:c1:q', callId: 'c1' })));
  });

  it('gives the model the last error when every attempt fails', async () => {
    let attempts = 0;
    const failing = tool({
      name: 'lookup',
      description: 'd',
      sideEffect: 'idempotent',
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: (_input, ctx) => {
        attempts += 1;
        throw new Error(`failure ${ctx.attempt}`);
      },
    });
    expect(await invokeTool(failing, {})).toMatchObject({
      status: 'error',
      output: 'Error running lookup: failure 2',
    });
    expect(attempts).toBe(2);
  });

  it('bounds each attempt by timeoutMs: a timed-out attempt is aborted alone and retried', async () => {
    const signals: AbortSignal[] = [];
    const slowFirst = tool({
      name: 'slow',
      description: 'd',
      sideEffect: 'none',
      timeoutMs: 20,
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: (_input, ctx) => {
        signals.push(ctx.signal);
        return ctx.attempt === 1 ? new Promise(() => {}) : 'second';
      },
    });
    expect(await invokeTool(slowFirst, {})).toMatchObject({ status: 'ok', output: 'second' });
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
    expect(signals[0]?.reason).toBeInstanceOf(TimeoutError);
    expect((signals[0]!.reason as Error).message).toBe('slow timed out after 20ms (attempt 1)');
  });

  it('ends with status timeout and the timeout text when the last attempt times out', async () => {
    const never = tool({
      name: 'slow',
      description: 'd',
      sideEffect: 'none',
      timeoutMs: 10,
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: () => new Promise(() => {}),
    });
    expect(await invokeTool(never, {})).toMatchObject({
      status: 'timeout',
      output: 'Error running slow: timed out after 10ms',
    });
  });

  it('retries only what retry.when accepts (a when that throws says no)', async () => {
    const runs: number[] = [];
    const picky = (when: (error: unknown) => boolean) =>
      tool({
        name: 'picky',
        description: 'd',
        sideEffect: 'none',
        retry: { maxAttempts: 3, initialDelayMs: 0, when },
        execute: (_input: unknown, ctx: ToolContext) => {
          runs.push(ctx.attempt);
          throw new Error(ctx.attempt === 1 ? 'busy' : 'bad request');
        },
      });
    const result = await invokeTool(
      picky((error) => (error as Error).message === 'busy'),
      {},
    );
    expect(result.output).toBe('Error running picky: bad request');
    expect(runs).toEqual([1, 2]);
    runs.length = 0;
    await invokeTool(
      picky(() => {
        throw new Error('oops');
      }),
      {},
    );
    expect(runs).toEqual([1]);
  });

  it('reads an answer of retry.when that is not a boolean as a condition, as needsApproval does', async () => {
    const runs: unknown[] = [];
    for (const answer of ['yes', 1, { retry: true }, Promise.resolve('yes'), undefined, 0, '', null]) {
      let attempts = 0;
      const loose = tool({
        name: 'loose',
        description: 'd',
        sideEffect: 'none',
        retry: { maxAttempts: 2, initialDelayMs: 0, when: () => answer as never },
        execute: () => {
          attempts += 1;
          throw new Error('flake');
        },
      });
      await invokeTool(loose, {});
      runs.push(attempts);
    }
    expect(runs).toEqual([2, 2, 2, 2, 1, 1, 1, 1]);
  });

  it('ends the backoff at once when the call is cancelled, running no further attempt', async () => {
    const controller = new AbortController();
    const runs: number[] = [];
    const slowRetry = tool({
      name: 'r',
      description: 'd',
      sideEffect: 'none',
      retry: { maxAttempts: 5, initialDelayMs: 2_147_483_647, maxDelayMs: 2_147_483_647 },
      execute: (_input, ctx) => {
        runs.push(ctx.attempt);
        queueMicrotask(() => controller.abort());
        throw new Error('flake');
      },
    });
    expect(await invokeTool(slowRetry, {}, { signal: controller.signal })).toMatchObject({
      status: 'cancelled',
    });
    expect(runs).toEqual([1]);
  });

  it('validates the arguments once, before the first attempt', async () => {
    let validations = 0;
    const counted = tool({
      name: 'c',
      description: 'd',
      sideEffect: 'none',
      parameters: z.object({ n: z.number().refine(() => ++validations > 0) }),
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: (_input, ctx) => {
        if (ctx.attempt === 1) throw new Error('once');
        return 'done';
      },
    });
    expect((await invokeTool(counted, { n: 1 })).output).toBe('done');
    expect(validations).toBe(1);
  });

  it('checks the output schema on the value of the attempt that returned, and does not retry a mismatch', async () => {
    const runs: number[] = [];
    const shaped = tool({
      name: 's',
      description: 'd',
      sideEffect: 'none',
      retry: { maxAttempts: 3, initialDelayMs: 0 },
      outputSchema: z.object({ n: z.number() }),
      execute: (_input, ctx) => {
        runs.push(ctx.attempt);
        if (ctx.attempt === 1) throw new Error('once');
        return { n: 'not a number' } as never;
      },
    });
    const result = await invokeTool(shaped, {});
    expect(result).toMatchObject({
      status: 'error',
      output:
        'Error running s: the result does not match the output schema: n: Invalid input: expected number, received string',
    });
    expect(runs).toEqual([1, 2]);
  });
});

describe('retry of a tool that yields preliminary results', () => {
  const retry = { maxAttempts: 3, initialDelayMs: 0 };

  it.each([
    ['an async generator', true],
    ['a generator', false],
  ])(
    '%s that throws before its first yield is retried; the attempt that yields goes on',
    async (_n, isAsync) => {
      const attempts: number[] = [];
      const preliminary: unknown[] = [];
      function* sync(ctx: ToolContext) {
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) throw new Error(`not yet (${ctx.attempt})`);
        yield { step: 1 };
        yield { step: 2 };
        return 'done';
      }
      async function* async(ctx: ToolContext) {
        yield* sync(ctx);
        return 'done';
      }
      const streaming = tool({
        name: 's',
        description: 'd',
        sideEffect: 'idempotent',
        retry,
        execute: (_input, ctx) => (isAsync ? async(ctx) : sync(ctx)),
      });
      const result = await invokeTool(streaming, {}, { onPreliminary: (p) => preliminary.push(p.value) });
      expect(attempts).toEqual([1, 2, 3]);
      expect(result).toMatchObject({ status: 'ok', output: 'done' });
      expect(preliminary).toEqual([{ step: 1 }, { step: 2 }]);
    },
  );

  it('is not retried once it has yielded (its preliminary results were sent): the call ends with the error', async () => {
    const attempts: number[] = [];
    const streaming = tool({
      name: 's',
      description: 'd',
      sideEffect: 'idempotent',
      retry,
      execute: async function* (_input, ctx) {
        attempts.push(ctx.attempt);
        yield 'partial';
        throw new Error('broke after a yield');
      },
    });
    const result = await invokeTool(streaming, {});
    expect(attempts).toEqual([1]);
    expect(result).toMatchObject({ status: 'error', output: 'Error running s: broke after a yield' });
  });
});
