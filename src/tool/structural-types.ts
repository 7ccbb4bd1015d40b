/**
 * Types of the structural tool contract that keep `execute`'s input inferred from the schema for a plain
 * object written in place (`{ description, inputSchema: z.object(…), execute: (input) => … }`), alone or in a
 * `tools` array or record. The runtime side is src/tool/structural.ts.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ToolFunction, ToolObject } from './structural';
import type { EmptyInput, Tool, ToolContext } from './tool-types';

// biome-ignore lint/suspicious/noExplicitAny: a tool of any input, output and context type.
type AnyTool = Tool<any, any, any>;

/** A type read afresh, property by property (json-schema-to-ts does not read an inferred literal otherwise). */
type Fresh<T> = T extends object ? { readonly [K in keyof T]: Fresh<T[K]> } : T;

/**
 * The input `execute` gets for a schema `P` found under `parameters` or `inputSchema`: a Standard Schema's
 * output (zod 4 and 3.24+, valibot, arktype, …), an AI SDK `jsonSchema<T>()`'s `T`, an `as const` JSON Schema's
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
        : P extends { readonly _type: infer T; readonly jsonSchema: unknown }
          ? T
          : P extends JSONSchema
            ? FromSchema<Fresh<P>, { keepDefaultedPropertiesOptional: true }>
            : Record<string, unknown>;

/**
 * A {@link ToolObject} whose schema `P` (under `parameters` or `inputSchema`) types `execute`'s input (`C` is
 * the run context). `execute` is declared as a method, so an AI SDK tool's `execute(input, options)` assigns too.
 */
export interface TypedToolObject<P, C = unknown>
  extends Omit<ToolObject, 'parameters' | 'inputSchema' | 'execute'> {
  readonly parameters?: P;
  readonly inputSchema?: P;
  execute?(input: SchemaInput<P>, ctx: ToolContext<C>): unknown;
}

/** One entry of a `tools` option with schema `P`: a `tool()` result, a typed object, or (in a record) a function. */
export type ToolEntry<P, C = unknown> = AnyTool | ToolFunction | TypedToolObject<P, C> | undefined;

/**
 * A `tools` option typed entry by entry: `T` maps each index or key to its entry's schema, inferred from the
 * value given (you never write it). Accepts what {@link ToolSet} accepts (the runtime refuses a bare function
 * or `undefined` in an array).
 */
export type ToolSetOf<T, C = unknown> = { [K in keyof T]: ToolEntry<T[K], C> };

/** `T` of {@link ToolSetOf} when nothing is inferred: any array or record of tools, untyped. */
// biome-ignore lint/suspicious/noExplicitAny: untyped entries.
export type ToolsGiven = Readonly<Record<string, any>> | readonly any[];

/** One tool given alone (`addTool`, `invokeTool`): a `tool()` result or a typed object. */
export type ToolSourceOf<P, C = unknown> = Tool<unknown, unknown, C> | TypedToolObject<P, C>;
