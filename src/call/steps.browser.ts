/**
 * The browser build's src/call/steps.ts (swapped in by browser-build.ts): `ctx.step()` loads the real code (a
 * chunk of its own, with src/call/step-value.ts) the first time a page's tool runs a step. `ctx.step()` returns a
 * promise either way; a step waits for the load, then runs as it would have (its checks included), and a failed
 * load rejects that step (the next one tries again).
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type * as Real from './steps';

export type { StepCall, StepNotKept, StepRecord, StepSink } from './steps';

const real = lazy(() => import('./steps'));

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
    return real.load().then((module) => {
      this.#steps ??= new module.CallSteps(this.#kept);
      return this.#steps.run(call, key, fn, sink);
    });
  }
}
