/**
 * `tool()`: a tool's definition, checked when it is made. The returned {@link Tool} carries the JSON-serialisable
 * {@link ToolDefinition} announced to the service; {@link invokeTool} runs it. The same checks make a tool of
 * any other accepted shape (./shapes.ts). In order:
 * - the members of `ctx` beside its fields: the methods a tool talks through, and those about the call's place;
 * - what a tool declares about running again (`sideEffect`, `retry`) and about approval (`needsApproval`
 *   policies), with the rules `tool()` checks them by;
 * - tools written for another SDK (the AI SDK's keys, schema objects and argument conventions), read as they are;
 * - the types of a tool: its options, its `ctx`, the tool itself, and its private part;
 * - {@link tool} and `makeTool`, which checks any accepted object;
 * - {@link inputSchemaOf}.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { backoffDelaysFault } from '../backoff';
import { ToolDefinitionError } from '../errors';
import { cloneJson, isPlainObject } from '../json';
import type { CallLogger } from '../logger';
import { andThen, isThenable, type MaybePromise } from '../maybe';
import { type FleetLimits, MAX_APPROVAL_REASON_CHARS, type ToolDefinition } from '../wire/protocol';
import {
  aBoolean,
  aDuration,
  aFunction,
  anArrayOf,
  anInteger,
  anObject,
  anything,
  aString,
  checkOptions,
  describeValue,
  isOptionsObject,
  isRecord,
  type OptionsOwner,
  type OptionsSpec,
  oneOf,
  optionsFault,
  type Rule,
} from './check-options';
import { type ContentInput, content, isImageType } from './content';
import { readsPastFirstArgument } from './function-source';
import { thrownMessage } from './output';
import {
  type LegacyZod3Schema,
  partNeeded,
  refuseMissingParts,
  resolveSchema,
  type SchemaAdapter,
} from './schema';
import { formatPath, type SchemaKind, type ValidationIssue, type ValidationResult } from './schema/adapter';
import { type OptionalParts, registeredPart } from './schema/optional-parts';
import { isStandardSchema } from './schema/standard';
import type { StrictSchema } from './strict';

/** A tool's side-effect class (Assembly Line's `sideEffect`). */
export type SideEffect = 'none' | 'idempotent' | 'external';

/*
 * The methods `ctx` gives a tool for talking while it runs (docs/protocol/updates.md): how far it got, and questions to
 * the user, events for the run's record. Declared on their own, so that `ToolContext` stays a list of fields.
 */
/** What `ctx.progress()` takes. */
export interface ProgressInput {
  /** How far the call has got: a finite number ≥ 0 (a count, bytes, a percentage: your unit). */
  progress: number;
  /** What `progress` counts towards, when known: a finite number > 0. */
  total?: number | undefined;
  /** A line for a human, e.g. `exported 40 of 100 tables` (cut at 1,000 characters). */
  message?: string | undefined;
}

/** What `ctx.askQuestion()` takes besides the question. */
export interface AskOptions<S = undefined> {
  /**
   * The answer must be one of these (1 to 50 different strings of 1 to 200 characters); the UI shows a button each.
   */
  choices?: readonly string[] | undefined;
  /**
   * The answer must match this: any Standard Schema (zod, valibot, arktype, …) or a JSON Schema object. The
   * promise then resolves with the schema's output. Without `choices` or `schema` the answer is a string.
   */
  schema?: S | undefined;
  /** Stop waiting after this many milliseconds (rejects with `QuestionError` `timeout`). @default none */
  timeoutMs?: number | undefined;
}

/** The methods of `ctx` a tool talks through. Read them from `ctx` (destructuring works); a spread copy lacks them. */
export interface ContextMethods {
  /**
   * Tells how far the call has got. Goes to the service as a progress frame (at most four per second per call,
   * the last one always), which shows it in the UI and to the code that started the run; over a service that
   * does not take progress, and after the call has ended, it does nothing. With `invokeTool`, each one goes to
   * `options.onProgress`. Progress also renews the call's lease (docs/protocol/lease.md), as the client does anyway
   * for every running call.
   *
   * @throws ToolDefinitionError `invalid_progress` when `progress` is not a finite number ≥ 0, `total` not a
   *   finite number > 0, or `message` not a string (inside `execute`, the call then ends with that error).
   * @example
   * ```ts
   * ctx.progress({ progress: done, total: tables.length, message: `exported ${name}` });
   * ```
   */
  progress(update: ProgressInput): void;
  /**
   * Asks the user something and waits for the answer, while the call goes on (it gives up its concurrency slot
   * meanwhile, as a call waiting for an approval does). Answered by the client's `onQuestion` when it has one,
   * else by a person through the service (the agent UI shows the question with its choices, or a text box; the
   * HTTP API answers it), or by `invokeTool`'s `onQuestion`. The wait counts towards the call's `timeoutMs`.
   *
   * @returns the answer: a string, one of `choices`, or the output of `schema`.
   * @throws QuestionError (as a rejection) `declined`, `cancelled`, `timeout`, `unsupported`, `invalid_answer` or
   *   `failed`: unlike systems whose question ends the call, here the tool decides what to do next.
   *   ToolDefinitionError `invalid_question` for a malformed question (an empty text, a bad choice or schema, an
   *   option it does not have).
   * @example
   * ```ts
   * const warehouse = await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] });
   * ```
   */
  /**
   * Records something that happened in the run, e.g. `ctx.emit('rows.exported', { table, rows })`: the service
   * keeps it in the run's transcript, `client.run()`'s `onEvent` gets it (a `tool_event`), and the agent UI lists
   * it under the call. Every event counts (none is coalesced) and survives a dropped connection. `data` is written
   * as JSON by the rules of a result (BigInt as a string, a cycle as `"[Circular]"`) and redacted; over 16,384
   * bytes it is recorded as `{ truncated: true, bytes }`. Over a service without events, and after the call has
   * ended, it does nothing. With `invokeTool`, each one goes to `options.onEmit`.
   *
   * @throws ToolDefinitionError `invalid_event` when `type` is not 1 to 128 letters, digits or `_ . : / -`;
   *   `too_many_events` for an event past the 256 a call may record (the service keeps no more).
   */
  emit(type: string, data?: unknown): void;
  askQuestion<S = undefined>(
    question: string,
    options?: AskOptions<S>,
  ): Promise<
    S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : S extends undefined ? string : unknown
  >;
}

/*
 * The members of `ctx` that say where a call runs and let it survive running again: the attempt, the run's
 * session and agent, a logger scoped to the call, durable steps (docs/protocol/steps.md,
 * docs/protocol/call-context.md). Declared on their
 * own, so that `ToolContext` stays a short list of fields.
 */
/** The second argument of `ctx.idempotencyKey()`. */
export interface IdempotencyKeyOptions {
  /**
   * What the key is unique to. `'call'`: this call (`toolwire:<callId>[:<scope>]`): the same in every attempt and
   * every process the call is re-delivered to, different for the next call of the same tool. `'run'`: the run
   * (`toolwire-run:<runId>[:<scope>]`): the same for every call of the run with the same scope, as Assembly Line's
   * per-run key. Each part is URI-encoded. @default 'call'
   */
  per?: 'call' | 'run' | undefined;
}

/** The members of `ctx` about the call's place: attempt, session, agent, logger, steps. */
export interface ContextScope {
  /**
   * Which attempt this is, from 1. Above 1 only for a tool with `retry`, whose `execute` runs again after a
   * failure; every other member of `ctx` (the `callId`, the idempotency keys, the kept steps) stays the same.
   */
  readonly attempt: number;
  /**
   * The session that started the call's run (the client's that called `client.run()`, for its nested runs too),
   * as the service says (feature `call_context`); `undefined` for a run started over HTTP, over a service that
   * does not say, and with `invokeTool` unless given.
   */
  readonly sessionId: string | undefined;
  /**
   * Name of the agent whose run made the call, as the service says (feature `call_context`); `undefined` over a
   * service that does not say, and with `invokeTool` unless given.
   */
  readonly agentName: string | undefined;
  /**
   * The service's identity of the agent's definition the run started with (its name, instructions, model, tools
   * and output schema: a change to any gives a new one), as the service says (feature `call_context`); for
   * tying a call to the agent revision that made it in logs and audits. `undefined` over a service that does not
   * say, and with `invokeTool` unless given.
   */
  readonly agentRevision: string | undefined;
  /**
   * The tenant (account) the run belongs to, as the service says (feature `call_context`): who the call acts
   * for, from the service's own record (the stub: an id derived from the API key that started the run, never the
   * key), the same for nested runs. Scope your data by it. `undefined` over a service that does not say, and
   * with `invokeTool` unless given.
   */
  readonly tenantId: string | undefined;
  /**
   * The end user the run acts for, as whoever started the run said (`client.run(agent, input, { userId })`, the
   * service's HTTP API or UI), passed on by the service (feature `call_context`) to the run's calls and its
   * nested runs. `undefined` when the run was started without one, over a service that does not say, and with
   * `invokeTool` unless given.
   */
  readonly userId: string | undefined;
  /**
   * The client's logger (or `invokeTool`'s `logger`), for this call: each line gets `callId`, `toolName` and
   * `attempt` among its fields, and every text and field is redacted (the client's `redact` rules, the API key,
   * the values of the tool's `sensitiveFieldNames`). A client given no logger writes the `error` lines to the
   * console and discards the rest; `invokeTool` without a `logger` discards everything. Takes pino's forms
   * (`ctx.logger.info('rows: %d', 4)`, `ctx.logger.warn(error)`) as well as `(fields, message)`.
   */
  readonly logger: CallLogger;
  /**
   * A durable step: runs `fn` once for this call and keeps its result. When the same `key` is reached again in
   * this call (a retry, or the call re-dispatched to another process after this one died), `fn` does not run:
   * the kept result is returned. Over a service without the feature `steps`, or with `invokeTool`, steps are kept
   * for the retries of the call only.
   *
   * **What it returns** is the result as the service keeps it, every time, the first run included: its JSON
   * (a `Date` becomes its ISO string, `undefined` in an object is left out, `undefined` as the result is `null`,
   * an object of another class is written as a tool's output is), redacted like every value the
   * client sends (a secret in a step result comes back as `[redacted]`: fetch secrets outside steps), as a fresh
   * copy for each reader. So a tool behaves the same whether its process died or not. The type says `T`; for a
   * result that is not plain JSON it is that JSON form. What JSON would empty or rewrite (`NaN`, a `Map`, a `Set`)
   * is refused rather than changed.
   *
   * **Bounds.** A result over 16,384 bytes of JSON (`STEP_LIMITS.maxResultBytes`) is returned and kept for this
   * process only, with a `warn` on `ctx.logger` (the work is done; refusing it would only make a retry redo it).
   * A call keeps at most 32 steps (`STEP_LIMITS.maxPerCall`, the ones the service gave back included): the next
   * new key is refused before its `fn` runs.
   *
   * A process that dies while `fn` runs left no result: the next one runs `fn` again (at least once). Give an
   * external write inside `fn` an idempotency key (`ctx.idempotencyKey(key)`) so that running twice does no harm.
   *
   * @returns the kept JSON value of the step's result, a copy per call of `ctx.step()`.
   * @throws (as the returned promise's rejection, never synchronously) what `fn` throws (nothing is kept: the
   *   next attempt runs it again); ToolDefinitionError `invalid_step` when `key` is not a string of 1 to 256
   *   characters or `fn` not a function, `too_many_steps` past 32 steps (`fn` does not run), and
   *   `invalid_step_result` when the result holds a BigInt, `NaN` or `±Infinity`, a `Map` or a `Set`, a function
   *   or a symbol anywhere, or a cycle (`fn` ran;
   *   nothing is kept); the call's abort reason once it was cancelled or timed out, and AbortError `call_ended`
   *   once it has its result (`fn` does not run).
   * @example
   * ```ts
   * const profile = await ctx.step('load-profile', () => loadProfile(input.customerId));
   * ```
   */
  step<T>(key: string, fn: () => T | Promise<T>, options?: StepOptions): Promise<T>;
}

/**
 * The third argument of `ctx.step()`, as Assembly Line writes it. Accepted so that its tools move over unchanged;
 * toolwire keeps and sends only the result, so `metadata` is not used.
 */
export interface StepOptions {
  /** Accepted and ignored. */
  metadata?: Record<string, unknown> | undefined;
}

/*
 * What a tool declares about running again: its side-effect class (`sideEffect`) and its retries (`retry`), with
 * the rules `tool()` checks them by. A retry is allowed only where running twice is harmless.
 */
/** The side-effect class of a tool that does not say: the conservative one. */
export const DEFAULT_SIDE_EFFECT: SideEffect = 'external';

/** Most attempts a `retry` may ask for. */
export const MAX_RETRY_ATTEMPTS = 100;

/**
 * `tool({ retry })`: run `execute` again when it throws or times out. Each attempt gets `timeoutMs` of its own;
 * between attempts the call waits a random delay (exponential backoff with full jitter, the client's reconnect
 * delays' rule), which the call's cancellation ends at once. All durations in milliseconds. An `execute` that
 * yields preliminary results is retried only for what it throws (or a timeout) before its first yield
 * (src/call/yields.ts).
 */
export interface RetryOptions {
  /** How many times `execute` may run in all, the first included: 1 to 100 (1: no retry). */
  maxAttempts: number;
  /**
   * Ceiling of the delay before the second attempt; it doubles for each further one. At most `maxDelayMs`.
   * @default 100
   */
  initialDelayMs?: number | undefined;
  /** No delay between attempts is longer than this. @default 2_000 */
  maxDelayMs?: number | undefined;
  /**
   * Whether this failure (what `execute` threw, or the `TimeoutError` of an attempt that ran out of time) is
   * worth another attempt: `true` (or a promise of `true`) retries. Any other answer is read as a condition, as
   * a `needsApproval` predicate's is: a truthy one (`'yes'`, `1`) retries, a falsy one (`undefined` from a `when`
   * that forgot to return, `0`, `''`) does not. A `when` that throws or rejects counts as
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
    delayMs: 'initialDelayMs',
    baseDelayMs: 'initialDelayMs',
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

/*
 * Discovery metadata: what a tool tells the service about when to show it to a model (Assembly Line's
 * `defaultEnabled` and `capability`). Announced in the definition; toolwire itself does nothing else with it.
 */
/** Where the service shows the tool: up front, behind discovery, only through a skill, or not at all. */
export type ToolVisibility = 'auto' | 'always' | 'deferred' | 'skill' | 'hidden';
/** Where the service would have the tool run, for a service that also runs tools itself. */
export type ToolExecution = 'auto' | 'direct' | 'sandbox' | 'both';

/** `tool({ capability })`: discovery metadata, announced to the service as it is (`definition.capability`). */
export interface ToolCapability {
  /** Where the service shows the tool to a model. @default 'auto' (the service decides) */
  visibility?: ToolVisibility | undefined;
  /** Where the service would have it run; a call to this process runs here whatever it says. @default 'auto' */
  execution?: ToolExecution | undefined;
  /** A group the tool belongs to, for discovery: 1 to 64 letters, digits, `_ . : / -`. */
  namespace?: string | undefined;
  /** Words discovery may match: at most 32, each 1 to 64 characters. */
  tags?: readonly string[] | undefined;
  /** Other names discovery may find the tool by: at most 16, each a valid tool name. */
  aliases?: readonly string[] | undefined;
}

/** Bounds of {@link ToolCapability}, as the protocol checks them too. */
export const CAPABILITY_LIMITS = { maxTags: 32, maxTagChars: 64, maxAliases: 16 } as const;

const aListOf = (item: Rule, max: number, expected: string): Rule => {
  const list = anArrayOf(item, expected);
  return { ...list, test: (value) => list.test(value) && (value as unknown[]).length <= max };
};

const anEnum = (values: readonly string[]): Rule => ({
  expected: values.map((value) => `'${value}'`).join(', '),
  test: (value) => typeof value === 'string' && values.includes(value),
});

const CAPABILITY_SPEC: OptionsSpec<ToolCapability> = {
  rules: {
    visibility: anEnum(['auto', 'always', 'deferred', 'skill', 'hidden']),
    execution: anEnum(['auto', 'direct', 'sandbox', 'both']),
    namespace: aString('1 to 64 letters, digits or _ . : / -', { pattern: /^[a-zA-Z0-9_.:/-]{1,64}$/ }),
    tags: aListOf(
      aString('a string of 1 to 64 characters', { minLength: 1, maxLength: CAPABILITY_LIMITS.maxTagChars }),
      CAPABILITY_LIMITS.maxTags,
      `an array of at most ${CAPABILITY_LIMITS.maxTags} tags`,
    ),
    aliases: aListOf(
      aString('1 to 64 letters, digits, _ or -', { pattern: /^[a-zA-Z0-9_-]{1,64}$/ }),
      CAPABILITY_LIMITS.maxAliases,
      `an array of at most ${CAPABILITY_LIMITS.maxAliases} tool names`,
    ),
  },
  aliases: { alias: 'aliases', names: 'aliases', group: 'namespace', mode: 'execution' },
};

/** The rule of `tool({ capability })`. */
export const aCapability: Rule = anObject(
  CAPABILITY_SPEC,
  'an object { visibility?, execution?, namespace?, tags?, aliases? }',
);

/*
 * Approval policies: what `needsApproval` accepts besides a boolean. `approvalRequired(reason, sideEffect?)`
 * (Assembly Line's name) builds an "always ask, saying why" policy; a predicate may answer
 * `{ required, reason }`. The reason reaches the approver (docs/protocol/approvals.md).
 */
// `Symbol.for`, so that a policy made by one copy of toolwire (ESM and CJS both loaded) works in the other.
const POLICY = Symbol.for('toolwire.approvalRequired.v1');

/** A policy made by {@link approvalRequired}: every call needs a human's approval, for `reason`. */
export interface ApprovalPolicy {
  /** Why a human must approve, shown to the approver (at most 1,000 characters). */
  readonly reason: string;
  /** The side-effect class it was declared with. @default 'external' */
  readonly sideEffect: SideEffect;
}

/** What a `needsApproval` predicate may answer: a boolean, or whether approval is required and why. */
export type ApprovalAnswer = boolean | { required: boolean; reason?: string };

/**
 * Every call of the tool needs a human's approval, and the approver is told `reason`. Announced as
 * `needsApproval: true` with `approvalReason` (docs/protocol/decisions.md), so the service holds the calls itself when
 * the client has no `onApproval`. Assembly Line's `approvalRequired(reason, sideEffect?)`, its `sideEffect`
 * defaulting to `'external'` as there: a tool that gives no `sideEffect` of its own is announced with this one
 * (`definition.sideEffect`), and its approval requests carry it (`ApprovalRequest.sideEffect`). A tool that gives
 * both must give the same class (`conflicting_options` otherwise).
 *
 * @param reason - a non-empty string of at most 1,000 characters (`tool()` refuses another with
 *   `ToolDefinitionError` `invalid_option`).
 * @example
 * ```ts
 * const note = tool({
 *   name: 'record_note',
 *   description: 'Records a durable note.',
 *   needsApproval: approvalRequired('Recording a note is a durable side effect.', 'idempotent'),
 *   execute: () => ({ recorded: true }),
 * });
 * ```
 */
export function approvalRequired(reason: string, sideEffect?: SideEffect): ApprovalPolicy {
  const policy = { reason, sideEffect: sideEffect ?? DEFAULT_SIDE_EFFECT };
  Object.defineProperty(policy, POLICY, { value: true });
  // The class the tool is announced with when it gives no `sideEffect` of its own (see `sideEffectOf`).
  if (sideEffect !== undefined) Object.defineProperty(policy, DECLARED, { value: sideEffect });
  return Object.freeze(policy);
}

const DECLARED = Symbol.for('toolwire.approvalRequired.sideEffect.v1');

/**
 * A tool's side-effect class: its own `sideEffect`, else the one its `approvalRequired(reason, sideEffect)` was
 * given, else `'external'`.
 * @throws ToolDefinitionError `conflicting_options` when the two are given and differ.
 */
function sideEffectOf(given: SideEffect | undefined, approval: unknown, owner: OptionsOwner): SideEffect {
  const declared = isApprovalPolicy(approval)
    ? ((approval as { [DECLARED]?: SideEffect })[DECLARED] ?? undefined)
    : undefined;
  if (given !== undefined && declared !== undefined && given !== declared) {
    optionsFault(
      owner,
      'conflicting_options',
      `sideEffect is '${given}', but needsApproval is approvalRequired(…, '${declared}'); give the class once`,
    );
  }
  return given ?? declared ?? DEFAULT_SIDE_EFFECT;
}

/** `true` for a policy made by {@link approvalRequired}. */
export function isApprovalPolicy(value: unknown): value is ApprovalPolicy {
  return typeof value === 'object' && value !== null && (value as { [POLICY]?: unknown })[POLICY] === true;
}

/** The rule of `needsApproval`: a boolean, a predicate, or an {@link approvalRequired} policy with a usable reason. */
export const aNeedsApproval: Rule = {
  expected: `a boolean, a function or approvalRequired(reason, sideEffect?) (a reason of 1 to ${MAX_APPROVAL_REASON_CHARS} characters; none, idempotent or external)`,
  test: (value) =>
    typeof value === 'boolean' ||
    typeof value === 'function' ||
    (isApprovalPolicy(value) &&
      typeof value.reason === 'string' &&
      value.reason.trim() !== '' &&
      value.reason.length <= MAX_APPROVAL_REASON_CHARS &&
      ['none', 'idempotent', 'external'].includes(value.sideEffect)),
};

const agentNames = anArrayOf(aString('a non-empty string', { minLength: 1 }));

/**
 * The rule of `tool({ allowedAgentNames })`: a non-empty array of agent names. An empty list is refused: it would
 * let no agent call the tool, which is almost surely a list that was meant to be filled (leave the option out to
 * let every agent call it).
 */
export const anAgentNameList: Rule = {
  ...agentNames,
  expected:
    'a non-empty array of agent names (an empty list would let no agent call the tool; leave allowedAgentNames out to let every agent call it)',
  test: (value) => Array.isArray(value) && value.length > 0,
};

/*
 * Tools written for another SDK, read as they are: the keys of an AI SDK tool that mean nothing here (accepted
 * and ignored), an AI SDK `jsonSchema()` object as a schema, and the AI SDK's argument conventions of
 * `needsApproval` and `toModelOutput`. Nothing here imports `ai`: the shapes are recognised structurally.
 */
/**
 * Keys of an AI SDK tool (`ai` 6) that toolwire accepts and ignores: `type` (`'function'` or `'dynamic'`; a
 * provider tool has no `execute` to run here), `providerOptions` and `inputExamples` (for a model provider),
 * `metadata`, `title`, and the streaming hooks `onInputStart`, `onInputDelta`, `onInputAvailable` (a `tool_call` arrives
 * whole: there is no input stream to report).
 */
export interface IgnoredToolKeys {
  type?: 'function' | 'dynamic';
  providerOptions?: unknown;
  metadata?: unknown;
  inputExamples?: unknown;
  title?: string;
  onInputStart?: unknown;
  onInputDelta?: unknown;
  onInputAvailable?: unknown;
}

/** The rules of {@link IgnoredToolKeys}. */
export const IGNORED_TOOL_KEYS: { readonly [K in keyof IgnoredToolKeys]-?: Rule } = {
  type: {
    expected: '"function" or "dynamic" (a provider-executed tool cannot run in this process)',
    test: (value) => value === 'function' || value === 'dynamic',
  },
  providerOptions: anything,
  metadata: anything,
  inputExamples: anything,
  title: anything,
  onInputStart: aFunction,
  onInputDelta: aFunction,
  onInputAvailable: aFunction,
};

const AI_SDK_SCHEMA = Symbol.for('vercel.ai.schema');

/** `true` for what the AI SDK's `jsonSchema()` / `zodSchema()` return (marked with `Symbol.for('vercel.ai.schema')`). */
export function isAiSdkSchema(value: unknown): value is { readonly jsonSchema: unknown } {
  return (
    isRecord(value) && (value as Record<symbol, unknown>)[AI_SDK_SCHEMA] === true && 'jsonSchema' in value
  );
}

/**
 * The schema to resolve: an AI SDK schema object is read as its JSON Schema (toolwire validates against it, then
 * runs the object's own `validate`: {@link withAiSdkValidate}); anything else as it is.
 * @throws ToolDefinitionError `invalid_parameters` when its JSON Schema is a promise (a lazy remote schema).
 */
export function unwrapSchema(value: unknown, owner: string, field: string): unknown {
  if (!isAiSdkSchema(value) || isStandardSchema(value)) return value;
  const json = value.jsonSchema;
  if (isThenable(json)) {
    throw new ToolDefinitionError(
      'invalid_parameters',
      `${owner}: ${field} is an AI SDK schema whose JSON Schema is a promise; give the JSON Schema itself`,
    );
  }
  return json;
}

/**
 * `adapter` followed by the `validate` of the AI SDK schema it was made of (`jsonSchema(schema, { validate })`,
 * `zodSchema()`), which the AI SDK runs before `execute`: on arguments the JSON Schema accepted, its
 * `{ success: true, value }` gives the input `execute` gets, and `{ success: false, error }` (or a throw, or a
 * rejection: it may be async) makes the call `invalid_arguments`, the error's message read as an issue at
 * `(root)` (an error with `issues`, as zod's, as one issue per entry at its path). `adapter` itself for any other
 * schema, or an AI SDK schema without `validate`.
 */
export function withAiSdkValidate(adapter: SchemaAdapter, given: unknown): SchemaAdapter {
  if (!isAiSdkSchema(given) || isStandardSchema(given)) return adapter;
  const check: unknown = (given as { validate?: unknown }).validate;
  if (typeof check !== 'function') return adapter;
  const own = (value: unknown): ValidationResult | Promise<ValidationResult> => {
    let answer: unknown;
    try {
      answer = check.call(given, value);
    } catch (error) {
      return { ok: false, issues: issuesOf(error) };
    }
    return isThenable(answer)
      ? Promise.resolve(answer).then(readAnswer, (error: unknown) => ({ ok: false, issues: issuesOf(error) }))
      : readAnswer(answer);
  };
  return {
    ...adapter,
    validate: (args) => andThen(adapter.validate(args), (result) => (result.ok ? own(result.value) : result)),
  };
}

/** An AI SDK `validate` answer (`{ success, value } | { success: false, error }`) as a validation result. */
function readAnswer(answer: unknown): ValidationResult {
  if (isRecord(answer) && answer.success === true) return { ok: true, value: answer.value };
  if (isRecord(answer) && answer.success === false) return { ok: false, issues: issuesOf(answer.error) };
  return {
    ok: false,
    issues: [
      { path: formatPath([]), message: `validate answered ${describeValue(answer)}, not { success, … }` },
    ],
  };
}

/** The issues of an AI SDK `validate` error: its `issues` (zod's, at their paths) when it has them, else its message. */
function issuesOf(error: unknown): ValidationIssue[] {
  const listed = isRecord(error) && Array.isArray(error.issues) ? error.issues : [];
  const issues = listed.flatMap((issue: unknown) =>
    isRecord(issue) && typeof issue.message === 'string'
      ? [{ path: formatPath(Array.isArray(issue.path) ? issue.path : []), message: issue.message }]
      : [],
  );
  return issues.length > 0 ? issues : [{ path: formatPath([]), message: thrownMessage(error, 'validate') }];
}

/** Keys only an AI SDK tool has: an object with one is read with the AI SDK's argument order. */
const AI_SDK_ONLY_KEYS = [
  'type',
  'providerOptions',
  'inputExamples',
  'onInputStart',
  'onInputDelta',
  'onInputAvailable',
];
/** Keys only toolwire (or an OpenAI Agents tool) has: an object with one is read with toolwire's order. */
const TOOLWIRE_ONLY_KEYS = [
  'parameters',
  'requiresApproval',
  'errorFunction',
  'timeoutMs',
  'allowedAgentNames',
  'sideEffect',
  'retry',
  'sensitiveFieldNames',
  'defaultEnabled',
  'capability',
  'concurrency',
  'slots',
  'fleet',
];
/** The AI SDK's `(input, options)` or toolwire's `(ctx, input)`. */
type ArgumentOrder = 'ai-sdk' | 'toolwire';
/** Which argument order a `needsApproval` function's own parameters say, `undefined` when they cannot be read. */
export type ApprovalOrderOf = (predicate: unknown) => ArgumentOrder | undefined;

/**
 * `true` when an object given as a tool is read with the AI SDK's conventions, whether or not it has a `name`
 * (`ai`'s `tool()` returns its argument as it is, so no mark tells an AI SDK tool apart; its keys do):
 *
 * - the AI SDK's: it has a key only an AI SDK tool has (`type: 'function'` or `'dynamic'`, `providerOptions`,
 *   `inputExamples`, `onInputStart`, `onInputDelta`, `onInputAvailable`) or its `inputSchema` is an AI SDK
 *   `jsonSchema()` / `zodSchema()` object;
 * - else toolwire's: it has a key only toolwire has (`parameters`, `requiresApproval`, `errorFunction`,
 *   `timeoutMs`, `allowedAgentNames`, `sideEffect`, `retry`, `sensitiveFieldNames`), or its `inputSchema` is not
 *   a Standard Schema (the AI SDK takes no bare JSON Schema);
 * - else (`inputSchema` a Standard Schema, nothing more) the AI SDK's, whose shape that is. A `needsApproval`
 *   function there is read by its own parameters (`orderOf`, see `approvalOrder` in ./shapes.ts): toolwire's
 *   order only when they say `(ctx, input)`, the AI SDK's otherwise; one whose parameters cannot be read (a bound
 *   or native function) is refused, since `(ctx, input)` read as `(input, options)` would skip approval (as is,
 *   in ./shapes.ts once the input schema is read, one destructuring a name both `ctx` and the input have).
 *
 * @throws ToolDefinitionError `ambiguous_tool_shape` in that exception, naming the tool and saying how to tell.
 */
export function readsAiSdkConventions(
  given: Record<string, unknown>,
  owner: string,
  orderOf: ApprovalOrderOf = () => undefined,
): boolean {
  const schema = given.inputSchema;
  if (AI_SDK_ONLY_KEYS.some((key) => given[key] !== undefined) || isAiSdkSchema(schema)) return true;
  if (TOOLWIRE_ONLY_KEYS.some((key) => given[key] !== undefined) || !isStandardSchema(schema)) return false;
  if (typeof given.needsApproval !== 'function') return true;
  const order = orderOf(given.needsApproval);
  if (order !== undefined) return order === 'ai-sdk';
  throw new ToolDefinitionError(
    'ambiguous_tool_shape',
    `${owner}: needsApproval is a function whose parameters cannot be read (a bound or native function), so nothing tells whether it takes (input, options) as in the AI SDK or (ctx, input) as in toolwire; add type: 'function' for the AI SDK's order, or give the schema as parameters (or make the tool with toolwire's tool()) for toolwire's`,
  );
}

type Callback = (...args: never[]) => unknown;

/**
 * The AI SDK's names of a call's fields, which the AI SDK gives as the second argument of a tool's
 * `execute(input, options)` and `needsApproval(input, options)` (its `ToolExecutionOptions`): `toolCallId` is `callId`,
 * `abortSignal` is `signal`, `experimental_context` is `context`, and `messages` is always `[]`, frozen (the
 * conversation stays with the service: a `tool_call` carries none of it). Typed `never[]` (nothing can be added
 * to it) so that such a function, typed with the AI SDK's options, accepts it.
 */
export interface AiSdkNames<C = unknown> {
  readonly toolCallId: string;
  readonly abortSignal: AbortSignal;
  readonly messages: never[];
  readonly experimental_context: C;
}

/**
 * `ctx` with its AI SDK names: the second argument of `execute` for a tool given as an object (another SDK's shape,
 * see {@link objectCallbacks}), and of an AI SDK `needsApproval(input, options)`.
 */
export type AiSdkContext<C = unknown> = ToolContext<C> & AiSdkNames<C>;

const NO_MESSAGES = Object.freeze([]) as never[];

/**
 * `ctx` with the AI SDK's names added: a view of it, made per call only for a tool given as an object. Every other
 * member is `ctx`'s own, read from `ctx` itself (its getters reach its call).
 */
const AI_SDK_VIEW: ProxyHandler<ToolContext> = {
  get(ctx, key) {
    switch (key) {
      case 'toolCallId':
        return ctx.callId;
      case 'abortSignal':
        return ctx.signal;
      case 'messages':
        return NO_MESSAGES;
      case 'experimental_context':
        return ctx.context;
      default:
        return Reflect.get(ctx, key);
    }
  },
  has(ctx, key) {
    return (
      key === 'toolCallId' ||
      key === 'abortSignal' ||
      key === 'messages' ||
      key === 'experimental_context' ||
      Reflect.has(ctx, key)
    );
  },
};

function aiSdkContext(ctx: ToolContext): AiSdkContext {
  return new Proxy(ctx, AI_SDK_VIEW) as AiSdkContext;
}

/** `needsApproval(input, options)`, the AI SDK's order, as toolwire's `(ctx, input)`. */
export function aiSdkApproval(needsApproval: unknown): unknown {
  if (typeof needsApproval !== 'function') return needsApproval;
  const predicate = needsApproval as (input: unknown, options: AiSdkContext) => unknown;
  return (ctx: ToolContext, input: unknown) => predicate(input, aiSdkContext(ctx));
}

/**
 * The callbacks of a tool given as an object: `execute` gets `ctx` with the AI SDK's names
 * ({@link AiSdkContext}), so that one written for the AI SDK as `execute(input, options)` runs unchanged; with
 * `aiSdk` (the AI SDK's conventions), `toModelOutput({ toolCallId, input, output })` is the AI SDK's too: `execute`
 * then notes each call's input so that it can be given it, and its `{ type, value }` answer is mapped by
 * {@link fromAiSdkOutput}.
 */
export function objectCallbacks(
  execute: Callback,
  toModelOutput: unknown,
  aiSdk: boolean,
): { execute: Callback; toModelOutput: ((output: unknown, ctx: ToolContext) => unknown) | undefined } {
  const run = execute as (input: unknown, ctx: AiSdkContext) => unknown;
  if (!aiSdk || typeof toModelOutput !== 'function') {
    const named = (input: unknown, ctx: ToolContext) => run(input, aiSdkContext(ctx));
    return { execute: named as Callback, toModelOutput: aiSdk ? undefined : (toModelOutput as never) };
  }
  const inputs = new WeakMap<object, unknown>();
  const project = toModelOutput as (options: {
    toolCallId: string;
    input: unknown;
    output: unknown;
  }) => unknown;
  return {
    execute: ((input: unknown, ctx: ToolContext) => {
      inputs.set(ctx, input);
      return run(input, aiSdkContext(ctx));
    }) as Callback,
    toModelOutput: (output, ctx): MaybePromise<unknown> => {
      const answer = project({ toolCallId: ctx.callId, input: inputs.get(ctx), output });
      return isThenable(answer) ? Promise.resolve(answer).then(fromAiSdkOutput) : fromAiSdkOutput(answer);
    },
  };
}

/**
 * An AI SDK `toModelOutput`'s `error-text` or `error-json` answer, thrown so that the call ends `error` with it as
 * the message (`Error running <name>: <value>`, as an `execute` throw reads): the tool's answer, not a failure of
 * its `toModelOutput`.
 */
export class AiSdkErrorOutput extends Error {}

/**
 * An AI SDK `toModelOutput`'s `execution-denied` answer, thrown so that the call ends `rejected`, the model reading
 * `<name> was not run: the user declined.` and ` Reason: <reason>` when it has one, as for a call a human declined
 * (what the AI SDK sends the model for a denied call).
 */
export class AiSdkDeniedOutput extends Error {
  /** The denial's reason, when it is a non-empty string. */
  readonly reason: string | undefined;
  constructor(reason: string | undefined) {
    super(reason ?? 'the tool execution was denied');
    this.reason = reason;
  }
}

/**
 * An AI SDK tool result output as the value toolwire serialises: `text` its string, `json` its value,
 * `content` toolwire content parts (`text`; `media` and `image-data` of PNG, JPEG, GIF or WebP as image parts,
 * of any other type and `file-data` as file parts). `error-text` / `error-json` throw, so the call is an `error`
 * result whose text is `Error running <name>: <value>` (or `errorFunction`'s); `execution-denied` throws
 * {@link AiSdkDeniedOutput}, so the call is `rejected` with its reason. Anything else is used as it is.
 */
export function fromAiSdkOutput(answer: unknown): unknown {
  if (!isRecord(answer) || typeof answer.type !== 'string') return answer;
  const { value } = answer;
  switch (answer.type) {
    case 'text':
    case 'json':
      return value;
    case 'error-text':
      throw new AiSdkErrorOutput(String(value));
    case 'error-json':
      throw new AiSdkErrorOutput(JSON.stringify(value));
    case 'execution-denied':
      throw new AiSdkDeniedOutput(typeof answer.reason === 'string' ? answer.reason : undefined);
    case 'content':
      return Array.isArray(value) ? content(value.map(contentPart)) : answer;
    default:
      return answer;
  }
}

function contentPart(part: unknown): ContentInput {
  if (!isRecord(part)) return { type: 'json', value: part };
  if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
  const data = part.data;
  const mediaType = typeof part.mediaType === 'string' ? part.mediaType : 'application/octet-stream';
  if (
    (part.type === 'media' || part.type === 'image-data' || part.type === 'file-data') &&
    typeof data === 'string'
  ) {
    // An image of a type the service does not take as an image (SVG, TIFF, …) travels as a file.
    const image = part.type === 'file-data' ? '' : mediaType.toLowerCase();
    return isImageType(image)
      ? { type: 'image', data, mediaType: image }
      : {
          type: 'file',
          data,
          mediaType,
          ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
        };
  }
  return { type: 'json', value: part };
}

/*
 * The types of a tool: its options, the `ctx` its callbacks get, and the tool itself, which {@link tool} makes.
 */
/** A plain JSON Schema object given as `parameters` or `outputSchema`. Write it `as const` for typed input. */
export type JsonSchemaObject = { readonly [keyword: string]: unknown };

/**
 * What `parameters` accepts: any Standard Schema (zod 3/4, valibot, arktype, …), a zod 3 schema from before
 * 3.24 (no Standard Schema), or a JSON Schema object.
 */
export type ToolParameters = StandardSchemaV1 | LegacyZod3Schema | JsonSchemaObject;

/** The input of a tool without `parameters`: an object with no keys. */
export type EmptyInput = Record<string, never>;

/**
 * The type `execute` receives for given `parameters`: the schema's output type for a Standard Schema,
 * `json-schema-to-ts`'s `FromSchema` for an `as const` JSON Schema (defaulted properties stay optional:
 * toolwire does not fill in JSON Schema defaults), {@link EmptyInput} when omitted.
 */
export type InferParameters<P> = [P] extends [undefined]
  ? EmptyInput
  : P extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<P>
    : P extends LegacyZod3Schema<infer Output>
      ? Output
      : P extends JSONSchema
        ? FromSchema<P, { keepDefaultedPropertiesOptional: true }>
        : Record<string, unknown>;

/**
 * The fields of your app's run context (`ctx.context`), declared once for the whole app by declaration merging;
 * empty until you do. While it is empty, a tool that does not type its context gets a loose one
 * ({@link DefaultContext}), so `execute: (input, { context }) => context.tenantId` compiles as written; once you
 * declare fields, that tool's `ctx.context` has them (and only them). A tool typed with `ToolContext<Mine>`
 * keeps `Mine` either way.
 *
 * In a file of its own, make it a module that loads toolwire (`import type {} from 'toolwire'`), else TypeScript
 * reads the declaration as the whole of `'toolwire'` (or, under `nodenext`, cannot find the module to add to);
 * give the file the extension of the app's other files (`.mts` beside `.mts`), so that it adds to the types they
 * import.
 *
 * @example
 * ```ts
 * import type {} from 'toolwire';
 *
 * declare module 'toolwire' {
 *   interface AppContext {
 *     tenantId: string;
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: users add their run context's fields to it by declaration merging.
export interface AppContext {}

/**
 * The type of `ctx.context` for a tool that does not say (`tool()`, `new Client()`): {@link AppContext} once
 * fields are declared in it, else loose (any value; a property read is not checked), since the context is
 * whatever the app gave the client or the run, and `undefined` when it gave none.
 */
export type DefaultContext = [keyof AppContext] extends [never]
  ? // biome-ignore lint/suspicious/noExplicitAny: the loose default the user narrows per tool or by declaration merging.
    any
  : AppContext;

/**
 * What `execute` and the other callbacks receive besides the input: the fields below, the methods of
 * {@link ContextMethods} (`progress`, …) and the members of {@link ContextScope} (`attempt`, `step`, …).
 * `C` is the run context's type (`ctx.context`): {@link DefaultContext} unless the tool says. TypeScript takes a
 * tool's `C` from the first callback of its options that reads `ctx`, in the order written: annotate `execute`'s
 * `ctx` (`ctx: ToolContext<Mine>`) and write `execute` before `needsApproval`, `errorFunction` and the others whose
 * `ctx` is left unannotated, else their default fixes `C` first and `execute`'s annotation is refused (or, with no
 * `AppContext`, silently loose).
 */
export interface ToolContext<C = DefaultContext> extends ContextMethods, ContextScope {
  /** The run context given to the client (or to `invokeTool`); it never leaves the process. */
  context: C;
  /** Aborts when the call is cancelled (by the service or `options.signal`) or times out (`timeoutMs`). */
  signal: AbortSignal;
  /** Id of this call, unique per call; the same when the service re-delivers the call. */
  callId: string;
  /** Id of the run this call belongs to. */
  runId: string;
  /** The tool's name. */
  toolName: string;
  /** `true` when a human approved this call; `false` when no approval was asked for. */
  approved: boolean;
  /** Nesting depth of the run: 0 for a top-level run, 1 inside an agent used as a tool, and so on. */
  depth: number;
  /**
   * A key for deduplicating a side effect (e.g. an `Idempotency-Key` header). Per call (the default): the same
   * for the same call id and scope, so a retry and a re-delivered call reuse it; different across calls and
   * scopes; `toolwire:<callId>[:<scope>]`. Per run (`{ per: 'run' }`): the same for every call of the run with
   * that scope; `toolwire-run:<runId>[:<scope>]`. Each part URI-encoded.
   *
   * @example
   * ```ts
   * await fetch(url, { method: 'POST', headers: { 'Idempotency-Key': ctx.idempotencyKey('charge') } });
   * const perRun = ctx.idempotencyKey('welcome-email', { per: 'run' });
   * ```
   * @throws ToolDefinitionError `invalid_options`, `unknown_option` (with "did you mean": `{ pre: 'run' }`) or
   *   `invalid_option` (`per` other than `'call'` or `'run'`): a misspelt option never gives a key of another kind;
   *   `invalid_option` for a `scope` that is not a string (an object would read `[object Object]`, one scope for
   *   all: pass `String(id)` or a template).
   */
  idempotencyKey(scope?: string, options?: IdempotencyKeyOptions): string;
}

/** Options of {@link tool}. `P` is the type of `parameters`, `Out` what `execute` returns, `C` the context. */
export interface ToolOptions<
  P extends ToolParameters | undefined = undefined,
  Out = unknown,
  C = DefaultContext,
> extends ToolOptionsBase<P, Out, C> {
  /** Schema of the arguments: a Standard Schema, a JSON Schema object with `type: 'object'`, or omitted. */
  parameters?: P | undefined;
  /**
   * The same as `parameters`, under the name the AI SDK, MCP and several agent SDKs use. Give one of the two,
   * never both (`conflicting_options`). An AI SDK `jsonSchema()` object is read as its JSON Schema.
   */
  inputSchema?: P | undefined;
}

/**
 * The schema keys of {@link tool}'s options (see {@link ToolOptions}), typed apart so that the schema's type is
 * inferred from them alone: `P` from `parameters`, `I` from `inputSchema`. Its keys are all optional, so that a
 * misspelt required option (`descripton`) still lets the schema's type be inferred and the refusal names the
 * typo (TypeScript infers nothing from an object literal into a type that lacks one of the literal's keys while
 * the literal lacks one of the type's required keys). `inputSchema` beside `parameters` is refused, as `tool()`
 * refuses it at run time (`conflicting_options`).
 */
export interface ToolSchemaKeys<P, I> {
  /** Schema of the arguments: a Standard Schema, a JSON Schema object with `type: 'object'`, or omitted. */
  parameters?: P | undefined;
  /**
   * The same as `parameters`, under the name the AI SDK, MCP and several agent SDKs use. Give one of the two,
   * never both (`conflicting_options`). An AI SDK `jsonSchema()` object is read as its JSON Schema.
   */
  inputSchema?: ([P] extends [undefined] ? I : 'give parameters or inputSchema, not both') | undefined;
}

/** The schema a tool's options give: `parameters` (`P`), else `inputSchema` (`I`). */
export type SchemaOf<P, I> = [P] extends [undefined] ? I : P;

/** {@link ToolOptions} but the schema (`parameters`, `inputSchema`). */
export interface ToolOptionsBase<
  P extends ToolParameters | undefined = undefined,
  Out = unknown,
  C = DefaultContext,
> {
  /** Name the model calls the tool by: 1 to 64 letters, digits, `_` or `-`. */
  name: string;
  /** What the tool does and when to use it; the model reads it. Must not be empty. */
  description: string;
  /**
   * Does the work. Gets the validated input (the schema's output, e.g. with defaults applied). A string result
   * reaches the model unchanged; anything else as JSON (see `serializeOutput`). Throwing is fine: the
   * model reads `Error running <name>: <message>` (or `errorFunction`'s text).
   */
  execute(input: InferParameters<P>, ctx: ToolContext<C>): Out | Promise<Out>;
  /**
   * The text the model reads when `execute` throws or times out, instead of the default. Its return value is
   * used verbatim when it is a string; if it throws, returns anything else (e.g. `undefined`), or does not
   * answer within `timeoutMs` (at most {@link ERROR_FUNCTION_TIMEOUT_MS}, 5,000 ms, which is also its limit
   * when there is no `timeoutMs`), the default text is used. Argument order as in the OpenAI Agents SDK;
   * `null` (which there means "let the error propagate") means the default text here: a tool failure is a result.
   */
  errorFunction?: ((ctx: ToolContext<C>, error: unknown) => string | Promise<string>) | null | undefined;
  /**
   * Whether a human must approve a call before `execute` runs: a boolean, {@link approvalRequired}`(reason)`, or
   * a predicate of the validated input answering a boolean or `{ required, reason? }` (it runs after
   * validation, the allowlist and the client's policies, before `execute`). The reason is shown to the approver.
   * The predicate gets `(ctx, input, callId)`, `callId` being `ctx.callId`: the OpenAI Agents SDK's
   * `needsApproval(runContext, input, callId)` moves over unchanged.
   * @default false
   */
  needsApproval?:
    | boolean
    | ApprovalPolicy
    | ((
        ctx: ToolContext<C>,
        input: InferParameters<P>,
        callId: string,
      ) => ApprovalAnswer | Promise<ApprovalAnswer>)
    | undefined;
  /** The same as `needsApproval`, under the name Relay-E and Assemble use. One of the two, never both. */
  requiresApproval?:
    | boolean
    | ApprovalPolicy
    | ((
        ctx: ToolContext<C>,
        input: InferParameters<P>,
        callId: string,
      ) => ApprovalAnswer | Promise<ApprovalAnswer>)
    | undefined;
  /**
   * The agents whose runs may call the tool (Assemble's `allowedAgentNames`), by `name`. A call from any other
   * agent's run, or whose agent is unknown (a service without the feature `call_context`), is refused before
   * approval and `execute`: status `rejected`, the model reading `<name> was not run: the agent "<agent>" is not
   * allowed to call it.`. @default every agent may call it
   */
  allowedAgentNames?: readonly string[] | undefined;
  /**
   * Announce the parameters in the form OpenAI's strict function calling accepts: every property required,
   * optional ones as nullable (`anyOf: [schema, { type: 'null' }]`), `additionalProperties: false`, annotations
   * such as `default` left out. A `null` the model sends for an optional property is removed before validation,
   * so `execute` sees the same input as without `strict`. Open objects follow one rule: an object that declares
   * properties is narrowed to them whatever its `additionalProperties` (the model can send only those; validation
   * still reads the original schema), and one that declares none (a record, a free-form `{ type: 'object' }`) is
   * refused, since strict mode would make it `{}` (the root without properties is a tool without input). A schema
   * that cannot be made strict (that, a keyword strict mode does not support, an optional property that also
   * accepts `null`, …) is refused here with `unsupported_schema`, naming its JSON Pointer. See src/tool/strict.ts.
   * The root must be one object: a root `$ref` (a recursive schema) is announced as the object it names, and a
   * root union (`anyOf`/`oneOf`, an `enum` or `const`), which OpenAI refuses, is refused here: wrap the union in a
   * property. `definition.parameters` is then the strict form; `inputSchemaOf(tool)` gives the ordinary one. Outside the
   * Node entry (a browser, a worker, Deno without the `node` condition) it needs `import 'toolwire/strict'` once;
   * without it a `strict: true` tool is refused with `unsupported_schema` naming that import (and, in the same
   * refusal, any other its parameters or `outputSchema` need, e.g. `toolwire/json-schema`).
   * @default false
   */
  strict?: boolean | undefined;
  /**
   * Time limit of a call, in milliseconds (a positive integer up to 2_147_483_647): one budget, counted from
   * the start of the call, for everything the tool itself runs: argument validation (async refinements
   * included), the `needsApproval` predicate, `execute`, `outputSchema` validation and `toModelOutput`. The
   * time a human takes to approve is not counted. When it runs out, in whichever phase, `ctx.signal` aborts
   * with a `TimeoutError`, the call ends with status `timeout` and the model reads `Error running <name>: timed
   * out after <n>ms` (or `errorFunction`'s text). With `retry`, each attempt of `execute` gets a budget of its
   * own. Without it, a call ends when it finishes or is cancelled.
   * @default none
   */
  timeoutMs?: number | undefined;
  /**
   * Schema the result must match (any kind `parameters` accepts): the data the model reads, a `widget` split off
   * first (one that refuses unknown keys does not refuse it; one that names `widget` itself is still met by the
   * whole result). A mismatch is an `error` result.
   */
  outputSchema?: ToolParameters | undefined;
  /**
   * What the model reads instead of the full result: it receives `execute`'s full return value (parsed by
   * `outputSchema`, widget included) and its return value is serialised like a result. The caller still gets
   * the full value in `ToolCallResult.value`. A throw is handled like a throw from `execute`.
   */
  toModelOutput?: ((output: Out) => unknown) | undefined;
  /**
   * How the tool touches the world, announced to the service (approval and audit surfaces may show it): `'none'`
   * (reads only), `'idempotent'` (a write that may run twice with the same effect) or `'external'` (anything
   * else: a charge, an email). Only `none` and `idempotent` tools may have `retry`. @default 'external'
   */
  sideEffect?: SideEffect | undefined;
  /**
   * Run `execute` again when it throws or an attempt runs out of `timeoutMs` (see {@link RetryOptions}); the
   * model reads the last attempt's failure when none succeeds. Needs `sideEffect` `'none'` or `'idempotent'`.
   * @default none (one attempt)
   */
  retry?: RetryOptions | undefined;
  /**
   * Names of input properties (at any depth, exact names) whose values are secrets for the call. Their values,
   * in the model's arguments, the validated input and any arguments an approver edited, are scrubbed, on top of
   * the client's `redact` rules, from everything that leaves the call: the result (text, JSON, widget, content
   * parts), errors, the approver's view (`ApprovalRequest.input` shows `"[redacted]"`), the "approver edited"
   * note, events, progress, preliminary results, questions, step results, `ctx.logger` lines and a client's
   * traced arguments. The rule:
   * - in structured data (JSON outputs, widgets, events, log fields, step results, the approver's input), the
   *   field's whole value is replaced by `"[redacted]"` wherever its name appears, whatever its kind or length;
   * - in text, a value is searched for and replaced only when its text (a string, a number's digits) is at least
   *   4 characters long: `1`, `' '`, `'e'` or `true` would take ordinary text with them. Booleans and `null` are
   *   never searched for;
   * - an output that is JSON stays JSON: it is redacted inside its values and written again compactly.
   * @default []
   */
  sensitiveFieldNames?: readonly string[] | undefined;
  /**
   * Show the tool to the model up front (`true`) or leave it behind the service's discovery (`false`), for a
   * service that defers tools (Assembly Line's `defaultEnabled`). Announced as `definition.defaultEnabled`; a
   * service without discovery ignores it. @default the service decides
   */
  defaultEnabled?: boolean | undefined;
  /**
   * Discovery metadata (see {@link ToolCapability}): where the service shows the tool, where it would run it, its
   * namespace, tags and other names. Announced as `definition.capability`; a service without discovery ignores it.
   * @default none
   */
  capability?: ToolCapability | undefined;
  /**
   * At most `limit` calls of this tool run `execute` at once in this process, per key when `key` is given (a
   * tenant, a customer: `key(input, ctx)` returns a string of 1 to 256 characters; a throw or another value ends
   * the call `error`). A call over the limit waits after validation and approval, holding no `maxConcurrency`
   * slot meanwhile, so a busy key never takes the slots of others; its wait counts towards `timeoutMs`. A call
   * cancelled or timed out while `execute` runs keeps its permit until `execute` returns (as it keeps its slot). Calls
   * waiting for a client slot are served by tool and key in turn (round robin). `limit` is a positive integer.
   * Counts show in `client.stats.tools`. @default none (no limit but the client's)
   */
  concurrency?: ToolConcurrency<InferParameters<P>, C> | undefined;
  /**
   * How many of the client's `maxConcurrency` slots one call takes (a heavy tool: 4), a positive integer no
   * larger than the client's `maxConcurrency` (checked when the client is made). @default 1
   */
  slots?: number | undefined;
  /**
   * Limits across every worker offering this tool, enforced by the service (feature `fleet`,
   * docs/protocol/fleet-limits.md): `concurrency` calls in flight at once, `perSecond` calls started per second. Every
   * worker must announce the same numbers: a worker that disagrees is refused at connect (`fleet_conflict`).
   * @default none
   */
  fleet?: FleetLimits | undefined;
}

/** `tool({ concurrency })`: a per-process limit, per key. */
export interface ToolConcurrency<Input = unknown, C = unknown> {
  /** Calls running `execute` at once, per key: a positive integer. */
  limit: number;
  /** The key of a call (a tenant id); calls of different keys do not count against each other. @default one key */
  key?: ((input: Input, ctx: ToolContext<C>) => string) | undefined;
}

/**
 * A tool made by {@link tool}: its name, description and announced definition. Everything needed to run it is
 * held privately; run it with {@link invokeTool} or a client.
 *
 * `Input`, `Output` and `C` are the validated input, `execute`'s result and the context type.
 */
export interface Tool<Input = unknown, Output = unknown, C = DefaultContext> {
  /** The tool's name. */
  readonly name: string;
  /** The tool's description. */
  readonly description: string;
  /** The JSON-serialisable entry announced to the service (frozen). */
  readonly definition: ToolDefinition;
  /** Type-level only (never present at runtime): carries `Input`, `Output` and `C` for inference. */
  readonly '~types'?: { readonly input: Input; readonly output: Output; readonly context: C } | undefined;
}

/**
 * A {@link Tool} of any input, output and context type: what a `tools` option, `addTool()` and the bridges
 * accept as a `tool()` result (and how TypeScript's messages name it).
 */
// biome-ignore lint/suspicious/noExplicitAny: a tool of any input, output and context type.
export type AnyTool = Tool<any, any, any>;

/** The validated input type of a tool. */
export type ToolInput<T> = T extends Tool<infer I, unknown, unknown> ? I : never;
/** The `execute` result type of a tool (before `toModelOutput`). */
export type ToolOutput<T> = T extends Tool<unknown, infer O, unknown> ? O : never;

/** What {@link invokeTool} needs; kept off the public surface. */
export interface ToolInternals {
  readonly parameters: SchemaAdapter;
  /** The parameters' JSON Schema before any `strict` rewrite (for `strict: true`, not `parameters.jsonSchema`). */
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: SchemaAdapter | undefined;
  readonly execute: (input: unknown, ctx: ToolContext) => unknown;
  /**
   * Whether `execute` may read its `ctx` (./function-source.ts `readsPastFirstArgument`): when it cannot, a call
   * makes its `ctx` only if something else asks for it (src/call/pipeline.ts).
   */
  readonly executeReadsContext: boolean;
  /**
   * Whether `execute` may get the very object it was handed to validate (a JSON Schema, arktype or other Standard
   * Schema may hand back its input; zod, valibot and a tool without parameters give a copy): a host that keeps the
   * call's arguments is told before `execute` runs (src/call/pipeline.ts `CallRun.handsInput`). Decided here, by
   * the kind of the parameters' schema, so a call of another tool pays nothing for it.
   */
  readonly sharesInput: boolean;
  readonly errorFunction: ((ctx: ToolContext, error: unknown) => unknown) | undefined;
  readonly needsApproval:
    | boolean
    | ApprovalPolicy
    | ((ctx: ToolContext, input: unknown, callId: string) => unknown);
  readonly allowedAgentNames: readonly string[] | undefined;
  readonly timeoutMs: number | undefined;
  readonly retry: RetryOptions | undefined;
  readonly sensitiveFieldNames: readonly string[];
  /** `concurrency`, when given: its permits are kept per definition by src/call/concurrency.ts. */
  readonly concurrency?:
    | { readonly limit: number; readonly key: ((input: unknown, ctx: never) => unknown) | undefined }
    | undefined;
  /** `slots`: what one call counts against a client's `maxConcurrency` (1 when absent). */
  readonly slots?: number | undefined;
  /** Gets the call's `ctx` too (the AI SDK's `toModelOutput` reads the call id and input through it). */
  readonly toModelOutput: ((output: unknown, ctx: ToolContext) => unknown) | undefined;
  /**
   * The {@link RecordedFailure} a failure thrown by `execute` is, when it is one: a replayed copy's
   * (src/client/replay.ts). Absent on a tool made by {@link tool}.
   */
  readonly recordedFailure?: ((error: unknown) => RecordedFailure | undefined) | undefined;
}

/**
 * A failure a replayed `execute` throws again: the call ends with the `status` and the model's text (`output`) the
 * run recorded for it, past `errorFunction` (whose text the recording holds already), `error` being what the call
 * reports as thrown (`ToolCallResult.error`, its result part).
 */
export interface RecordedFailure {
  readonly status: 'error' | 'timeout' | 'cancelled' | 'rejected';
  readonly output: string;
  readonly error: unknown;
}

// `Symbol.for`, so that a tool made by one copy of toolwire (ESM and CJS both loaded) runs in the other.
const INTERNALS = Symbol.for('toolwire.tool.internals.v1');

/**
 * Whether a schema of `kind` may hand `validate`'s own argument back as its value ({@link ToolInternals.sharesInput}):
 * zod 3, zod 4 and valibot parse an object into a new one, and a tool without parameters gets a new `{}`.
 */
function sharesInput(kind: SchemaKind): boolean {
  return kind !== 'zod4' && kind !== 'zod3' && kind !== 'valibot' && kind !== 'none';
}

/** The private part of a tool made by {@link tool}, or `undefined` for anything else. */
export function toolInternals(value: unknown): ToolInternals | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [INTERNALS]?: ToolInternals })[INTERNALS];
}

/**
 * A value given where a tool was expected, for a message: with its `name` when it has one (a tool's name is no
 * secret: tool names are announced to the service).
 */
export function describeNotATool(value: unknown): string {
  const name = isRecord(value) ? value.name : undefined;
  return typeof name === 'string'
    ? `${describeValue(value)} named ${describeValue(name)}`
    : describeValue(value);
}

/** Pattern a tool name must match. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/**
 * Longest time `errorFunction` may take, in milliseconds: past `min(timeoutMs, 5_000)` (5,000 ms when the tool
 * has no `timeoutMs`) the model reads the default text instead, so a formatter that never answers cannot hold a
 * call forever.
 */
export const ERROR_FUNCTION_TIMEOUT_MS = 5_000;

type AnyOptions = ToolOptions<ToolParameters | undefined, unknown, unknown> & IgnoredToolKeys;

/** `null`, which the OpenAI Agents SDK allows for `errorFunction`. */
const aNull: Rule = { expected: 'null', test: (value) => value === null };
const anApproval = aNeedsApproval;

/** What `tool()` accepts: one rule per option of {@link ToolOptions}, and the keys of other SDKs it ignores. */
const TOOL_OPTIONS: OptionsSpec<AnyOptions> = {
  rules: {
    name: {
      ...aString('1 to 64 letters, digits, _ or -', { pattern: TOOL_NAME_PATTERN }),
      code: 'invalid_name',
      required: true,
    },
    description: {
      expected: 'a non-empty string',
      test: (value) => typeof value === 'string' && value.trim() !== '',
      code: 'invalid_description',
      required: true,
    },
    parameters: anything, // resolveSchema checks it
    inputSchema: anything,
    execute: { ...aFunction, code: 'invalid_execute', required: true },
    errorFunction: oneOf(aFunction, aNull),
    needsApproval: anApproval,
    requiresApproval: anApproval,
    strict: aBoolean,
    allowedAgentNames: anAgentNameList,
    timeoutMs: { ...aDuration(1), code: 'invalid_timeout' },
    outputSchema: anything, // resolveSchema checks it
    toModelOutput: aFunction,
    sideEffect: aSideEffect,
    retry: aRetry,
    sensitiveFieldNames: aFieldNameList,
    defaultEnabled: aBoolean,
    capability: aCapability,
    concurrency: {
      expected: 'an object { limit, key? }',
      test: isRecord,
      fields: {
        rules: {
          limit: { ...anInteger({ min: 1 }), required: true },
          key: aFunction,
        },
        aliases: { max: 'limit', maxConcurrency: 'limit', keyOf: 'key', by: 'key' },
      },
    },
    slots: anInteger({ min: 1, max: 1_000_000 }),
    fleet: {
      expected: 'an object { concurrency?, perSecond? }',
      test: isRecord,
      fields: {
        rules: {
          concurrency: anInteger({ min: 1 }),
          perSecond: {
            expected: 'a positive finite number',
            test: (value) => typeof value === 'number' && Number.isFinite(value) && value > 0,
          },
        },
        aliases: { limit: 'concurrency', rate: 'perSecond', ratePerSecond: 'perSecond' },
      },
    },
    ...IGNORED_TOOL_KEYS,
  },
  aliases: {
    schema: 'parameters',
    argsSchema: 'parameters',
    allowedAgents: 'allowedAgentNames',
    agents: 'allowedAgentNames',
    handler: 'execute',
    func: 'execute',
    onError: 'errorFunction',
    failureErrorFunction: 'errorFunction',
    // `retries`, `maxRetries`, `attempts`, `shouldRetry`, `retryIf` …: the names `retry: { … }` knows, hinted as
    // `retry.maxAttempts` / `retry.when` at this level too (check-options.ts `suggest`).
    retryPolicy: 'retry',
    sensitiveFields: 'sensitiveFieldNames',
    redactFields: 'sensitiveFieldNames',
    // The AI SDK 4's name of toModelOutput.
    experimental_toToolResultContent: 'toModelOutput',
    // The OpenAI Agents SDK for Python's names (their case and separators folded: `strict_mode` too).
    strictMode: 'strict',
    strictJsonSchema: 'strict',
    nameOverride: 'name',
    descriptionOverride: 'description',
    // MCP's tool annotations say what `sideEffect` says, and `_meta` is its metadata.
    annotations: 'sideEffect',
    readOnlyHint: 'sideEffect',
    idempotentHint: 'sideEffect',
    destructiveHint: 'sideEffect',
    openWorldHint: 'sideEffect',
    _meta: 'metadata',
    // Mastra's name of needsApproval.
    requireApproval: 'needsApproval',
    capabilities: 'capability',
    enabled: 'defaultEnabled',
    enabledByDefault: 'defaultEnabled',
  },
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Defines a tool. Checks the whole configuration now, so nothing fails later mid-call.
 *
 * `definition.parameters` is the JSON Schema of the input side of `parameters` (without `$schema`);
 * `definition.needsApproval` is `true` only for `needsApproval: true`: the service holds those calls until a
 * human decides. A predicate is announced as `false` and evaluated by the client when a call arrives.
 * `definition.sideEffect` is the tool's `sideEffect` (`'external'` when not given).
 *
 * @throws ToolDefinitionError with `code` and a message naming the tool, the field and the value (`tool "add":
 *   timeoutMs must be …, got 0`): `invalid_options` (not an object), `invalid_name` (outside
 *   `^[a-zA-Z0-9_-]{1,64}$`), `invalid_description` (empty), `invalid_execute`, `invalid_timeout` (not a positive
 *   integer ≤ 2_147_483_647), `invalid_side_effect`, `invalid_retry` (see {@link RetryOptions}),
 *   `retry_not_allowed` (`retry` on an `external` tool, given or by default: a retry runs `execute` again),
 *   `invalid_option` (a callback that is not a function; `sensitiveFieldNames` not property names, or given to a
 *   tool without parameters), `unknown_option` (a misspelt
 *   option, with "did you mean" for another SDK's name, a difference of case or a typo), `conflicting_options`
 *   (`parameters` and `inputSchema`, or `needsApproval` and `requiresApproval`, both given),
 *   `invalid_parameters` / `invalid_output_schema` (none of
 *   the accepted kinds; parameters not describing an object; a JSON Schema that every call would fail on: an
 *   unknown `type`, a `pattern` or `patternProperties` key that is not a valid regular expression, a
 *   non-array `required`, a property schema that is not a schema, a `$ref` pointing outside it, …, named by
 *   its JSON Pointer, e.g. `#/properties/kind/type`), `unsupported_schema` (not expressible as JSON Schema,
 *   e.g. `z.date()`; or a `z.preprocess()` / a pipe from `z.unknown()` into a narrower schema, zod 3 and 4
 *   alike, whose accepted input JSON Schema cannot describe; `z.unknown()`, `z.any()` and their transforms are
 *   fine inside an object, announced as `{}`; with `strict: true`, a schema strict mode cannot express, named
 *   by its JSON Pointer; outside the Node entry, a definition that needs `toolwire/zod3`, `toolwire/valibot`,
 *   `toolwire/json-schema` or `toolwire/strict` not imported yet, naming every import it needs in one refusal),
 *   `not_a_tool` (the object the OpenAI Agents SDK's `tool()` returns; an MCP tool as an MCP client's
 *   `listTools()` lists it, which `importMcpTools()` from `toolwire/mcp` imports).
 * @example
 * ```ts
 * import { z } from 'zod';
 * const add = tool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 * });
 * ```
 */
export function tool<
  P extends ToolParameters | undefined = undefined,
  Out = unknown,
  C = DefaultContext,
  I extends ToolParameters | undefined = undefined,
>(
  options: ToolOptionsBase<NoInfer<SchemaOf<P, I>>, Out, C> & ToolSchemaKeys<P, I>,
): Tool<InferParameters<SchemaOf<P, I>>, Out, C> {
  return makeTool(options, {}) as Tool<InferParameters<SchemaOf<P, I>>, Out, C>;
}

/** How {@link makeTool} reads an object given in a `tools` option rather than to `tool()`. */
export interface MakeToolFrom {
  /** The key of a `tools` record: the tool's name. */
  readonly key?: string;
  /**
   * Given for an object (not a bare function): `true` reads `needsApproval` and `toModelOutput` with the AI SDK's
   * argument conventions ({@link readsAiSdkConventions}); either way its `execute` gets the AI SDK's names
   * ({@link objectCallbacks}).
   */
  readonly aiSdk?: boolean;
}

/**
 * A copy of a `tool()` result whose `execute` answers `answer` without running anything (no `outputSchema`, no
 * `toModelOutput`): a dry run of the checks before `execute` (validation, `allowedAgentNames`, `needsApproval`).
 */
export function dryRunOf(source: Tool, answer: unknown): Tool {
  const internals = toolInternals(source);
  if (internals === undefined) return source;
  const made = { name: source.name, description: source.description, definition: source.definition };
  const dry = {
    ...internals,
    execute: () => answer,
    executeReadsContext: false,
    outputSchema: undefined,
    toModelOutput: undefined,
  };
  Object.defineProperty(made, INTERNALS, { value: Object.freeze(dry) });
  return Object.freeze(made) as Tool;
}

/**
 * A copy of a `tool()` result whose `execute` is `execute` (everything else kept: validation, approval,
 * `toModelOutput`, unless `projection` gives its own `outputSchema`, `toModelOutput` and `recordedFailure`), for a
 * replay that answers calls without running the tool (src/client/replay.ts).
 */
export function withExecute(
  source: Tool,
  execute: ToolInternals['execute'],
  projection?: Pick<ToolInternals, 'outputSchema' | 'toModelOutput' | 'recordedFailure'>,
): Tool {
  const internals = toolInternals(source);
  if (internals === undefined) return source;
  const made = { name: source.name, description: source.description, definition: source.definition };
  Object.defineProperty(made, INTERNALS, {
    value: Object.freeze({
      ...internals,
      ...projection,
      execute,
      executeReadsContext: readsPastFirstArgument(execute),
      retry: undefined,
    }),
  });
  return Object.freeze(made) as Tool;
}

/** The option names `tool()` takes (aliases included): the members read from a class instance given as a tool. */
export function isToolOptionName(key: string): boolean {
  return Object.hasOwn(TOOL_OPTIONS.rules, key) || Object.hasOwn(TOOL_OPTIONS.aliases ?? {}, key);
}

/** Of two keys meaning the same option, the one given (refusing both). */
function oneKey(options: Record<string, unknown>, keys: readonly [string, string], owner: OptionsOwner) {
  const [first, second] = keys;
  if (options[first] !== undefined && options[second] !== undefined) {
    optionsFault(owner, 'conflicting_options', `give ${first} or ${second}, not both`);
  }
  return options[first] === undefined && options[second] !== undefined ? second : first;
}

/**
 * What the parameters (`parameters` or `inputSchema`, named by `field`) and `outputSchema` of a definition hold,
 * unwrapped (an AI SDK schema gives its JSON Schema), once every optional part they and `strict: true` need is
 * known to be registered: a browser's core has none, and a definition that needs several is refused once, naming
 * every import (see `refuseMissingParts`).
 *
 * @throws ToolDefinitionError `unsupported_schema` naming the imports missing; `conflicting_options` when both
 *   `parameters` and `inputSchema` are given; `invalid_parameters` for an AI SDK schema whose JSON Schema is a
 *   promise.
 */
function schemasGiven(
  options: Record<string, unknown>,
  owner: OptionsOwner,
): { field: 'parameters' | 'inputSchema'; parameters: unknown; output: unknown } {
  const field = oneKey(options, ['parameters', 'inputSchema'], owner) as 'parameters' | 'inputSchema';
  const parameters = unwrapSchema(options[field], owner.name, field);
  const output =
    options.outputSchema === undefined
      ? undefined
      : unwrapSchema(options.outputSchema, owner.name, 'outputSchema');
  refuseMissingParts(owner.name, [
    partNeeded(parameters, field),
    partNeeded(output, 'outputSchema'),
    options.strict === true ? { name: 'strict', what: 'strict is true' } : undefined,
  ]);
  return { field, parameters, output };
}

/**
 * The parameters' adapter, in strict form when asked (see src/tool/strict.ts), and their JSON Schema as
 * validation reads it (never the strict form). `value` is what `field` holds, unwrapped; the optional parts the
 * definition needs are registered ({@link refuseMissingParts} came first).
 */
function parametersOf(
  options: Record<string, unknown>,
  field: 'parameters' | 'inputSchema',
  value: unknown,
  owner: OptionsOwner,
): { adapter: SchemaAdapter; inputSchema: SchemaAdapter['jsonSchema'] } {
  const adapter = resolveSchema(value, { owner: owner.name, field, requireObject: true });
  if (options.strict !== true) return { adapter, inputSchema: adapter.jsonSchema };
  const part = registeredPart('strict') as NonNullable<OptionalParts['strict']>;
  let strict: StrictSchema;
  try {
    strict = part.strictSchema(adapter.jsonSchema);
  } catch (error) {
    if (!(error instanceof part.NotStrict)) throw error;
    return optionsFault(
      { ...owner, error: ToolDefinitionError },
      'unsupported_schema',
      `${field} cannot be made strict at ${error.pointer}: ${error.reason}`,
    );
  }
  const { restore } = strict;
  // The way back may need the JSON Schema validator, which the core loads at the first call that needs it.
  const validate: SchemaAdapter['validate'] = (args) =>
    andThen(restore(args), (restored) => adapter.validate(restored));
  return { adapter: { ...adapter, jsonSchema: strict.schema, validate }, inputSchema: adapter.jsonSchema };
}

/**
 * `true` for what the OpenAI Agents SDK's `tool()` returns: a `FunctionTool` runs through `invoke` and has
 * `isEnabled`, with the `execute` it was given kept out of reach, so toolwire has nothing to run.
 */
function isAgentsSdkTool(given: unknown): boolean {
  return (
    isRecord(given) &&
    typeof given.invoke === 'function' &&
    'isEnabled' in given &&
    given.execute === undefined
  );
}

/**
 * `true` for a copy of a `tool()` result (`{ ...tool, description: '…' }`): its own `definition` is the copied
 * one (a name and parameters), while what runs the tool stayed behind, held privately by the original.
 */
function isToolCopy(given: unknown): boolean {
  if (!isRecord(given) || !isPlainObject(given.definition)) return false;
  const { definition } = given;
  return typeof definition.name === 'string' && isPlainObject(definition.parameters);
}

/** Keys an MCP tool listing has and a toolwire tool does not (`outputSchema` only with no `execute` to check). */
const MCP_LISTING_KEYS = ['annotations', 'execution', '_meta', 'title', 'outputSchema'] as const;

/**
 * The MCP-only keys of an MCP tool as an MCP client's `listTools()` lists it (`{ name, description?, inputSchema:
 * { type: 'object', … }, title?, annotations?, execution?, outputSchema?, _meta? }`), or `undefined` for anything
 * else: a description of a tool on an MCP server, with nothing to run. Only an object with no `execute` whose
 * `inputSchema` is a plain JSON Schema of an object, which toolwire refuses anyway, is read so.
 */
export function mcpListingKeys(given: unknown): readonly string[] | undefined {
  if (!isRecord(given) || given.execute !== undefined) return undefined;
  const schema = given.inputSchema;
  if (!isPlainObject(schema) || schema.type !== 'object') return undefined;
  const keys = MCP_LISTING_KEYS.filter((key) => given[key] !== undefined);
  return keys.length > 0 ? keys : undefined;
}

/** What to do with MCP tools as `listTools()` lists them, ending a refusal of one. */
export const IMPORT_MCP_TOOLS =
  "which toolwire cannot run: import the MCP server's tools with importMcpTools(mcpClient) from 'toolwire/mcp', which calls each through that MCP client";

/**
 * `tool()` for any accepted object: the options checked (see {@link tool}), the other SDKs' names read, and
 * the callbacks adapted. `from.key` names a tool from a `tools` record (an own `name` must then equal it).
 * @throws ToolDefinitionError as {@link tool} does; `name_mismatch` when `name` and the record key differ;
 *   `not_a_tool` for the object the OpenAI Agents SDK's `tool()` returns (its options are what to give), for
 *   an MCP tool as an MCP client's `listTools()` lists it (`importMcpTools()` imports it), and for a copy of a
 *   `tool()` result (`{ ...tool }`, which leaves its `execute` behind).
 */
export function makeTool(given: unknown, from: MakeToolFrom): Tool {
  const ownName = isOptionsObject(given) ? given.name : undefined;
  const name = from.key ?? ownName;
  const owner: OptionsOwner = {
    name: !isOptionsObject(given)
      ? 'tool()'
      : typeof name === 'string'
        ? `tool ${describeValue(name)}`
        : 'tool (unnamed)',
    error: ToolDefinitionError,
  };
  const listing = mcpListingKeys(given);
  if (listing !== undefined) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `${owner.name} is an MCP tool listing (an entry of what an MCP client's listTools() answers: it has inputSchema and ${listing.join(', ')}, no execute), ${IMPORT_MCP_TOOLS}`,
    );
  }
  if (from.key !== undefined && ownName !== undefined && ownName !== from.key) {
    optionsFault(
      owner,
      'name_mismatch',
      `its name is ${describeValue(ownName)}, but its key in tools is ${describeValue(from.key)}`,
    );
  }
  const options = isOptionsObject(given) && from.key !== undefined ? { ...given, name: from.key } : given;
  if (isToolCopy(options)) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `${owner.name} is a copy of a tool() result ({ ...tool }): it has the tool's definition but not its execute, which toolwire cannot run: to change a tool, call tool() again with the options you gave it (tool({ ...options, description: '…' }))`,
    );
  }
  if (isAgentsSdkTool(options)) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `${owner.name} is a tool made by the OpenAI Agents SDK's tool() (it has invoke and isEnabled, no execute), which toolwire cannot run: give toolwire the options you gave that tool() ({ name, description, parameters, execute, … }), or make it with toolwire's tool()`,
    );
  }
  checkOptions(options, TOOL_OPTIONS, owner);
  const loose = options as AnyOptions & Record<string, unknown>;
  const sideEffect = sideEffectOf(loose.sideEffect, loose.needsApproval ?? loose.requiresApproval, owner);
  // Said as given: a tool that gave no class (nor its policy) is told what the default means.
  const refusal = retryRefusal(
    loose.sideEffect ?? (sideEffect === DEFAULT_SIDE_EFFECT ? undefined : sideEffect),
    loose.retry,
  );
  if (refusal !== undefined) throw new ToolDefinitionError('retry_not_allowed', `${owner.name}: ${refusal}`);
  const delays =
    loose.retry === undefined ? undefined : backoffDelaysFault('retry', loose.retry, RETRY_DEFAULTS);
  if (delays !== undefined) optionsFault(owner, 'invalid_retry', delays);
  const schemas = schemasGiven(loose, owner);
  const { adapter: resolved, inputSchema } = parametersOf(loose, schemas.field, schemas.parameters, owner);
  const parameters = withAiSdkValidate(resolved, loose[schemas.field]);
  if ((loose.sensitiveFieldNames?.length ?? 0) > 0 && parameters.kind === 'none') {
    // A tool without parameters gets `{}`: the names could never match an input property.
    const names = JSON.stringify(loose.sensitiveFieldNames);
    const message = `sensitiveFieldNames ${names} name input properties, but the tool has no parameters (its input is always {}); declare them in parameters, or leave sensitiveFieldNames out`;
    optionsFault(owner, 'invalid_option', message);
  }
  const outputSchema =
    schemas.output === undefined
      ? undefined
      : resolveSchema(schemas.output, {
          owner: owner.name,
          field: 'outputSchema',
          requireObject: false,
        });
  const approval = loose[oneKey(loose, ['needsApproval', 'requiresApproval'], owner)] ?? false;
  const adapted =
    from.aiSdk === undefined
      ? { execute: loose.execute, toModelOutput: loose.toModelOutput }
      : objectCallbacks(loose.execute as never, loose.toModelOutput, from.aiSdk);
  const internals: ToolInternals = {
    parameters,
    // Without `strict`, the announced schema itself (frozen below with the definition): no copy to make.
    inputSchema: deepFreeze(inputSchema === parameters.jsonSchema ? inputSchema : cloneJson(inputSchema)),
    outputSchema,
    execute: adapted.execute as ToolInternals['execute'],
    executeReadsContext: readsPastFirstArgument(adapted.execute),
    sharesInput: sharesInput(parameters.kind),
    errorFunction: (loose.errorFunction ?? undefined) as ToolInternals['errorFunction'],
    needsApproval: (from.aiSdk ? aiSdkApproval(approval) : approval) as ToolInternals['needsApproval'],
    timeoutMs: loose.timeoutMs,
    toModelOutput: adapted.toModelOutput as ToolInternals['toModelOutput'],
    allowedAgentNames: loose.allowedAgentNames === undefined ? undefined : [...loose.allowedAgentNames],
    retry: loose.retry === undefined ? undefined : { ...loose.retry },
    sensitiveFieldNames: [...(loose.sensitiveFieldNames ?? [])],
    ...(loose.concurrency === undefined
      ? {}
      : {
          concurrency: Object.freeze({
            limit: loose.concurrency.limit,
            key: loose.concurrency.key as ((input: unknown, ctx: never) => unknown) | undefined,
          }),
        }),
    ...(loose.slots === undefined || loose.slots === 1 ? {} : { slots: loose.slots }),
  };
  const policy = isApprovalPolicy(internals.needsApproval) ? internals.needsApproval : undefined;
  const definition: ToolDefinition = deepFreeze({
    name: loose.name,
    description: loose.description,
    parameters: parameters.jsonSchema,
    // Only an unconditional `true` is announced: the service then holds every call until a human decides. A
    // predicate is evaluated here on receipt; when it says yes, the client sends `approval_request`.
    needsApproval: internals.needsApproval === true || policy !== undefined,
    ...(policy === undefined ? {} : { approvalReason: policy.reason }),
    sideEffect,
    // The service passes it on to its model with the feature `strict` (docs/protocol/call-context.md).
    ...(loose.strict === true ? { strict: true as const } : {}),
    // Discovery metadata, for a service that defers tools (docs/protocol/call-context.md).
    ...(loose.defaultEnabled === undefined ? {} : { defaultEnabled: loose.defaultEnabled }),
    ...(loose.capability === undefined ? {} : { capability: capabilityOf(loose.capability) }),
    // Enforced by the service across the fleet (docs/protocol/fleet-limits.md); an older service ignores it.
    ...(loose.fleet === undefined ? {} : { fleet: fleetLimits(loose.fleet) }),
    // The service routes by free slots (docs/protocol/routing.md); an older service ignores it.
    ...(internals.slots === undefined ? {} : { slots: internals.slots }),
  });
  const made = { name: loose.name, description: loose.description, definition };
  Object.defineProperty(made, INTERNALS, { value: Object.freeze(internals) });
  return Object.freeze(made) as Tool;
}

/** The capability as announced: its given keys only, lists copied. */
function capabilityOf(given: ToolCapability): NonNullable<ToolDefinition['capability']> {
  const out: NonNullable<ToolDefinition['capability']> = {};
  if (given.visibility !== undefined) out.visibility = given.visibility;
  if (given.execution !== undefined) out.execution = given.execution;
  if (given.namespace !== undefined) out.namespace = given.namespace;
  if (given.tags !== undefined) out.tags = [...given.tags];
  if (given.aliases !== undefined) out.aliases = [...given.aliases];
  return out;
}

/**
 * The JSON Schema of `tool`'s input as its own validation reads it (2020-12 vocabulary, no `$schema`): for a
 * tool without `strict`, a copy of `tool.definition.parameters`; for a `strict: true` tool, the schema before the
 * strict rewrite (optional properties optional rather than required and nullable, open objects open), since
 * `definition.parameters` is then the strict form, meant only for a model in strict mode. A host that validates
 * arguments against the announced schema itself (an MCP client: MCP has no strict mode) must be given this form,
 * or it refuses a call the tool accepts. `registerMcpTools()` (toolwire/mcp) announces it.
 *
 * @returns a fresh copy each call (changing it changes nothing in the tool); for a tool made by another copy of
 *   toolwire that does not keep this schema, a copy of `tool.definition.parameters`.
 */
export function inputSchemaOf(tool: Tool): JsonSchemaObject {
  const kept = toolInternals(tool)?.inputSchema;
  return cloneJson(kept ?? tool.definition.parameters) as JsonSchemaObject;
}

/** The announced `fleet` limits: only the numbers given. */
function fleetLimits(given: FleetLimits): FleetLimits {
  return {
    ...(given.concurrency === undefined ? {} : { concurrency: given.concurrency }),
    ...(given.perSecond === undefined ? {} : { perSecond: given.perSecond }),
  };
}
