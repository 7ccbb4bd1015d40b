/**
 * `readsPastFirstArgument` (src/tool/function-source.ts): a tool's `execute` that cannot read a second argument
 * gets no `ctx` made for it; any way a function could reach one keeps it.
 */
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/call/invoke';
import { readsPastFirstArgument } from '../../src/tool/function-source';
import { type ToolContext, tool } from '../../src/tool/tool';

/** A method name given as a computed key. */
const RUN = 'run';

describe('readsPastFirstArgument', () => {
  it('says false for a function of at most one parameter that names neither arguments nor eval', () => {
    const cannot: unknown[] = [
      () => 1,
      (input: unknown) => input,
      ({ a, b }: { a: number; b: number }) => a + b,
      ({ a = 1, ...rest }: { a?: number }) => [a, rest],
      async (input: unknown) => input,
      function named(input: unknown) {
        return input;
      },
      function* yields(input: unknown) {
        yield input;
      },
      {
        execute(input: unknown) {
          return input;
        },
      }.execute,
      (input = 'a, b') => input,
    ];
    expect(cannot.map((fn) => readsPastFirstArgument(fn))).toEqual(cannot.map(() => false));
  });

  it('says true for a second parameter, a rest parameter, arguments, eval, or a source it cannot read', () => {
    const may: unknown[] = [
      (_input: unknown, ctx: unknown) => ctx,
      (...args: unknown[]) => args[1],
      function legacy(this: unknown, input: unknown) {
        // biome-ignore lint/complexity/noArguments: the case under test.
        return [input, arguments[1]];
      },
      // biome-ignore lint/security/noGlobalEval: the case under test.
      (_input: unknown) => eval('1'),
      ((input: unknown, ctx: unknown) => [input, ctx]).bind(null),
      class {},
      {
        [RUN](input: unknown, ctx: unknown) {
          return [input, ctx];
        },
      }[RUN],
      'not a function',
    ];
    expect(may.map((fn) => readsPastFirstArgument(fn))).toEqual(may.map(() => true));
  });
});

describe('a tool whose execute takes no ctx', () => {
  it('runs without one, and its other callbacks still get the ctx of the call', async () => {
    const seen: unknown[] = [];
    const plain = tool({
      name: 'plain',
      description: 'd',
      execute: (input: unknown) => {
        seen.push(input);
        throw new Error('down');
      },
      errorFunction: (ctx: ToolContext, error: unknown) =>
        `${ctx.callId} ${ctx.toolName} ${(error as Error).message}`,
    });
    const result = await invokeTool(plain, {}, { callId: 'c1', runId: 'r1' });
    expect(result).toMatchObject({ status: 'error', output: 'c1 plain down' });
    expect(seen).toEqual([{}]);
  });

  it('still hands a ctx to an execute that reads it through arguments', async () => {
    const legacy = tool({
      name: 'legacy',
      description: 'd',
      execute: function (this: unknown, _input: unknown) {
        // biome-ignore lint/complexity/noArguments: the case under test.
        return (arguments[1] as ToolContext).callId;
      },
    });
    expect(await invokeTool(legacy, {}, { callId: 'c2' })).toMatchObject({ status: 'ok', output: 'c2' });
  });
});
