/**
 * Types of the structural tool contract (the runtime side is src/tool/structural.ts). They make TypeScript
 * refuse, when it compiles, what the runtime refuses when the tool is made, where a type can say it, and keep
 * `execute`'s input inferred from the schema for a plain object written in place, alone or in a `tools` array
 * or record: each entry is checked against its own schema (`T` maps each index or key to the schema written
 * there, inferred from the value given; you never write it).
 *
 * What the types check, for an object given as a tool:
 * - `execute` is there (or, as the AI SDK's own `Tool` type allows, an `outputSchema` stands in its place: the
 *   runtime refuses that one, `invalid_execute`), and its input is the schema's type: an annotation of another
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
 * content, `type: 'provider'`, the ambiguity of a `needsApproval` function (src/tool/tool-shapes.ts). The
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
import type { ApprovalPolicy } from './approval-policy';
import type { RetryOptions } from './retry-options';
import type { LegacyZod3Schema } from './schema/zod3-legacy';
import type { SideEffect } from './side-effect';
import type { AnyTool, EmptyInput, ToolContext } from './tool-types';

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
    ? { bivariant(input: I, ctx: ToolContext<C>): unknown }['bivariant']
    : (input: I, ctx: ToolContext<C>) => unknown;

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
  /** Keys of an AI SDK tool that toolwire accepts and ignores (see src/tool/tool-shapes.ts). */
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
 * `execute`, typed by the schema. The second shape is the AI SDK `Tool` type's own (a tool with an
 * `outputSchema` may lack `execute` there), so that what `ai`'s `tool()` returns assigns; the runtime refuses
 * it without `execute` (`invalid_execute`).
 */
type ExecuteKey<P, C> =
  | { readonly execute: ExecuteOf<SchemaInput<P>, C>; readonly outputSchema?: unknown }
  | { readonly outputSchema: unknown; readonly execute?: undefined };

/**
 * An object accepted as a tool, with schema `P` (under `parameters` or `inputSchema`) typing `execute`'s input
 * (`C` is the run context): see the module's doc for what is checked. `name` is optional here: an array entry,
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
        readonly execute: { bivariant(input: unknown, ctx: ToolContext<any>): unknown }['bivariant'];
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
export type ToolEntry<P, C = unknown> = AnyTool | ToolFunction | TypedToolObject<P, C> | undefined;

/** One item of a `tools` array with schema `P`: a `tool()` result or a named typed object. */
export type ToolItem<P, C = unknown> = AnyTool | NamedToolObject<P, C>;

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
 * One tool given alone (`addTool`, `invokeTool`, `ToolRegistry.add`): a `tool()` result (of any context type,
 * as in a `tools` option) or a named typed object.
 */
export type ToolSourceOf<P, C = unknown> = AnyTool | NamedToolObject<P, C>;
