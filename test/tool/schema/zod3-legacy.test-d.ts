import { expectTypeOf, test } from 'vitest';
import { z } from 'zod323';
import { tool } from '../../../src/index';

test('execute gets the output type of a zod 3.23 schema', () => {
  tool({
    name: 't',
    description: 'd',
    parameters: z.object({ q: z.string(), n: z.number().default(1) }),
    execute: (input) => {
      expectTypeOf(input).toEqualTypeOf<{ q: string; n: number }>();
      return '';
    },
  });
});
