/**
 * `registerMcpTools()`: serves toolwire tools from an `McpServer`, so the same tools run in any MCP host.
 *
 * @module
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { looseObject } from 'zod/mini';
import { invokeTool } from '../call/invoke';
import type { ApprovalDecision, ApprovalRequest } from '../call/types';
import { OptionsError, ToolDefinitionError } from '../errors';
import { aFunction, anything, checkOptions, type OptionsSpec } from '../tool/check-options';
import { thrownMessage } from '../tool/output';
import { type ToolSetOf, type ToolsGiven, toolsOf } from '../tool/shapes';
import { inputSchemaOf, type Tool } from '../tool/tool';

/*
 * The input schema a toolwire tool is registered with on an `McpServer`. The MCP SDK (1.x) takes zod schemas
 * only: it lists a tool's input as the zod schema's JSON Schema and parses the arguments with it before calling
 * the handler. A toolwire tool's schema is JSON Schema, and its arguments are validated by `invokeTool` (so the
 * client reads toolwire's texts). So the tool is registered with a zod object that
 *
 * - accepts every JSON object and hands it on unchanged (`z.looseObject({})`: unknown keys kept), and
 * - converts to exactly the tool's announced JSON Schema, through zod 4's `_zod.toJSONSchema` hook (present in
 *   zod 4 and in zod 3.25's `zod/v4`, the two the MCP SDK accepts; the test suite checks both), with the
 *   `$schema` of draft 2020-12, the draft toolwire announces (and MCP's default), instead of the draft-07
 *   the MCP SDK asks zod for.
 */
/** Draft 2020-12's `$schema`. */
export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** A zod object schema that lets every object through and converts to `jsonSchema` (copied on each call). */
export function announcedSchema(jsonSchema: Readonly<Record<string, unknown>>) {
  const schema = looseObject({});
  const internals = schema._zod as { toJSONSchema?: () => Record<string, unknown> };
  internals.toJSONSchema = () => ({ $schema: DRAFT_2020_12, ...structuredClone(jsonSchema) });
  return schema;
}

/** What the MCP SDK gives a tool handler besides the arguments: `signal`, `sessionId`, `authInfo`, … */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Options of {@link registerMcpTools}. Every field is optional. */
export interface RegisterMcpToolsOptions<C = unknown> {
  /**
   * `ctx.context` of every call, or a function of the MCP request giving it (or a promise of it), e.g. from
   * `extra.authInfo`. If the function throws, the call fails without running: the MCP client reads
   * `Error running <name>: the MCP server could not provide its context (<message>)`. @default undefined
   */
  context?: C | ((extra: McpRequestExtra) => C | Promise<C>) | undefined;
  /**
   * Decides calls of tools that need approval (`needsApproval`), as `invokeTool`'s `approve` does. MCP has no
   * approval step of its own: without `approve` such a call is `rejected` and the MCP client reads
   * `<name> was not run: it needs a human's approval, and no approver is available.` @default none
   */
  approve?: ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>) | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: tools of any input and output type, sharing the context type.
type AnyTool<C> = Tool<any, any, C>;

/** What {@link registerMcpTools} accepts: one rule per option, checked by toolwire's shared checker. */
const OPTIONS: OptionsSpec<RegisterMcpToolsOptions> = {
  rules: { context: anything, approve: aFunction },
  aliases: { onApproval: 'approve' },
};

function handlerFor<C>(served: AnyTool<C>, options: RegisterMcpToolsOptions<C>) {
  const { approve } = options;
  return async (args: Record<string, unknown>, extra: McpRequestExtra): Promise<CallToolResult> => {
    let context: C | undefined;
    try {
      const given = options.context;
      context =
        typeof given === 'function'
          ? await (given as (extra: McpRequestExtra) => C | Promise<C>)(extra)
          : given;
    } catch (error) {
      const text = `Error running ${served.name}: the MCP server could not provide its context (${thrownMessage(error)})`;
      return { content: [{ type: 'text', text }], isError: true };
    }
    // No callId: MCP request ids restart at 0 on every connection, and `ctx.idempotencyKey()` must not repeat.
    const result = await invokeTool(served, args, {
      signal: extra.signal,
      ...(context === undefined ? {} : { context }),
      ...(approve === undefined ? {} : { approve }),
    });
    const content: CallToolResult['content'] = [{ type: 'text', text: result.output }];
    return result.status === 'ok' ? { content } : { content, isError: true };
  };
}

/**
 * Registers toolwire tools on an `McpServer` (from `@modelcontextprotocol/sdk/server/mcp.js`): each is listed
 * with its name, description and input JSON Schema ({@link inputSchemaOf}: `tool.definition.parameters`, but
 * for a `strict: true` tool its ordinary form, since MCP has no strict mode and an MCP client may validate
 * arguments against the listed schema; with the `$schema` of draft 2020-12), and each `tools/call` runs it as `invokeTool` does:
 *
 * - the MCP client reads `ToolCallResult.output`, as one text part, exactly what the hosted model would read;
 * - any status other than `ok` (invalid arguments, a throw, a timeout, a rejection, a cancel) sets `isError`;
 * - the MCP request's abort signal (the client's `notifications/cancelled`, or the connection closing) is the
 *   call's `signal`: `ctx.signal` aborts;
 * - `ctx.callId` is a fresh UUID per request (MCP request ids repeat across connections), `ctx.runId` too.
 *
 * Widgets are not sent (an MCP host has no place for them); `needsApproval` needs {@link
 * RegisterMcpToolsOptions.approve}. Register before `mcpServer.connect()`, or after it: the MCP SDK tells
 * connected clients that the list changed.
 *
 * @returns the MCP SDK's handles, one per tool in order (`disable()`, `enable()`, `remove()`).
 * `tools` takes every shape `new Client({ tools })` takes: an array or a record keyed by name of `tool()`
 * results, plain objects, AI SDK tools and (in a record) bare functions.
 *
 * @throws ToolDefinitionError `invalid_tools` when `tools` is neither an array nor a record of tools,
 *   `not_a_tool` for an entry of no accepted shape (named by its index or key), what `tool()` throws for an
 *   object it refuses, `duplicate_tool` for two tools of one name or a name already registered on the server (then
 *   none of `tools` stays registered); OptionsError `invalid_options` / `unknown_option` (with "did you mean")
 *   / `invalid_option` for bad options, from toolwire's shared options checker.
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { tool } from 'toolwire';
 * import { registerMcpTools } from 'toolwire/mcp';
 *
 * const ping = tool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' });
 * const server = new McpServer({ name: 'my-tools', version: '1.0.0' });
 * registerMcpTools(server, [ping]);
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function registerMcpTools<C = unknown, T = ToolsGiven>(
  mcpServer: McpServer,
  tools: ToolSetOf<T, C>,
  options: RegisterMcpToolsOptions<C> = {},
): RegisteredTool[] {
  const made = toolsOf(tools, 'registerMcpTools()') as AnyTool<C>[];
  checkOptions(options, OPTIONS, { name: 'registerMcpTools()', error: OptionsError });
  const registered: RegisteredTool[] = [];
  for (const served of made) {
    const { name, description } = served.definition;
    try {
      registered.push(
        mcpServer.registerTool(
          name,
          { description, inputSchema: announcedSchema(inputSchemaOf(served)) },
          handlerFor(served, options),
        ),
      );
    } catch (error) {
      for (const handle of registered) handle.remove();
      throw new ToolDefinitionError(
        'duplicate_tool',
        `registerMcpTools(): the MCP server refused the tool ${JSON.stringify(name)} (${thrownMessage(error)})`,
        { cause: error },
      );
    }
  }
  return registered;
}
