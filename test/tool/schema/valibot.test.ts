import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { invokeTool, tool } from '../../../src/index';

const echo = (input: unknown) => input;

// What every kind does alike (announcement, messages, transforms, checks, refusals) is in adapters.test.ts.
describe('valibot parameters', () => {
  it('awaits async schemas', async () => {
    const slow = tool({
      name: 'slow',
      description: 'd',
      parameters: v.objectAsync({
        n: v.pipeAsync(
          v.number(),
          v.checkAsync(async (n) => n > 1, 'too small'),
        ),
      }),
      execute: echo,
    });
    expect((await invokeTool(slow, { n: 0 })).output).toBe('Invalid arguments for slow: n: too small');
    expect((await invokeTool(slow, { n: 2 })).status).toBe('ok');
  });
});
