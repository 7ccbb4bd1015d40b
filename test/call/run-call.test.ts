/**
 * Time limits and cancellation in every phase of a call: argument validation, the `needsApproval` predicate,
 * the approver, `execute`, `errorFunction`, `outputSchema` and `toModelOutput`. No phase may keep a call
 * pending forever: `timeoutMs` bounds the tool's own work, `errorFunction` has its own bound, and `signal` ends
 * the call wherever it is.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { invokeTool } from '../../src/call/invoke';
import type { ToolCallResult } from '../../src/call/types';
import { TimeoutError } from '../../src/errors';
import { ERROR_FUNCTION_TIMEOUT_MS, type ToolContext, type ToolOptions, tool } from '../../src/tool/tool';

const never = () => new Promise<never>(() => {});
const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** Resolves with the result, or `'pending'` when the call has not ended after the timers advanced so far. */
const peek = async (pending: Promise<ToolCallResult>) =>
  Promise.race([pending, Promise.resolve('pending' as const)]);

afterEach(() => {
  vi.useRealTimers();
});

type Phase = 'validation' | 'predicate' | 'execute' | 'outputSchema' | 'toModelOutput';

/** A tool whose `phase` never finishes; every other phase is instant. */
function stuckIn(phase: Phase, extra: Partial<ToolOptions<never, unknown, unknown>> = {}) {
  const execute = vi.fn(() => (phase === 'execute' ? never() : { n: 1 }));
  const made = tool({
    name: 'stuck',
    description: 'd',
    parameters: z.object({ n: z.number() }).refine(async () => (phase === 'validation' ? never() : true)),
    needsApproval: () => (phase === 'predicate' ? never() : false),
    execute,
    outputSchema: z.object({ n: z.number() }).refine(async () => (phase === 'outputSchema' ? never() : true)),
    toModelOutput: (output) => (phase === 'toModelOutput' ? never() : output),
    ...(extra as object),
  });
  return { made, execute };
}

const PHASES: Phase[] = ['validation', 'predicate', 'execute', 'outputSchema', 'toModelOutput'];

describe('timeoutMs', () => {
  it.each(PHASES)('ends a call stuck in %s: status timeout, ctx.signal aborted', async (phase) => {
    let signal: AbortSignal | undefined;
    const { made } = stuckIn(phase, {
      timeoutMs: 30,
      errorFunction: (ctx: ToolContext, error: unknown) => {
        signal = ctx.signal;
        return error instanceof TimeoutError ? `timed out (${error.message})` : 'other';
      },
    });
    // A hung needsApproval check is named (it is not the tool's own execute that hung).
    const where = phase === 'predicate' ? ' in the needsApproval check' : '';
    expect(await invokeTool(made, { n: 1 })).toEqual({
      status: 'timeout',
      output: `timed out (stuck timed out after 30ms${where})`,
      error: expect.any(TimeoutError),
      durationMs: expect.any(Number),
    });
    expect(signal?.reason).toBeInstanceOf(TimeoutError);
  });

  it.each(PHASES)('gives the default timeout text for a call stuck in %s', async (phase) => {
    const { made } = stuckIn(phase, { timeoutMs: 20 });
    const where = phase === 'predicate' ? ' in the needsApproval check' : '';
    expect(await invokeTool(made, { n: 1 })).toMatchObject({
      status: 'timeout',
      output: `Error running stuck: timed out after 20ms${where}`,
    });
  });

  it('runs nothing after a predicate that never answers', async () => {
    const { made, execute } = stuckIn('predicate', { timeoutMs: 20 });
    expect((await invokeTool(made, { n: 1 })).status).toBe('timeout');
    expect(execute).not.toHaveBeenCalled();
  });

  it('is one budget for the whole call, not one per phase', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const made = tool({
      name: 'shared',
      description: 'd',
      timeoutMs: 100,
      needsApproval: () => later(60, false),
      execute: never,
    });
    const pending = invokeTool(made, {});
    await vi.advanceTimersByTimeAsync(99);
    expect(await peek(pending)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await peek(pending)).toMatchObject({
      status: 'timeout',
      output: 'Error running shared: timed out after 100ms',
    });
  });

  it('does not count the time a human takes to approve', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const made = tool({
      name: 'held',
      description: 'd',
      timeoutMs: 100,
      needsApproval: true,
      execute: () => later(80, 'done'),
    });
    const pending = invokeTool(made, {}, { approve: () => later(60_000, true) });
    await vi.advanceTimersByTimeAsync(60_000 + 80);
    expect(await peek(pending)).toMatchObject({ status: 'ok', output: 'done' });
  });
});

describe('errorFunction', () => {
  const throwing = (errorFunction: ToolOptions['errorFunction'], timeoutMs?: number) =>
    tool({
      name: 'charge',
      description: 'd',
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      execute: () => {
        throw new Error('declined');
      },
      errorFunction,
    });

  it(`gives the default text when it never answers, after ${ERROR_FUNCTION_TIMEOUT_MS}ms`, async () => {
    expect(ERROR_FUNCTION_TIMEOUT_MS).toBe(5_000);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const pending = invokeTool(throwing(never), {});
    await vi.advanceTimersByTimeAsync(ERROR_FUNCTION_TIMEOUT_MS - 1);
    expect(await peek(pending)).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(await peek(pending)).toMatchObject({ status: 'error', output: 'Error running charge: declined' });
  });

  it('gets at most timeoutMs when the tool has a shorter one', async () => {
    expect(await invokeTool(throwing(never, 20), {})).toMatchObject({
      status: 'error',
      output: 'Error running charge: declined',
    });
  });

  it('gives the default timeout text when it never answers after a timeout', async () => {
    const slow = tool({
      name: 'slow',
      description: 'd',
      timeoutMs: 20,
      execute: never,
      errorFunction: never,
    });
    expect(await invokeTool(slow, {})).toMatchObject({
      status: 'timeout',
      output: 'Error running slow: timed out after 20ms',
    });
  });

  it('uses a slow answer that comes within its bound', async () => {
    expect(
      await invokeTool(
        throwing(() => later(10, 'Card declined; ask for another.'), 50),
        {},
      ),
    ).toMatchObject({ status: 'error', output: 'Card declined; ask for another.' });
  });
});

describe('options.signal, without timeoutMs', () => {
  it.each(PHASES)('ends a call stuck in %s: status cancelled', async (phase) => {
    const { made } = stuckIn(phase);
    const controller = new AbortController();
    const pending = invokeTool(made, { n: 1 }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await peek(pending)).toBe('pending');
    controller.abort();
    expect(await pending).toMatchObject({
      status: 'cancelled',
      output: 'Error running stuck: the call was cancelled',
    });
  });

  it('ends a call waiting for an approver that never answers', async () => {
    const made = tool({ name: 'held', description: 'd', needsApproval: true, execute: () => 'ran' });
    const controller = new AbortController();
    const pending = invokeTool(made, {}, { signal: controller.signal, approve: never });
    controller.abort();
    expect((await pending).status).toBe('cancelled');
  });

  it('ends a call whose errorFunction never answers', async () => {
    const made = tool({
      name: 'charge',
      description: 'd',
      execute: () => {
        throw new Error('declined');
      },
      errorFunction: never,
    });
    const controller = new AbortController();
    const pending = invokeTool(made, {}, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect((await pending).status).toBe('cancelled');
  });
});
