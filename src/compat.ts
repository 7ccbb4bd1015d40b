/**
 * `toolwire/compat`: other SDKs' names for what toolwire already does, so that a tool written for them runs with
 * only its import line changed (docs/guide/other-sdks.md):
 *
 * - `defineTool(...)` (Relay-E, Assembly Line): `tool()` with a `name` (Relay-E), or without one (Assembly Line,
 *   where the file name is the tool's name): the definition is then named by its key in a `tools` record;
 * - their names on `ctx` ({@link CompatContext}): `config` (Relay-E), `approvedToolCall` and
 *   `agentRevisionIdentity` (Assembly Line), beside every member of toolwire's `ctx` (`tenantId`, `userId`,
 *   `sessionId`, `runId`, `logger`, `signal`, …);
 * - `approvalRequired` (Assembly Line), the core's own, re-exported so that the seed's import line works.
 *
 * Nothing here is needed by a tool written for toolwire; the core does not import it.
 *
 * @packageDocumentation
 */
// In Node (and in Bun and Deno through the `node` condition) this is the package's Node entry, so that every optional
// part (zod 3, valibot, JSON Schema, `strict: true`, ...) is registered before this subpath defines a tool, whatever
// the program imported first. Elsewhere it is the core, which registers nothing (a bundler drops it).
import 'toolwire';
import { isPlainObject } from './json';
import {
  type AnyTool,
  approvalRequired,
  type DefaultContext,
  type InferParameters,
  type SchemaOf,
  type Tool,
  type ToolContext,
  type ToolOptions,
  type ToolOptionsBase,
  type ToolParameters,
  type ToolSchemaKeys,
  tool,
} from './tool/tool';

export { approvalRequired };

/**
 * `ctx` of a tool made by {@link defineTool}: toolwire's `ctx` ({@link ToolContext}) with the names Relay-E and
 * Assembly Line give some of its members. Relay-E's `tenantId` and `userId` are toolwire's own
 * (`string | undefined`: a service that does not say leaves them out, and `invokeTool` has none unless given).
 */
export interface CompatContext<C = DefaultContext> extends ToolContext<C> {
  /**
   * Relay-E's request configuration: the run context (`ctx.context`, what the app gave the client or
   * `client.run()`) when it is a plain object, else a frozen `{}`. Never sent anywhere.
   */
  readonly config: Record<string, unknown>;
  /** Assembly Line's name of `ctx.approved`: `true` when a human approved this call. */
  readonly approvedToolCall: boolean;
  /** Assembly Line's name of `ctx.agentRevision`: the identity of the agent's definition the run started with. */
  readonly agentRevisionIdentity: string | undefined;
}

/** Assembly Line's name of {@link CompatContext}. */
export type ToolExecutionContext<C = DefaultContext> = CompatContext<C>;

/**
 * What {@link defineTool} takes: `tool()`'s options (`inputSchema` for `parameters` and `requiresApproval` for
 * `needsApproval` included), `name` optional, and `execute` given a {@link CompatContext}.
 */
export type DefineToolOptions<
  P extends ToolParameters | undefined = undefined,
  Out = unknown,
  C = DefaultContext,
  N extends string | undefined = string | undefined,
> = DefineToolBase<P, Out, C, N> & Pick<ToolOptions<P, Out, C>, 'parameters' | 'inputSchema'>;

/**
 * {@link DefineToolOptions} but the schema (`parameters`, `inputSchema`): what {@link defineTool} types apart from
 * the schema, whose type is inferred from the schema keys alone (see `ToolSchemaKeys`).
 */
export type DefineToolBase<
  P extends ToolParameters | undefined = undefined,
  Out = unknown,
  C = DefaultContext,
  N extends string | undefined = string | undefined,
> = Omit<ToolOptionsBase<P, Out, C>, 'name' | 'execute'> & {
  /** The tool's name; without it, the definition is named by its key in a `tools` record. */
  name?: N;
  /** Does the work, as `tool()`'s `execute`, with other SDKs' names on `ctx` too. */
  execute(input: InferParameters<P>, ctx: CompatContext<C>): Out | Promise<Out>;
};

/**
 * A tool defined without a name: a plain, frozen definition that a `tools` record names by its key
 * (`tools: { echo }`), checked when it is given to a client, an agent or `invokeTool()` with a name.
 */
export interface UnnamedTool<P = unknown, Out = unknown> {
  readonly description: string;
  readonly parameters: P;
  // biome-ignore lint/suspicious/noExplicitAny: the tool runs with the context of the client or run it is given to.
  readonly execute: (input: InferParameters<P>, ctx: ToolContext<any>) => Out | Promise<Out>;
}

const NO_CONFIG: Record<string, unknown> = Object.freeze({});

/** `ctx` with the other SDKs' names ({@link CompatContext}): a view, every other member read from `ctx` itself. */
const COMPAT_VIEW: ProxyHandler<ToolContext> = {
  get(ctx, key) {
    switch (key) {
      case 'config':
        return isPlainObject(ctx.context) ? ctx.context : NO_CONFIG;
      case 'approvedToolCall':
        return ctx.approved;
      case 'agentRevisionIdentity':
        return ctx.agentRevision;
      default:
        return Reflect.get(ctx, key);
    }
  },
  has(ctx, key) {
    return (
      key === 'config' ||
      key === 'approvedToolCall' ||
      key === 'agentRevisionIdentity' ||
      Reflect.has(ctx, key)
    );
  },
};

/** `ctx` as a {@link CompatContext}. */
export function compatContext<C>(ctx: ToolContext<C>): CompatContext<C> {
  return new Proxy(ctx as ToolContext, COMPAT_VIEW) as unknown as CompatContext<C>;
}

/**
 * Defines a tool the way Relay-E and Assembly Line write it. With a `name`, it is `tool()` (checked now, the
 * same `Tool`); without one, a definition that a `tools` record names by its key (checked when given). Either
 * way `execute` gets {@link CompatContext}: toolwire's `ctx` with `config`, `approvedToolCall` and
 * `agentRevisionIdentity`.
 *
 * @throws ToolDefinitionError as `tool()` does, for a definition with a `name` (one without is checked when a
 *   client, an agent or `invokeTool()` is given it).
 * @example
 * ```ts
 * import { defineTool } from 'toolwire/compat';
 * import { z } from 'zod';
 *
 * const getBalance = defineTool({
 *   name: 'get_balance',
 *   description: "Return the current balance for a user's account.",
 *   inputSchema: z.object({ account_id: z.string() }),
 *   execute: async ({ account_id }, ctx) => ({ account_id, tenant: ctx.tenantId, user: ctx.userId }),
 * });
 * ```
 */
export function defineTool<
  P extends ToolParameters | undefined = undefined,
  Out = unknown,
  C = DefaultContext,
  N extends string | undefined = undefined,
  I extends ToolParameters | undefined = undefined,
>(
  definition: DefineToolBase<NoInfer<SchemaOf<P, I>>, Out, C, N> & ToolSchemaKeys<P, I>,
): N extends string ? Tool<InferParameters<SchemaOf<P, I>>, Out, C> : UnnamedTool<SchemaOf<P, I>, Out> {
  const { execute } = definition as { execute: (input: unknown, ctx: CompatContext) => unknown };
  // A definition that is not an object, or has no execute function, is left for tool() to refuse with its message.
  const wrapped =
    typeof execute === 'function'
      ? function (this: unknown, input: unknown, ctx: ToolContext) {
          return execute.call(this, input, compatContext(ctx));
        }
      : execute;
  if (typeof definition !== 'object' || definition === null || definition.name !== undefined) {
    const made: AnyTool = tool({ ...(definition as object), execute: wrapped } as never);
    return made as never;
  }
  // Named later by its record key, and read with toolwire's conventions (`parameters` says so; see shapes.ts).
  const { inputSchema, parameters, ...rest } = definition as object as Record<string, unknown>;
  const schema = parameters ?? inputSchema;
  const unnamed: Record<string, unknown> = { ...rest, execute: wrapped };
  if (schema !== undefined) unnamed.parameters = schema;
  if (parameters !== undefined && inputSchema !== undefined) unnamed.inputSchema = inputSchema;
  return Object.freeze(unnamed) as never;
}
