/**
 * The run context's type: loose while `AppContext` is empty, narrowed per tool by `ToolContext<Mine>`. The app-wide
 * narrowing by declaration merging is checked against the packed package (test/seeds/strict-tsc.test.ts), where an
 * augmentation cannot leak into the other type tests.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type DefaultContext, type ToolContext, tool } from '../../src/index';

describe('the run context', () => {
  it('is loose when neither the tool nor the app types it: context.tenantId compiles as written', () => {
    const search = async (query: { email: string; tenant: string }) => [query];
    tool({
      name: 'search_orders',
      description: 'Find orders.',
      parameters: z.object({ email: z.string() }),
      execute: async ({ email }, { context }) => search({ email, tenant: context.tenantId }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the loose default is `any`.
    expectTypeOf<DefaultContext>().toEqualTypeOf<any>();
  });

  it('is the tool’s own type when it says', () => {
    tool({
      name: 't',
      description: 'd',
      execute: (_input, { context }: ToolContext<{ tenantId: string }>) => {
        expectTypeOf(context).toEqualTypeOf<{ tenantId: string }>();
        // @ts-expect-error a field the tool's context does not have
        return context.tenant;
      },
    });
  });
});
