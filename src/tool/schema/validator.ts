/**
 * Where the JSON Schema validator (`@cfworker/json-schema`) comes from, with the code that reads its output
 * (src/tool/schema/json-schema-output.ts) and `strict: true`'s way back (src/tool/strict-restore.ts): the one place
 * the SDK loads them. Here they are imported statically,
 * ready at once. The browser build (`toolwire`'s `browser` export condition, made by browser-build.ts) replaces
 * this file with src/tool/schema/validator.browser.ts, which loads this one with a dynamic `import()` the first
 * time a tool needs it, so that a page whose tools never need it (zod 4 parameters that were proved faithful,
 * no plain JSON Schema parameters) never downloads it. Every use of the validator in src/ goes through
 * {@link loadValidator}, so that both builds keep working.
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import type { MaybePromise } from '../../maybe';
import * as strictRestore from '../strict-restore';
import * as output from './json-schema-output';

/** The validator's class, `@cfworker/json-schema`'s `Validator`. */
export type ValidatorClass = typeof Validator;

/** The code that reads the validator's output: src/tool/schema/json-schema-output.ts. */
export type ValidatorOutput = typeof output;

/** The validator's class: here at once; in the browser build, a promise until its chunk has loaded. */
export function loadValidator(): MaybePromise<ValidatorClass> {
  return Validator;
}

/** src/tool/schema/json-schema-output.ts, loaded as {@link loadValidator} is (with it, in the browser build). */
export function loadValidatorOutput(): MaybePromise<ValidatorOutput> {
  return output;
}

/** src/tool/strict-restore.ts (`strict: true`'s way back, which uses the validator), loaded with it. */
export type StrictRestore = typeof strictRestore;

/** src/tool/strict-restore.ts, loaded as {@link loadValidator} is (with it, in the browser build). */
export function loadStrictRestore(): MaybePromise<StrictRestore> {
  return strictRestore;
}

/** Starts loading the validator without waiting (a no-op here: it is already loaded). */
export function preloadValidator(): void {}
