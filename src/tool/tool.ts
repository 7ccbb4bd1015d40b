/**
 * `tool()`: a tool's definition, checked when it is made. The returned {@link Tool} carries the JSON-serialisable
 * {@link ToolDefinition} announced to the service; {@link invokeTool} runs it. The same checks make a tool of
 * any other accepted shape (src/tool/structural.ts).
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import { andThen } from '../maybe';
import type { ToolDefinition } from '../wire/protocol';
import { aNeedsApproval, anAgentNameList, isApprovalPolicy } from './approval-policy';
import {
  aBoolean,
  aDuration,
  aFunction,
  anything,
  aString,
  checkOptions,
  describeValue,
  isRecord,
  type OptionsOwner,
  type OptionsSpec,
  oneOf,
  optionsFault,
  type Rule,
} from './check-options';
import { aFieldNameList, aRetry, aSideEffect, DEFAULT_SIDE_EFFECT, retryRefusal } from './retry-options';
import { resolveSchema, type SchemaAdapter } from './schema/index';
import { NotStrict, strictSchema } from './strict';
import {
  aiSdkApproval,
  aiSdkModelOutput,
  IGNORED_TOOL_KEYS,
  type IgnoredToolKeys,
  unwrapSchema,
} from './tool-shapes';
import type { InferParameters, Tool, ToolInternals, ToolOptions, ToolParameters } from './tool-types';

export type {
  AnyTool,
  EmptyInput,
  InferParameters,
  JsonSchemaObject,
  Tool,
  ToolContext,
  ToolInput,
  ToolInternals,
  ToolOptions,
  ToolOutput,
  ToolParameters,
} from './tool-types';

// `Symbol.for`, so that a tool made by one copy of toolwire (ESM and CJS both loaded) runs in the other.
const INTERNALS = Symbol.for('toolwire.tool.internals.v1');

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
 *   by its JSON Pointer).
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
  return makeTool(options, {}) as Tool<InferParameters<P>, Out, C>;
}

/** How {@link makeTool} reads an object given in a `tools` option rather than to `tool()`. */
export interface MakeToolFrom {
  /** The key of a `tools` record: the tool's name. */
  readonly key?: string;
  /** Read `needsApproval` and `toModelOutput` with the AI SDK's argument conventions (src/tool/tool-shapes.ts). */
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
  const dry = { ...internals, execute: () => answer, outputSchema: undefined, toModelOutput: undefined };
  Object.defineProperty(made, INTERNALS, { value: Object.freeze(dry) });
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
 * The parameters' adapter, in strict form when asked (see src/tool/strict.ts), and their JSON Schema as
 * validation reads it (never the strict form).
 */
function parametersOf(
  options: Record<string, unknown>,
  owner: OptionsOwner,
): { adapter: SchemaAdapter; inputSchema: SchemaAdapter['jsonSchema'] } {
  const field = oneKey(options, ['parameters', 'inputSchema'], owner) as 'parameters' | 'inputSchema';
  const value = unwrapSchema(options[field], owner.name, field);
  const adapter = resolveSchema(value, { owner: owner.name, field, requireObject: true });
  if (options.strict !== true) return { adapter, inputSchema: adapter.jsonSchema };
  let strict: ReturnType<typeof strictSchema>;
  try {
    strict = strictSchema(adapter.jsonSchema);
  } catch (error) {
    if (!(error instanceof NotStrict)) throw error;
    return optionsFault(
      { ...owner, error: ToolDefinitionError },
      'unsupported_schema',
      `${field} cannot be made strict at ${error.pointer}: ${error.reason}`,
    );
  }
  const { restore } = strict;
  // The way back loads with the JSON Schema validator (lazily in the browser build): a promise until then.
  const validate: SchemaAdapter['validate'] = (args) =>
    andThen(restore(args), (restored) => adapter.validate(restored));
  return { adapter: { ...adapter, jsonSchema: strict.schema, validate }, inputSchema: adapter.jsonSchema };
}

/**
 * `tool()` for any accepted object: the options checked (see {@link tool}), the other SDKs' names read, and
 * the callbacks adapted. `from.key` names a tool from a `tools` record (an own `name` must then equal it).
 * @throws ToolDefinitionError as {@link tool} does; `name_mismatch` when `name` and the record key differ.
 */
export function makeTool(given: unknown, from: MakeToolFrom): Tool {
  const ownName = isRecord(given) ? given.name : undefined;
  const name = from.key ?? ownName;
  const owner: OptionsOwner = {
    name: !isRecord(given)
      ? 'tool()'
      : typeof name === 'string'
        ? `tool ${describeValue(name)}`
        : 'tool (unnamed)',
    error: ToolDefinitionError,
  };
  if (from.key !== undefined && ownName !== undefined && ownName !== from.key) {
    optionsFault(
      owner,
      'name_mismatch',
      `its name is ${describeValue(ownName)}, but its key in tools is ${describeValue(from.key)}`,
    );
  }
  const options = isRecord(given) && from.key !== undefined ? { ...given, name: from.key } : given;
  checkOptions(options, TOOL_OPTIONS, owner);
  const loose = options as AnyOptions & Record<string, unknown>;
  const refusal = retryRefusal(loose.sideEffect, loose.retry);
  if (refusal !== undefined) throw new ToolDefinitionError('retry_not_allowed', `${owner.name}: ${refusal}`);
  const { adapter: parameters, inputSchema } = parametersOf(loose, owner);
  if ((loose.sensitiveFieldNames?.length ?? 0) > 0 && parameters.kind === 'none') {
    // A tool without parameters gets `{}`: the names could never match an input property.
    const names = JSON.stringify(loose.sensitiveFieldNames);
    const message = `sensitiveFieldNames ${names} name input properties, but the tool has no parameters (its input is always {}); declare them in parameters, or leave sensitiveFieldNames out`;
    optionsFault(owner, 'invalid_option', message);
  }
  const outputSchema =
    loose.outputSchema === undefined
      ? undefined
      : resolveSchema(unwrapSchema(loose.outputSchema, owner.name, 'outputSchema'), {
          owner: owner.name,
          field: 'outputSchema',
          requireObject: false,
        });
  const approval = loose[oneKey(loose, ['needsApproval', 'requiresApproval'], owner)] ?? false;
  const adapted = from.aiSdk
    ? aiSdkModelOutput(loose.execute as never, loose.toModelOutput)
    : { execute: loose.execute, toModelOutput: loose.toModelOutput };
  const internals: ToolInternals = {
    parameters,
    inputSchema: deepFreeze(structuredClone(inputSchema)),
    outputSchema,
    execute: adapted.execute as ToolInternals['execute'],
    errorFunction: (loose.errorFunction ?? undefined) as ToolInternals['errorFunction'],
    needsApproval: (from.aiSdk ? aiSdkApproval(approval) : approval) as ToolInternals['needsApproval'],
    timeoutMs: loose.timeoutMs,
    toModelOutput: adapted.toModelOutput as ToolInternals['toModelOutput'],
    allowedAgentNames: loose.allowedAgentNames === undefined ? undefined : [...loose.allowedAgentNames],
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
    // The service passes it on to its model with the feature `strict` (PROTOCOL.md §18.13).
    ...(loose.strict === true ? { strict: true as const } : {}),
  });
  const made = { name: loose.name, description: loose.description, definition };
  Object.defineProperty(made, INTERNALS, { value: Object.freeze(internals) });
  return Object.freeze(made) as Tool;
}
