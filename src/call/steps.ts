/**
 * `ctx.step()`: durable steps of one call (PROTOCOL.md §18.11). A completed step's result is kept here for the
 * call's retries, and handed to `onStep` as JSON to be kept by the service; the steps the service kept for a
 * re-dispatched call come in with it and are returned instead of running their `fn` again.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import type { Redactor } from '../redact';
import { serializeOutput } from '../tool/output';
import { STEP_LIMITS, utf8Length } from '../wire/protocol';

/** A completed step, as given to `InvokeOptions.onStep` (to be kept by the service). */
export interface StepRecord {
  /** Id of the call. */
  callId: string;
  /** The step's key. */
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

type Entry = { done: true; value: unknown } | { done: false; pending: Promise<unknown> };

/** The steps of one call, shared by its attempts. */
export class CallSteps {
  readonly #entries = new Map<string, Entry>();
  #sent = 0;

  /** @param kept - the results the service kept for this call (`tool_call.steps`), by key. */
  constructor(kept: Readonly<Record<string, unknown>> | undefined) {
    if (kept === undefined) return;
    for (const [key, value] of Object.entries(kept)) this.#entries.set(key, { done: true, value });
    this.#sent = this.#entries.size;
  }

  /**
   * Runs `fn` as the step `key`, or returns the kept result. Concurrent calls with one key share one run.
   * @throws ToolDefinitionError `invalid_step` (synchronously) for a bad key or `fn`.
   */
  run(
    callId: string,
    key: unknown,
    fn: unknown,
    redactor: Redactor | undefined,
    sink: StepSink,
  ): Promise<unknown> {
    if (typeof key !== 'string' || key === '' || key.length > STEP_LIMITS.maxKeyChars) {
      throw new ToolDefinitionError(
        'invalid_step',
        `ctx.step(): the key must be a string of 1 to ${STEP_LIMITS.maxKeyChars} characters, got ${
          typeof key === 'string' ? `a string of ${key.length}` : typeof key
        }`,
      );
    }
    if (typeof fn !== 'function') {
      throw new ToolDefinitionError('invalid_step', `ctx.step(): fn must be a function, got ${typeof fn}`);
    }
    const entry = this.#entries.get(key);
    if (entry !== undefined) return entry.done ? Promise.resolve(entry.value) : entry.pending;
    const pending = (async () => (fn as () => unknown)())().then(
      (value) => {
        this.#entries.set(key, { done: true, value });
        this.#keep(callId, key, value, redactor, sink);
        return value;
      },
      (error: unknown) => {
        // A failed step is not kept: the next attempt runs it again.
        this.#entries.delete(key);
        throw error;
      },
    );
    this.#entries.set(key, { done: false, pending });
    return pending;
  }

  /** Hands a completed step to the sink as bounded, redacted JSON, or says why it is not kept. */
  #keep(callId: string, key: string, value: unknown, redactor: Redactor | undefined, sink: StepSink): void {
    try {
      const json = typeof value === 'string' ? JSON.stringify(value) : serializeOutput(value);
      const result = redactor === undefined ? JSON.parse(json) : redactor.value(JSON.parse(json));
      const bytes = utf8Length(JSON.stringify(result));
      if (bytes > STEP_LIMITS.maxResultBytes) {
        const limit = STEP_LIMITS.maxResultBytes;
        sink.notKept({ key, reason: `its result is ${bytes} bytes of JSON, over the limit of ${limit}` });
      } else if (this.#sent >= STEP_LIMITS.maxPerCall) {
        sink.notKept({ key, reason: `the call already keeps ${STEP_LIMITS.maxPerCall} steps` });
      } else {
        this.#sent += 1;
        sink.kept({ callId, key, result });
      }
    } catch (error) {
      sink.notKept({ key, reason: `its result could not be written as JSON (${String(error)})` });
    }
  }
}
