/**
 * The structural tool contract: what is accepted wherever tools are (`new Client({ tools })`,
 * `new Agent({ tools })`, `client.addTool()`, `invokeTool()`, the bridges into other frameworks), its types, and
 * {@link toTool} / {@link toTools}, the one place that turns each accepted shape into a {@link Tool}:
 *
 * - a tool made by `tool()`, as it is;
 * - an object with the options `tool()` takes, under toolwire's names or the other SDKs' (`inputSchema`,
 *   `requiresApproval`), e.g. an OpenAI Agents tool's options or a Relay-E / Assemble definition;
 * - an AI SDK tool (what `ai`'s `tool()` returns; in an array or given alone with a `name` added), read with
 *   the AI SDK's conventions when its keys say so (see `readsAiSdkConventions` in ./tool.ts);
 * - a class instance, read along its prototype chain, its callbacks called with `this` bound to it;
 * - a record (a plain object) keyed by tool name, whose values are any of these, a bare function, or
 *   `undefined` (left out). A `Map`, a `Set` or any other value is refused.
 *
 * The `execute` of a tool given as an object (any of these but a `tool()` result) gets `ctx` with the AI SDK's
 * names too (`AiSdkContext`), whichever SDK's conventions its keys select: the types cannot tell an object written
 * in place for the AI SDK from another. Each is checked when given, as `tool()` checks its options; nothing here
 * imports another SDK. The file holds the types first, then the runtime side.
 *
 * The types make TypeScript refuse, when it compiles, what the runtime refuses when the tool is made, where a
 * type can say it, and keep `execute`'s input inferred from the schema for a plain object written in place,
 * alone or in a `tools` array or record: each entry is checked against its own schema (`T` maps each index or
 * key to the schema written there, inferred from the value given; you never write it). What they check, for an
 * object given as a tool:
 * - `execute` is there (or, as the AI SDK's own `Tool` type allows, an `outputSchema` stands in its place, and in
 *   an object of that type whose `execute` returns `any` it may be missing: the runtime refuses either without
 *   it, `invalid_execute`), and its input is the schema's type: an annotation of another
 *   type is an error (a JSON Schema whose shape types cannot read gives `Record<string, unknown>`, which a
 *   narrower annotation may replace);
 * - `parameters` or `inputSchema`, never both; `needsApproval` or `requiresApproval`, never both;
 * - a `name` in an array and in `addTool()` / `invokeTool()` / `ToolRegistry.add()`;
 * - a bare function or `undefined` only as a value of a record;
 * - no key that is not an option (a misspelt one in an object written in place).
 *
 * Left to the runtime: a record entry's `name` that differs from its key (a name held in a variable is a
 * `string`, which no type tells from a differing literal, and such a tool is accepted when it matches), a
 * `description` (the AI SDK's type makes it optional), a name's characters, a schema's
 * content, `type: 'provider'`, the ambiguity of a `needsApproval` function (`readsAiSdkConventions`). The
 * arguments of `needsApproval` and `errorFunction` in a plain object are untyped (their order depends on the
 * object's shape); `tool()` types them.
 *
 * The two key pairs are unions whose members require neither key, so that a refusal for a missing `name` or
 * `execute` names that key. Every optional key also takes `undefined`, so that a type read under
 * `exactOptionalPropertyTypes` (the AI SDK's `Tool`, whose keys are `X | undefined`) assigns.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { ToolDefinitionError } from '../errors';
import { isPlainObject } from '../json';
import { isThenable } from '../maybe';
import { anArrayOf, describeValue, isRecord, type Rule } from './check-options';
import { parameterList } from './function-source';
import { bareFunctionDescription } from './model-text';
import type { LegacyZod3Schema } from './schema';
import { ANY_OBJECT, resolvePointer } from './schema/adapter';
import {
  type AiSdkContext,
  type AnyTool,
  type ApprovalOrderOf,
  type ApprovalPolicy,
  describeNotATool,
  type EmptyInput,
  IMPORT_MCP_TOOLS,
  isToolOptionName,
  makeTool,
  mcpListingKeys,
  type RetryOptions,
  readsAiSdkConventions,
  type SideEffect,
  toolInternals,
} from './tool';

// biome-ignore lint/suspicious/noExplicitAny: the arguments of another SDK's callbacks.
type AnyFunction = (...args: any[]) => unknown;

/** A type read afresh, property by property (json-schema-to-ts does not read an inferred literal otherwise). */
type Fresh<T> = T extends object ? { readonly [K in keyof T]: Fresh<T[K]> } : T;

/**
 * The input `execute` gets for a schema `P` found under `parameters` or `inputSchema`: a Standard Schema's
 * output (zod 4 and 3.24+, valibot, arktype, …), a zod 3 schema's output before 3.24, an AI SDK `jsonSchema<T>()`'s `T`, an `as const` JSON Schema's
 * `FromSchema` type, `Record<string, unknown>` for any other JSON Schema, {@link EmptyInput} when there is none.
 */
export type SchemaInput<P> = 0 extends 1 & P
  ? // biome-ignore lint/suspicious/noExplicitAny: an untyped schema gives an untyped input.
    any
  : unknown extends P
    ? EmptyInput
    : [P] extends [undefined]
      ? EmptyInput
      : P extends StandardSchemaV1
        ? StandardSchemaV1.InferOutput<P>
        : P extends LegacyZod3Schema<infer Output>
          ? Output
          : P extends { readonly _type: infer T; readonly jsonSchema: unknown }
            ? T
            : P extends JSONSchema
              ? FromSchema<Fresh<P>, { keepDefaultedPropertiesOptional: true }>
              : Record<string, unknown>;

/**
 * `execute` for input `I`. Checked strictly (an annotated input must accept `I`), except for an open record (a
 * JSON Schema whose properties types cannot read), whose input may be annotated with the shape the schema has.
 */
type ExecuteOf<I, C> =
  Record<string, unknown> extends I
    ? { bivariant(input: I, ctx: AiSdkContext<C>): unknown }['bivariant']
    : (input: I, ctx: AiSdkContext<C>) => unknown;

/** Keys of an object tool other than its schema, approval and `execute` (see `tool()`'s options). */
interface ToolObjectFields {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly errorFunction?: AnyFunction | null | undefined;
  readonly strict?: boolean | undefined;
  readonly timeoutMs?: number | undefined;
  readonly allowedAgentNames?: readonly string[] | undefined;
  readonly sideEffect?: SideEffect | undefined;
  readonly retry?: RetryOptions | undefined;
  readonly sensitiveFieldNames?: readonly string[] | undefined;
  readonly toModelOutput?: AnyFunction | undefined;
  /** Keys of an AI SDK tool that toolwire accepts and ignores (see `IgnoredToolKeys` in ./tool.ts). */
  readonly type?: string | undefined;
  readonly providerOptions?: unknown;
  readonly metadata?: unknown;
  readonly inputExamples?: unknown;
  readonly title?: string | undefined;
  readonly onInputStart?: AnyFunction | undefined;
  readonly onInputDelta?: AnyFunction | undefined;
  readonly onInputAvailable?: AnyFunction | undefined;
}

type Approval = boolean | ApprovalPolicy | AnyFunction;

/**
 * The schema under `parameters` or `inputSchema` (or neither), never both (`conflicting_options`). Neither
 * member requires its key, so that a refusal for a missing `name` or `execute` names that key.
 */
type OneSchemaKey<P> =
  | { readonly parameters?: P | undefined; readonly inputSchema?: undefined }
  | { readonly inputSchema?: P | undefined; readonly parameters?: undefined };

/** `needsApproval` or `requiresApproval`, never both (`conflicting_options`). */
type OneApprovalKey =
  | { readonly needsApproval?: Approval | undefined; readonly requiresApproval?: undefined }
  | { readonly requiresApproval?: Approval | undefined; readonly needsApproval?: undefined };

/**
 * `true` when `P` is the AI SDK's `FlexibleSchema<T>`, the type its `Tool` gives `inputSchema`: a union of every
 * schema kind it takes, a lazy `() => Schema<T>` among them. A schema written in place is one of them, never the
 * union, so this tells an object typed by the AI SDK's `Tool` from one written in place.
 */
type IsAiSdkInputSchema<P> = 0 extends 1 & P
  ? false
  : [Extract<P, () => unknown>] extends [never]
    ? false
    : [Exclude<P, () => unknown>] extends [never]
      ? false
      : true;

/**
 * `execute`, typed by the schema. The second shape is the AI SDK `Tool` type's own (a tool with an
 * `outputSchema` may lack `execute` there), so that what `ai`'s `tool()` returns assigns. The third, only for an
 * object typed by the AI SDK's `Tool` ({@link IsAiSdkInputSchema}), leaves `execute` optional, as that type
 * does when `execute` returns `any` (e.g. `(await fetch(url)).json()`): `P` is all a type here sees of an entry
 * (see {@link ToolSetOf}), so such a tool is not told from an AI SDK tool with no `execute` at all. The runtime
 * refuses any of them without `execute` (`invalid_execute`); an object written in place must have it.
 */
type ExecuteKey<P, C> =
  | { readonly execute: ExecuteOf<SchemaInput<P>, C>; readonly outputSchema?: unknown }
  | { readonly outputSchema: unknown; readonly execute?: undefined }
  | (IsAiSdkInputSchema<P> extends true
      ? { readonly execute?: ExecuteOf<SchemaInput<P>, C> | undefined; readonly outputSchema?: unknown }
      : never);

/**
 * An object accepted as a tool, with schema `P` (under `parameters` or `inputSchema`) typing `execute`'s input
 * (`C` is the run context): see the file's header for what is checked. `name` is optional here: an array entry,
 * `addTool()` and `invokeTool()` require it ({@link NamedToolObject}), a record's key gives it.
 */
export type TypedToolObject<P, C = unknown> = ToolObjectFields &
  OneSchemaKey<P> &
  OneApprovalKey &
  ExecuteKey<P, C>;

/** A {@link TypedToolObject} with its `name`: what an array entry, `addTool()` and `invokeTool()` take. */
export type NamedToolObject<P, C = unknown> = { readonly name: string } & TypedToolObject<P, C>;

/**
 * An object accepted as a tool, typed loosely: what another SDK's tool object, a class instance or a tool held
 * in a variable assigns to. `execute`'s input is `unknown` (an `execute` annotated with any input type
 * assigns; an unannotated one must narrow it), so that `satisfies ToolSet` or a variable typed `ToolObject`
 * never hides a wrong use of the input as `any` would: write the object in place (or use `tool()`) to have its
 * input inferred from the schema. Read once, the first time it is given (see `toTool`): later edits of the
 * object are not seen.
 */
export type ToolObject = ToolObjectFields &
  // biome-ignore lint/suspicious/noExplicitAny: any schema.
  OneSchemaKey<any> &
  OneApprovalKey &
  (
    | {
        // biome-ignore lint/suspicious/noExplicitAny: a tool run with any context.
        readonly execute: { bivariant(input: unknown, ctx: AiSdkContext<any>): unknown }['bivariant'];
        readonly outputSchema?: unknown;
      }
    | { readonly outputSchema: unknown; readonly execute?: undefined }
  );

/** A bare function in a `tools` record: shorthand for `{ execute }` (see `toTool` for what the model is told). */
// biome-ignore lint/suspicious/noExplicitAny: any input; the tool takes no schema.
export type ToolFunction = (input: any, ctx: any) => unknown;

/** One tool, in any shape accepted outside a record (with a `name`), typed loosely. */
export type ToolSource = AnyTool | (ToolObject & { readonly name: string });

/**
 * What a `tools` option takes, typed loosely: an array of tools (each with a name), or a record keyed by tool
 * name whose values may also be bare functions or `undefined` (left out, so a tool can be included
 * conditionally). An object's `execute` input is `unknown` here ({@link ToolObject}): `satisfies ToolSet`
 * checks shapes, not inputs; annotate the input, or give the tools in place to have each input inferred.
 */
export type ToolSet =
  | ReadonlyArray<ToolSource>
  | { readonly [name: string]: AnyTool | ToolObject | ToolFunction | undefined };

/**
 * One value of a `tools` record with schema `P`: a `tool()` result, a bare function, `undefined`, or a typed
 * object. Its `name`, if any, is not checked against its key here (a name held in a variable is a `string`,
 * which no type can tell from a differing one): the runtime refuses one that differs (`name_mismatch`).
 */
export type ToolEntry<P, C = unknown> = ToolResultOf<P> | ToolFunction | TypedToolObject<P, C> | undefined;

/** One item of a `tools` array with schema `P`: a `tool()` result or a named typed object. */
export type ToolItem<P, C = unknown> = ToolResultOf<P> | NamedToolObject<P, C>;

/**
 * A `tools` option typed entry by entry: `T` maps each index or key to its entry's schema, inferred from the
 * value given (you never write it). An array holds {@link ToolItem}s, a record {@link ToolEntry}s. When `T`
 * has an index signature (a {@link ToolSet} or {@link ToolsGiven}, typed loosely), an array of its items too.
 */
export type ToolSetOf<T, C = unknown> =
  | { [K in keyof T]: T extends readonly unknown[] ? ToolItem<T[K], C> : ToolEntry<T[K], C> }
  | (string extends keyof T ? ReadonlyArray<ToolItem<T[string & keyof T], C>> : never);

/**
 * `T` of {@link ToolSetOf} when nothing is inferred (e.g. `new Client<Ctx>({ … })` with an explicit type
 * argument): an array or record of tools whose inputs are untyped, their shapes still checked.
 */
// biome-ignore lint/suspicious/noExplicitAny: untyped entries.
export type ToolsGiven = Readonly<Record<string, any>> | readonly any[];

/**
 * A `tool()` result in a `tools` option: {@link AnyTool} with its type-level `'~types'` (input, output and context
 * types) inferred as `P`, so that the context it declares is known ({@link ToolsContext}).
 */
export type ToolResultOf<P> = Omit<AnyTool, '~types'> & { readonly '~types'?: P | undefined };

/**
 * `unknown` for `any` (a context no tool narrowed) and for `never` (a tool's types erased, `Tool<never, unknown,
 * never>`: no context could be given to it), else `X`.
 */
type Narrowed<X> = 0 extends 1 & X ? unknown : [X] extends [never] ? unknown : X;

/** The context one entry of `T` ({@link ToolSetOf}) declares: a `tool()` result's `C`, else `unknown`. */
type ContextOfEntry<P> = P extends {
  readonly input: unknown;
  readonly output: unknown;
  readonly context: infer X;
}
  ? Narrowed<X>
  : unknown;

/**
 * The run context the `tool()` results of a `tools` option need, all of them at once: `T` is that option's
 * inferred map ({@link ToolSetOf}). `ToolContext<{ tenantId: string }>` in one tool's `execute` and
 * `ToolContext<{ userId: string }>` in another's make `{ tenantId: string } & { userId: string }`; a tool that
 * declares none adds nothing; `unknown` when none does. A `context` given with those tools (to a bridge, to
 * `new Client()`, to `client.run()` for an agent's tools) must be of this type, as `invokeTool` checks its
 * `context` against its one tool's. Objects and bare functions are checked by the `C` of {@link ToolSetOf} instead,
 * which types their `ctx`. An array held in a variable counts each tool its element type names; TypeScript types
 * `[a, b]` by `b` alone when `a` is a subtype of `b` (a tool of a declared context beside one of the loose default
 * with the same input and output), and then only `b` counts: `[a, b] as const` keeps both. Type-level only.
 */
export type ToolsContext<T> = Both<{ [K in keyof T]: NeedsContext<T[K]> }>;

/**
 * One entry's context as the parameter of a function: one function per member when the entry is a union (the
 * element of an array held in a variable, `const tools = [a, b]`, is `A | B`), so that {@link Both} needs each
 * member's context rather than any one of them.
 */
type NeedsContext<P> = P extends unknown ? (context: ContextOfEntry<P>) => void : never;

/**
 * The parameters of the functions in `F` (a tuple or record of functions), all at once. Entry by entry as
 * functions, so that an entry of `unknown` does not absorb the others as it would in a union.
 */
type Both<F> = (F extends readonly unknown[] ? F[number] : F[keyof F]) extends (context: infer X) => void
  ? X
  : unknown;

/**
 * One tool given alone (`addTool`, `invokeTool`, `ToolRegistry.add`): a `tool()` result (of any context type,
 * as in a `tools` option) or a named typed object.
 */
export type ToolSourceOf<P, C = unknown> = AnyTool | NamedToolObject<P, C>;

/** `true` for a value {@link toTool} may accept (then checked whole): a `tool()` result or an object with one of its keys. */
export function isToolLike(value: unknown): boolean {
  if (toolInternals(value) !== undefined) return true;
  return (
    isRecord(value) &&
    !isThenable(value) &&
    ('execute' in value || 'description' in value || 'parameters' in value || 'inputSchema' in value)
  );
}

/**
 * `true` for a plain object read as a record of tools: not one tool, i.e. it has none of a tool's keys, or every
 * value is a tool, a function or `undefined` (so a tool may be keyed `execute` or `description`).
 */
export function isToolRecord(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value) || isThenable(value)) return false;
  if (!isToolLike(value)) return true;
  const values = Object.values(value);
  return (
    values.length > 0 &&
    values.every((item) => item === undefined || typeof item === 'function' || isToolLike(item))
  );
}

/**
 * The rule of an item of a `tools` array (`ToolDefinitionError` `not_a_tool`, whoever owns the option); a refused
 * object is shown with its `name`.
 */
export const aTool: Rule = {
  expected: 'a tool (made with tool(), or an object with description and execute)',
  test: isToolLike,
  code: 'not_a_tool',
  error: ToolDefinitionError,
  show: (value) => describeNotATool(value),
};

/** The rule of a `tools` option: an array of {@link aTool}, or a record of tools keyed by name. */
export const aToolSet: Rule = {
  ...anArrayOf(aTool, 'an array of tools or a record of tools keyed by name'),
  test: (value) => Array.isArray(value) || isToolRecord(value),
  show: describeToolSet,
};

/** A refused `tools` value, for a message: a Map or Set says how to pass its tools; a single tool says to wrap it. */
export function describeToolSet(value: unknown): string {
  if (value instanceof Map) return 'a Map (give Object.fromEntries(map) or [...map.values()])';
  if (value instanceof Set) return 'a Set (give [...set])';
  if (mcpListingKeys(value) !== undefined)
    return `an MCP tool listing (an entry of what an MCP client's listTools() answers), ${IMPORT_MCP_TOOLS}`;
  if (isPlainObject(value) && isToolLike(value)) return 'a single tool (give [tool] or { name: tool })';
  return describeValue(value);
}

/**
 * An object's members as a plain object, its functions bound to it (so `this` is the object when toolwire calls
 * `execute`, `needsApproval`, `errorFunction` or `toModelOutput`). A class instance's members are read along
 * its prototype chain (methods and getters, each read once), only those named as a `tool()` option: its other
 * fields and helper methods are its own business.
 */
function membersOf(value: object): Record<string, unknown> {
  const plain = isPlainObject(value);
  const out: Record<string, unknown> = {};
  for (let level: object | null = value; level !== null && level !== Object.prototype; ) {
    for (const key of plain ? Object.keys(level) : Object.getOwnPropertyNames(level)) {
      if (Object.hasOwn(out, key) || (!plain && !isToolOptionName(key))) continue;
      const member: unknown = Reflect.get(value, key);
      // A schema may be a function (an arktype Type is callable, with no `Function.prototype` to bind with): it is
      // kept as it is, a bound copy would lose its `~standard` and every other property.
      if (typeof member === 'function' && !SCHEMA_MEMBERS.has(key)) {
        const bound = Function.prototype.bind.call(member, value);
        // A bound function's source is `[native code]`: its parameters are read from the member itself.
        if (key === 'needsApproval') unbound.set(bound, member);
        out[key] = bound;
      } else out[key] = member;
    }
    level = plain ? null : Object.getPrototypeOf(level);
  }
  return out;
}

/** The members of a tool that hold a schema, never bound by {@link membersOf}. */
const SCHEMA_MEMBERS = new Set(['parameters', 'inputSchema', 'outputSchema']);

/** The function each bound `needsApproval` of {@link membersOf} was made of. */
const unbound = new WeakMap<object, unknown>();

/*
 * The argument order a `needsApproval` function's own parameters say, for an object whose keys leave it open
 * (see `readsAiSdkConventions` in ./tool.ts): the AI SDK calls it `(input, options)`, toolwire `(ctx, input)`.
 * Its source is read (`Function.prototype.toString`), never run.
 */
/** First parameter names that mean toolwire's `ctx`. */
const CTX_NAMES = new Set([
  'ctx',
  'context',
  'runContext',
  'runCtx',
  'toolContext',
  'toolCtx',
  'callContext',
]);
/** Members of `ctx` (toolwire's first argument), as a destructured first parameter names them. */
const CTX_MEMBERS = new Set([
  'callId',
  'runId',
  'toolName',
  'agentName',
  'sessionId',
  'context',
  'signal',
  'approved',
  'attempt',
  'logger',
  'idempotencyKey',
  'progress',
  'emit',
  'step',
  'askQuestion',
]);
/** Second parameter names that mean toolwire's input. */
const INPUT_NAMES = new Set(['input', 'args', 'arguments', 'params', 'parameters', 'toolInput']);

/**
 * `toolwire` when a `needsApproval` function's parameters say `(ctx, input)`: its first is named as a context
 * (`ctx`, `context`, `runContext`, …) or destructures only members of `ctx` (`{ context, callId }`), or its second
 * is named as an input (`input`, `args`, `params`, …); `ai-sdk` for any other readable parameters (`(input,
 * options)`, `({ amount })`, `(a, b)`, none); `undefined` when its source shows no parameters to read (a bound or
 * native function, a class).
 */
export function approvalOrder(predicate: unknown): ReturnType<ApprovalOrderOf> {
  return readApproval(predicate)?.order;
}

/**
 * {@link approvalOrder}, with the names a destructured first parameter reads when they alone chose toolwire's
 * order (`({ context }) => …`): names of `ctx` members that an input may have too (see `refuseSharedNames`).
 */
function readApproval(
  predicate: unknown,
): { order: 'ai-sdk' | 'toolwire'; destructured: readonly string[] } | undefined {
  const fn = unbound.get(predicate as object) ?? predicate;
  if (typeof fn !== 'function') return undefined;
  const params = parameterList(Function.prototype.toString.call(fn));
  if (params === undefined) return undefined;
  const [first, second] = params;
  if (
    (typeof second === 'string' && INPUT_NAMES.has(second)) ||
    (typeof first === 'string' && CTX_NAMES.has(first))
  )
    return { order: 'toolwire', destructured: [] };
  if (Array.isArray(first) && first.length > 0 && first.every((key) => CTX_MEMBERS.has(key)))
    return { order: 'toolwire', destructured: first };
  return { order: 'ai-sdk', destructured: [] };
}

/**
 * The property names an input schema declares: at its root, in the branches of `anyOf`, `oneOf` and `allOf`, and
 * behind a local `$ref`, a few levels deep.
 */
function declaredProperties(schema: unknown, root: unknown = schema, depth = 0, out = new Set<string>()) {
  if (depth > 8 || !isPlainObject(schema)) return out;
  const node = schema as Record<string, unknown>;
  if (isPlainObject(node.properties)) for (const key of Object.keys(node.properties)) out.add(key);
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = node[keyword];
    if (Array.isArray(branches))
      for (const branch of branches) declaredProperties(branch, root, depth + 1, out);
  }
  if (typeof node.$ref === 'string')
    declaredProperties(resolvePointer(root, node.$ref), root, depth + 1, out);
  return out;
}

/**
 * Refuses a tool whose `needsApproval` was read in toolwire's order only because its first parameter
 * destructures names of `ctx` members, when its input declares one of those names too: `({ context }) =>
 * context === 'production'` over an input with a `context` property reads the input in the AI SDK's order and
 * `ctx.context` in toolwire's, and a guess either way may skip the approval it was written to ask for.
 *
 * @throws ToolDefinitionError `ambiguous_tool_shape` naming the tool, the names and how to tell.
 */
function refuseSharedNames(shaped: AnyTool, destructured: readonly string[], owner: string): void {
  const declared = declaredProperties(toolInternals(shaped)?.inputSchema);
  const shared = destructured.filter((name) => declared.has(name));
  if (shared.length === 0) return;
  const names = shared.map((name) => `"${name}"`).join(', ');
  throw new ToolDefinitionError(
    'ambiguous_tool_shape',
    `${owner}: needsApproval destructures ${names}, which is both an input property and a member of toolwire's ctx, so nothing tells whether it takes (input, options) as in the AI SDK or (ctx, input) as in toolwire; add type: 'function' for the AI SDK's order, or give the schema as parameters (or write (ctx, input), or make the tool with toolwire's tool()) for toolwire's`,
  );
}

/**
 * `true` for what an MCP client's `listTools()` answers (`{ tools, nextCursor? }`) or its `tools`: an array of MCP
 * tool listings (see `mcpListingKeys` in ./tool.ts).
 */
function isMcpToolList(value: unknown): boolean {
  const list = isPlainObject(value) && Array.isArray(value.tools) ? value.tools : value;
  return Array.isArray(list) && list.length > 0 && list.every((item) => mcpListingKeys(item) !== undefined);
}

function notATool(where: string, value: unknown): never {
  if (isMcpToolList(value)) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `${where} holds MCP tool listings (what an MCP client's listTools() answers), ${IMPORT_MCP_TOOLS}`,
    );
  }
  throw new ToolDefinitionError(
    'not_a_tool',
    `${where} must be a tool (made with tool(), or an object with description and execute), got ${describeNotATool(value)}`,
  );
}

/*
 * Views: a toolwire tool as another framework's tool object (what `toAiSdkTools()` returns for each tool). Given
 * back to toolwire, a view is the tool it was made from, so that the same tool seen twice (two `toAiSdkTools()`
 * calls, a view and the tool itself) is one tool, as a `tool()` result given twice is.
 */
// `Symbol.for`, so that a view made by one copy of toolwire (ESM and CJS both loaded) is read by the other.
const VIEW_OF = Symbol.for('toolwire.tool.view-of.v1');

/**
 * Marks `view` as standing for `tool` in another framework: {@link toTool} then reads it as `tool` itself (its
 * own members are not read). A hidden property (not enumerable): a copy of the view (`{ ...view }`, maybe
 * edited) is read by its members, as any other object is.
 */
export function markViewOf<V extends object>(view: V, tool: AnyTool): V {
  return Object.defineProperty(view, VIEW_OF, { value: tool });
}

/** The tool `value` is a view of ({@link markViewOf}), or `undefined`. */
function viewedTool(value: unknown): AnyTool | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const viewed = (value as { [VIEW_OF]?: unknown })[VIEW_OF];
  return toolInternals(viewed) === undefined ? undefined : (viewed as AnyTool);
}

/** Per object: its members as first read, and the tool made of them under each record key (or none). */
const made = new WeakMap<
  object,
  { members: Record<string, unknown>; byKey: Map<string | undefined, AnyTool> }
>();

/**
 * One tool from any accepted shape. With `key` (the value's key in a `tools` record) the key is the name, and
 * a bare function is a tool whose description is `Calls <key>.` and whose parameters are `{ type: 'object' }`
 * (any object: the model is told no properties, and `execute` gets the arguments as the model sent them, `{}`
 * when it sent none). Give an object with a description and a schema to tell the model more.
 *
 * Every shape is read once: a value's members (its own, or along a class instance's prototype chain) are
 * read the first time it is given anywhere, and that snapshot is the tool wherever the value is given after
 * (to a client, an agent, `addTool`, `invokeTool`, under any record key): the same object is the same tool, and
 * `invokeTool(object, …)` checks it once. Later edits of the object (a new `execute`, `description` or
 * schema) are not seen; a `tool()` result is frozen. To change a tool, give a new object. A view of a tool in
 * another framework ({@link markViewOf}: what `toAiSdkTools()` returns) is the tool itself.
 *
 * @param where - how a refusal names the value, e.g. `tools.search` or `invokeTool()`.
 * @throws ToolDefinitionError as `tool()` does (naming the tool and the field); `not_a_tool` for a value of no
 *   accepted shape; `name_mismatch` when a tool's name differs from its record key.
 */
export function toTool(value: unknown, where: string, key?: string): AnyTool {
  const existing = toolInternals(value) === undefined ? viewedTool(value) : (value as AnyTool);
  if (existing !== undefined) {
    if (key !== undefined && existing.name !== key) {
      throw new ToolDefinitionError(
        'name_mismatch',
        `${where}: the tool is named ${describeValue(existing.name)}, but its key in tools is ${describeValue(key)}`,
      );
    }
    return existing;
  }
  if (typeof value === 'function' ? key === undefined : !isToolLike(value)) return notATool(where, value);
  const source = value as object;
  // Kept once a tool was made of it: a value refused may be mended and given again.
  const read = made.get(source) ?? {
    members: typeof value === 'function' ? {} : membersOf(source),
    byKey: new Map<string | undefined, AnyTool>(),
  };
  const cached = read.byKey.get(key);
  if (cached !== undefined) return cached;
  const tool =
    typeof value === 'function'
      ? makeTool(
          { description: bareFunctionDescription(key as string), parameters: ANY_OBJECT, execute: value },
          { key },
        )
      : makeShaped(read.members, key, where);
  read.byKey.set(key, tool);
  made.set(source, read);
  return tool;
}

/** `makeTool` for an object's members, in the argument order its keys say (see `readsAiSdkConventions`). */
function makeShaped(members: Record<string, unknown>, key: string | undefined, where: string): AnyTool {
  const name = key ?? members.name;
  if (name === undefined) {
    throw new ToolDefinitionError(
      'invalid_name',
      `${where} has no name: add name: "…" to it, or give tools as a record keyed by name ({ my_tool: … })`,
    );
  }
  const owner = typeof name === 'string' ? `tool ${describeValue(name)}` : 'tool (unnamed)';
  // The ctx members a needsApproval destructures, when that alone chose toolwire's order.
  let destructured: readonly string[] = [];
  const aiSdk = readsAiSdkConventions(members, owner, (predicate) => {
    const read = readApproval(predicate);
    destructured = read?.destructured ?? [];
    return read?.order;
  });
  const shaped = makeTool(members, { ...(key === undefined ? {} : { key }), aiSdk });
  if (!aiSdk && destructured.length > 0) refuseSharedNames(shaped, destructured, owner);
  return shaped;
}

/**
 * Every tool of a `tools` option, in order (a record in its key order, `undefined` values left out).
 * @param owner - how refusals name the option's owner, e.g. `Agent "Support"`.
 * @throws ToolDefinitionError as {@link toTool}; `not_a_tool` when `tools` is neither an array nor a record.
 */
export function toTools(tools: unknown, owner: string): AnyTool[] {
  if (Array.isArray(tools)) return tools.map((item, index) => toTool(item, `${owner}: tools[${index}]`));
  if (!isToolRecord(tools)) {
    throw new ToolDefinitionError(
      'not_a_tool',
      `${owner}: tools must be an array of tools or a record of tools keyed by name, got ${describeToolSet(tools)}`,
    );
  }
  const out: AnyTool[] = [];
  for (const [key, item] of Object.entries(tools)) {
    if (item !== undefined) out.push(toTool(item, `${owner}: tools.${key}`, key));
  }
  return out;
}

/**
 * Every tool of a `tools` value given to a bridge into another framework (`toolwire/mcp`'s `registerMcpTools()`,
 * `toolwire/ai-sdk`'s `toAiSdkTools()`, or your own): an array or a record keyed by name, of every shape a client
 * accepts, each made into a tool and checked now, in order, names unique.
 *
 * @param owner - how refusals name the caller, e.g. `'toAiSdkTools()'`; `'toolsOf()'` when not given.
 * @throws ToolDefinitionError `invalid_tools` when `tools` is neither an array nor a record of tools (a `Map`, a
 *   `Set` or a single tool: the message says what to give instead); `not_a_tool` for an entry of no accepted
 *   shape (named by its index or key); `duplicate_tool` when two different tools share a name (the same tool
 *   listed twice is kept once); what `tool()` throws for an object it refuses.
 *
 * Typed as a client's `tools` option ({@link ToolSetOf}): each entry's `execute` input is inferred from its own
 * schema (`C` is the context `execute`'s `ctx` carries; `T` is inferred, you never write it).
 */
export function toolsOf<C = unknown, T = ToolsGiven>(tools: ToolSetOf<T, C>, owner = 'toolsOf()'): AnyTool[] {
  if (!Array.isArray(tools) && !isToolRecord(tools)) {
    throw new ToolDefinitionError(
      'invalid_tools',
      `${owner}: tools must be an array of tools or a record of tools keyed by name, got ${describeToolSet(tools)}`,
    );
  }
  return uniqueTools(toTools(tools, owner), (name, both) => {
    throw new ToolDefinitionError('duplicate_tool', `${owner}: ${twoToolsNamed(name, both)}`);
  });
}

/** How a tool made by a bridge gets another name (see {@link adviseRename}). */
const renameAdvice = new WeakMap<object, string>();

/**
 * Records how `tool` gets another name, for `duplicate_tool` to say when it collides: a bridge that names the
 * tools it makes says it (`importMcpTools()`: its `prefix` option). `advice` completes "…; <advice>, or …".
 */
export function adviseRename(tool: object, advice: string): void {
  renameAdvice.set(tool, advice);
}

/** The advice recorded for one of `tools` by {@link adviseRename}, if any. */
export function renameAdviceFor(tools: readonly object[]): string | undefined {
  for (const item of tools) {
    const advice = renameAdvice.get(item);
    if (advice !== undefined) return advice;
  }
  return undefined;
}

/**
 * The text of `duplicate_tool` for two different tools given together under one name, with its fix: users meet it
 * by calling `tool()` twice with the same options, which makes two tools, or by importing two MCP servers' tools
 * of one name (then the bridge's advice, see {@link adviseRename}).
 */
export function twoToolsNamed(name: string, tools: readonly object[] = []): string {
  const advice = renameAdviceFor(tools);
  if (advice !== undefined)
    return `two different tools are named "${name}"; ${advice}, or rename one of them`;
  return `two different tools are named "${name}"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them`;
}

/**
 * `tools` with each tool once: the same tool listed again (the same `tool()` result, or the same object made
 * into a tool) is left out, as a tool already registered is not registered again. `tools` itself when nothing
 * repeats.
 *
 * @param refuse - called with the name two different tools share, and the two; throws the caller's error.
 */
export function uniqueTools<T extends { readonly name: string }>(
  tools: readonly T[],
  refuse: (name: string, both: readonly [T, T]) => never,
): T[] {
  const byName = new Map<string, T>();
  let repeated = false;
  for (const item of tools) {
    const known = byName.get(item.name);
    if (known === undefined) byName.set(item.name, item);
    else if (known === item) repeated = true;
    else refuse(item.name, [known, item]);
  }
  return repeated ? [...byName.values()] : (tools as T[]);
}
