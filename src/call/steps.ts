/**
 * `ctx.step()`: durable steps of one call (PROTOCOL.md §18.11). A completed step's result is kept here for the
 * call's retries, and handed to `onStep` as JSON to be kept by the service; the steps the service kept for a
 * re-dispatched call come in with it and are returned instead of running their `fn` again.
 *
 * @module
 */
import { AbortError, ToolDefinitionError } from '../errors';
import type { Redactor } from '../redact';
import { STEP_LIMITS } from '../wire/protocol';
import { keptValue } from './step-value';

/** A completed step, as given to `InvokeOptions.onStep` (to be kept by the service). */
export interface StepRecord {
  /** Id of the call. */
  callId: string;
  /** The step's key, redacted as the call's texts are: the key as sent and as kept steps are matched by. */
  key: string;
  /** The result as a JSON value, redacted; at most `STEP_LIMITS.maxResultBytes` bytes of JSON. */
  result: unknown;
}

/** Why a completed step is not kept beyond this process. */
export type StepNotKept = { key: string; reason: string };

/** Where a step's outcome goes: the service (`kept`) and the call's logger (`notKept`). */
export interface StepSink {
  kept(record: StepRecord): void;
  notKept(info: StepNotKept): void;
}

type Entry = { done: true; json: string } | { done: false; pending: Promise<unknown> };

/** What a step needs of its call (`CallRun`). */
export interface StepCall {
  readonly ctx: { readonly callId: string };
  readonly options: { readonly redactor?: Redactor | undefined };
  /** `true` once the call has its result. */
  readonly finished: boolean;
  /** The call's own abort state (its first `ctx.signal`). */
  readonly signal: AbortSignal;
  readonly tool: { readonly name: string };
}

/**
 * The key a step is known by, here and on the service: `key` redacted by `redactor` (the client's API key, its
 * `redact` rules, the call's sensitive values). Keys that differ only in their secrets are one step.
 */
function stepKey(key: string, redactor: Redactor | undefined): string {
  return redactor === undefined ? key : redactor.text(key);
}

/** `ctx.step("key")` as error messages name it. */
const named = (key: string) => `ctx.step(${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)})`;

/**
 * The steps of one call, shared by its attempts. Every `ctx.step()` of a key returns the kept form of its
 * result ({@link keptValue}: JSON, redacted), the first run included, so a tool behaves the same whether a step
 * ran now, in an earlier attempt, or in a process that died.
 */
export class CallSteps {
  readonly #entries = new Map<string, Entry>();
  /** Keys kept by the service or sent to it: counted against `STEP_LIMITS.maxPerCall`. */
  #durable = 0;

  /** @param kept - the results the service kept for this call (`tool_call.steps`), by key. */
  constructor(kept: Readonly<Record<string, unknown>> | undefined) {
    if (kept === undefined) return;
    for (const [key, value] of Object.entries(kept))
      this.#entries.set(key, { done: true, json: JSON.stringify(value ?? null) });
    this.#durable = this.#entries.size;
  }

  /**
   * Runs `fn` as the step `key`, or returns the kept result. Concurrent calls with one key share one run. Never
   * throws: every failure is the returned promise's rejection.
   *
   * Rejects with `fn`'s own error (nothing is kept: the next attempt runs it again); a `ToolDefinitionError`
   * `invalid_step` for a bad key or `fn` (before `fn` runs), `too_many_steps` when the call already has
   * `STEP_LIMITS.maxPerCall` durable steps (before `fn` runs), `invalid_step_result` when the result holds what
   * JSON cannot (a BigInt, a function, a symbol, a cycle: `fn` ran, its result is not kept); the call's abort
   * reason when the call was cancelled or timed out, and an `AbortError` `call_ended` once it has its result
   * (`fn` does not run).
   */
  run(call: StepCall, key: unknown, fn: unknown, sink: StepSink): Promise<unknown> {
    try {
      return this.#run(call, key, fn, sink);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A copy of the kept result of `key` (each reader gets its own, as a re-dispatched call would). */
  #replay(key: string): unknown {
    const entry = this.#entries.get(key);
    return entry?.done === true ? JSON.parse(entry.json) : null;
  }

  #run(call: StepCall, given: unknown, fn: unknown, sink: StepSink): Promise<unknown> {
    if (typeof given !== 'string' || given === '' || given.length > STEP_LIMITS.maxKeyChars) {
      throw new ToolDefinitionError(
        'invalid_step',
        `ctx.step(): the key must be a string of 1 to ${STEP_LIMITS.maxKeyChars} characters, got ${
          typeof given === 'string' ? `a string of ${given.length}` : typeof given
        }`,
      );
    }
    // The key as sent (PROTOCOL.md §18.11): redacted, the same text every time, so that a kept step is found again.
    const key = stepKey(given, call.options.redactor);
    if (key.length > STEP_LIMITS.maxKeyChars) {
      throw new ToolDefinitionError(
        'invalid_step',
        `ctx.step(): the key is over ${STEP_LIMITS.maxKeyChars} characters once its secrets are redacted`,
      );
    }
    if (typeof fn !== 'function') {
      throw new ToolDefinitionError('invalid_step', `${named(key)}: fn must be a function, got ${typeof fn}`);
    }
    const entry = this.#entries.get(key);
    if (entry !== undefined)
      return entry.done ? Promise.resolve(this.#replay(key)) : entry.pending.then(() => this.#replay(key));
    if (call.signal.aborted) throw call.signal.reason;
    if (call.finished)
      throw new AbortError(
        'call_ended',
        `${named(key)}: ${call.tool.name} has already ended; the step did not run`,
      );
    if (this.#durable >= STEP_LIMITS.maxPerCall) {
      throw new ToolDefinitionError(
        'too_many_steps',
        `${named(key)}: the call already has ${STEP_LIMITS.maxPerCall} steps, the most the service keeps; the step did not run`,
      );
    }
    // Counted now, so that concurrent steps cannot pass the bound together; given back if not kept.
    this.#durable += 1;
    const pending = (async () => (fn as () => unknown)())().then(
      (result) => {
        const kept = keptValue(result, call.options.redactor);
        if (!kept.ok) {
          this.#entries.delete(key);
          this.#durable -= 1;
          throw new ToolDefinitionError(
            'invalid_step_result',
            `${named(key)}: the result cannot be kept: ${kept.reason}; the step ran, its result is not kept`,
          );
        }
        this.#entries.set(key, { done: true, json: kept.json });
        if (kept.bytes > STEP_LIMITS.maxResultBytes) {
          this.#durable -= 1;
          const limit = STEP_LIMITS.maxResultBytes;
          sink.notKept({
            key,
            reason: `its result is ${kept.bytes} bytes of JSON, over the limit of ${limit}: it is kept for this process only`,
          });
        } else sink.kept({ callId: call.ctx.callId, key, result: JSON.parse(kept.json) });
        return JSON.parse(kept.json) as unknown;
      },
      (error: unknown) => {
        // A failed step is not kept: the next attempt runs it again.
        this.#entries.delete(key);
        this.#durable -= 1;
        throw error;
      },
    );
    this.#entries.set(key, { done: false, pending });
    return pending;
  }
}
