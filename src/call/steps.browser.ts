/**
 * The browser build's src/call/steps.ts (swapped in by browser-build.ts): `ctx.step()` loads the real code (a
 * chunk of its own, with src/call/step-value.ts) the first time a page's tool runs a step. `ctx.step()` returns a
 * promise either way; a step waits for the load, then runs as it would have, its checks taken as they stood when
 * it was called (a step called before its call ended runs, even if the call ended during the load). A cancel or
 * timeout of the call during the load rejects the step with the call's abort reason (`fn` does not run), and a
 * failed load rejects it with `ToolwireError` `load_failed` (the next step tries again).
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type * as Real from './steps';

export type { StepCall, StepNotKept, StepRecord, StepSink } from './steps';

const real = lazy('ctx.step()', () => import('./steps'));

/** Never aborts: a call that was not aborted when its step was called. */
const NOT_ABORTED = new AbortController().signal;

/** See src/call/steps.ts: the real class, made once its module has loaded. */
export class CallSteps {
  readonly #kept: Readonly<Record<string, unknown>> | undefined;
  #steps: Real.CallSteps | undefined;

  constructor(kept: Readonly<Record<string, unknown>> | undefined) {
    this.#kept = kept;
  }

  run(call: Real.StepCall, key: unknown, fn: unknown, sink: Real.StepSink): Promise<unknown> {
    if (this.#steps !== undefined) return this.#steps.run(call, key, fn, sink);
    const now = real.now;
    if (now !== undefined) {
      this.#steps = new now.CallSteps(this.#kept);
      return this.#steps.run(call, key, fn, sink);
    }
    // The call as it is now: the real code checks it when the step is called, and so does this one.
    const { signal, finished } = call;
    const atCall: Real.StepCall = {
      ctx: call.ctx,
      get options() {
        return call.options;
      },
      tool: call.tool,
      finished,
      signal: signal.aborted ? signal : NOT_ABORTED,
    };
    const stop = {
      signal: signal.aborted || finished ? undefined : signal,
      error: (reason: unknown) => reason,
    };
    return real.load(stop).then((module) => {
      this.#steps ??= new module.CallSteps(this.#kept);
      return this.#steps.run(atCall, key, fn, sink);
    });
  }
}
