/**
 * What a held call keeps of its arguments while it is not running (src/client/held-arguments.ts `ArgumentsText`,
 * `keptOf`): a queued call their JSON text, counted against `maxQueueBytes`, parsed again as they came when it
 * starts; a call waiting for a human keeps no large ones (its tool has them). A 1 MiB frame of `{"a":[{},{},…]}`
 * parses to about 21 MiB: held as parsed objects, 1,000 queued calls would take about 21 GiB.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentsText, parsedArguments } from '../../src/client/held-arguments';
import { callTraces, type ToolTracing } from '../../src/client/tracing';
import { Client, OptionsError, tool } from '../../src/index';
import { collectedAll } from '../support/gc';
import { nextTask, recording, results, waitsForAbort } from './call-runner-harness';

/** A tool that records the arguments each call's `execute` got. */
function recordsInput() {
  const got: unknown[] = [];
  const made = tool({
    name: 'echo',
    description: 'Records its input.',
    parameters: z.looseObject({}),
    execute: (input: unknown) => {
      got.push(input);
      return 'ok';
    },
  });
  return { tool: made, got };
}

/** One call of `stuck` holding the only slot, and what `echo` got from the calls queued behind it. */
function queuedBehindStuck(overrides: Parameters<typeof recording>[1] = {}) {
  const echo = recordsInput();
  const runner = recording([waitsForAbort('stuck'), echo.tool], { maxConcurrency: 1, ...overrides });
  runner.call('s1', 'stuck');
  const queue = (callId: string, args: unknown) =>
    runner.calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'echo', arguments: args });
  const unstick = async () => {
    runner.calls.cancel('s1', 'service');
    await nextTask();
    await nextTask();
  };
  return { ...runner, got: echo.got, queue, unstick };
}

/** Queues 100 calls with ~10 KB of nested arguments each: weak references to those. */
function queueLarge(queue: (callId: string, args: unknown) => void): Array<WeakRef<object>> {
  const kept: Array<WeakRef<object>> = [];
  for (let i = 0; i < 100; i++) {
    const args = { a: Array.from({ length: 1_000 }, () => ({})), i };
    kept.push(new WeakRef(args));
    queue(`q${i}`, args);
  }
  return kept;
}

describe('a call waiting for a slot', () => {
  it('holds its arguments as text, not the objects the frame parsed to, and runs with them as they came', async () => {
    const setup = queuedBehindStuck();
    const kept = queueLarge(setup.queue);
    expect(setup.calls.queued).toBe(100);
    expect(await collectedAll(kept)).toBe(true);
    await setup.unstick();
    expect(setup.got).toHaveLength(100);
    expect(setup.got[42]).toEqual({ a: Array.from({ length: 1_000 }, () => ({})), i: 42 });
  });

  it('gets back every value JSON parsed: -0, Infinity, lone surrogates, strings that look like marks', async () => {
    const setup = queuedBehindStuck();
    const args = JSON.parse(
      '{"z":-0,"s":"\\ud800 x","m":"\\u0000-0","mm":"\\u0000\\u0000Infinity","__proto__":{"p":1},"n":[-0,0.1,12345678901234567890,null,true]}',
    ) as Record<string, unknown>;
    setup.queue('q1', args);
    // Out of range (parsed as ±Infinity): refused naming each, as a call that did not wait is.
    const huge = () => JSON.parse('{"big":1e400,"n":[-1e400,-0]}') as unknown;
    setup.queue('q2', huge());
    await setup.unstick();
    expect(setup.sent.at(-1)).toMatchObject({
      callId: 'q2',
      status: 'invalid_arguments',
      output:
        'Invalid arguments for echo: big: the number is too large for JavaScript (past ±1.8e308); it became Infinity; n[0]: the number is too large for JavaScript (past ±1.8e308); it became -Infinity',
    });
    const got = setup.got[0] as Record<string, unknown>;
    expect(Object.is(got.z, -0)).toBe(true);
    expect([got.s, got.m, got.mm]).toEqual(['\ud800 x', '\u0000-0', '\u0000\u0000Infinity']);
    expect(Object.is((got.n as unknown[])[0], -0)).toBe(true);
    expect((got.n as unknown[]).slice(1)).toEqual([0.1, 12345678901234567000, null, true]);
  });

  it('is answered as before when its arguments nest too deep, or are an array', async () => {
    const setup = queuedBehindStuck();
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { deep };
    let deepArray: unknown = [];
    for (let i = 0; i < 100; i++) deepArray = [deepArray];
    setup.queue('q1', deep);
    setup.queue('q2', deepArray);
    await setup.unstick();
    const outputs = setup.sent
      .filter((frame) => frame.type === 'tool_result' && frame.callId !== 's1')
      .map((frame) => [(frame as { status: string }).status, (frame as { output: string }).output]);
    expect(outputs).toEqual([
      ['invalid_arguments', 'Invalid arguments for echo: the arguments nest deeper than 64 levels'],
      ['invalid_arguments', 'Invalid arguments for echo: expected a JSON object, got array'],
    ]);
    expect(setup.got).toEqual([]);
  });

  it('is answered busy once the arguments queued reach maxQueueBytes, and taken again once they start', async () => {
    const setup = queuedBehindStuck({ maxQueueBytes: 25 });
    setup.queue('q1', { text: 'x'.repeat(10) }); // {"text":"xxxxxxxxxx"}: 21 bytes
    setup.queue('q2', { text: 'y' }); // 12 bytes: 33 in all
    setup.queue('q3', { text: 'z' });
    expect(results(setup.sent)).toEqual(['q3:error']);
    expect(setup.sent.at(-1)).toMatchObject({ callId: 'q3', retryable: true });
    expect(setup.calls.queued).toBe(2);
    await setup.unstick();
    setup.queue('q4', { text: 'w' });
    expect(results(setup.sent).slice(1)).toEqual(['s1:cancelled', 'q1:ok', 'q2:ok', 'q4:ok']);
  });

  it('counts arguments the model sent as JSON text against maxQueueBytes too', async () => {
    const setup = queuedBehindStuck({ maxQueueBytes: 25 });
    const text = `{"text":"${'x'.repeat(20)}"}`;
    setup.queue('q1', text);
    setup.queue('q2', { text: 'y' });
    expect(results(setup.sent)).toEqual(['q2:error']);
    await setup.unstick();
    expect(setup.got).toEqual([{ text: 'x'.repeat(20) }]);
  });

  it('is traced with its arguments when it ends in line, in a client that traces', async () => {
    const recorded: unknown[] = [];
    const tracing: ToolTracing = {
      startCall: (call) => ({
        event() {},
        run: (fn) => fn(),
        end() {
          recorded.push(call.arguments());
        },
      }),
    };
    const setup = queuedBehindStuck({ tracing, callTraces });
    const args = { list: Array.from({ length: 300 }, (_, i) => i), note: 'n' };
    setup.queue('q1', args);
    setup.calls.cancel('q1', 'service');
    await nextTask();
    expect(recorded).toEqual([args]);
  });

  it('ended in line (cancelled) frees its bytes and is answered as any call', async () => {
    const setup = queuedBehindStuck({ maxQueueBytes: 25 });
    setup.queue('q1', { text: 'x'.repeat(30) });
    setup.calls.cancel('q1', 'service');
    setup.queue('q2', { text: 'y' });
    expect(setup.calls.queued).toBe(1);
    expect(results(setup.sent)).toEqual(['q1:cancelled']);
  });
});

describe('a call waiting for a human', () => {
  it('keeps none of its large arguments: its tool has what its schema took', async () => {
    const gated = tool({
      name: 'gated',
      description: 'Needs approval.',
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      execute: ({ id }) => id,
    });
    const { calls, sent } = recording([gated]);
    const kept: Array<WeakRef<object>> = [];
    (() => {
      for (let i = 0; i < 20; i++) {
        const args = { id: `id${i}`, junk: Array.from({ length: 1_000 }, () => ({})) };
        kept.push(new WeakRef(args));
        calls.receive({
          type: 'tool_call',
          callId: `g${i}`,
          runId: 'r1',
          toolName: 'gated',
          arguments: args,
        });
      }
    })();
    await nextTask();
    expect(calls.waiting).toBe(20);
    expect(await collectedAll(kept)).toBe(true);
    calls.receive({ type: 'tool_call', callId: 'g3', runId: 'r1', toolName: 'gated', approved: true });
    await nextTask();
    expect(sent.filter((frame) => frame.type === 'tool_result')).toMatchObject([
      { callId: 'g3', status: 'ok', output: 'id3' },
    ]);
  });
});

describe('ArgumentsText', () => {
  it('holds the UTF-8 bytes of the JSON text', () => {
    expect(argumentsText({ a: 'é' }).bytes).toBe(10);
    expect(parsedArguments(argumentsText({ a: 'é' }))).toEqual({ a: 'é' });
  });

  it.each([
    ['plain', '{"__proto__":{"p":1},"a":[1]}'],
    ['with -0', '{"__proto__":{"p":-0},"a":[1]}'],
  ])('keeps __proto__ keys as own data properties (%s)', (_kind, json) => {
    const again = parsedArguments(argumentsText(JSON.parse(json) as object)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(again)).toBe(Object.prototype);
    expect(Object.hasOwn(again, '__proto__')).toBe(true);
    expect(Object.keys(again)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });
});

describe('maxQueueBytes', () => {
  it('is refused when it is not a positive integer of bytes', () => {
    const made = () => new Client({ url: 'ws://127.0.0.1:1', apiKey: 'key', tools: [], maxQueueBytes: 0 });
    expect(made).toThrow(OptionsError);
    expect(made).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: 'new Client(options): maxQueueBytes must be a positive integer of bytes, got 0',
      }),
    );
  });
});
