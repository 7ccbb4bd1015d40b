/**
 * `ctx`'s fields as a tool sees them (src/call/context.ts): `Object.keys(ctx)`, `{ ...ctx }` and destructuring
 * show its ids, context, depth and scope in one order, on a call's first `ctx` and on a later attempt's; a tool
 * that assigns one keeps its value, and an attempt after it keeps it too.
 */
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/call/invoke';
import { type ToolContext, tool } from '../../src/tool/tool';
import { CTX_KEYS as KEYS } from '../support/ctx-keys';

const SCOPE = {
  callId: 'c1',
  runId: 'r1',
  context: { tenant: 'acme' },
  depth: 2,
  sessionId: 'sess_1',
  agentName: 'Assistant',
  tenantId: 't1',
  userId: 'u1',
  agentRevision: 'rev_1',
};

/** The plain fields of `ctx` (its functions and signal left out). */
function fields(ctx: ToolContext): Record<string, unknown> {
  const { signal: _, idempotencyKey: __, logger: ___, ...rest } = { ...ctx };
  return rest;
}

describe('ctx fields read from the call', () => {
  it('shows the keys in order and the values of the call, spread and destructured, on every attempt', async () => {
    const seen: Array<{ keys: string[]; spread: Record<string, unknown>; sessionId: unknown }> = [];
    const flaky = tool({
      name: 'lookup',
      description: 'd',
      sideEffect: 'none',
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: (_input, ctx) => {
        const { sessionId } = ctx;
        seen.push({ keys: Object.keys(ctx), spread: fields(ctx), sessionId });
        if (ctx.attempt === 1) throw new Error('flake');
        return 'found';
      },
    });
    const options = { ...SCOPE };
    const result = await invokeTool(flaky, {}, options);
    expect(result).toMatchObject({ status: 'ok', output: 'found' });
    const { callId, runId, context, depth, sessionId, agentName, tenantId, userId, agentRevision } = SCOPE;
    const expected = (attempt: number) => ({
      context,
      callId,
      runId,
      toolName: 'lookup',
      approved: false,
      depth,
      attempt,
      sessionId,
      agentName,
      tenantId,
      userId,
      agentRevision,
    });
    expect(seen).toEqual([
      { keys: KEYS, spread: expected(1), sessionId: 'sess_1' },
      { keys: KEYS, spread: expected(2), sessionId: 'sess_1' },
    ]);
    expect(seen[0]?.spread.context).toBe(context);
  });

  it('reads undefined ids of the scope and a depth of 0 when none are given, and made-up call and run ids', async () => {
    let spread: Record<string, unknown> | undefined;
    const plain = tool({
      name: 'plain',
      description: 'd',
      execute: (_input, ctx) => {
        spread = fields(ctx);
        return 'ok';
      },
    });
    await invokeTool(plain, {});
    expect(spread).toEqual({
      context: undefined,
      callId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      toolName: 'plain',
      approved: false,
      depth: 0,
      attempt: 1,
      sessionId: undefined,
      agentName: undefined,
      tenantId: undefined,
      userId: undefined,
      agentRevision: undefined,
    });
    expect(spread?.callId).not.toBe(spread?.runId);
  });

  it('keeps what the caller gave when the call started, whatever the caller changes in its options later', async () => {
    let resume: () => void = () => {};
    const read: unknown[] = [];
    const waits = tool({
      name: 'waits',
      description: 'd',
      execute: async (_input, ctx) => {
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
        read.push(ctx.sessionId, ctx.context);
        return 'ok';
      },
    });
    const options: { sessionId: string; context: string } = { sessionId: 'sess_1', context: 'first' };
    const pending = invokeTool(waits, {}, options);
    await Promise.resolve();
    options.sessionId = 'sess_2';
    options.context = 'second';
    resume();
    expect((await pending).status).toBe('ok');
    expect(read).toEqual(['sess_1', 'first']);
  });

  it('turns an assigned field into a plain one, which the next attempt keeps', async () => {
    const seen: Array<{ sessionId: unknown; depth: unknown; descriptor: PropertyDescriptor | undefined }> =
      [];
    const flaky = tool({
      name: 'lookup',
      description: 'd',
      sideEffect: 'none',
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: (_input, ctx) => {
        if (ctx.attempt === 1) {
          (ctx as { sessionId: string | undefined }).sessionId = 'mine';
          (ctx as { depth: number }).depth = 7;
        }
        seen.push({
          sessionId: ctx.sessionId,
          depth: ctx.depth,
          descriptor: Object.getOwnPropertyDescriptor(ctx, 'sessionId'),
        });
        if (ctx.attempt === 1) throw new Error('flake');
        return 'found';
      },
    });
    await invokeTool(flaky, {}, { sessionId: 'sess_1' });
    expect(seen[0]).toEqual({
      sessionId: 'mine',
      depth: 7,
      descriptor: { value: 'mine', writable: true, enumerable: true, configurable: true },
    });
    expect(seen[1]?.sessionId).toBe('mine');
    expect(seen[1]?.depth).toBe(7);
  });
});
