import { describe, expectTypeOf, it } from 'vitest';
import type * as ApprovalReal from '../../src/call/approval';
import type * as ApprovalStandIn from '../../src/call/approval.browser';
import type * as GateReal from '../../src/call/gate';
import type * as GateStandIn from '../../src/call/gate.browser';
import type * as NumberRefusalsReal from '../../src/call/number-refusals';
import type * as NumberRefusalsStandIn from '../../src/call/number-refusals.browser';
import type * as QuestionsReal from '../../src/call/questions';
import type * as QuestionsStandIn from '../../src/call/questions.browser';
import type * as RetryReal from '../../src/call/retry';
import type * as RetryStandIn from '../../src/call/retry.browser';
import type * as StepsReal from '../../src/call/steps';
import type * as StepsStandIn from '../../src/call/steps.browser';
import type * as DecisionsReal from '../../src/client/decisions';
import type * as DecisionsStandIn from '../../src/client/decisions.browser';
import type * as ClientQuestionsReal from '../../src/client/questions';
import type * as ClientQuestionsStandIn from '../../src/client/questions.browser';
import type * as RunsReal from '../../src/client/runs';
import type * as RunsStandIn from '../../src/client/runs.browser';
import type * as SignalsReal from '../../src/client/signals';
import type * as SignalsStandIn from '../../src/client/signals.browser';
import type * as TracingReal from '../../src/client/tracing';
import type * as TracingStandIn from '../../src/client/tracing.browser';
import type { SchemaAdapter } from '../../src/tool/schema/types';
import type * as ValibotReal from '../../src/tool/schema/valibot';
import type * as ValibotStandIn from '../../src/tool/schema/valibot.browser';
import type * as ValidatorReal from '../../src/tool/schema/validator';
import type * as ValidatorStandIn from '../../src/tool/schema/validator.browser';
import type * as Zod3Real from '../../src/tool/schema/zod3';
import type * as Zod3StandIn from '../../src/tool/schema/zod3.browser';
import type * as Zod4TrustReal from '../../src/tool/schema/zod4-trust';
import type * as Zod4TrustStandIn from '../../src/tool/schema/zod4-trust.browser';

/**
 * The browser build's stand-ins (`*.browser.ts`, browser-build.ts) against the modules they replace: each export
 * of a stand-in has the real export's type (a class: its constructor's parameters and the public members the
 * stand-in has), so that code importing the real module compiles against either.
 */
type Members<T> = { [K in keyof T]: T[K] };
/** For each export of `StandIn`: the pair of its type and the real module's export of that name. */
type Pairs<StandIn, Real> = {
  [K in keyof StandIn]: K extends keyof Real
    ? StandIn[K] extends abstract new (
        ...args: infer A
      ) => infer I
      ? Real[K] extends abstract new (
          ...args: infer B
        ) => infer J
        ? [[A, Members<I>], [B, Pick<Members<J>, keyof I & keyof J>]]
        : 'a class standing in for a non-class'
      : [StandIn[K], Real[K]]
    : 'missing from the real module';
};

/** `true` when `A` and `B` are the same type (methods compared exactly, not bivariantly). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** The names of the exports whose two types differ (`never` when they all match). */
type Differing<P> = {
  [K in keyof P]: P[K] extends [infer A, infer B] ? (Equal<A, B> extends true ? never : K) : K;
}[keyof P];

describe('the browser stand-ins', () => {
  it('export what the real modules export, with the same types', () => {
    expectTypeOf<Differing<Pairs<typeof ApprovalStandIn, typeof ApprovalReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof GateStandIn, typeof GateReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof NumberRefusalsStandIn, typeof NumberRefusalsReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof QuestionsStandIn, typeof QuestionsReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof RetryStandIn, typeof RetryReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof StepsStandIn, typeof StepsReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof DecisionsStandIn, typeof DecisionsReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof ClientQuestionsStandIn, typeof ClientQuestionsReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof RunsStandIn, typeof RunsReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof SignalsStandIn, typeof SignalsReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof TracingStandIn, typeof TracingReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof ValibotStandIn, typeof ValibotReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof ValidatorStandIn, typeof ValidatorReal>>>().toBeNever();
    expectTypeOf<Differing<Pairs<typeof Zod3StandIn, typeof Zod3Real>>>().toBeNever();
    // While the proof loads, zod4Trusted gives a function that decides later, which the adapter's
    // `acceptsOnlyAnnounced` takes as it takes a boolean.
    type Trusted = typeof Zod4TrustStandIn.zod4Trusted;
    expectTypeOf<
      Differing<Pairs<Omit<typeof Zod4TrustStandIn, 'zod4Trusted'>, typeof Zod4TrustReal>>
    >().toBeNever();
    expectTypeOf<Parameters<Trusted>>().toEqualTypeOf<Parameters<typeof Zod4TrustReal.zod4Trusted>>();
    expectTypeOf<ReturnType<Trusted>>().toExtend<NonNullable<SchemaAdapter['acceptsOnlyAnnounced']>>();
  });
});
