/**
 * The types of a tool: its options, the `ctx` its callbacks get, and the tool itself. {@link tool} (in
 * src/tool/tool.ts) makes one; they live apart so that the files reading other SDKs' shapes can use them.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ToolDefinition } from '../wire/protocol';
import type { ApprovalAnswer, ApprovalPolicy } from './approval-policy';
import type { ContextMethods } from './context-methods';
import type { ContextScope, IdempotencyKeyOptions } from './context-scope';
import type { RetryOptions } from './retry-options';
import type { SchemaAdapter } from './schema/index';
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
   * @throws ToolDefinitionError `invalid_options`, `unknown_option` (with "did you mean": `{ pre: 'run' }`) or
   *   `invalid_option` (`per` other than `'call'` or `'run'`): a misspelt option never gives a key of another kind.
   */
  idempotencyKey(scope?: string, options?: IdempotencyKeyOptions): string;
  /**
   * The AI SDK's names, so that an `execute(input, options)` written for the AI SDK runs unchanged:
   * `toolCallId` is `callId`, `abortSignal` is `signal`, `experimental_context` is `context`, and `messages`
   * is always an empty array (the conversation stays with the service: a `tool_call` carries no messages).
   * Read from the prototype: `{ ...ctx }` does not copy them.
   */
  readonly toolCallId: string;
  /** The AI SDK's name of `signal`; see {@link ToolContext.toolCallId}. */
  readonly abortSignal: AbortSignal;
  /**
   * Always `[]` (frozen): see {@link ToolContext.toolCallId}. Typed `never[]` (nothing can be added to it) so
   * that an AI SDK `execute(input, options: ToolExecutionOptions)` accepts this `ctx` as its `options`.
   */
  readonly messages: never[];
  /** The AI SDK's name of `context`; see {@link ToolContext.toolCallId}. */
  readonly experimental_context: C;
}

/** Options of {@link tool}. `P` is the type of `parameters`, `Out` what `execute` returns, `C` the context. */
export interface ToolOptions<P extends ToolParameters | undefined = undefined, Out = unknown, C = unknown> {
  /** Name the model calls the tool by: 1 to 64 letters, digits, `_` or `-`. */
  name: string;
  /** What the tool does and when to use it; the model reads it. Must not be empty. */
  description: string;
  /** Schema of the arguments: a Standard Schema, a JSON Schema object with `type: 'object'`, or omitted. */
  parameters?: P | undefined;
  /**
   * The same as `parameters`, under the name the AI SDK, MCP and several agent SDKs use. Give one of the two,
   * never both (`conflicting_options`). An AI SDK `jsonSchema()` object is read as its JSON Schema.
   */
  inputSchema?: P | undefined;
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
   * `definition.parameters` is then the strict form; `inputSchemaOf(tool)` gives the ordinary one.
   * @default false
   */
  strict?: boolean | undefined;
  /**
   * Time limit of a call, in milliseconds (a positive integer up to 2_147_483_647): one budget, counted from
   * the start of the call, for everything the tool itself runs: argument validation (async refinements
   * included), the `needsApproval` predicate, `execute`, `outputSchema` validation and `toModelOutput`. The
   * time a human takes to approve is not counted. When it runs out, in whichever phase, `ctx.signal` aborts
   * with a `TimeoutError`, the call ends with status `timeout` and the model reads `Error running <name>: timed
   * out after <n>ms` (or `errorFunction`'s text). Without it, a call ends when it finishes or is cancelled.
   * @default none
   */
  timeoutMs?: number | undefined;
  /** Schema the result must match (any kind `parameters` accepts); a mismatch is an `error` result. */
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
  readonly errorFunction: ((ctx: ToolContext, error: unknown) => unknown) | undefined;
  readonly needsApproval:
    | boolean
    | ApprovalPolicy
    | ((ctx: ToolContext, input: unknown, callId: string) => unknown);
  readonly allowedAgentNames: readonly string[] | undefined;
  readonly timeoutMs: number | undefined;
  readonly retry: RetryOptions | undefined;
  readonly sensitiveFieldNames: readonly string[];
  /** Gets the call's `ctx` too (the AI SDK's `toModelOutput` reads the call id and input through it). */
  readonly toModelOutput: ((output: unknown, ctx: ToolContext) => unknown) | undefined;
}
