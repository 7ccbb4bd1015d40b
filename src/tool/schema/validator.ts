/**
 * Where the JSON Schema validator (`@cfworker/json-schema`) comes from: the one place the SDK loads it. Here it
 * is imported statically, ready at once. The browser build (`toolwire`'s `browser` export condition, made by
 * browser-build.ts) replaces this file with src/tool/schema/validator.browser.ts, which loads the validator
 * with a dynamic `import()` the first time a tool needs it, so that a page whose tools never need it (zod 4
 * parameters that were proved faithful, no plain JSON Schema parameters) never downloads it. Every use of
 * the validator in src/ goes through {@link loadValidator}, so that both builds keep working.
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import type { MaybePromise } from '../../maybe';

/** The validator's class, `@cfworker/json-schema`'s `Validator`. */
export type ValidatorClass = typeof Validator;

/** The validator's class: here at once; in the browser build, a promise until its chunk has loaded. */
export function loadValidator(): MaybePromise<ValidatorClass> {
  return Validator;
}

/** Starts loading the validator without waiting (a no-op here: it is already loaded). */
export function preloadValidator(): void {}
