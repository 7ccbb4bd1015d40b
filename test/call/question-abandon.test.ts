/**
 * A local `onQuestion` that never settles is abandoned when the question times out: the tool goes on, the
 * handler's late answer changes nothing, and the call is not kept alive by the handler's pending promise.
 */
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/call/invoke';
import type { QuestionReply } from '../../src/call/types';
import { QuestionError } from '../../src/errors';
import { tool } from '../../src/tool/tool';
import { collected } from '../support/gc';

const asker = tool({
  name: 'asker',
  description: 'Asks with a short time limit.',
  execute: async (_input, ctx) => {
    try {
      return await ctx.askQuestion('Which warehouse?', { timeoutMs: 5 });
    } catch (error) {
      return error instanceof QuestionError ? error.code : 'other';
    }
  },
});

describe('a local onQuestion that never settles', () => {
  it('is abandoned when the question times out: nothing of the call stays reachable through it', async () => {
    // The handler keeps every answer function forever, as a UI that never comes back would.
    const held: Array<(reply: QuestionReply) => void> = [];
    let ref: WeakRef<object> | undefined;
    const run = async () => {
      const context = { big: new Array(10_000).fill('x') };
      ref = new WeakRef(context);
      return invokeTool(
        asker,
        {},
        {
          context,
          onQuestion: () => new Promise<QuestionReply>((resolve) => held.push(resolve)),
        },
      );
    };
    const result = await run();
    expect(result).toMatchObject({ status: 'ok', output: 'timeout' });
    expect(held).toHaveLength(1);
    expect(await collected(ref!)).toBe(true);
    held[0]!({ answer: 'Lyon' }); // a late answer: no effect, no throw
    await new Promise((resolve) => setImmediate(resolve));
  });
});
