/**
 * The options of `client.connect()`, `client.run()` and `client.close()`: their defaults and the checks made
 * before anything is sent.
 *
 * @module
 */
import { OptionsError } from '../errors';
import {
  aBoolean,
  aDuration,
  aFunction,
  anAbortSignal,
  anInteger,
  anything,
  checkOptions,
  describeValue,
  type OptionsOwner,
  type OptionsSpec,
  optionsFault,
} from '../tool/check-options';
import type { ConnectOptions } from '../wire/connection';
import { Agent } from './agent';
import type { RunEvent } from './runs';

/** Options of {@link Client.run}. */
export interface RunOptions<C = unknown> {
  /** `ctx.context` for every tool call of this run and of its nested runs. Never sent. */
  context?: C | undefined;
  /**
   * Aborting rejects `run()` at once with `AbortError` (`cause`: `signal.reason`), connected or not, aborts the
   * run's tool calls in this process at once, and cancels the run on the service (`run_cancel`, re-sent after a
   * reconnect until the service ends the run; PROTOCOL.md §6).
   */
  signal?: AbortSignal | undefined;
  /** Model turns before the run fails. @default the service's (10 with the stub) */
  maxTurns?: number | undefined;
  /**
   * Told about each event of this run as it happens (the same as the client's `run_event` event, for this run
   * only): turns, messages, tool calls and results, approvals, and the calls' progress, preliminary results and
   * questions. A listener that throws is ignored.
   */
  onEvent?: ((event: RunEvent) => void) | undefined;
}

/** Default values of {@link CloseOptions}. */
export const CLOSE_DEFAULTS = { drain: true, timeoutMs: 30_000 } as const;

/** Options of {@link Client.close}. */
export interface CloseOptions {
  /** Finish running calls and flush results before closing. @default true */
  drain?: boolean | undefined;
  /** Longest wait for draining, in milliseconds; then running calls are aborted with `cancelled` results. @default 30_000 */
  timeoutMs?: number | undefined;
}

/** What `client.run()` accepts: one rule per option of {@link RunOptions}. */
const RUN_OPTIONS: OptionsSpec<RunOptions> = {
  rules: { context: anything, signal: anAbortSignal, maxTurns: anInteger({ min: 1 }), onEvent: aFunction },
  aliases: { abortSignal: 'signal', turns: 'maxTurns', maxSteps: 'maxTurns', onRunEvent: 'onEvent' },
};
const RUN_OWNER: OptionsOwner = { name: 'client.run()', error: OptionsError };

/**
 * Checks `run()`'s arguments before anything is sent, so a mistake is an immediate, named error.
 * @throws OptionsError `invalid_agent`, `invalid_input`, `invalid_options`, `unknown_option`, `invalid_option`.
 */
export function checkRunArguments(agent: unknown, input: unknown, options: unknown): void {
  if (!(agent instanceof Agent)) {
    optionsFault(
      RUN_OWNER,
      'invalid_agent',
      `agent must be made with new Agent(), got ${describeValue(agent)}`,
    );
  }
  if (typeof input !== 'string') {
    optionsFault(RUN_OWNER, 'invalid_input', `input must be a string, got ${describeValue(input)}`);
  }
  checkOptions(options, RUN_OPTIONS, RUN_OWNER);
}

/** What `client.close()` accepts: one rule per option of {@link CloseOptions}. */
const CLOSE_OPTIONS: OptionsSpec<CloseOptions> = {
  rules: { drain: aBoolean, timeoutMs: aDuration(0) },
  aliases: { timeout: 'timeoutMs', graceful: 'drain', drainTimeoutMs: 'timeoutMs' },
};
const CLOSE_OWNER: OptionsOwner = { name: 'client.close()', error: OptionsError };

/** Checks `close()`'s options. @throws OptionsError `invalid_options`, `unknown_option`, `invalid_option`. */
export function checkCloseOptions(options: unknown): void {
  checkOptions(options, CLOSE_OPTIONS, CLOSE_OWNER);
}

/** What `client.connect()` accepts: one rule per option of {@link ConnectOptions}. */
const CONNECT_OPTIONS: OptionsSpec<ConnectOptions> = {
  rules: {
    maxAttempts: {
      expected: 'a whole number ≥ 1 or Infinity',
      test: (value) =>
        value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && (value as number) >= 1),
    },
  },
  aliases: {
    retries: 'maxAttempts',
    maxRetries: 'maxAttempts',
    attempts: 'maxAttempts',
    maxTries: 'maxAttempts',
  },
};
const CONNECT_OWNER: OptionsOwner = { name: 'client.connect()', error: OptionsError };

/**
 * Checks `connect()`'s options before any attempt.
 * @throws OptionsError `invalid_options`, `unknown_option`, `invalid_option`.
 */
export function checkConnectOptions(options: unknown): void {
  checkOptions(options, CONNECT_OPTIONS, CONNECT_OWNER);
}
