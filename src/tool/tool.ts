/**
 * `tool()`: a tool's definition, checked when it is made. The returned {@link Tool} carries the JSON-serialisable
 * {@link ToolDefinition} announced to the service; {@link invokeTool} runs it.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { ToolDefinitionError } from '../errors';
import type { ToolDefinition } from '../wire/protocol';
import {
  type ApprovalAnswer,
  type ApprovalPolicy,
  aNeedsApproval,
  isApprovalPolicy,
} from './approval-policy';
import {
  aDuration,
  aFunction,
  anArrayOf,
  anything,
  aString,
  checkOptions,
  describeValue,
  isRecord,
  type OptionsSpec,
  type Rule,
} from './check-options';
import type { ContextMethods } from './context-methods';
import type { ContextScope, IdempotencyKeyOptions } from './context-scope';
import {
  aFieldNameList,
  aRetry,
  aSideEffect,
  DEFAULT_SIDE_EFFECT,
  type RetryOptions,
  retryRefusal,
} from './retry-options';
import { resolveSchema, type SchemaAdapter } from './schema/index';
import type { LegacyZod3Schema } from './schema/zod3-legacy';
import type { SideEffect } from './side-effect';

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
 * What `execute` and the other callbacks receive besides the input: the fields below, the methods of
 * {@link ContextMethods} (`progress`, …) and the members of {@link ContextScope} (`attempt`, `step`, …).
 */
export interface ToolContext<C = unknown> extends ContextMethods, ContextScope {
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
   */
  idempotencyKey(scope?: string, options?: IdempotencyKeyOptions): string;
}

/** Options of {@link tool}. `P` is the type of `parameters`, `Out` what `execute` returns, `C` the context. */
export interface ToolOptions<P extends ToolParameters | undefined = undefined, Out = unknown, C = unknown> {
  /** Name the model calls the tool by: 1 to 64 letters, digits, `_` or `-`. */
  name: string;
  /** What the tool does and when to use it; the model reads it. Must not be empty. */
  description: string;
  /** Schema of the arguments: a Standard Schema, a JSON Schema object with `type: 'object'`, or omitted. */
  parameters?: P;
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
   * when there is no `timeoutMs`), the default text is used. Argument order as in the OpenAI Agents SDK.
   */
  errorFunction?(ctx: ToolContext<C>, error: unknown): string | Promise<string>;
  /**
   * Whether a human must approve a call before `execute` runs: a boolean, {@link approvalRequired}`(reason)`, or
   * a predicate of the validated input answering a boolean or `{ required, reason? }` (it runs after
   * validation, the allowlist and the client's policies, before `execute`). The reason is shown to the approver.
   * @default false
   */
  needsApproval?:
    | boolean
    | ApprovalPolicy
    | ((ctx: ToolContext<C>, input: InferParameters<P>) => ApprovalAnswer | Promise<ApprovalAnswer>);
  /**
   * The agents whose runs may call the tool (Assemble's `allowedAgentNames`), by `name`. A call from any other
   * agent's run, or whose agent is unknown (a service without the feature `agent_name`), is refused before
   * approval and `execute`: status `rejected`, the model reading `<name> was not run: the agent "<agent>" is not
   * allowed to call it.`. @default every agent may call it
   */
  allowedAgentNames?: readonly string[];
  /**
   * Time limit of a call, in milliseconds (a positive integer up to 2_147_483_647): one budget, counted from
   * the start of the call, for everything the tool itself runs: argument validation (async refinements
   * included), the `needsApproval` predicate, `execute`, `outputSchema` validation and `toModelOutput`. The
   * time a human takes to approve is not counted. When it runs out, in whichever phase, `ctx.signal` aborts
   * with a `TimeoutError`, the call ends with status `timeout` and the model reads `Error running <name>: timed
   * out after <n>ms` (or `errorFunction`'s text). Without it, a call ends when it finishes or is cancelled.
   * @default none
   */
  timeoutMs?: number;
  /** Schema the result must match (any kind `parameters` accepts); a mismatch is an `error` result. */
  outputSchema?: ToolParameters;
  /**
   * What the model reads instead of the full result: it receives `execute`'s full return value (parsed by
   * `outputSchema`, widget included) and its return value is serialised like a result. The caller still gets
   * the full value in `ToolCallResult.value`. A throw is handled like a throw from `execute`.
   */
  toModelOutput?(output: Out): unknown;
  /**
   * How the tool touches the world, announced to the service (approval and audit surfaces may show it): `'none'`
   * (reads only), `'idempotent'` (a write that may run twice with the same effect) or `'external'` (anything
   * else: a charge, an email). Only `none` and `idempotent` tools may have `retry`. @default 'external'
   */
  sideEffect?: SideEffect;
  /**
   * Run `execute` again when it throws or an attempt runs out of `timeoutMs` (see {@link RetryOptions}); the
   * model reads the last attempt's failure when none succeeds. Needs `sideEffect` `'none'` or `'idempotent'`.
   * @default none (one attempt)
   */
  retry?: RetryOptions;
  /**
   * Names of input properties (at any depth) whose values are secrets: every string or number found under one
   * of these names in the call's arguments is redacted, like the client's `redact` rules, from the result, the
   * widget, events, progress, questions, step results, errors and `ctx.logger` lines. @default []
   */
  sensitiveFieldNames?: readonly string[];
}

/**
 * A tool made by {@link tool}: its name, description and announced definition. Everything needed to run it is
 * held privately; run it with {@link invokeTool} or a client.
 *
 * `Input`, `Output` and `C` are the validated input, `execute`'s result and the context type.
 */
export interface Tool<Input = unknown, Output = unknown, C = unknown> {
  /** The tool's name. */
  readonly name: string;
  /** The tool's description. */
  readonly description: string;
  /** The JSON-serialisable entry announced to the service (frozen). */
  readonly definition: ToolDefinition;
  /** Type-level only (never present at runtime): carries `Input`, `Output` and `C` for inference. */
  readonly '~types'?: { readonly input: Input; readonly output: Output; readonly context: C } | undefined;
}

/** The validated input type of a tool. */
export type ToolInput<T> = T extends Tool<infer I, unknown, unknown> ? I : never;
/** The `execute` result type of a tool (before `toModelOutput`). */
export type ToolOutput<T> = T extends Tool<unknown, infer O, unknown> ? O : never;

/** What {@link invokeTool} needs; kept off the public surface. */
export interface ToolInternals {
  readonly parameters: SchemaAdapter;
  readonly outputSchema: SchemaAdapter | undefined;
  readonly execute: (input: unknown, ctx: ToolContext) => unknown;
  readonly errorFunction: ((ctx: ToolContext, error: unknown) => unknown) | undefined;
  readonly needsApproval: boolean | ApprovalPolicy | ((ctx: ToolContext, input: unknown) => unknown);
  readonly allowedAgentNames: readonly string[] | undefined;
  readonly timeoutMs: number | undefined;
  readonly toModelOutput: ((output: unknown) => unknown) | undefined;
  readonly retry: RetryOptions | undefined;
  readonly sensitiveFieldNames: readonly string[];
}

// `Symbol.for`, so that a tool made by one copy of toolwire (ESM and CJS both loaded) runs in the other.
const INTERNALS = Symbol.for('toolwire.tool.internals.v1');

/** The private part of a tool made by {@link tool}, or `undefined` for anything else. */
export function toolInternals(value: unknown): ToolInternals | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [INTERNALS]?: ToolInternals })[INTERNALS];
}

/**
 * The rule of an item of a `tools` option (`new Agent()`, `new Client()`): a tool made by {@link tool}
 * (`not_a_tool`). A refused object is shown with its `name` when it has one, e.g. `an object named "search"`.
 */
export const aTool: Rule = {
  expected: 'a tool made with tool()',
  test: (value) => toolInternals(value) !== undefined,
  code: 'not_a_tool',
  show: (value) => describeNotATool(value),
};

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

/** The rule of a `tools` option: an array of {@link aTool}. */
export const aToolList: Rule = anArrayOf(aTool, 'an array of tools made with tool()');

/** Pattern a tool name must match. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/**
 * Longest time `errorFunction` may take, in milliseconds: past `min(timeoutMs, 5_000)` (5,000 ms when the tool
 * has no `timeoutMs`) the model reads the default text instead, so a formatter that never answers cannot hold a
 * call forever.
 */
export const ERROR_FUNCTION_TIMEOUT_MS = 5_000;

/** What `tool()` accepts: one rule per option of {@link ToolOptions}. */
const TOOL_OPTIONS: OptionsSpec<ToolOptions<ToolParameters | undefined, unknown, unknown>> = {
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
    execute: { ...aFunction, code: 'invalid_execute', required: true },
    errorFunction: aFunction,
    needsApproval: aNeedsApproval,
    allowedAgentNames: anArrayOf(aString('a non-empty string', { minLength: 1 })),
    timeoutMs: { ...aDuration(1), code: 'invalid_timeout' },
    outputSchema: anything, // resolveSchema checks it
    toModelOutput: aFunction,
    sideEffect: aSideEffect,
    retry: aRetry,
    sensitiveFieldNames: aFieldNameList,
  },
  aliases: {
    inputSchema: 'parameters',
    schema: 'parameters',
    argsSchema: 'parameters',
    requiresApproval: 'needsApproval',
    allowedAgents: 'allowedAgentNames',
    agents: 'allowedAgentNames',
    handler: 'execute',
    func: 'execute',
    onError: 'errorFunction',
    failureErrorFunction: 'errorFunction',
    timeout: 'timeoutMs',
    sideEffects: 'sideEffect',
    side_effect: 'sideEffect',
    retries: 'retry',
    retryPolicy: 'retry',
    sensitiveFields: 'sensitiveFieldNames',
    redactFields: 'sensitiveFieldNames',
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
 *   `invalid_option` (a callback that is not a function; `sensitiveFieldNames` not property names), `unknown_option` (a misspelt
 *   option, with "did you mean" for another SDK's name, a difference of case or a typo), `invalid_parameters` / `invalid_output_schema` (none of
 *   the accepted kinds; parameters not describing an object; a JSON Schema that every call would fail on: an
 *   unknown `type`, a `pattern` or `patternProperties` key that is not a valid regular expression, a
 *   non-array `required`, a property schema that is not a schema, a `$ref` pointing outside it, …, named by
 *   its JSON Pointer, e.g. `#/properties/kind/type`), `unsupported_schema` (not expressible as JSON Schema,
 *   e.g. `z.date()`; or a `z.preprocess()` / a pipe from `z.unknown()` into a narrower schema, zod 3 and 4
 *   alike, whose accepted input JSON Schema cannot describe; `z.unknown()`, `z.any()` and their transforms are
 *   fine inside an object, announced as `{}`).
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
export function tool<P extends ToolParameters | undefined = undefined, Out = unknown, C = unknown>(
  options: ToolOptions<P, Out, C>,
): Tool<InferParameters<P>, Out, C> {
  const given: unknown = options;
  const name = isRecord(given) ? given.name : undefined;
  const owner = !isRecord(given)
    ? 'tool()'
    : typeof name === 'string'
      ? `tool ${describeValue(name)}`
      : 'tool (unnamed)';
  checkOptions(given, TOOL_OPTIONS, { name: owner, error: ToolDefinitionError });
  const loose = given as ToolOptions<ToolParameters | undefined, unknown, unknown>;
  const refusal = retryRefusal(loose.sideEffect, loose.retry);
  if (refusal !== undefined) throw new ToolDefinitionError('retry_not_allowed', `${owner}: ${refusal}`);
  const parameters = resolveSchema(loose.parameters, { owner, field: 'parameters', requireObject: true });
  const outputSchema =
    loose.outputSchema === undefined
      ? undefined
      : resolveSchema(loose.outputSchema, { owner, field: 'outputSchema', requireObject: false });
  const internals: ToolInternals = {
    parameters,
    outputSchema,
    execute: loose.execute as ToolInternals['execute'],
    errorFunction: loose.errorFunction as ToolInternals['errorFunction'],
    needsApproval: (loose.needsApproval ?? false) as ToolInternals['needsApproval'],
    allowedAgentNames: loose.allowedAgentNames === undefined ? undefined : [...loose.allowedAgentNames],
    timeoutMs: loose.timeoutMs,
    toModelOutput: loose.toModelOutput,
    retry: loose.retry === undefined ? undefined : { ...loose.retry },
    sensitiveFieldNames: [...(loose.sensitiveFieldNames ?? [])],
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
    sideEffect: loose.sideEffect ?? DEFAULT_SIDE_EFFECT,
  });
  const made = { name: loose.name, description: loose.description, definition };
  Object.defineProperty(made, INTERNALS, { value: Object.freeze(internals) });
  return Object.freeze(made) as Tool<InferParameters<P>, Out, C>;
}
