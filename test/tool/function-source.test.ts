/**
 * `readsPastFirstArgument` (src/tool/function-source.ts): a tool's `execute` that cannot read a second argument
 * gets no `ctx` made for it; any way a function could reach one keeps it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { invokeTool } from '../../src/call/invoke';
import { parameterList, readsPastFirstArgument } from '../../src/tool/function-source';
import { approvalOrder } from '../../src/tool/shapes';
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

/**
 * A strict-mode function of exactly `source` (a test file's own functions lose their comments to the transform):
 * strict, as a module's or a class's code is, so only its source decides.
 */
function strictFunction(source: string): unknown {
  return new Function(`"use strict"; return (${source});`)();
}

describe('readsPastFirstArgument on sources that hide a second parameter from a simple scan', () => {
  it('says true where a comment, string key, computed key, regex, template or escape hides it', () => {
    const sources = [
      // a `(` in a comment or a key before the parameters
      'function /* (x) */ named(input, ctx) { return ctx; }',
      '({ execute /* (x) */ (input, ctx) { return ctx; } }).execute',
      "({ 'a(b)'(input, ctx) { return ctx; } })['a(b)']",
      "({ async ['a(b)'](input, ctx) { return ctx; } })['a(b)']",
      "({ *[String('y')](input, ctx) { yield ctx; } }).y",
      // a quote or bracket in a comment inside the parameters
      "(\n  // the user's input\n  input,\n  ctx,\n) => ctx",
      "(input /* don't */, ctx) => ctx",
      '(input /* (see docs */, ctx) => ctx',
      // a `)` or quote in a regular expression or template literal default
      '(input = /[)]/, ctx) => ctx',
      "(input = /'/, ctx = /'/) => ctx",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source under test holds a template literal.
      '(input = `${`)`}`, ctx) => ctx',
      // `arguments` spelt with an escape
      'function (input) { return \\u0061rguments[1]; }',
    ];
    expect(sources.map((source) => readsPastFirstArgument(strictFunction(source)))).toEqual(
      sources.map(() => true),
    );
  });

  it("says true where a script's HTML-like comment hides a ) before a second parameter", () => {
    // A sloppy script's source (a `new Function` body): `<!--` and a line's leading `-->` begin comments there.
    const opening = new Function('return (input <!-- )\n, ctx) => ctx;')() as (
      input: unknown,
      ctx: unknown,
    ) => unknown;
    const closing = new Function('return (input\n--> )\n, ctx) => ctx;')() as (
      input: unknown,
      ctx: unknown,
    ) => unknown;
    expect([opening({}, 'the ctx'), closing({}, 'the ctx')]).toEqual(['the ctx', 'the ctx']);
    expect([readsPastFirstArgument(opening), readsPastFirstArgument(closing)]).toEqual([true, true]);
  });

  it('says false for plain one-parameter sources, unicode names included', () => {
    const sources = [
      'ü => ü',
      '(ü) => ü',
      'async (input) => input',
      'async function* g(input) { yield input; }',
      '({ async *m(input) { yield input; } }).m',
      '(class { static run(input) { return input; } }).run',
      "(input = 'a, b') => input",
      '(input,) => input',
      'async => async',
    ];
    expect(sources.map((source) => readsPastFirstArgument(strictFunction(source)))).toEqual(
      sources.map(() => false),
    );
  });

  it('says true for a sloppy-mode function, whose arguments another function can read as fn.arguments', () => {
    const sloppy = new Function('input', 'return input;');
    const execute = new Function('helper', 'return function execute(input) { return helper(execute); };')(
      (fn: { arguments: unknown[] }) => fn.arguments[1],
    ) as (input: unknown, ctx: unknown) => unknown;
    expect(execute({}, 'the ctx')).toBe('the ctx');
    expect([readsPastFirstArgument(sloppy), readsPastFirstArgument(execute)]).toEqual([true, true]);
  });

  it('says true for a one-parameter arrow whose arguments property no longer throws when read', () => {
    const unchained = (input: unknown) => input;
    Object.setPrototypeOf(unchained, null);
    const own = (input: unknown) => input;
    Object.defineProperty(own, 'arguments', { get: () => [] });
    const plain = (input: unknown) => input;
    expect([unchained, own, plain].map(readsPastFirstArgument)).toEqual([true, true, false]);
  });

  it('hands the ctx to an execute whose second parameter follows a comment', async () => {
    const commented = tool({
      name: 'commented',
      description: 'd',
      execute: strictFunction("(input /* the user's */, ctx) => ctx.callId") as (input: unknown) => string,
    });
    expect(await invokeTool(commented, {}, { callId: 'c3' })).toMatchObject({ status: 'ok', output: 'c3' });
  });
});

describe('parameterList past comments and method keys', () => {
  it('reads the parameters, not a ( in a comment, a string key or a computed key', () => {
    const sources = [
      'function /* (input) */ check(ctx, input) { return 1; }',
      "async ['x(y)'](ctx, input) {}",
      "*[key('z')](ctx, input) {}",
      '"a(b)"(ctx, input) {}',
      "(ctx /* the call's */, input) => 1",
      "(\n  // why (it's)\n  ctx,\n  input,\n) => 1",
    ];
    expect(sources.map(parameterList)).toEqual(sources.map(() => ['ctx', 'input']));
  });

  it("orders a commented needsApproval's arguments as toolwire's (ctx, input)", () => {
    const commented = strictFunction(
      'function /* (input) */ check(ctx, input) { return input.amount > 100; }',
    );
    expect(approvalOrder(commented)).toBe('toolwire');
  });
});

describe('a tool whose execute takes no ctx', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

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

  it('tells errorFunction ctx.approved of an approved call', async () => {
    const gated = tool({
      name: 'gated',
      description: 'd',
      needsApproval: true,
      execute: (_input: unknown) => {
        throw new Error('down');
      },
      errorFunction: (ctx: ToolContext, error: unknown) =>
        `${ctx.approved} ${ctx.signal.aborted} ${(error as Error).message}`,
    });
    const asked = await invokeTool(gated, {}, { callId: 'a1', approve: () => true });
    const given = await invokeTool(gated, {}, { callId: 'a2', approved: true });
    expect([asked.output, given.output]).toEqual(['true false down', 'true false down']);
  });

  it('tells errorFunction of a timeout through a ctx.signal made after it fired', async () => {
    vi.useFakeTimers();
    const slow = tool({
      name: 'slow',
      description: 'd',
      timeoutMs: 20,
      execute: (_input: unknown) => new Promise(() => {}),
      errorFunction: (ctx: ToolContext) => `${ctx.signal.aborted} ${(ctx.signal.reason as Error).name}`,
    });
    const result = invokeTool(slow, {}, { callId: 't1' });
    await vi.advanceTimersByTimeAsync(20);
    expect(await result).toMatchObject({ status: 'timeout', output: 'true TimeoutError' });
  });

  it("leaves a ctx.signal first read after the call ended unaborted by the caller's later abort", async () => {
    const caller = new AbortController();
    let kept: ToolContext | undefined;
    const failing = tool({
      name: 'failing',
      description: 'd',
      execute: (_input: unknown) => {
        throw new Error('down');
      },
      errorFunction: (ctx: ToolContext) => {
        kept = ctx;
        return 'kept';
      },
    });
    const result = await invokeTool(failing, {}, { callId: 'k1', signal: caller.signal });
    caller.abort();
    expect([result.status, result.output, kept?.signal.aborted]).toEqual(['error', 'kept', false]);
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
