/**
 * `ctx.step()`: durable steps of one call (docs/protocol/steps.md). A completed step's result is kept here for the
 * call's retries, and handed to `onStep` as JSON to be kept by the service; the steps the service kept for a
 * re-dispatched call come in with it and are returned instead of running their `fn` again.
 *
 * @module
 */
import { AbortError, ToolDefinitionError } from '../errors';
import { nestsDeeperThan } from '../json';
import { MAX_VALUE_DEPTH } from '../limits';
import type { Redactor } from '../redact';
import { MAX_OUTPUT_DEPTH, MAX_OUTPUT_NODES, serializeOutput, thrownMessage } from '../tool/output';
import { STEP_LIMITS, utf8Length } from '../wire/protocol';

/*
 * What a completed step's result becomes (docs/protocol/steps.md): the value `ctx.step()` returns, the same whether
 * the step ran now, ran in an earlier attempt of the call, or ran in a process that died. It is the result as
 * the service keeps it: written as JSON (a plain JSON value as it is, a `Date` its ISO text, other objects by the
 * rules of a tool's output, src/tool/output.ts), redacted, and read back. What JSON has no form for, or would
 * empty or rewrite without a word (`NaN`, a `Map`), is refused, naming where it is.
 */
/** A step result as kept: its JSON text and its size in bytes, or why it cannot be kept. */
export type KeptValue = { ok: true; json: string; bytes: number } | { ok: false; reason: string };

/** `$.a[0].b` for a path of keys and indexes. */
function pathText(path: ReadonlyArray<string | number>): string {
  let text = '$';
  for (const part of path)
    text +=
      typeof part === 'number'
        ? `[${part}]`
        : /^[A-Za-z_$][\w$]*$/.test(part)
          ? `.${part}`
          : `[${JSON.stringify(part)}]`;
  return text;
}

/**
 * Why `value` cannot be kept as JSON, or `undefined`: a BigInt (a `BigInt64Array` or `BigUint64Array` too), a
 * function or a symbol (a field keyed by one too), a field whose getter throws, `NaN` or `±Infinity` (a boxed one, or one in a `Float32Array` or `Float64Array`, too), a
 * `Map` or a `Set` anywhere (JSON would turn each into a string, `null` or `{}`, or drop it, so the value read back
 * would not be the one returned), a cycle, or nesting deeper than {@link MAX_OUTPUT_DEPTH} levels (written
 * `"[Too deep]"`). Walks arrays and plain objects; other objects are written by their own rules. Stops
 * (answering `undefined`) past {@link MAX_OUTPUT_NODES} values.
 */
export function unkeepable(value: unknown, redactor?: Redactor): string | undefined {
  const path: Array<string | number> = [];
  const ancestors: object[] = [];
  let nodes = 0;
  const visit = (item: unknown): string | undefined => {
    nodes += 1;
    if (nodes > MAX_OUTPUT_NODES || path.length > MAX_OUTPUT_DEPTH) return undefined;
    if (typeof item === 'number')
      return Number.isFinite(item)
        ? undefined
        : `${pathText(path)} is ${item}, which JSON cannot hold (return null or a string)`;
    if (typeof item === 'bigint')
      return `${pathText(path)} is a BigInt, which JSON cannot hold (return a string)`;
    if (typeof item === 'function') return `${pathText(path)} is a function, which JSON cannot hold`;
    if (typeof item === 'symbol') return `${pathText(path)} is a symbol, which JSON cannot hold`;
    if (typeof item !== 'object' || item === null) return undefined;
    if (item instanceof BigInt64Array || item instanceof BigUint64Array)
      return `${pathText(path)} is a ${item.constructor.name}, whose BigInts JSON cannot hold (return strings)`;
    if ((item instanceof Float32Array || item instanceof Float64Array) && !item.every(Number.isFinite))
      return `${pathText(path)} is a ${item.constructor.name} holding NaN or Infinity, which JSON cannot hold`;
    if (item instanceof Number && !Number.isFinite(item.valueOf()))
      return `${pathText(path)} is ${item.valueOf()}, which JSON cannot hold (return null or a string)`;
    if (item instanceof Map)
      return `${pathText(path)} is a Map, which JSON writes as {} (return Object.fromEntries(map) or [...map])`;
    if (item instanceof Set) return `${pathText(path)} is a Set, which JSON writes as {} (return [...set])`;
    if (ancestors.includes(item)) return `${pathText(path)} refers back to its own container (a cycle)`;
    let keys: Iterable<string | number>;
    if (Array.isArray(item)) keys = item.keys();
    else if (Object.getPrototypeOf(item) === Object.prototype || Object.getPrototypeOf(item) === null) {
      // JSON leaves a symbol-keyed field out: the value read back would lack it.
      if (
        Object.getOwnPropertySymbols(item).some((key) =>
          Object.prototype.propertyIsEnumerable.call(item, key),
        )
      )
        return `${pathText(path)} has a field keyed by a symbol, which JSON leaves out`;
      keys = Object.keys(item);
    } else return undefined;
    ancestors.push(item);
    try {
      for (const key of keys) {
        path.push(key);
        let child: unknown;
        try {
          child = (item as Record<string | number, unknown>)[key];
        } catch (error) {
          // A getter that throws: JSON would write nothing the tool returned.
          return `${pathText(path)} could not be read (${thrownMessage(error, 'its getter', redactor)})`;
        }
        const found = visit(child);
        path.pop();
        if (found !== undefined) return found;
      }
    } finally {
      ancestors.pop();
    }
    return undefined;
  };
  try {
    return visit(value);
  } catch (error) {
    // A proxy whose keys cannot be listed, and the like.
    return `it could not be read (${thrownMessage(error, 'reading it', redactor)})`;
  }
}

/**
 * The kept form of a step's result: `undefined` becomes `null` (a step that returns nothing is kept, as
 * `null`), a plain JSON value is itself, a `Date` its ISO text, other objects are written as a tool's output is
 * (an `Error` `{ name, message }`, binary data a `data:` URL), all redacted with `redactor`; what
 * {@link unkeepable} names is refused. Each reader parses its own copy
 * (`JSON.parse(json)`), as a process the call is re-dispatched to would. Never throws.
 */
export function keptValue(value: unknown, redactor: Redactor | undefined): KeptValue {
  const kept = keptAsIs(value, redactor);
  // Why it was refused names a path, which may be a field keyed by a secret: redacted as every error text is.
  return kept.ok || redactor === undefined ? kept : { ok: false, reason: redactor.text(kept.reason) };
}

/** {@link keptValue} before its refusal's reason is redacted (its kept JSON is redacted here already). */
function keptAsIs(value: unknown, redactor: Redactor | undefined): KeptValue {
  const refused = unkeepable(value, redactor);
  if (refused !== undefined) return { ok: false, reason: refused };
  try {
    const json = typeof value === 'string' ? JSON.stringify(value) : serializeOutput(value ?? null);
    const parsed: unknown = JSON.parse(json);
    // Deeper, the redactor would write "[Too deep]" and the service refuse the frame: refused, not cut.
    if (nestsDeeperThan(parsed, MAX_VALUE_DEPTH))
      return {
        ok: false,
        reason: `it nests deeper than ${MAX_VALUE_DEPTH} levels of objects and arrays, the most a kept value may`,
      };
    const kept = JSON.stringify(redactor === undefined ? parsed : redactor.value(parsed));
    return { ok: true, json: kept, bytes: utf8Length(kept) };
  } catch (error) {
    return { ok: false, reason: `it could not be written as JSON (${String(error)})` };
  }
}

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
  readonly contextSignal: AbortSignal;
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
   * JSON cannot hold as it is (a BigInt, `NaN`, a `Map`, a function, a cycle: {@link unkeepable}; `fn` ran, its
   * result is not kept); the call's abort
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
    // The key as sent (docs/protocol/steps.md): redacted, the same text every time, so that a kept step is found again.
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
    if (call.contextSignal.aborted) throw call.contextSignal.reason;
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
