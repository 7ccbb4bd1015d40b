/**
 * `ctx`, the second argument of `execute` and of a tool's other callbacks: `CallContext` (one small object per
 * call, its `signal`, `idempotencyKey` and `logger` made when first read), a host's extras on it
 * (`contextClassFor`), the `ctx` of each attempt of a tool with `retry` (`newAttempt`), and the checks of what
 * `ctx.progress()` and `ctx.emit()` take. Its other methods (`askQuestion`, `step`) reach the call (src/call/pipeline.ts
 * `CallRun`), which holds them in ./questions.ts and ./steps.ts.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import { nestsDeeperThan } from '../json';
import { MAX_VALUE_DEPTH } from '../limits';
import { type CallLogger, type Logger, silentLogger } from '../logger';
import type { Redactor } from '../redact';
import { checkOptions, type OptionsOwner, type OptionsSpec, optionsFault, show } from '../tool/check-options';
import { serializeOutput, toWellFormed } from '../tool/output';
import type { AskOptions, IdempotencyKeyOptions, ProgressInput, ToolContext } from '../tool/tool';
import { EVENT_LIMITS, MAX_PROGRESS_MESSAGE_CHARS, utf8Length } from '../wire/protocol';
import { CallSignal } from './signal';
import type { Attempt, CallOptions } from './types';

/*
 * `ctx`: one small object per call. Its `signal`, `idempotencyKey` and `logger` are made when first read (most
 * tools read none), yet are own enumerable properties, so `{ ...ctx }` and `const { signal } = ctx` work as with
 * plain fields.
 */
/** What `ctx`'s methods reach: the call behind it (`CallRun`); absent in a bare `CallSignal` (tests). */
export interface CallChannel {
  progress(update: ProgressInput): void;
  emit(type: string, data?: unknown): void;
  askQuestion(question: string, options?: AskOptions<unknown>): Promise<unknown>;
  step(key: string, fn: () => unknown): Promise<unknown>;
  /** The logger of one attempt of the call. */
  loggerFor(attempt: number): Logger;
  /** Whether the call has a logger: without one, `ctx.logger` is the silent logger, a plain field. */
  readonly logs: boolean;
}

/**
 * The call behind a `ctx`: its `ctx.signal` (made on first read; not `signal`, which is a cancellation's own
 * name) and, for a real call, its {@link CallChannel}.
 */
export type ContextCall = { readonly contextSignal: AbortSignal } & Partial<CallChannel>;

/** Where the call runs, as the service (or `invokeTool`'s options) says. */
export interface CallPlace {
  attempt: number;
  sessionId: string | undefined;
  agentName: string | undefined;
  tenantId: string | undefined;
  userId: string | undefined;
  agentRevision: string | undefined;
}

/** No attempt beyond the first, no session, no agent, tenant or user: a call of `invokeTool` given none. */
export const FIRST_ATTEMPT: CallPlace = {
  attempt: 1,
  sessionId: undefined,
  agentName: undefined,
  tenantId: undefined,
  userId: undefined,
  agentRevision: undefined,
};

/** `ctx.idempotencyKey()`'s options: a misspelt `per` would silently give a key per call instead of per run. */
const KEY_OPTIONS: OptionsSpec<IdempotencyKeyOptions> = {
  rules: { per: { expected: "'call' or 'run'", test: (value) => value === 'call' || value === 'run' } },
  aliases: { scope: 'per', perRun: 'per', unique: 'per' },
};
const KEY_OWNER: OptionsOwner = { name: 'ctx.idempotencyKey()', error: ToolDefinitionError };

/**
 * `ctx.idempotencyKey`: per call `toolwire:<callId>[:<scope>]`, per run `toolwire-run:<runId>[:<scope>]`, each
 * part URI-encoded. A scope that is not a string is refused: written as text, every object would be one scope
 * (`[object Object]`), and two side effects would share a key.
 */
function idempotencyKeyFor(
  callId: string,
  runId: string,
): (scope?: string, options?: IdempotencyKeyOptions) => string {
  return (scope, options) => {
    if (scope !== undefined && typeof scope !== 'string')
      optionsFault(KEY_OWNER, 'invalid_option', `scope must be a string or undefined, got ${show(scope)}`);
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
  declare tenantId: string | undefined;
  declare userId: string | undefined;
  declare agentRevision: string | undefined;
  declare readonly logger: CallLogger;

  static {
    SIGNAL = lazyProperty('signal', function (this: CallContext) {
      return this.#call.contextSignal;
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
    this.tenantId = place.tenantId;
    this.userId = place.userId;
    this.agentRevision = place.agentRevision;
    // Without a logger there is nothing to scope: a plain field (an accessor costs every `ctx` a defineProperty).
    if (call.logs === true) Object.defineProperty(this, 'logger', LOGGER);
    else (this as { logger: CallLogger }).logger = silentLogger;
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

/*
 * One attempt of a call whose tool has `retry`: a `ctx` of its own, with a signal of its own (an attempt that
 * runs out of time aborts only its own), and every other member the same as the call's first `ctx`.
 */
/** What an attempt is made from: the call (`CallRun`). */
export interface AttemptSource extends CallChannel {
  readonly options: CallOptions;
  readonly tool: { readonly name: string };
  readonly ctx: ToolContext;
}

/** The `ctx` of attempt `number` (2, 3, …, or 1 for a retrying tool's first), and the control of its signal. */
export function newAttempt(call: AttemptSource, number: number): Attempt {
  const signal = new CallSignal(call.options.signal, call.tool.name);
  const channel: ContextCall = {
    get contextSignal() {
      return signal.signal;
    },
    progress: (update) => call.progress(update),
    emit: (type, data) => call.emit(type, data),
    askQuestion: (question, options) => call.askQuestion(question, options),
    step: (key, fn) => call.step(key, fn),
    loggerFor: (attempt) => call.loggerFor(attempt),
    logs: call.logs,
  };
  const first = call.ctx;
  const Context = contextClassFor(call.options.extend);
  const ctx = new Context(channel, first.context, first.callId, first.runId, first.toolName, first.depth, {
    attempt: number,
    sessionId: first.sessionId,
    agentName: first.agentName,
    tenantId: first.tenantId,
    userId: first.userId,
    agentRevision: first.agentRevision,
  }) as unknown as ToolContext;
  ctx.approved = first.approved;
  return { ctx, abort: (reason) => signal.abort(reason), end: () => signal.end() };
}
/*
 * What `ctx.progress()` and `ctx.emit()` take, checked: a bad argument throws to the tool.
 */
const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

function invalid(message: string): never {
  throw new ToolDefinitionError('invalid_progress', `ctx.progress(): ${message}`);
}

/**
 * The update as checked: `progress`, `total` when given, `message` when given, whole (the caller redacts it, then
 * cuts it with {@link cutProgressMessage}: a cut before redaction could halve a secret, leaving a piece no rule finds).
 * @throws ToolDefinitionError `invalid_progress` naming the field and the value.
 */
export function checkProgress(update: ProgressInput): ProgressInput {
  if (typeof update !== 'object' || update === null)
    invalid(`expected { progress, total?, message? }, got ${show(update)}`);
  const { progress, total, message } = update;
  if (!isFiniteNumber(progress) || progress < 0)
    invalid(`progress must be a finite number ≥ 0, got ${show(progress)}`);
  const checked: ProgressInput = { progress };
  if (total !== undefined) {
    if (!isFiniteNumber(total) || total <= 0)
      invalid(`total must be a finite number > 0, got ${show(total)}`);
    checked.total = total;
  }
  if (message !== undefined) {
    if (typeof message !== 'string') invalid(`message must be a string, got ${show(message)}`);
    checked.message = message;
  }
  return checked;
}

/** A progress message once redacted: well-formed, at most {@link MAX_PROGRESS_MESSAGE_CHARS} characters, cut at a code point. */
export function cutProgressMessage(message: string): string {
  return toWellFormed(firstUnits(message, MAX_PROGRESS_MESSAGE_CHARS));
}

/** The first `max` UTF-16 units of `text`, never ending in half a surrogate pair. */
function firstUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * The event as recorded: its name, and its data as a JSON value (`undefined` when none was given; over
 * {@link EVENT_LIMITS.maxDataBytes} bytes of JSON or deeper than {@link MAX_VALUE_DEPTH}, `{ truncated: true, bytes }`).
 * @param redactor - the call's redactor: a name in which it finds a secret is refused (names are sent unredacted).
 * @throws ToolDefinitionError `invalid_event` naming the bad name, or saying (without quoting it) that the name
 *   holds a secret.
 */
export function checkEvent(
  type: unknown,
  data: unknown,
  redactor?: Redactor,
): { event: string; data?: unknown } {
  // A name is sent as written (redacting it would leave characters a name may not hold): one with a secret in it is
  // refused, and not quoted.
  if (typeof type === 'string' && redactor !== undefined && redactor.text(type) !== type) {
    throw new ToolDefinitionError(
      'invalid_event',
      "ctx.emit(): the event type holds a secret (a redacted field's value or a match of the client's redact rules); put it in the data, which is redacted",
    );
  }
  if (typeof type !== 'string' || !EVENT_LIMITS.namePattern.test(type)) {
    const shown = typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : String(type);
    throw new ToolDefinitionError(
      'invalid_event',
      `ctx.emit(): the event type must be 1 to 128 letters, digits or _ . : / -, got ${shown}`,
    );
  }
  if (data === undefined) return { event: type };
  // A result's rules, except that a string is a JSON string here (a result's text is the string itself).
  return {
    event: type,
    data: boundedData(typeof data === 'string' ? JSON.stringify(data) : serializeOutput(data)),
  };
}

/**
 * Throws, to the tool, for the event past {@link EVENT_LIMITS.maxPerCall} of one call (`count` events were
 * recorded before it): the service keeps no more of a call, so the SDK refuses it rather than drop it unseen.
 * @throws ToolDefinitionError `too_many_events`.
 */
export function checkEventCount(count: number): void {
  if (count < EVENT_LIMITS.maxPerCall) return;
  throw new ToolDefinitionError(
    'too_many_events',
    `ctx.emit(): the call already has ${EVENT_LIMITS.maxPerCall} events, the most the service keeps; this one was not recorded`,
  );
}

/**
 * The JSON text as a value, or `{ truncated: true, bytes }` when it is over the size limit or nests deeper than
 * {@link MAX_VALUE_DEPTH} levels (the service would refuse the frame).
 */
export function boundedData(json: string): unknown {
  const bytes = utf8Length(json);
  if (bytes > EVENT_LIMITS.maxDataBytes) return { truncated: true, bytes };
  const value = JSON.parse(json) as unknown;
  return nestsDeeperThan(value, MAX_VALUE_DEPTH) ? { truncated: true, bytes } : value;
}
