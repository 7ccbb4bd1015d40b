/**
 * `ctx`, the second argument of `execute` and the other callbacks of a tool: one small object per call. Its
 * `signal` and `idempotencyKey` are made when first read (most tools read neither), yet are own enumerable
 * properties, so `{ ...ctx }` and `const { signal } = ctx` work as with plain fields.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import { type Logger, silentLogger } from '../logger';
import { checkOptions, type OptionsOwner, type OptionsSpec } from '../tool/check-options';
import type { AskOptions, ProgressInput } from '../tool/context-methods';
import type { IdempotencyKeyOptions } from '../tool/context-scope';

/** What `ctx`'s methods reach: the call behind it (`CallRun`); absent in a bare `CallSignal` (tests). */
export interface CallChannel {
  progress(update: ProgressInput): void;
  emit(type: string, data?: unknown): void;
  askQuestion(question: string, options?: AskOptions<unknown>): Promise<unknown>;
  step(key: string, fn: () => unknown): Promise<unknown>;
  /** The logger of one attempt of the call. */
  loggerFor(attempt: number): Logger;
}

/** The call behind a `ctx`: its signal (made on first read) and, for a real call, its {@link CallChannel}. */
export type ContextCall = { readonly signal: AbortSignal } & Partial<CallChannel>;

/** Where the call runs, as the service (or `invokeTool`'s options) says. */
export interface CallPlace {
  attempt: number;
  sessionId: string | undefined;
  agentName: string | undefined;
}

/** No attempt beyond the first, no session, no agent: a call of `invokeTool` given none. */
export const FIRST_ATTEMPT: CallPlace = { attempt: 1, sessionId: undefined, agentName: undefined };

/** `ctx.idempotencyKey()`'s options: a misspelt `per` would silently give a key per call instead of per run. */
const KEY_OPTIONS: OptionsSpec<IdempotencyKeyOptions> = {
  rules: { per: { expected: "'call' or 'run'", test: (value) => value === 'call' || value === 'run' } },
  aliases: { scope: 'per', perRun: 'per', unique: 'per' },
};
const KEY_OWNER: OptionsOwner = { name: 'ctx.idempotencyKey()', error: ToolDefinitionError };

/**
 * `ctx.idempotencyKey`: per call `toolwire:<callId>[:<scope>]`, per run `toolwire-run:<runId>[:<scope>]`, each
 * part URI-encoded.
 */
function idempotencyKeyFor(
  callId: string,
  runId: string,
): (scope?: string, options?: IdempotencyKeyOptions) => string {
  return (scope, options) => {
    if (options !== undefined) checkOptions(options, KEY_OPTIONS, KEY_OWNER);
    const base =
      options?.per === 'run'
        ? `toolwire-run:${encodeURIComponent(runId)}`
        : `toolwire:${encodeURIComponent(callId)}`;
    return scope === undefined ? base : `${base}:${encodeURIComponent(scope)}`;
  };
}

/** An accessor that an assignment replaces with a plain value (a tool may set `ctx.signal` for its helpers). */
function lazyProperty(name: string, get: (this: CallContext) => unknown): PropertyDescriptor {
  return {
    get,
    set(this: object, value: unknown) {
      Object.defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  };
}

// One descriptor, with one getter, for every call: a getter made per call would give each `ctx` a shape of its
// own (a slow, dictionary-mode object).
let SIGNAL: PropertyDescriptor;
const NO_MESSAGES: readonly never[] = Object.freeze([]);
let IDEMPOTENCY_KEY: PropertyDescriptor;
let LOGGER: PropertyDescriptor;

/** The `ctx` of one call (typed for tools as `ToolContext`). */
export class CallContext {
  readonly #call: ContextCall;
  // Assigned in the constructor, in this order (the order `Object.keys(ctx)` shows).
  declare context: unknown;
  declare readonly signal: AbortSignal;
  declare callId: string;
  declare runId: string;
  declare toolName: string;
  declare approved: boolean;
  declare depth: number;
  declare readonly idempotencyKey: (scope?: string, options?: IdempotencyKeyOptions) => string;
  declare attempt: number;
  declare sessionId: string | undefined;
  declare agentName: string | undefined;
  declare readonly logger: Logger;

  static {
    SIGNAL = lazyProperty('signal', function (this: CallContext) {
      return this.#call.signal;
    });
    IDEMPOTENCY_KEY = lazyProperty('idempotencyKey', function (this: CallContext) {
      return idempotencyKeyFor(this.callId, this.runId);
    });
    LOGGER = lazyProperty('logger', function (this: CallContext) {
      return this.#call.loggerFor?.(this.attempt) ?? silentLogger;
    });
  }

  /** `ctx.step()`: a function of this call (destructuring works), read from the prototype. */
  get step(): (key: string, fn: () => unknown) => Promise<unknown> {
    const call = this.#call;
    return (key, fn) => call.step?.(key, fn) ?? Promise.reject(new Error('this ctx belongs to no call'));
  }

  /** `ctx.progress()`: a function of this call (destructuring works), read from the prototype. */
  get progress(): (update: ProgressInput) => void {
    const call = this.#call;
    return (update) => call.progress?.(update);
  }

  /** `ctx.emit()`: a function of this call (destructuring works), read from the prototype. */
  get emit(): (type: string, data?: unknown) => void {
    const call = this.#call;
    return (type, data) => call.emit?.(type, data);
  }

  /** `ctx.askQuestion()`: a function of this call (destructuring works), read from the prototype. */
  get askQuestion(): (question: string, options?: AskOptions<unknown>) => Promise<unknown> {
    const call = this.#call;
    return (question, options) =>
      call.askQuestion?.(question, options) ?? Promise.reject(new Error('this ctx belongs to no call'));
  }

  /** The AI SDK's name of `callId` (an `execute(input, options)` written for the AI SDK reads it). */
  get toolCallId(): string {
    return this.callId;
  }

  /** The AI SDK's name of `signal`. */
  get abortSignal(): AbortSignal {
    return this.signal;
  }

  /** The AI SDK's `messages`: always empty, the conversation stays with the service. */
  get messages(): readonly never[] {
    return NO_MESSAGES;
  }

  /** The AI SDK's name of `context`. */
  get experimental_context(): unknown {
    return this.context;
  }

  constructor(
    call: ContextCall,
    context: unknown,
    callId: string,
    runId: string,
    toolName: string,
    depth: number,
    place: CallPlace = FIRST_ATTEMPT,
  ) {
    this.#call = call;
    this.context = context;
    Object.defineProperty(this, 'signal', SIGNAL);
    this.callId = callId;
    this.runId = runId;
    this.toolName = toolName;
    this.approved = false;
    this.depth = depth;
    Object.defineProperty(this, 'idempotencyKey', IDEMPOTENCY_KEY);
    this.attempt = place.attempt;
    this.sessionId = place.sessionId;
    this.agentName = place.agentName;
    Object.defineProperty(this, 'logger', LOGGER);
  }
}

/** A subclass per `extend` object (the client passes the same one for every call), its extras on the prototype. */
const EXTENDED = new WeakMap<object, typeof CallContext>();

/**
 * The `ctx` class for calls given `extend`: its keys are found on the prototype, not enumerable, and a standard
 * field (an own property) always wins over one of them.
 */
export function contextClassFor(
  extend: Readonly<Record<PropertyKey, unknown>> | undefined,
): typeof CallContext {
  if (extend === undefined) return CallContext;
  let made = EXTENDED.get(extend);
  if (made === undefined) {
    made = class extends CallContext {};
    for (const key of Reflect.ownKeys(extend)) {
      Object.defineProperty(made.prototype, key, {
        value: extend[key as keyof typeof extend],
        writable: true,
      });
    }
    EXTENDED.set(extend, made);
  }
  return made;
}
