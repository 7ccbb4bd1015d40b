import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { invokeTool } from '../../src/call/invoke';
import { startCall } from '../../src/call/pipeline';
import type { ToolCallResult } from '../../src/call/types';
import { OptionsError, TimeoutError, ToolDefinitionError } from '../../src/errors';
import { type ToolContext, tool } from '../../src/tool/tool';
import { TOOL_CALL_STATUSES } from '../../src/wire/protocol';
import { unknownOptionMessage } from '../support/known-options';
import { recordingLogger } from '../support/recording-logger';

const echo = tool({
  name: 'echo',
  description: 'Returns its input.',
  parameters: z.object({ text: z.string().optional() }),
  execute: (input) => input,
});
const needsText = tool({
  name: 'needs_text',
  description: 'Requires text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const returning = (value: unknown) => tool({ name: 'result', description: 'd', execute: () => value });
const throwing = (thrown: unknown) =>
  tool({
    name: 'charge',
    description: 'd',
    execute: () => {
      throw thrown;
    },
  });
const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('argument decoding', () => {
  it.each([
    ['an empty string', ''],
    ['whitespace', ' \n\t '],
    ['null', null],
    ['absent', undefined],
    ['the JSON text null', 'null'],
  ])('treats %s as {} and then validates it', async (_, raw) => {
    expect(await invokeTool(echo, raw)).toMatchObject({ status: 'ok', output: '{}', value: {} });
    expect(await invokeTool(needsText, raw)).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for needs_text: text: expected a string, received nothing',
    });
  });

  it('parses a JSON string', async () => {
    expect(await invokeTool(echo, '{"text":"hi"}')).toMatchObject({ status: 'ok', output: '{"text":"hi"}' });
  });

  it('unwraps a double-encoded JSON object once', async () => {
    const twice = JSON.stringify(JSON.stringify({ text: 'hi' }));
    expect(await invokeTool(echo, twice)).toMatchObject({ status: 'ok', output: '{"text":"hi"}' });
  });

  it('does not unwrap a triple-encoded object', async () => {
    const thrice = JSON.stringify(JSON.stringify(JSON.stringify({ text: 'hi' })));
    expect(await invokeTool(echo, thrice)).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for echo: expected a JSON object, got string',
    });
  });

  it.each([
    ['[]', 'array'],
    ['[{"text":"hi"}]', 'array'],
    ['42', 'number'],
    ['true', 'boolean'],
    ['"just text"', 'string'],
    [[{ text: 'hi' }], 'array'],
    [7, 'number'],
  ])('refuses %j, saying an object is required', async (raw, type) => {
    expect(await invokeTool(echo, raw)).toMatchObject({
      status: 'invalid_arguments',
      output: `Invalid arguments for echo: expected a JSON object, got ${type}`,
    });
  });

  it('refuses text that is not JSON, saying where, running neither needsApproval nor execute', async () => {
    const needsApproval = vi.fn(() => false);
    const execute = vi.fn(() => 'ran');
    const guarded = tool({ name: 'guarded', description: 'd', needsApproval, execute });
    expect(await invokeTool(guarded, '{text: hi}')).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for guarded: the arguments are not valid JSON (invalid syntax at position 1)',
    });
    expect(needsApproval).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  });

  it('does not run execute when validation fails', async () => {
    const execute = vi.fn(() => 'ran');
    const strict = tool({
      name: 'strict',
      description: 'd',
      parameters: z.object({ n: z.number() }),
      execute,
    });
    expect(await invokeTool(strict, { n: 'x' })).toEqual({
      status: 'invalid_arguments',
      output: 'Invalid arguments for strict: n: expected a number, received "x"',
      durationMs: expect.any(Number),
    });
    expect(execute).not.toHaveBeenCalled();
  });
});

describe('results', () => {
  it('gives the model a returned string unchanged, the empty string included', async () => {
    expect(await invokeTool(returning('Order 42 shipped.'), {})).toMatchObject({
      status: 'ok',
      output: 'Order 42 shipped.',
    });
    expect(await invokeTool(returning(''), {})).toMatchObject({ status: 'ok', output: '', value: '' });
  });

  it('gives the model U+FFFD for a lone surrogate wherever it is: a string, JSON, an error message', async () => {
    const half = 'x😀'.slice(0, 2);
    const outputs = await Promise.all(
      [half, { name: half }, new Map([[half, half]])].map(
        async (value) => (await invokeTool(returning(value), {})).output,
      ),
    );
    expect(outputs).toEqual(['x\uFFFD', '{"name":"x\uFFFD"}', '{"x\uFFFD":"x\uFFFD"}']);
    const thrower = tool({
      name: 'thrower',
      description: 'Throws.',
      execute: () => {
        throw { code: half, message: undefined };
      },
    });
    expect((await invokeTool(thrower, {})).output).toBe('Error running thrower: {"code":"x\uFFFD"}');
    const failing = tool({
      name: 'failing',
      description: 'Throws.',
      execute: () => {
        throw new Error(`no ${half}`);
      },
    });
    expect((await invokeTool(failing, {})).output).toBe('Error running failing: no x\uFFFD');
  });

  it.each([
    ['an object', { id: 1, tags: ['a'] }, '{"id":1,"tags":["a"]}'],
    ['undefined', undefined, 'null'],
    ['a BigInt', 9007199254740993n, '"9007199254740993"'],
    ['a Map and a Set', { m: new Map([['k', 1]]), s: new Set([1, 2]) }, '{"m":{"k":1},"s":[1,2]}'],
    ['an Error', new Error('nope'), '{"name":"Error","message":"nope"}'],
  ])('gives the model compact JSON for %s', async (_, value, output) => {
    expect(await invokeTool(returning(value), {})).toMatchObject({ status: 'ok', output });
  });

  it('writes a true cycle as "[Circular]" and a shared object in full', async () => {
    const shared = { id: 1 };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    cyclic.self = cyclic;
    expect((await invokeTool(returning(cyclic), {})).output).toBe(
      '{"a":{"id":1},"b":{"id":1},"self":"[Circular]"}',
    );
  });

  it('reads a Proxy whose get trap throws as a getter that throws: each property "[Unreadable: …]"', async () => {
    const guarded = () =>
      new Proxy(
        { id: 7, owner: 'ana' },
        {
          get(): never {
            throw new Error('no access');
          },
        },
      );
    expect(await invokeTool(returning({ order: guarded(), total: 84 }), {})).toMatchObject({
      status: 'ok',
      output: '{"order":{"id":"[Unreadable: no access]","owner":"[Unreadable: no access]"},"total":84}',
    });
    // Returned as the result itself, its `then` is read to tell a promise, as `await` reads it: that read throws,
    // and the call fails with the trap's message, whether `execute` is async or not (docs/guide/model-output.md).
    const later = tool({ name: 'later', description: 'd', execute: async () => guarded() });
    for (const made of [returning(guarded()), later]) {
      expect(await invokeTool(made, {})).toMatchObject({
        status: 'error',
        output: `Error running ${made.name}: no access`,
      });
    }
  });

  it('gives a preliminary result of a yielded Proxy whose get trap throws, each property "[Unreadable: …]"', async () => {
    const yielding = tool({
      name: 'yielding',
      description: 'd',
      *execute() {
        yield new Proxy(
          { step: 1 },
          {
            get(): never {
              throw new Error('no access');
            },
          },
        );
        return 'done';
      },
    });
    const preliminary: string[] = [];
    const result = await invokeTool(
      yielding,
      {},
      { onPreliminary: (update) => preliminary.push(update.output) },
    );
    expect(result).toMatchObject({ status: 'ok', output: 'done' });
    expect(preliminary).toEqual(['{"step":"[Unreadable: no access]"}']);
  });

  it('awaits an async execute', async () => {
    const later = tool({ name: 'later', description: 'd', execute: async () => ({ done: true }) });
    expect(await invokeTool(later, {})).toMatchObject({
      status: 'ok',
      output: '{"done":true}',
      value: { done: true },
    });
  });

  it('reports a whole-millisecond durationMs', async () => {
    const result = await invokeTool(returning('x'), {});
    expect(Number.isInteger(result.durationMs) && result.durationMs >= 0).toBe(true);
  });
});

describe('widgets', () => {
  const widget = { type: 'Badge', label: 'shipped', color: 'success' } as const;

  it('splits a valid widget off: the UI gets it, the model reads the rest', async () => {
    const show = returning({ status: 'shipped', widget });
    expect(await invokeTool(show, {})).toEqual({
      status: 'ok',
      output: '{"status":"shipped"}',
      widget,
      value: { status: 'shipped', widget },
      durationMs: expect.any(Number),
    });
  });

  it('drops an invalid widget, reports its path, and still gives the model its data', async () => {
    const onWidgetInvalid = vi.fn();
    const show = returning({
      status: 'shipped',
      widget: { type: 'Card', children: [{ type: 'Badge', label: 7 }] },
    });
    const result = await invokeTool(show, {}, { callId: 'call-1', onWidgetInvalid });
    expect(result).toMatchObject({ status: 'ok', output: '{"status":"shipped"}' });
    expect(result).not.toHaveProperty('widget');
    expect(onWidgetInvalid).toHaveBeenCalledWith({
      toolName: 'result',
      callId: 'call-1',
      path: 'children[0].label',
      message: 'expected string',
    });
  });

  it('logs a dropped widget with console.warn when nobody listens', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await invokeTool(returning({ widget: { type: 'Nope' } }), {}, { callId: 'call-2' });
    expect(warn).toHaveBeenCalledWith(
      'toolwire: dropped the invalid widget of result (call call-2): type: expected one of "Card", "Text", "Badge", "Table", "Chart", "List", "Image"',
    );
  });

  it('logs a dropped widget at warn to its logger when one is given, not to the console', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { logger, lines } = recordingLogger();
    await invokeTool(returning({ widget: { type: 'Badge', label: 7 } }), {}, { callId: 'call-3', logger });
    expect(lines).toEqual([
      {
        level: 'warn',
        object: { toolName: 'result', callId: 'call-3', path: 'label' },
        message: 'dropped the invalid widget of result (call call-3): label: expected string',
      },
    ]);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('keeps the result when the widget listener throws', async () => {
    const result = await invokeTool(
      returning({ n: 1, widget: 'bad' }),
      {},
      {
        onWidgetInvalid: () => {
          throw new Error('listener broke');
        },
      },
    );
    expect(result).toMatchObject({ status: 'ok', output: '{"n":1}' });
  });

  it('drops a Card that contains itself, reporting the path, and still gives the model its data', async () => {
    const onWidgetInvalid = vi.fn();
    const card: Record<string, unknown> = { type: 'Card' };
    card.children = [card];
    const result = await invokeTool(
      returning({ orderId: 42, widget: card }),
      {},
      { callId: 'c', onWidgetInvalid },
    );
    expect(result).toMatchObject({ status: 'ok', output: '{"orderId":42}' });
    expect(result).not.toHaveProperty('widget');
    expect(onWidgetInvalid).toHaveBeenCalledWith({
      toolName: 'result',
      callId: 'c',
      path: 'children[0]',
      message: 'refers back to an enclosing object (a cycle)',
    });
  });

  it('drops a Card nested 5,000 deep and still gives the model its data', async () => {
    let widget: unknown = { type: 'Text', value: 'x' };
    for (let i = 0; i < 5_000; i++) widget = { type: 'Card', children: [widget] };
    const onWidgetInvalid = vi.fn();
    const result = await invokeTool(returning({ orderId: 42, widget }), {}, { onWidgetInvalid });
    expect(result).toMatchObject({ status: 'ok', output: '{"orderId":42}' });
    expect(onWidgetInvalid).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'is nested more than 32 levels deep' }),
    );
  });

  it('drops a widget whose getter throws and still gives the model its data', async () => {
    const widget = {
      type: 'Badge',
      get label(): string {
        throw new Error('gone');
      },
    };
    const onWidgetInvalid = vi.fn();
    const result = await invokeTool(returning({ orderId: 42, widget }), {}, { onWidgetInvalid });
    expect(result).toMatchObject({ status: 'ok', output: '{"orderId":42}' });
    expect(onWidgetInvalid).toHaveBeenCalledWith(
      expect.objectContaining({ path: 'label', message: 'could not be read: gone' }),
    );
  });

  it('drops a widget whose own getter throws, keeping the data and its getters as they serialise', async () => {
    const value = {
      orderId: 42,
      get total(): number {
        return this.orderId * 2;
      },
      audit: {
        get trail(): string {
          throw new Error('no access');
        },
      },
      get widget(): unknown {
        throw new Error('widget store down');
      },
    };
    const onWidgetInvalid = vi.fn();
    const result = await invokeTool(returning(value), {}, { onWidgetInvalid });
    expect(result).toMatchObject({
      status: 'ok',
      output: '{"orderId":42,"total":84,"audit":{"trail":"[Unreadable: no access]"}}',
    });
    expect(onWidgetInvalid).toHaveBeenCalledWith(
      expect.objectContaining({ path: '(root)', message: 'could not be read: widget store down' }),
    );
  });

  it('reads a toJSON() that throws as "[Unserializable Object: <message>]", status ok (docs/guide/model-output.md)', async () => {
    const broken = {
      toJSON(): never {
        throw new Error('boom');
      },
    };
    expect(await invokeTool(returning(broken), {})).toMatchObject({
      status: 'ok',
      output: '"[Unserializable Object: boom]"',
    });
    expect(await invokeTool(returning({ id: 1, broken }), {})).toMatchObject({
      status: 'ok',
      output: '{"id":1,"broken":"[Unserializable Object: boom]"}',
    });
  });

  it('only splits a plain object: an array or a class instance with a widget field is data', async () => {
    class Row {
      widget = 'not a widget';
    }
    expect((await invokeTool(returning([{ widget }]), {})).output).toBe(
      `[{"widget":${JSON.stringify(widget)}}]`,
    );
    expect((await invokeTool(returning(new Row()), {})).output).toBe('{"widget":"not a widget"}');
  });
});

describe('when execute throws', () => {
  it.each([
    ['an Error', new Error('Card declined'), 'Card declined'],
    ['a string', 'out of stock', 'out of stock'],
    ['an object with a message', { code: 'E1', message: 'Quota exceeded' }, 'Quota exceeded'],
    ['an object without one', { code: 'E1' }, '{"code":"E1"}'],
    ['an Error with an empty message', new RangeError(''), 'RangeError'],
    ['undefined', undefined, 'the tool threw undefined'],
    ['null', null, 'the tool threw null'],
    ['a symbol', Symbol('card'), 'the tool threw a symbol: card'],
    ['an empty string', '', 'the tool threw an empty string'],
  ])('gives "Error running <name>: <message>" for %s', async (_, thrown, message) => {
    expect(await invokeTool(throwing(thrown), {})).toEqual({
      status: 'error',
      output: `Error running charge: ${message}`,
      error: thrown,
      durationMs: expect.any(Number),
    });
  });

  it('treats a rejected promise like a throw', async () => {
    const failing = tool({
      name: 'charge',
      description: 'd',
      execute: async () => Promise.reject(new Error('late')),
    });
    expect(await invokeTool(failing, {})).toMatchObject({
      status: 'error',
      output: 'Error running charge: late',
    });
  });

  it('uses errorFunction’s text verbatim, called as (ctx, error)', async () => {
    const errorFunction = vi.fn(
      (ctx: ToolContext, error: unknown) =>
        `${ctx.toolName} failed: ${(error as Error).message}. Ask for another card.`,
    );
    const charge = tool({
      name: 'charge_card',
      description: 'd',
      execute: () => {
        throw new Error('declined');
      },
      errorFunction,
    });
    expect(await invokeTool(charge, {}, { callId: 'c9' })).toMatchObject({
      status: 'error',
      output: 'charge_card failed: declined. Ask for another card.',
    });
    expect(errorFunction.mock.calls[0]?.[0]).toMatchObject({ callId: 'c9', toolName: 'charge_card' });
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an object', { text: 'x' }],
  ])(
    'falls back to the default text when errorFunction returns %s instead of a string',
    async (_, returned) => {
      const charge = tool({
        name: 'charge_card',
        description: 'd',
        execute: () => {
          throw new Error('declined');
        },
        errorFunction: () => returned as never,
      });
      expect(await invokeTool(charge, {})).toMatchObject({
        status: 'error',
        output: 'Error running charge_card: declined',
      });
    },
  );

  it('falls back to the default text when errorFunction throws', async () => {
    const charge = tool({
      name: 'charge_card',
      description: 'd',
      execute: () => {
        throw new Error('declined');
      },
      errorFunction: async () => {
        throw new Error('formatter broke');
      },
    });
    expect(await invokeTool(charge, {})).toMatchObject({
      status: 'error',
      output: 'Error running charge_card: declined',
    });
  });
});

describe('timeoutMs', () => {
  it('aborts ctx.signal, gives status timeout and the timeout text', async () => {
    let signal: AbortSignal | undefined;
    const slow = tool({
      name: 'slow',
      description: 'd',
      timeoutMs: 20,
      execute: (_input, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
    });
    expect(await invokeTool(slow, {})).toMatchObject({
      status: 'timeout',
      output: 'Error running slow: timed out after 20ms',
    });
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(TimeoutError);
    expect(signal?.reason).toMatchObject({ code: 'timeout', message: 'slow timed out after 20ms' });
  });

  it('passes the TimeoutError to errorFunction and uses its text, keeping status timeout', async () => {
    const slow = tool({
      name: 'slow',
      description: 'd',
      timeoutMs: 10,
      execute: () => new Promise(() => {}),
      errorFunction: (_ctx, error) =>
        error instanceof TimeoutError ? 'The warehouse is slow today; try later.' : 'other',
    });
    expect(await invokeTool(slow, {})).toMatchObject({
      status: 'timeout',
      output: 'The warehouse is slow today; try later.',
    });
  });

  it('drops the late result of the abandoned execution', async () => {
    const late = deferred<string>();
    const slow = tool({ name: 'slow', description: 'd', timeoutMs: 10, execute: () => late.promise });
    const result = await invokeTool(slow, {});
    late.resolve('too late');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(result).toEqual({
      status: 'timeout',
      output: 'Error running slow: timed out after 10ms',
      error: expect.any(TimeoutError),
      durationMs: expect.any(Number),
    });
  });

  it('lets a late rejection pass without an unhandled rejection', async () => {
    const late = deferred<string>();
    const slow = tool({ name: 'slow', description: 'd', timeoutMs: 10, execute: () => late.promise });
    const result = await invokeTool(slow, {});
    late.reject(new Error('rejected after the timeout'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(result.status).toBe('timeout');
  });

  it('uses options.timeoutMs over the tool’s', async () => {
    const slow = tool({
      name: 'slow',
      description: 'd',
      timeoutMs: 60_000,
      execute: () => new Promise(() => {}),
    });
    expect((await invokeTool(slow, {}, { timeoutMs: 15 })).output).toBe(
      'Error running slow: timed out after 15ms',
    );
  });
});

describe('cancellation through options.signal', () => {
  it('aborts ctx.signal and gives status cancelled', async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const started = deferred<void>();
    const waits = tool({
      name: 'waits',
      description: 'd',
      execute: (_input, ctx) => {
        signal = ctx.signal;
        started.resolve();
        return new Promise(() => {});
      },
    });
    const pending = invokeTool(waits, {}, { signal: controller.signal });
    await started.promise;
    controller.abort();
    expect(await pending).toEqual({
      status: 'cancelled',
      output: 'Error running waits: the call was cancelled',
      durationMs: expect.any(Number),
    });
    expect(signal?.aborted).toBe(true);
  });

  it('runs nothing when the signal is already aborted', async () => {
    const execute = vi.fn(() => 'ran');
    const t = tool({ name: 't', description: 'd', execute });
    const result = await invokeTool(t, {}, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ status: 'cancelled', output: 'Error running t: the call was cancelled' });
    expect(execute).not.toHaveBeenCalled();
  });

  it('keeps a tool that never resolves and has no timeout pending until the signal aborts', async () => {
    const controller = new AbortController();
    const forever = tool({ name: 'forever', description: 'd', execute: () => new Promise(() => {}) });
    let settled: ToolCallResult | undefined;
    const pending = invokeTool(forever, {}, { signal: controller.signal }).then((result) => {
      settled = result;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(settled).toBeUndefined();
    controller.abort();
    expect((await pending).status).toBe('cancelled');
  });

  it('does not run errorFunction for a cancelled call', async () => {
    const errorFunction = vi.fn(() => 'x');
    const controller = new AbortController();
    const t = tool({ name: 't', description: 'd', errorFunction, execute: () => new Promise(() => {}) });
    const pending = invokeTool(t, {}, { signal: controller.signal });
    controller.abort();
    expect((await pending).status).toBe('cancelled');
    expect(errorFunction).not.toHaveBeenCalled();
  });
});

describe('outputSchema', () => {
  it('gives an error result naming the path when the result does not match', async () => {
    const t = tool({
      name: 'refund',
      description: 'd',
      outputSchema: z.object({ refundId: z.string(), status: z.literal('succeeded') }),
      execute: () => ({ refundId: 7, status: 'succeeded' }),
    });
    expect(await invokeTool(t, {})).toEqual({
      status: 'error',
      output:
        'Error running refund: the result does not match the output schema: refundId: Invalid input: expected string, received number',
      durationMs: expect.any(Number),
    });
  });

  it('passes a matching result, as parsed by the schema', async () => {
    const t = tool({
      name: 'refund',
      description: 'd',
      outputSchema: z.object({ refundId: z.string(), note: z.string().default('none') }),
      execute: () => ({ refundId: 're_1' }),
    });
    expect(await invokeTool(t, {})).toMatchObject({
      status: 'ok',
      output: '{"refundId":"re_1","note":"none"}',
    });
  });

  it('accepts a JSON Schema as outputSchema', async () => {
    const t = tool({
      name: 'count',
      description: 'd',
      outputSchema: { type: 'integer', minimum: 0 },
      execute: () => -1,
    });
    expect((await invokeTool(t, {})).output).toBe(
      'Error running count: the result does not match the output schema: (root): expected an integer >= 0, received -1',
    );
  });

  it.each([
    ['strips unknown keys', z.object({ n: z.number() })],
    ['refuses unknown keys', z.strictObject({ n: z.number() })],
    ['names the widget (written for the whole result)', z.strictObject({ n: z.number(), widget: z.any() })],
  ])('checks the data: a schema that %s lets the widget go to the UI', async (_, outputSchema) => {
    const widget = { type: 'Text', value: 'w' };
    const onWidgetInvalid = vi.fn();
    const counted = tool({
      name: 'counted',
      description: 'd',
      outputSchema,
      execute: () => ({ n: 1, widget }),
    });
    expect(await invokeTool(counted, {}, { onWidgetInvalid })).toMatchObject({
      status: 'ok',
      output: '{"n":1}',
      widget,
      value: { n: 1, widget },
    });
    expect(onWidgetInvalid).not.toHaveBeenCalled();
  });

  it('gives toModelOutput what the schema parsed, the widget put back, and checks the data of an invalid widget', async () => {
    const projections: unknown[] = [];
    const counted = tool({
      name: 'counted',
      description: 'd',
      outputSchema: z.object({ n: z.number(), note: z.string().default('none') }),
      execute: (): { n: number; widget?: unknown } => ({ n: 1, widget: { type: 'Text', value: 'w' } }),
      toModelOutput: (output) => {
        projections.push(output);
        return output.n;
      },
    });
    expect(await invokeTool(counted, {})).toMatchObject({ status: 'ok', output: '1' });
    expect(projections).toEqual([{ n: 1, note: 'none', widget: { type: 'Text', value: 'w' } }]);
    const onWidgetInvalid = vi.fn();
    const broken = tool({
      name: 'broken',
      description: 'd',
      outputSchema: z.strictObject({ n: z.number() }),
      execute: () => ({ n: 'one', widget: { type: 'Text', value: 5 } }),
    });
    expect(await invokeTool(broken, {}, { onWidgetInvalid })).toMatchObject({
      status: 'error',
      output:
        'Error running broken: the result does not match the output schema: n: Invalid input: expected number, received string',
    });
    expect(onWidgetInvalid).toHaveBeenCalledWith(expect.objectContaining({ path: 'value' }));
  });
});

describe('toModelOutput', () => {
  it('shows the model the projection while the caller gets the full value', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'd',
      execute: () => ({ summary: 'Found 3', internalScore: 0.98, trace: ['vector', 'rerank'] }),
      toModelOutput: (output) => ({ summary: output.summary }),
    });
    expect(await invokeTool(lookup, {})).toMatchObject({
      status: 'ok',
      output: '{"summary":"Found 3"}',
      value: { summary: 'Found 3', internalScore: 0.98, trace: ['vector', 'rerank'] },
    });
  });

  it('gives an error result naming toModelOutput when the projection throws or rejects', async () => {
    const projections = [
      () => {
        throw new Error('projection broke');
      },
      () => Promise.reject(new Error('projection broke')),
    ];
    for (const toModelOutput of projections) {
      const execute = vi.fn(() => ({ summary: 'x' }));
      const lookup = tool({ name: 'lookup', description: 'd', execute, toModelOutput });
      // execute ran and returned: the model and the log must not read its failure as execute's.
      expect(await invokeTool(lookup, {})).toEqual({
        status: 'error',
        output: 'Error running lookup: toModelOutput threw: projection broke',
        error: new Error('projection broke'),
        durationMs: expect.any(Number),
      });
      expect(execute).toHaveBeenCalledTimes(1);
    }
    const quiet = tool({
      name: 'quiet',
      description: 'd',
      execute: () => 1,
      toModelOutput: () => Promise.reject(undefined),
      errorFunction: (_ctx, error) => `errorFunction saw ${String(error)}`,
    });
    expect((await invokeTool(quiet, {})).output).toBe('errorFunction saw undefined');
    const bare = tool({
      name: 'bare',
      description: 'd',
      execute: () => 1,
      toModelOutput: () => Promise.reject(undefined),
    });
    expect((await invokeTool(bare, {})).output).toBe(
      'Error running bare: toModelOutput threw: it threw undefined',
    );
  });
});

describe('ctx', () => {
  const capture = () => {
    const seen: ToolContext<{ tenant: string }>[] = [];
    const t = tool({
      name: 'capture',
      description: 'd',
      execute: (_input, ctx: ToolContext<{ tenant: string }>) => {
        seen.push(ctx);
        return ctx.idempotencyKey('charge');
      },
    });
    return { t, seen };
  };

  it('carries the context, ids, tool name, depth and a live signal', async () => {
    const { t, seen } = capture();
    await invokeTool(t, {}, { callId: 'c1', runId: 'r1', depth: 2, context: { tenant: 'acme' } });
    expect(seen[0]).toMatchObject({
      context: { tenant: 'acme' },
      callId: 'c1',
      runId: 'r1',
      toolName: 'capture',
      depth: 2,
      approved: false,
    });
    expect(seen[0]?.signal.aborted).toBe(false);
  });

  it('refuses an idempotencyKey scope that is not a string, naming it', async () => {
    const errors: unknown[] = [];
    const keyed = tool({
      name: 'keyed',
      description: 'd',
      execute: (_input, ctx) => {
        for (const scope of [5, { id: 1 }, null]) {
          try {
            ctx.idempotencyKey(scope as never);
          } catch (error) {
            errors.push(error);
          }
        }
        return [ctx.idempotencyKey(), ctx.idempotencyKey(undefined, { per: 'run' }), ctx.idempotencyKey('5')];
      },
    });
    const result = await invokeTool(keyed, {}, { callId: 'c1', runId: 'r1' });
    expect(result.output).toBe('["toolwire:c1","toolwire-run:r1","toolwire:c1:5"]');
    expect(
      errors.map((error) => error instanceof ToolDefinitionError && [error.code, error.message]),
    ).toEqual([
      ['invalid_option', 'ctx.idempotencyKey(): scope must be a string or undefined, got 5'],
      ['invalid_option', 'ctx.idempotencyKey(): scope must be a string or undefined, got an object'],
      ['invalid_option', 'ctx.idempotencyKey(): scope must be a string or undefined, got null'],
    ]);
  });

  it('gives signal and idempotencyKey to a tool that destructures ctx in its parameters', async () => {
    const seen: Array<{ key: string; aborted: boolean }> = [];
    const t = tool({
      name: 'destructures',
      description: 'd',
      execute: (_input, { signal, idempotencyKey }) => {
        seen.push({ key: idempotencyKey('charge'), aborted: signal.aborted });
        return 'ok';
      },
    });
    await invokeTool(t, {}, { callId: 'c 1' });
    expect(seen).toEqual([{ key: 'toolwire:c%201:charge', aborted: false }]);
  });

  it('defaults callId and runId to UUIDs and depth to 0', async () => {
    const { t, seen } = capture();
    await invokeTool(t, {});
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(seen[0]?.callId).toMatch(uuid);
    expect(seen[0]?.runId).toMatch(uuid);
    expect(seen[0]?.depth).toBe(0);
  });

  it('gives an idempotency key that is stable per call id and scope and differs across both', async () => {
    const { t, seen } = capture();
    const first = await invokeTool(t, {}, { callId: 'c1' });
    const again = await invokeTool(t, {}, { callId: 'c1' });
    const other = await invokeTool(t, {}, { callId: 'c2' });
    expect(first.output).toBe('toolwire:c1:charge');
    expect(again.output).toBe(first.output);
    expect(other.output).toBe('toolwire:c2:charge');
    expect(seen[0]?.idempotencyKey()).toBe('toolwire:c1');
    expect(seen[0]?.idempotencyKey('refund')).toBe('toolwire:c1:refund');
  });

  it('encodes the parts of the key so that different call ids and scopes never collide', async () => {
    const { t, seen } = capture();
    await invokeTool(t, {}, { callId: 'a:b' });
    await invokeTool(t, {}, { callId: 'a' });
    expect(seen[0]?.idempotencyKey('c')).toBe('toolwire:a%3Ab:c');
    expect(seen[1]?.idempotencyKey('b:c')).toBe('toolwire:a:b%3Ac');
  });

  it('has none of the AI SDK names, which a tool given as an object gets on its execute’s second argument', async () => {
    const names = ['toolCallId', 'abortSignal', 'messages', 'experimental_context'];
    const { t, seen } = capture();
    await invokeTool(t, {}, { callId: 'c1', context: { tenant: 'acme' } });
    expect(names.filter((name) => name in (seen[0] as object))).toEqual([]);
    const given: unknown[] = [];
    const object = {
      name: 'object',
      description: 'd',
      parameters: z.object({}),
      execute: (_input: unknown, options: object) => {
        const read = options as Record<string, unknown>;
        given.push(
          names.map((name) => [name, read[name]]),
          read.callId,
          read.context,
        );
        return 'ok';
      },
    };
    await invokeTool(object, {}, { callId: 'c2', context: { tenant: 'acme' } });
    const [aliases, callId, context] = given as [Array<[string, unknown]>, string, unknown];
    expect(aliases.map(([name, value]) => [name, value instanceof AbortSignal ? 'signal' : value])).toEqual([
      ['toolCallId', 'c2'],
      ['abortSignal', 'signal'],
      ['messages', []],
      ['experimental_context', { tenant: 'acme' }],
    ]);
    expect([callId, context]).toEqual(['c2', { tenant: 'acme' }]);
  });

  it('adds a host’s extend as non-enumerable properties that never replace a standard field', async () => {
    const hook = Symbol('hook');
    let ctx: ToolContext | undefined;
    const t = tool({
      name: 't',
      description: 'd',
      execute: (_input, c) => {
        ctx = c;
        return 'ok';
      },
    });
    await new Promise((result) =>
      startCall(t, {}, { callId: 'real', extend: { [hook]: 'value', callId: 'fake' } }, { result }),
    );
    expect((ctx as unknown as Record<symbol, unknown>)[hook]).toBe('value');
    expect(ctx?.callId).toBe('real');
    expect(Object.keys(ctx ?? {})).not.toContain(hook);
  });
});

describe('maxOutputBytes', () => {
  it('truncates the output at a character boundary with a marker stating the original size', async () => {
    const result = await invokeTool(returning('é'.repeat(100)), {}, { maxOutputBytes: 64 });
    const marker = '\n[truncated: the full output was 200 bytes]';
    expect(result.output).toBe(`${'é'.repeat(10)}${marker}`);
    expect(result.value).toBe('é'.repeat(100));
  });

  it('caps error texts too', async () => {
    const result = await invokeTool(throwing('x'.repeat(500)), {}, { maxOutputBytes: 100 });
    expect(result.output).toBe(
      `Error running charge: ${'x'.repeat(35)}\n[truncated: the full output was 522 bytes]`,
    );
  });
});

describe('usage errors', () => {
  it('rejects with not_a_tool for a value of no accepted shape', async () => {
    await expect(invokeTool(42 as never, {})).rejects.toThrow(
      new ToolDefinitionError(
        'not_a_tool',
        'invokeTool(): the tool must be a tool (made with tool(), or an object with description and execute), got 42',
      ),
    );
  });

  it('rejects a tool-like object as tool() would refuse it, naming the tool and the field', async () => {
    const fake = { name: 'fake', description: 'd' } as never;
    await expect(invokeTool(fake, {})).rejects.toThrow(
      new ToolDefinitionError('invalid_execute', 'tool "fake": execute must be a function, got undefined'),
    );
  });

  it.each([
    [
      { timeoutMs: 0 },
      'invokeTool(): timeoutMs must be a positive integer of milliseconds up to 2147483647 (the longest timer), got 0',
    ],
    [
      { maxOutputBytes: 1.5 },
      'invokeTool(): maxOutputBytes must be an integer of at least 64 bytes (the truncation note alone takes up to 55), got 1.5',
    ],
    [
      { maxOutputBytes: 10 },
      'invokeTool(): maxOutputBytes must be an integer of at least 64 bytes (the truncation note alone takes up to 55), got 10',
    ],
    [{ callId: 42 }, 'invokeTool(): callId must be a string, got 42'],
    [{ runId: null }, 'invokeTool(): runId must be a string, got null'],
    [{ depth: -1 }, 'invokeTool(): depth must be a non-negative integer, got -1'],
    [{ signal: { aborted: false } }, 'invokeTool(): signal must be an AbortSignal, got an object'],
    [{ approved: 'yes' }, 'invokeTool(): approved must be a boolean, got "yes"'],
    [{ approve: true }, 'invokeTool(): approve must be a function, got true'],
    [{ onWidgetInvalid: 'log' }, 'invokeTool(): onWidgetInvalid must be a function, got "log"'],
  ])('rejects with invalid_option for %j', async (options, message) => {
    const error = await invokeTool(echo, {}, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).not.toBeInstanceOf(ToolDefinitionError);
    expect(error).toMatchObject({ code: 'invalid_option', message });
  });

  it.each([
    [{ timeout: 50 }, 'invokeTool(): unknown option "timeout" (did you mean "timeoutMs"?)'],
    [{ onApproval: () => true }, 'invokeTool(): unknown option "onApproval" (did you mean "approve"?)'],
    [
      { abortSignal: AbortSignal.timeout(10) },
      'invokeTool(): unknown option "abortSignal" (did you mean "signal"?)',
    ],
    [{ callID: 'c1' }, 'invokeTool(): unknown option "callID" (did you mean "callId"?)'],
    [{ policy: [] }, 'invokeTool(): unknown option "policy" (did you mean "policies"?)'],
    [{ emit: () => {} }, 'invokeTool(): unknown option "emit" (did you mean "onEmit"?)'],
    [
      { experimental_context: {} },
      'invokeTool(): unknown option "experimental_context" (did you mean "context"?)',
    ],
    [{ time_out_ms: 5 }, 'invokeTool(): unknown option "time_out_ms" (did you mean "timeoutMs"?)'],
    [{ maxOutputByte: 5 }, 'invokeTool(): unknown option "maxOutputByte" (did you mean "maxOutputBytes"?)'],
    [
      { retries: 3 },
      unknownOptionMessage('invokeTool(): unknown option "retries"', 'callId', 'signal', 'timeoutMs'),
    ],
    // A host's own options (the client's), never a test's.
    [{ extend: {} }, unknownOptionMessage('invokeTool(): unknown option "extend"', 'callId', 'approved')],
    [
      { rejectionReason: 'no' },
      unknownOptionMessage('invokeTool(): unknown option "rejectionReason"', 'callId', 'approved'),
    ],
  ])('rejects with unknown_option for %j, running nothing', async (options, message) => {
    const execute = vi.fn(() => 'ran');
    const t = tool({ name: 't', description: 'd', execute });
    const error = await invokeTool(t, {}, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).toMatchObject({ name: 'OptionsError', code: 'unknown_option', message });
    expect(execute).not.toHaveBeenCalled();
  });

  it('rejects with invalid_options when the options are not an object', async () => {
    const error = await invokeTool(echo, {}, null as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).toMatchObject({
      code: 'invalid_options',
      message: 'invokeTool(): options must be an object, got null',
    });
  });
});

describe('invokeTool', () => {
  it('resolves with a known status and a string output for any arguments, never rejecting', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.anything(), fc.json(), fc.string()), async (raw) => {
        const result = await invokeTool(needsText, raw);
        expect(TOOL_CALL_STATUSES).toContain(result.status);
        expect(typeof result.output).toBe('string');
      }),
      { numRuns: 200 },
    );
  });
});
