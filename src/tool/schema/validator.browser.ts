/**
 * The browser build's src/tool/schema/validator.ts (swapped in by browser-build.ts): `@cfworker/json-schema`
 * is loaded with a dynamic `import()`, which the application's bundler puts in a chunk of its own. A tool that
 * needs it starts the load when it is defined ({@link preloadValidator}); its first validation waits for it.
 * A failed load (the chunk could not be fetched) fails that validation, and the next one tries again.
 *
 * @module
 */
import type { MaybePromise } from '../../maybe';
import type { ValidatorClass } from './validator';

let loaded: ValidatorClass | undefined;
let loading: Promise<ValidatorClass> | undefined;

/** The validator's class, or a promise of it while its chunk loads. @throws (rejects) when the load fails. */
export function loadValidator(): MaybePromise<ValidatorClass> {
  if (loaded !== undefined) return loaded;
  loading ??= import('@cfworker/json-schema').then(
    (module) => {
      loaded = module.Validator;
      return loaded;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Starts loading the validator without waiting; a failure is reported by the validation that needs it. */
export function preloadValidator(): void {
  const pending = loadValidator();
  if (pending instanceof Promise) pending.catch(() => {});
}
