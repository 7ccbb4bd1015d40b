/**
 * `toolwire/ai-sdk`: toolwire tools inside a local AI SDK loop (`generateText`, `streamText`, `ToolLoopAgent`),
 * e.g. in tests or offline, with the same validation and the same texts as when the hosted agent calls them.
 * Needs `ai` 6 (an optional peer dependency of toolwire).
 *
 * @packageDocumentation
 */
// In Node (and in Bun and Deno through the `node` condition) this is the package's Node entry, so that every optional
// part (zod 3, valibot, JSON Schema, `strict: true`, ...) is registered before this subpath defines a tool, whatever
// the program imported first. Elsewhere it is the core, which registers nothing (a bundler drops it).
import 'toolwire';
import {
  type Tool as AiTool,
  type JSONValue,
  jsonSchema,
  type ToolExecutionOptions,
  type ToolResultPart,
} from 'ai';
import { approvalNeeded, invokeTool } from '../call/invoke';
import type { ApprovalDecision, ApprovalRequest, ToolCallResult } from '../call/types';
import { brandErrorClass, OptionsError, ToolwireError, type ToolwireErrorOptions } from '../errors';
import { cloneJson } from '../json';
import { aFunction, anything, checkOptions, type OptionsSpec } from '../tool/check-options';
import type { ContentPart } from '../tool/content';
import { wellFormedJson } from '../tool/output';
import { markViewOf, type ToolSetOf, type ToolsContext, type ToolsGiven, toolsOf } from '../tool/shapes';
import type { Tool } from '../tool/tool';

/*
 * `ToolResultError`: how a call that did not end `ok` reaches the AI SDK.
 */
/**
 * Thrown by a tool from `toAiSdkTools()` when its call ends with any status but `ok`: the AI SDK turns a
 * throw into a `tool-error` part whose text the model reads, and that text is `message`, exactly what the hosted
 * model would read (`Invalid arguments for <name>: …`, `Error running <name>: …`, …). `code` is the status.
 */
export class ToolResultError extends ToolwireError {
  override name = 'ToolResultError';
  /** The call's full result: `status`, `output`, `durationMs`. */
  readonly result: ToolCallResult;

  constructor(result: ToolCallResult, options?: ToolwireErrorOptions) {
    super(result.status, result.output, options);
    this.result = result;
  }
}
brandErrorClass(ToolResultError, 'ToolResultError');

/*
 * `toAiSdkTools()`: toolwire tools as AI SDK tools.
 */
/**
 * What a tool from {@link toAiSdkTools} returns for a result made with `content()`: the text a model that reads
 * only text would read (`ToolCallResult.output`) and the parts (`ToolCallResult.content`, binary data as base64).
 * Plain JSON, so that it can be kept in UI messages and given back to `convertToModelMessages`.
 */
export interface AiSdkContentOutput {
  /** The text a model that reads only text reads: the text and JSON parts, and a note per image or file. */
  output: string;
  /** The parts, as `content()` made them (`text`, `json`, `image` and `file`, their `data` base64). */
  content: ContentPart[];
}

/**
 * An AI SDK tool made by {@link toAiSdkTools}: its input a JSON object, its output the text the model reads (a
 * string), or {@link AiSdkContentOutput} for a result made with `content()`, which its `toModelOutput` gives the
 * model as parts.
 */
export type AiSdkTool = AiTool<Record<string, unknown>, string | AiSdkContentOutput>;

/** A tool result as the AI SDK gives it to the model (its `ToolResultOutput`). */
type ModelOutput = ToolResultPart['output'];
type ModelPart = Extract<ModelOutput, { type: 'content' }>['value'][number];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One content part as the AI SDK's: text as `text`, JSON as the `text` of its JSON, images and files as data. */
function modelPart(part: unknown): ModelPart {
  if (!isRecord(part)) return { type: 'text', text: wellFormedJson(JSON.stringify(part ?? null)) };
  const { type, data, mediaType } = part;
  if (type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
  if ((type === 'image' || type === 'file') && typeof data === 'string' && typeof mediaType === 'string') {
    if (type === 'image') return { type: 'image-data', data, mediaType };
    const { filename } = part;
    return { type: 'file-data', data, mediaType, ...(typeof filename === 'string' ? { filename } : {}) };
  }
  return {
    type: 'text',
    text: wellFormedJson(JSON.stringify(type === 'json' ? (part.value ?? null) : part)),
  };
}

/**
 * The `toModelOutput` of every tool from {@link toAiSdkTools} (one function, not one per tool or call): a string is
 * the `text` it is, as the AI SDK makes it without one; an {@link AiSdkContentOutput} is `content` of its parts
 * (`text`; `image-data`; `file-data` with the filename; a JSON part as the text of its JSON). The AI SDK also gives
 * it outputs kept in UI messages (`convertToModelMessages`), so it reads nothing but the JSON; any other value is
 * `json`, as without one.
 */
function toModelOutput({ output }: { output: unknown }): ModelOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  if (isRecord(output) && Array.isArray(output.content)) {
    return { type: 'content', value: output.content.map(modelPart) };
  }
  return { type: 'json', value: (output ?? null) as JSONValue };
}

/** Options of {@link toAiSdkTools}. Every field is optional. */
export interface ToAiSdkToolsOptions<C = unknown> {
  /**
   * `ctx.context` when the AI SDK call gives no `experimental_context` (when it does, that is the context). Of
   * the type the tools declare (`ToolContext<…>`, all of them at once), as `invokeTool` checks its `context`; the
   * AI SDK's `experimental_context` is `unknown` and not checked. @default undefined
   */
  context?: C | undefined;
  /**
   * Decides, in this process, every call of a tool that needs approval (`needsApproval`: `true` or a
   * predicate), as `invokeTool`'s `approve` does. Without it, the AI SDK's own approval flow asks (its
   * `tool-approval-request`) and `execute` runs only once approved there: a tool with `needsApproval: true` is
   * given with `needsApproval: true`, and a predicate (or an `approvalRequired()` policy) as the AI SDK's
   * `needsApproval(input, options)`, which runs toolwire's check ({@link approvalNeeded}) with the AI SDK's
   * `toolCallId` and `experimental_context`. @default none
   */
  approve?: ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>) | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: tools of any input and output type, sharing the context type.
type AnyTool<C> = Tool<any, any, C>;

/** What {@link toAiSdkTools} accepts: one rule per option, checked by toolwire's shared checker. */
const OPTIONS: OptionsSpec<ToAiSdkToolsOptions> = {
  rules: { context: anything, approve: aFunction },
  aliases: { experimental_context: 'context', onApproval: 'approve' },
};

/** The call's context: the AI SDK's `experimental_context`, else `options.context`. */
function contextOf<C>(given: unknown, options: ToAiSdkToolsOptions<C>): { context?: C } {
  const context = given === undefined ? options.context : given;
  return context === undefined ? {} : { context: context as C };
}

/**
 * The AI SDK's input (the model's arguments already parsed as JSON) as `invokeTool` reads raw arguments: a
 * string (the model sent a JSON string) goes back as the JSON text it was, so that it is decoded once as
 * `invokeTool` decodes that text (`"hello"` is `expected a JSON object, got string`; a double-encoded object is
 * unwrapped), never parsed as JSON a second time. Anything else as it is.
 */
function asSent(input: unknown): unknown {
  return typeof input === 'string' ? JSON.stringify(input) : input;
}

/**
 * How many call ids a tool from {@link toAiSdkTools} holds of approvals the AI SDK asked about whose `execute` has
 * not come (yet): a call declined, or left unanswered in a chat, never comes, and its id would be held for as long
 * as the tools live. Past the bound the oldest id is forgotten; its call, were it run after all, checks its
 * approval again and is `rejected` (nothing runs unapproved). The AI SDK asks again right before it runs an
 * approved call, so an id is held only from that ask to `execute`.
 */
const MAX_DECIDED_CALLS = 10_000;

function toAiSdkTool<C>(source: AnyTool<C>, options: ToAiSdkToolsOptions<C>): AiSdkTool {
  const { approve } = options;
  // Without `approve`, the AI SDK's approval flow decides: `needsApproval: true` as it is, and any other
  // `needsApproval` (a predicate, `false`) through approvalNeeded(), the AI SDK's needsApproval(input, options).
  const approvedByAiSdk = approve === undefined && source.definition.needsApproval;
  const decided = new Set<string>();
  const askAiSdk = async (input: unknown, call: { toolCallId: string; experimental_context?: unknown }) => {
    const needed = await approvalNeeded(source, asSent(input), {
      callId: call.toolCallId,
      ...contextOf(call.experimental_context, options),
    });
    // Decided here (a human asks when `true`): execute then runs it as approved. Undecided: execute reports why.
    if (needed !== undefined) {
      decided.delete(call.toolCallId);
      decided.add(call.toolCallId);
      if (decided.size > MAX_DECIDED_CALLS) decided.delete(decided.values().next().value as string);
    }
    return needed === true;
  };
  const parameters = cloneJson(source.definition.parameters) as Parameters<typeof jsonSchema>[0];
  const made: AiSdkTool = {
    description: source.description,
    // No `validate`: the AI SDK only parses the JSON; invokeTool validates, so the model reads toolwire's text.
    inputSchema: jsonSchema<Record<string, unknown>>(parameters),
    ...(source.definition.strict === true ? { strict: true } : {}),
    ...(approvedByAiSdk ? { needsApproval: true } : approve === undefined ? { needsApproval: askAiSdk } : {}),
    toModelOutput,
    execute: async (
      input: Record<string, unknown>,
      call: ToolExecutionOptions,
    ): Promise<string | AiSdkContentOutput> => {
      const approved = approvedByAiSdk || decided.delete(call.toolCallId);
      const result = await invokeTool(source, asSent(input), {
        callId: call.toolCallId,
        ...(call.abortSignal === undefined ? {} : { signal: call.abortSignal }),
        ...contextOf(call.experimental_context, options),
        ...(approve === undefined ? {} : { approve }),
        ...(approved ? { approved: true } : {}),
      });
      if (result.status !== 'ok') throw new ToolResultError(result);
      const { content } = result;
      return content === undefined ? result.output : { output: result.output, content };
    },
  };
  // Given back to toolwire (a Client, an Agent, invokeTool, toAiSdkTools again), it is `source` itself.
  return markViewOf(made, source);
}

/**
 * The same toolwire tools as AI SDK tools, keyed by name, for `generateText({ tools })` and its kin. Each call
 * runs as `invokeTool` does, with the AI SDK's `toolCallId` as `ctx.callId`, its `abortSignal` as the call's
 * signal (`ctx.signal` aborts with it) and its `experimental_context` as `ctx.context`; `ctx.runId` is a fresh
 * id per call (the AI SDK has no run id).
 *
 * - The input schema is the tool's announced JSON Schema, through the AI SDK's `jsonSchema()`, without an AI
 *   SDK-side validator: the AI SDK parses the model's JSON (`''` is `{}`; text that is not JSON it refuses
 *   itself, with its own `InvalidToolInputError` text), and toolwire validates.
 * - A `strict: true` tool is given with the AI SDK's `strict: true` and its strict form
 *   (`tool.definition.parameters`): the AI SDK passes both to the provider unchanged, and OpenAI's strict
 *   function calling needs the schema in that form. Its `execute` takes an optional property sent as `null`
 *   (strict mode) or left out (a provider without strict mode) alike.
 * - An `ok` call's output is the text the model reads (a `text` tool output); any other status throws a
 *   {@link ToolResultError} whose message is that text, which the AI SDK gives the model as a `tool-error`.
 * - A result made with `content()` is an {@link AiSdkContentOutput} (`{ output, content }`), which the tool's
 *   `toModelOutput` gives the model as the AI SDK's `content` output: text and JSON parts as `text`, images as
 *   `image-data`, files as `file-data` (with the filename). Whether the model sees an image or a file depends on
 *   the provider's support for them in tool results.
 * - Widgets never reach the model (as with the hosted service); `ToolCallResult.value` is not returned.
 *
 * `tools` takes every shape `new Client({ tools })` takes: an array or a record keyed by name of `tool()`
 * results, plain objects, AI SDK tools and (in a record) bare functions. Each tool returned, given back to toolwire
 * (a `Client`, an `Agent`, `invokeTool`, `toAiSdkTools` again), is the toolwire tool it was made from, so the
 * same tool from two calls is one tool; toolwire then runs it as its own (these `options` are the AI SDK's only).
 *
 * @throws ToolDefinitionError `invalid_tools` when `tools` is neither an array nor a record of tools,
 *   `not_a_tool` for an entry of no accepted shape (named by its index or key), what `tool()` throws for an
 *   object it refuses, `duplicate_tool` when two tools share a name; OptionsError `invalid_options` / `unknown_option`
 *   (with "did you mean") / `invalid_option` for bad options, from toolwire's shared options checker.
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { tool } from 'toolwire';
 * import { toAiSdkTools } from 'toolwire/ai-sdk';
 *
 * declare const model: import('ai').LanguageModel;
 * const ping = tool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' });
 * const { text } = await generateText({
 *   model,
 *   tools: toAiSdkTools([ping]),
 *   stopWhen: stepCountIs(3),
 *   prompt: 'Ping, please.',
 * });
 * ```
 */
export function toAiSdkTools<C extends ToolsContext<T>, T = ToolsGiven>(
  tools: ToolSetOf<T, C>,
  options: ToAiSdkToolsOptions<C> = {},
): Record<string, AiSdkTool> {
  const made = toolsOf(tools, 'toAiSdkTools()') as AnyTool<C>[];
  checkOptions(options, OPTIONS, { name: 'toAiSdkTools()', error: OptionsError });
  const out: Record<string, AiSdkTool> = {};
  for (const source of made) out[source.name] = toAiSdkTool(source, options);
  return out;
}
