/**
 * `tool()`: a tool's definition, checked when it is made. The returned {@link Tool} carries the JSON-serialisable
 * {@link ToolDefinition} announced to the service; {@link invokeTool} runs it.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { ToolDefinitionError } from '../errors';
import { MAX_TIMEOUT_MS } from '../limits';
import type { ToolDefinition } from '../wire/protocol';
import { resolveSchema, type SchemaAdapter } from './schema/index';
import type { LegacyZod3Schema } from './schema/zod3-legacy';

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

/** What `execute` and the other callbacks receive besides the input. */
export interface ToolContext<C = unknown> {
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
   * A key for deduplicating a side effect of this call (e.g. an `Idempotency-Key` header): the same for the
   * same call id and scope, so a re-delivered call reuses it; different across calls and across scopes.
   * Format: `toolwire:<callId>` or `toolwire:<callId>:<scope>`, each part URI-encoded.
   *
   * @example
   * ```ts
   * await fetch(url, { method: 'POST', headers: { 'Idempotency-Key': ctx.idempotencyKey('charge') } });
   * ```
   */
  idempotencyKey(scope?: string): string;
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
   * Whether a human must approve a call before `execute` runs: a boolean, or a predicate of the validated
   * input (it runs after validation, before `execute`). @default false
   */
  needsApproval?: boolean | ((ctx: ToolContext<C>, input: InferParameters<P>) => boolean | Promise<boolean>);
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
  readonly needsApproval: boolean | ((ctx: ToolContext, input: unknown) => unknown);
  readonly timeoutMs: number | undefined;
  readonly toModelOutput: ((output: unknown) => unknown) | undefined;
}

// `Symbol.for`, so that a tool made by one copy of toolwire (ESM and CJS both loaded) runs in the other.
const INTERNALS = Symbol.for('toolwire.tool.internals.v1');

/** The private part of a tool made by {@link tool}, or `undefined` for anything else. */
export function toolInternals(value: unknown): ToolInternals | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [INTERNALS]?: ToolInternals })[INTERNALS];
}

/** Pattern a tool name must match. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/**
 * Longest time `errorFunction` may take, in milliseconds: past `min(timeoutMs, 5_000)` (5,000 ms when the tool
 * has no `timeoutMs`) the model reads the default text instead, so a formatter that never answers cannot hold a
 * call forever.
 */
export const ERROR_FUNCTION_TIMEOUT_MS = 5_000;

const KNOWN_OPTIONS = new Set([
  'name',
  'description',
  'parameters',
  'execute',
  'errorFunction',
  'needsApproval',
  'timeoutMs',
  'outputSchema',
  'toModelOutput',
]);
const HINTS: Record<string, string> = {
  inputSchema: 'parameters',
  schema: 'parameters',
  requiresApproval: 'needsApproval',
};

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

function fail(code: string, owner: string, message: string): never {
  throw new ToolDefinitionError(code, `${owner}: ${message}`);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function checkOptions(
  options: ToolOptions<ToolParameters | undefined, unknown, unknown>,
  owner: string,
): void {
  for (const key of Object.keys(options)) {
    if (KNOWN_OPTIONS.has(key)) continue;
    const hint = HINTS[key] === undefined ? '' : ` (did you mean "${HINTS[key]}"?)`;
    fail('unknown_option', owner, `unknown option "${key}"${hint}`);
  }
  if (typeof options.name !== 'string' || !TOOL_NAME_PATTERN.test(options.name)) {
    fail('invalid_name', owner, `name must be 1 to 64 letters, digits, _ or -, got ${show(options.name)}`);
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    fail(
      'invalid_description',
      owner,
      `description must be a non-empty string, got ${show(options.description)}`,
    );
  }
  if (typeof options.execute !== 'function') {
    fail('invalid_execute', owner, `execute must be a function, got ${show(options.execute)}`);
  }
  const { timeoutMs } = options;
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMEOUT_MS)
  ) {
    fail(
      'invalid_timeout',
      owner,
      `timeoutMs must be a positive integer of milliseconds, got ${show(timeoutMs)}`,
    );
  }
  for (const key of ['errorFunction', 'toModelOutput'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') {
      fail('invalid_option', owner, `${key} must be a function, got ${show(options[key])}`);
    }
  }
  const { needsApproval } = options;
  if (
    needsApproval !== undefined &&
    typeof needsApproval !== 'boolean' &&
    typeof needsApproval !== 'function'
  ) {
    fail(
      'invalid_option',
      owner,
      `needsApproval must be a boolean or a function, got ${show(needsApproval)}`,
    );
  }
}

/**
 * Defines a tool. Checks the whole configuration now, so nothing fails later mid-call.
 *
 * `definition.parameters` is the JSON Schema of the input side of `parameters` (without `$schema`);
 * `definition.needsApproval` is `true` only for `needsApproval: true`: the service holds those calls until a
 * human decides. A predicate is announced as `false` and evaluated by the client when a call arrives.
 *
 * @throws ToolDefinitionError with `code` and a message naming the tool and the field:
 *   `invalid_name` (outside `^[a-zA-Z0-9_-]{1,64}$`), `invalid_description` (empty), `invalid_execute`,
 *   `invalid_timeout` (not a positive integer ≤ 2_147_483_647), `invalid_option` (a callback that is not a
 *   function), `unknown_option` (a misspelt option), `invalid_parameters` / `invalid_output_schema` (none of
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
  if (typeof options !== 'object' || options === null) {
    throw new ToolDefinitionError(
      'invalid_options',
      `tool(): options must be an object, got ${show(options)}`,
    );
  }
  const loose = options as unknown as ToolOptions<ToolParameters | undefined, unknown, unknown>;
  const owner = typeof loose.name === 'string' ? `tool ${JSON.stringify(loose.name)}` : 'tool (unnamed)';
  checkOptions(loose, owner);
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
    timeoutMs: loose.timeoutMs,
    toModelOutput: loose.toModelOutput,
  };
  const definition: ToolDefinition = deepFreeze({
    name: loose.name,
    description: loose.description,
    parameters: parameters.jsonSchema,
    // Only an unconditional `true` is announced: the service then holds every call until a human decides. A
    // predicate is evaluated here on receipt; when it says yes, the client sends `approval_request`.
    needsApproval: internals.needsApproval === true,
  });
  const made = { name: loose.name, description: loose.description, definition };
  Object.defineProperty(made, INTERNALS, { value: Object.freeze(internals) });
  return Object.freeze(made) as Tool<InferParameters<P>, Out, C>;
}
