/**
 * What a tool declares about running again: its side-effect class (`sideEffect`) and its retries (`retry`), with
 * the rules `tool()` checks them by. A retry is allowed only where running twice is harmless.
 *
 * @module
 */
import {
  aDuration,
  aFunction,
  anArrayOf,
  anInteger,
  anObject,
  aString,
  type OptionsSpec,
  type Rule,
} from './check-options';
import type { SideEffect } from './side-effect';

/** The side-effect class of a tool that does not say: the conservative one. */
export const DEFAULT_SIDE_EFFECT: SideEffect = 'external';

/** Most attempts a `retry` may ask for. */
export const MAX_RETRY_ATTEMPTS = 100;

/**
 * `tool({ retry })`: run `execute` again when it throws or times out. Each attempt gets `timeoutMs` of its own;
 * between attempts the call waits a random delay (exponential backoff with full jitter, the client's reconnect
 * delays' rule), which the call's cancellation ends at once. All durations in milliseconds. An `execute` that
 * yields preliminary results is retried only for what it throws (or a timeout) before its first yield
 * (src/call/first-yield.ts).
 */
export interface RetryOptions {
  /** How many times `execute` may run in all, the first included: 1 to 100 (1: no retry). */
  maxAttempts: number;
  /** Ceiling of the delay before the second attempt; it doubles for each further one. @default 100 */
  initialDelayMs?: number | undefined;
  /** No delay between attempts is longer than this. @default 2_000 */
  maxDelayMs?: number | undefined;
  /**
   * Whether this failure (what `execute` threw, or the `TimeoutError` of an attempt that ran out of time) is
   * worth another attempt: `true` (or a promise of `true`) retries. A `when` that throws or rejects counts as
   * `false`, and so does an async one that has not answered within the tool's `timeoutMs`; a cancel of the call
   * while it answers ends the call `cancelled`. @default every failure is retried
   */
  when?: ((error: unknown) => boolean | Promise<boolean>) | undefined;
}

/** The delays of a `retry` without its own. */
export const RETRY_DEFAULTS = { initialDelayMs: 100, maxDelayMs: 2_000 } as const;

const RETRY_SPEC: OptionsSpec<RetryOptions> = {
  rules: {
    maxAttempts: { ...anInteger({ min: 1, max: MAX_RETRY_ATTEMPTS }), code: 'invalid_retry', required: true },
    initialDelayMs: { ...aDuration(0), code: 'invalid_retry' },
    maxDelayMs: { ...aDuration(0), code: 'invalid_retry' },
    when: { ...aFunction, code: 'invalid_retry' },
  },
  aliases: {
    attempts: 'maxAttempts',
    maxRetries: 'maxAttempts',
    retries: 'maxAttempts',
    max_attempts: 'maxAttempts',
    delayMs: 'initialDelayMs',
    baseDelayMs: 'initialDelayMs',
    initialDelay: 'initialDelayMs',
    maxDelay: 'maxDelayMs',
    retryIf: 'when',
    shouldRetry: 'when',
    retryOn: 'when',
  },
};

/** The rule of `tool({ retry })`. */
export const aRetry: Rule = {
  ...anObject(RETRY_SPEC, 'an object { maxAttempts, … }'),
  code: 'invalid_retry',
};

/** The rule of `tool({ sideEffect })`. */
export const aSideEffect: Rule = {
  expected: "'none', 'idempotent' or 'external'",
  test: (value) => value === 'none' || value === 'idempotent' || value === 'external',
  code: 'invalid_side_effect',
};

/** The rule of `tool({ sensitiveFieldNames })`: property names, each a non-empty string. */
export const aFieldNameList: Rule = anArrayOf(
  aString('a non-empty string', { minLength: 1 }),
  'an array of property names',
);

/**
 * Why `retry` is refused for a tool of this side-effect class, or `undefined` when it is allowed: only a tool
 * whose `execute` may run twice without harm (`none`, `idempotent`) is retried.
 */
export function retryRefusal(
  sideEffect: SideEffect | undefined,
  retry: RetryOptions | undefined,
): string | undefined {
  if (retry === undefined || retry.maxAttempts === 1 || (sideEffect ?? DEFAULT_SIDE_EFFECT) !== 'external')
    return undefined;
  const given =
    sideEffect === undefined
      ? `no sideEffect (which means '${DEFAULT_SIDE_EFFECT}')`
      : `sideEffect 'external'`;
  return `retry is allowed only for sideEffect 'none' or 'idempotent', since a retry runs execute again; got ${given}`;
}
