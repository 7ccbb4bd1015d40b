/**
 * The browser build's src/tool/schema/validator.ts (swapped in by browser-build.ts): that module, with
 * `@cfworker/json-schema` and the code reading its output, is loaded with a dynamic `import()`, which the
 * application's bundler puts in a chunk of its own. A tool that needs it starts the load when it is defined
 * ({@link preloadValidator}); its first validation waits for it. A failed load (the chunk could not be fetched)
 * fails that validation, and the next one tries again.
 *
 * @module
 */

import { lazy } from '../../browser/lazy';
import type { MaybePromise } from '../../maybe';
import type { StrictRestore, ValidatorClass, ValidatorOutput } from './validator';

export type { StrictRestore, ValidatorClass, ValidatorOutput } from './validator';

const real = lazy('the JSON Schema validator', () => import('./validator'));

/** The validator's class, or a promise of it while its chunk loads. @throws (rejects) when the load fails. */
export function loadValidator(): MaybePromise<ValidatorClass> {
  const now = real.now;
  return now === undefined ? real.load().then((module) => module.loadValidator()) : now.loadValidator();
}

/** See src/tool/schema/validator.ts, loaded with {@link loadValidator}. */
export function loadValidatorOutput(): MaybePromise<ValidatorOutput> {
  const now = real.now;
  return now === undefined
    ? real.load().then((module) => module.loadValidatorOutput())
    : now.loadValidatorOutput();
}

/** See src/tool/schema/validator.ts, loaded with {@link loadValidator}. */
export function loadStrictRestore(): MaybePromise<StrictRestore> {
  const now = real.now;
  return now === undefined
    ? real.load().then((module) => module.loadStrictRestore())
    : now.loadStrictRestore();
}

/** Starts loading the validator without waiting; a failure is reported by the validation that needs it. */
export function preloadValidator(): void {
  real.load().catch(() => {});
}
