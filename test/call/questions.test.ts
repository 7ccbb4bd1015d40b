import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import type { QuestionRequest } from '../../src/call/types';
import { QuestionError, ToolDefinitionError } from '../../src/errors';
import { invokeTool } from '../../src/index';
import { tool } from '../../src/tool/tool';

/** A tool that asks once and returns what it got, or the QuestionError's code and message. */
function asking(options: Record<string, unknown> = {}) {
  return tool({
    name: 'export',
    description: 'Exports somewhere.',
    execute: async (_input, ctx) => {
      try {
        const answer = await ctx.askQuestion('Which warehouse?', options as never);
        return { answer };
      } catch (error) {
        if (error instanceof QuestionError)
          return { code: error.code, message: error.message, reason: error.reason };
        throw error;
      }
    },
  });
}

describe('ctx.askQuestion()', () => {
  it('puts the question to onQuestion, with its choices, and resolves with the answer', async () => {
    const asked: QuestionRequest[] = [];
    const result = await invokeTool(
      asking({ choices: ['Berlin', 'Lyon'] }),
      {},
      {
        callId: 'c1',
        runId: 'r1',
        onQuestion: (request) => {
          asked.push(request);
          return { answer: 'Lyon' };
        },
      },
    );
    expect(result.value).toEqual({ answer: 'Lyon' });
    expect(asked).toMatchObject([
      {
        callId: 'c1',
        runId: 'r1',
        toolName: 'export',
        questionId: 'q1',
        question: 'Which warehouse?',
        choices: ['Berlin', 'Lyon'],
      },
    ]);
    expect(asked[0]?.signal.aborted).toBe(false);
  });

  it('numbers the questions of a call, and waits for an async answer', async () => {
    const ids: string[] = [];
    const twice = tool({
      name: 'twice',
      description: 'Asks twice.',
      execute: async (_input, ctx) => [await ctx.askQuestion('First?'), await ctx.askQuestion('Second?')],
    });
    const result = await invokeTool(
      twice,
      {},
      {
        onQuestion: async (request) => {
          ids.push(request.questionId);
          await new Promise((resolve) => setTimeout(resolve, 1));
          return { answer: request.question.toUpperCase() };
        },
      },
    );
    expect(result.value).toEqual(['FIRST?', 'SECOND?']);
    expect(ids).toEqual(['q1', 'q2']);
  });

  it('takes a bare string as the answer, as onApproval takes a bare true, and checks it the same way', async () => {
    const warehouse = asking({ choices: ['Berlin', 'Lyon'] });
    expect((await invokeTool(warehouse, {}, { onQuestion: () => 'Berlin' })).value).toEqual({
      answer: 'Berlin',
    });
    expect((await invokeTool(warehouse, {}, { onQuestion: async () => 'Lyon' })).value).toEqual({
      answer: 'Lyon',
    });
    expect((await invokeTool(warehouse, {}, { onQuestion: () => 'Paris' })).value).toEqual({
      code: 'invalid_answer',
      message: 'the answer "Paris" is not one of the choices: Berlin, Lyon',
      reason: undefined,
    });
    const copies = asking({ schema: z.coerce.number().int().min(1) });
    expect((await invokeTool(copies, {}, { onQuestion: () => '3' })).value).toEqual({ answer: 3 });
  });

  it('validates the answer against a Standard Schema, announces its JSON Schema, and resolves with its output', async () => {
    const asked: QuestionRequest[] = [];
    const copies = tool({
      name: 'copies',
      description: 'Asks a number.',
      execute: async (_input, ctx) => {
        const n = await ctx.askQuestion('How many copies?', { schema: z.coerce.number().int().min(1) });
        return n * 2;
      },
    });
    const ok = await invokeTool(
      copies,
      {},
      {
        onQuestion: (request) => {
          asked.push(request);
          return { answer: '3' };
        },
      },
    );
    expect(ok.output).toBe('6');
    expect(asked[0]?.schema).toMatchObject({ type: 'integer', minimum: 1 });
    const bad = await invokeTool(
      asking({ schema: { type: 'integer', minimum: 1 } }),
      {},
      {
        onQuestion: () => ({ answer: 0 }),
      },
    );
    expect(bad.value).toEqual({
      code: 'invalid_answer',
      message: 'the answer does not match the schema: (root): expected an integer >= 1, received 0',
      reason: undefined,
    });
  });

  it('rejects with a typed error the tool can handle: declined, not a choice, not a string, failed, unsupported', async () => {
    const cases: Array<[Record<string, unknown>, Parameters<typeof invokeTool>[2], unknown]> = [
      [
        {},
        { onQuestion: () => ({ declined: true, reason: 'not my call' }) },
        { code: 'declined', message: 'the user declined to answer: not my call', reason: 'not my call' },
      ],
      [
        { choices: ['Berlin'] },
        { onQuestion: () => ({ answer: 'Paris' }) },
        {
          code: 'invalid_answer',
          message: 'the answer "Paris" is not one of the choices: Berlin',
          reason: undefined,
        },
      ],
      [
        {},
        { onQuestion: () => ({ answer: 42 }) },
        { code: 'invalid_answer', message: 'the answer must be a string, got 42', reason: undefined },
      ],
      [
        {},
        {
          onQuestion: () => {
            throw new Error('terminal closed');
          },
        },
        { code: 'failed', message: 'the question could not be answered: terminal closed', reason: undefined },
      ],
      [
        {},
        { onQuestion: () => 42 as never },
        {
          code: 'failed',
          message: 'the question got 42, not a string, { answer } or { declined: true, reason? }',
          reason: undefined,
        },
      ],
      [
        {},
        {},
        {
          code: 'unsupported',
          message: 'nobody can answer: the client has no onQuestion and the service does not take questions',
          reason: undefined,
        },
      ],
    ];
    for (const [options, invokeOptions, expected] of cases) {
      const result = await invokeTool(asking(options), {}, invokeOptions);
      expect(result).toMatchObject({ status: 'ok' });
      expect(result.value).toEqual(expected);
    }
  });

  it('stops waiting on its own timeoutMs and when the call is cancelled, aborting the request signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      let request: QuestionRequest | undefined;
      const running = invokeTool(
        asking({ timeoutMs: 1_000 }),
        {},
        {
          onQuestion: (asked) => {
            request = asked;
            return new Promise(() => {});
          },
        },
      );
      await vi.advanceTimersByTimeAsync(1_000);
      expect((await running).value).toMatchObject({ code: 'timeout', message: 'no answer within 1000ms' });
      expect(request?.signal.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    const controller = new AbortController();
    let asked: QuestionRequest | undefined;
    const cancelled = tool({
      name: 'cancelled',
      description: 'Asks, then is cancelled.',
      execute: async (_input, ctx) => {
        const waiting = ctx.askQuestion('Still there?').catch((error: QuestionError) => error.code);
        controller.abort();
        return waiting;
      },
    });
    const result = await invokeTool(
      cancelled,
      {},
      {
        signal: controller.signal,
        onQuestion: (request) => {
          asked = request;
          return new Promise(() => {});
        },
      },
    );
    expect(result.status).toBe('cancelled');
    expect(asked?.signal.aborted).toBe(true);
  });

  it('refuses a malformed question with a usage error', async () => {
    const errors: unknown[] = [];
    const bad = tool({
      name: 'bad',
      description: 'Asks badly.',
      execute: async (_input, ctx) => {
        for (const [question, options] of [
          ['', {}],
          ['Which?', { choices: [] }],
          ['Which?', { choices: ['x'.repeat(201)] }],
          ['Which?', { choices: ['Berlin', 'Lyon', 'Berlin'] }],
          ['Which?', { timeoutMs: 0 }],
          ['Which?', { schema: 42 }],
          ['Which?', { timeout: 5_000 }],
          ['Which?', { options: ['a', 'b'] }],
        ] as const) {
          await ctx.askQuestion(question, options as never).catch((error) => errors.push(error));
        }
        return '';
      },
    });
    await invokeTool(bad, {}, { onQuestion: () => ({ answer: 'x' }) });
    expect(
      errors.every((error) => error instanceof ToolDefinitionError && error.code === 'invalid_question'),
    ).toBe(true);
    expect(errors.map((error) => (error as Error).message)).toEqual([
      'ctx.askQuestion(): question must be a non-empty string of at most 4000 characters, got ""',
      'ctx.askQuestion(): choices must be an array of 1 to 50 strings, got an array',
      `ctx.askQuestion(): each choice must be a string of 1 to 200 characters, got "${'x'.repeat(40)}"`,
      'ctx.askQuestion(): choices must differ, got "Berlin" twice',
      'ctx.askQuestion(): timeoutMs must be a positive integer of milliseconds, got 0',
      'ctx.askQuestion(): schema must be a Standard Schema (zod, valibot, arktype, …), a JSON Schema object or undefined, got a number',
      'ctx.askQuestion(): unknown option "timeout" (did you mean "timeoutMs"?)',
      'ctx.askQuestion(): unknown option "options" (did you mean "choices"?)',
    ]);
  });
});

describe('a question refused before it is asked', () => {
  it('redacts a secret its message would quote', async () => {
    const caught: string[] = [];
    const secret = 'hunter22-secret';
    const asking = tool({
      name: 'asking',
      description: 'd',
      parameters: z.object({ password: z.string() }),
      sensitiveFieldNames: ['password'],
      execute: async ({ password }, ctx) => {
        try {
          await ctx.askQuestion('Which?', { choices: [password, password] });
        } catch (error) {
          caught.push(`${(error as Error).message} | ${String((error as Error).stack)}`);
        }
        return 'done';
      },
    });
    await invokeTool(asking, { password: secret }, { onQuestion: () => 'x' });
    expect(caught).toHaveLength(1);
    expect(caught[0]).toContain('choices must differ, got "[redacted]" twice');
    expect(caught[0]).not.toContain(secret);
  });
});
