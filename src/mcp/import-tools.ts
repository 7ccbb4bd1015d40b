/**
 * `importMcpTools()`: the tools of a connected MCP client as toolwire tools, so that the hosted agent reaches an
 * MCP server through the client's one outbound socket, without the MCP server being exposed.
 *
 * @module
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { looseObject, number, optional, string } from 'zod/mini';
import { OptionsError, ProtocolError, ToolDefinitionError } from '../errors';
import { MAX_TIMEOUT_MS } from '../limits';
import {
  aBoolean,
  aDuration,
  aFunction,
  aString,
  checkOptions,
  type OptionsSpec,
  oneOf,
} from '../tool/check-options';
import {
  type ContentInput,
  content,
  isBase64,
  isFilename,
  isImageType,
  isMediaType,
  type ToolContent,
} from '../tool/content';
import { base64Bytes } from '../tool/output';
import { adviseRename } from '../tool/shapes';
import { TOOL_NAME_PATTERN, type Tool, type ToolContext, tool } from '../tool/tool';
import { CONTENT_LIMITS } from '../wire/protocol';
import { checkMcpClient } from './sdk-objects';

/*
 * The text of an MCP `tools/call` result (`mcpResultText`): its content, in order, with a short note in place of
 * every part that is not text. These strings are part of the contract (tests pin them).
 *
 * | MCP content part                         | its text                                             |
 * | ---------------------------------------- | ---------------------------------------------------- |
 * | `text`                                   | its text, unchanged                                  |
 * | `resource` holding `text`                | that text, unchanged                                 |
 * | `image` / `audio`                        | `[image omitted: image/png, 1234 bytes]`             |
 * | `resource` holding a `blob`              | `[resource omitted: file:///a.pdf, application/pdf, 1234 bytes]` |
 * | `resource_link`                          | `[resource link: file:///a.pdf (a.pdf)]`             |
 * | any other type                           | `[<type> content omitted]`                           |
 *
 * Parts are joined with a newline. A result with no content but `structuredContent` reads as that object's
 * compact JSON; a result with neither reads as `''`.
 *
 * The parts toolwire can carry travel as content parts (`content()`, docs/guide/model-output.md), so that a
 * model that takes images sees the image; the tool's `output`, the text a model that reads only text gets, then
 * reads each carried part as `content()` writes it (`[image: image/png, 1,234 bytes]`), the others as above:
 *
 * | MCP content part                          | content part                                                  |
 * | ----------------------------------------- | ------------------------------------------------------------- |
 * | `image` of PNG, JPEG, GIF or WebP         | `image`, of that `mediaType`                                  |
 * | `image` of another type, `audio`          | `file`, of its `mimeType`                                     |
 * | `resource` holding a `blob`               | `file`, of its `mimeType` (else `application/octet-stream`), named by the last segment of its URI's path (`file:///r/a.pdf` → `a.pdf`) when it has one |
 * | any other (text, a text resource, a link) | `text`: its text or note as above, next ones joined by `\n`   |
 *
 * A result with none of the first three is its text alone (a string). A part is its note instead (in a
 * text part) when its data is not base64, its media type is not `type/subtype` (at most 255 characters), or it
 * would take the result past `CONTENT_LIMITS.maxParts` parts. Size is bounded where a frame is: a `Client`
 * sends in place of a part too large for the service's frame limit a text saying so (`[image image/png of
 * 3,145,728 bytes not sent: …]`), never a failed call. `structuredContent` stays out of the parts.
 */
type Part = Record<string, unknown>;

const isRecord = (value: unknown): value is Part =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function omitted(kind: string, details: Array<string | undefined>): string {
  const shown = details.filter((detail) => detail !== undefined && detail !== '');
  return shown.length === 0 ? `[${kind} omitted]` : `[${kind} omitted: ${shown.join(', ')}]`;
}

function bytes(data: unknown): string | undefined {
  if (typeof data !== 'string') return undefined;
  const count = base64Bytes(data);
  return `${count} ${count === 1 ? 'byte' : 'bytes'}`;
}

/** The text of one MCP content part (the first table in this module's comment). */
export function contentPartText(part: unknown): string {
  if (!isRecord(part)) return '[content omitted]';
  switch (part.type) {
    case 'text':
      return text(part.text) ?? '';
    case 'image':
    case 'audio':
      return omitted(part.type, [text(part.mimeType), bytes(part.data)]);
    case 'resource_link':
      return `[resource link: ${text(part.uri) ?? '(no uri)'}${text(part.name) ? ` (${part.name})` : ''}]`;
    case 'resource': {
      const resource = isRecord(part.resource) ? part.resource : {};
      const inline = text(resource.text);
      if (inline !== undefined) return inline;
      return omitted('resource', [text(resource.uri), text(resource.mimeType), bytes(resource.blob)]);
    }
    default:
      return `[${typeof part.type === 'string' ? part.type : 'unknown'} content omitted]`;
  }
}

/**
 * The text of an MCP `tools/call` result (a `CallToolResult`, or the `{ toolResult }` of protocol 2024-10-07).
 * Never throws, whatever the server sent.
 */
export function mcpResultText(result: unknown): string {
  if (!isRecord(result)) return '';
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length > 0) return content.map(contentPartText).join('\n');
  if (isRecord(result.structuredContent)) return JSON.stringify(result.structuredContent);
  if ('toolResult' in result) {
    const legacy = result.toolResult;
    return typeof legacy === 'string' ? legacy : (JSON.stringify(legacy) ?? '');
  }
  return '';
}

/**
 * `data` as the base64 `content()` takes: as it is, or without the white space and with the padding that MCP's
 * own check (`atob`) lets a server leave out; `undefined` when it is not base64.
 */
function base64Of(data: unknown): string | undefined {
  if (typeof data !== 'string') return undefined;
  if (isBase64(data)) return data;
  const bare = data.replace(/[\t\n\f\r ]/g, '');
  const padded = bare.length % 4 === 0 ? bare : `${bare}${'='.repeat(4 - (bare.length % 4))}`;
  return isBase64(padded) ? padded : undefined;
}

/**
 * The last segment of a URI's path, percent-decoded (`file:///r/a%20b.pdf` → `a b.pdf`), when there is one that
 * `content()` takes as a filename; none for a URI without a path (`memo://week`, `urn:x`, `data:…`).
 */
function filenameOf(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined;
  let path: string;
  try {
    path = new URL(uri).pathname;
  } catch {
    return undefined;
  }
  if (!path.startsWith('/')) return undefined;
  let name = path.slice(path.lastIndexOf('/') + 1);
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not percent-encoding after all: the segment as written.
  }
  return name !== '' && isFilename(name) ? name : undefined;
}

/** The content part toolwire carries for an MCP part (the table above), or `undefined`: then its text. */
function carriedPart(part: Part): ContentInput | undefined {
  if (part.type === 'image' || part.type === 'audio') {
    const data = base64Of(part.data);
    const mediaType = part.mimeType;
    if (data === undefined || typeof mediaType !== 'string') return undefined;
    const image = part.type === 'image' ? mediaType.toLowerCase() : '';
    if (isImageType(image)) return { type: 'image', data, mediaType: image };
    return isMediaType(mediaType) ? { type: 'file', data, mediaType } : undefined;
  }
  const resource = part.type === 'resource' && isRecord(part.resource) ? part.resource : undefined;
  if (resource === undefined || typeof resource.text === 'string') return undefined;
  const data = base64Of(resource.blob);
  const mediaType = resource.mimeType ?? 'application/octet-stream';
  if (data === undefined || !isMediaType(mediaType)) return undefined;
  const filename = filenameOf(resource.uri);
  return { type: 'file', data, mediaType, ...(filename === undefined ? {} : { filename }) };
}

/**
 * The content parts of an MCP result's `content` (the second table above), or `undefined` when toolwire carries
 * none of them but as text. Text parts next to each other are one, so that the parts never pass
 * `CONTENT_LIMITS.maxParts`: a part is carried only while one more text part would still fit after it.
 */
function carriedParts(content: readonly unknown[]): ContentInput[] | undefined {
  const parts: ContentInput[] = [];
  let carried = 0;
  for (const item of content) {
    const made = isRecord(item) && parts.length < CONTENT_LIMITS.maxParts - 1 ? carriedPart(item) : undefined;
    if (made !== undefined) {
      parts.push(made);
      carried += 1;
      continue;
    }
    const text = contentPartText(item);
    const last = parts[parts.length - 1];
    if (last?.type === 'text') last.text = `${last.text}\n${text}`;
    else parts.push({ type: 'text', text });
  }
  return carried === 0 ? undefined : parts;
}

/**
 * What an imported tool returns for an MCP result that is not an error: `text` (its {@link mcpResultText}), or
 * `content()` of its parts when toolwire carries some of them (whose `output` reads each carried part as
 * `content()`'s note, `[image: image/png, 1,234 bytes]`, and the others as in `text`).
 */
function resultOf(result: unknown, text: string): string | ToolContent {
  const parts = isRecord(result) && Array.isArray(result.content) ? carriedParts(result.content) : undefined;
  if (parts === undefined) return text;
  try {
    return content(parts);
  } catch {
    // Never, as the parts are checked as content() checks them; were the two to differ, the text alone.
    return text;
  }
}

/** What an `isError` result with no text makes the tool throw (the model reads `Error running <name>: …`). */
export const EMPTY_MCP_ERROR = 'the MCP server reported an error without a message';

/**
 * The message an `isError` result makes the imported tool throw: its text, less a leading
 * `Error running <the MCP tool's name>: ` (what a toolwire tool exported with `registerMcpTools` writes), since
 * toolwire writes that prefix again with the imported name: the model reads it once.
 */
function errorText(text: string, mcpName: string): string {
  const prefix = `Error running ${mcpName}: `;
  const message = text.startsWith(prefix) ? text.slice(prefix.length) : text;
  return message === '' ? EMPTY_MCP_ERROR : message;
}

/**
 * An MCP tool as `tools/list` describes it: the MCP SDK's `Tool` (name, description, inputSchema, annotations, …).
 * Reached through `ListToolsResult` rather than imported by its name, so that the declarations shipped for
 * `toolwire/mcp` need not give one of the two `Tool`s (theirs and toolwire's) a bundler-made name.
 */
export type McpTool = ListToolsResult['tools'][number];

/**
 * What {@link importMcpTools} needs of an MCP client: a connected `Client` of `@modelcontextprotocol/sdk`. Its
 * `request` (present on every SDK client) is what calls go through, so that toolwire reads each result itself
 * (the SDK's `callTool` throws away a result that trips its output-schema check) and can call a tool as a task;
 * a stand-in with only `listTools` and `callTool` is called through `callTool`.
 */
export type McpToolSource = Pick<McpClient, 'listTools' | 'callTool'> &
  Partial<Pick<McpClient, 'request' | 'getServerCapabilities'>>;

/**
 * A tool imported from an MCP server: its input is the JSON object the MCP input schema accepts; it returns the
 * result's text (see `mcpResultText`), or `content()` of its parts when the result holds images, audio or binary
 * resources (see docs/integrations/mcp.md for the parts).
 */
export type McpImportedTool = Tool<Record<string, unknown>, string | ToolContent>;

/** Options of {@link importMcpTools}. Every field is optional. */
export interface ImportMcpToolsOptions {
  /**
   * Put before every tool's name, e.g. `'github_'` makes `create_issue` `github_create_issue` (useful when
   * two servers have tools of the same name). Letters, digits, `_` and `-` only. Not used when `rename` is
   * given. @default ''
   */
  prefix?: string | undefined;
  /**
   * The toolwire name of an MCP tool, given its MCP name. Without it the name is `prefix` + the MCP name with
   * every character a toolwire name cannot hold (anything but letters, digits, `_` and `-`, e.g. the `.` of
   * `files.read`) replaced by `_`. Either way the result must be a valid toolwire name (1 to 64 of those
   * characters) and unique. @default prefix + the MCP name, mapped as above
   */
  rename?: ((mcpName: string) => string) | undefined;
  /** Keeps only the MCP tools for which it returns `true` (e.g. by name or `annotations.readOnlyHint`). @default every tool */
  filter?: ((mcpTool: McpTool) => boolean) | undefined;
  /**
   * Time limit of each call, in milliseconds (a positive integer): the imported tool's `timeoutMs`. When it
   * runs out the MCP request is cancelled and the model reads `Error running <name>: timed out after <n>ms`.
   * Without it the MCP SDK's own request timeout applies (60,000 ms in 1.x), and the model reads its error.
   * @default none
   */
  timeoutMs?: number | undefined;
  /**
   * Whether a human must approve each call (the tool's `needsApproval`), for all tools or per MCP tool (e.g.
   * `(t) => t.annotations?.destructiveHint === true`; MCP annotations are hints from the server, not
   * guarantees). @default false
   */
  needsApproval?: boolean | ((mcpTool: McpTool) => boolean) | undefined;
}

/** What {@link importMcpTools} accepts: one rule per option, checked by toolwire's shared checker. */
const OPTIONS: OptionsSpec<ImportMcpToolsOptions> = {
  rules: {
    prefix: aString('letters, digits, _ or -', { pattern: /^[a-zA-Z0-9_-]*$/ }),
    rename: aFunction,
    filter: aFunction,
    timeoutMs: aDuration(1),
    needsApproval: oneOf(aBoolean, aFunction),
  },
  aliases: { namePrefix: 'prefix', requiresApproval: 'needsApproval' },
};

function fail(code: string, message: string, cause?: unknown): never {
  throw new ToolDefinitionError(code, `importMcpTools(): ${message}`, cause === undefined ? {} : { cause });
}

/** Every tool of the server, following `nextCursor` until the last page. */
async function listAll(client: McpToolSource): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      if (cursors.has(cursor)) {
        throw new ProtocolError(
          'mcp_cursor_loop',
          `importMcpTools(): the MCP server answered tools/list with the cursor ${JSON.stringify(cursor)} twice`,
        );
      }
      cursors.add(cursor);
    }
  } while (cursor !== undefined);
  return tools;
}

function nameFor(mcpName: string, options: ImportMcpToolsOptions): string {
  const name = options.rename
    ? options.rename(mcpName)
    : `${options.prefix ?? ''}${mcpName}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    fail(
      'invalid_name',
      `the MCP tool ${JSON.stringify(mcpName)} would be named ${JSON.stringify(name)}, which is not 1 to 64 ` +
        'letters, digits, _ or -; give a rename option, or leave it out with filter',
    );
  }
  return name;
}

/** The MCP description, else its title, else a sentence naming it: toolwire needs a non-empty description. */
function descriptionOf(mcpTool: McpTool): string {
  for (const candidate of [mcpTool.description, mcpTool.title, mcpTool.annotations?.title]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate;
  }
  return `The MCP tool ${JSON.stringify(mcpTool.name)}.`;
}

/** How much later than the tool's `timeoutMs` the MCP SDK's own request timeout is set, in milliseconds. */
const MCP_TIMEOUT_MARGIN_MS = 1_000;

/*
 * Results are read with schemas that accept any object: what the model reads is decided here (`mcpResultText`,
 * `resultOf`), never throwing, and not by the MCP SDK's checks. `structuredContent` is not checked against the tool's
 * `outputSchema` either: the model reads the content, and an `isError` result is the server's own error text.
 */
const ANY_RESULT = looseObject({});
const CREATED_TASK = looseObject({
  task: looseObject({ taskId: string(), pollInterval: optional(number()) }),
});
const TASK_STATUS = looseObject({ status: string(), statusMessage: optional(string()) });

/** The poll interval of an imported task when the server gives none, and the bounds of one it gives, in ms. */
const TASK_POLL = { defaultMs: 1_000, minMs: 10, maxMs: 10_000 } as const;

/** An MCP progress notification's fields (`progress`, `total`, `message`), told to `ctx.progress()`. */
function forwardProgress(ctx: ToolContext) {
  return (update: { progress: number; total?: number | undefined; message?: string | undefined }) => {
    try {
      ctx.progress({
        progress: update.progress,
        ...(typeof update.total === 'number' && update.total > 0 ? { total: update.total } : {}),
        ...(typeof update.message === 'string' ? { message: update.message } : {}),
      });
    } catch {
      // A value toolwire refuses (a negative or infinite progress) is dropped: it is the server's, not the tool's.
    }
  };
}

/**
 * {@link forwardProgress} for a task, with `release()` to let go of `ctx` once the call ends: the MCP SDK client
 * keeps the progress handler of a task's `tools/call` until its connection closes.
 */
function forwardTaskProgress(ctx: ToolContext) {
  let forward: ReturnType<typeof forwardProgress> | undefined = forwardProgress(ctx);
  return {
    onprogress: (update: Parameters<ReturnType<typeof forwardProgress>>[0]) => forward?.(update),
    release: () => {
      forward = undefined;
    },
  };
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

type Request = NonNullable<McpToolSource['request']>;

/**
 * Calls an MCP tool as a task (MCP 2025-11-25 tasks, the MCP SDK's experimental API at its lowest level: the
 * SDK's own `callToolStream` reads a `failed` task as "Task … failed" without fetching its result, and checks
 * the output schema as `callTool` does). `tools/call` with `task` answers a task id; `tasks/get` is polled at
 * the server's `pollInterval`; a terminal `completed` or `failed` task's result comes from `tasks/result`, as
 * does one that needs input (`input_required`: `tasks/result` delivers the server's queued requests, e.g. an
 * elicitation, to the MCP client's own handlers, and waits for the end). Progress goes on reaching
 * `ctx.progress()` through the `tools/call` request's progress token. When `ctx.signal` aborts, `tasks/cancel`
 * is sent and the call ends with the abort's reason.
 */
async function callAsTask(
  request: Request,
  params: { name: string; arguments: Record<string, unknown> },
  ctx: ToolContext,
  timeout: number | undefined,
): Promise<unknown> {
  const { signal } = ctx;
  const progress = forwardTaskProgress(ctx);
  try {
    return await pollTask(request, params, signal, progress.onprogress, timeout);
  } finally {
    progress.release();
  }
}

/**
 * `request` with a signal of its own that follows `signal`: the MCP SDK adds an abort listener to the signal of
 * every request and never removes it, so a task polled for an hour on the call's `ctx.signal` would gather one
 * listener per poll (and a MaxListenersExceededWarning). This one is removed when the request ends.
 */
async function requestOnce<T>(signal: AbortSignal, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
  signal.throwIfAborted();
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  signal.addEventListener('abort', follow, { once: true });
  try {
    return await send(own.signal);
  } finally {
    signal.removeEventListener('abort', follow);
  }
}

async function pollTask(
  request: Request,
  params: { name: string; arguments: Record<string, unknown> },
  signal: AbortSignal,
  onprogress: (update: { progress: number; total?: number; message?: string }) => void,
  timeout: number | undefined,
): Promise<unknown> {
  const created = await request({ method: 'tools/call', params }, CREATED_TASK, {
    signal,
    onprogress,
    // Kept a minute past the call's time limit, so the result outlives the last poll; a timer past 2^31 - 1 ms
    // would fire at once in Node, hence the cap.
    task: timeout === undefined ? {} : { ttl: Math.min(MAX_TIMEOUT_MS, timeout + 60_000) },
    ...(timeout === undefined ? {} : { timeout }),
  });
  const { taskId } = created.task;
  const pollMs = Math.min(
    TASK_POLL.maxMs,
    Math.max(TASK_POLL.minMs, created.task.pollInterval ?? TASK_POLL.defaultMs),
  );
  const result = () =>
    requestOnce(signal, (own) =>
      request({ method: 'tasks/result', params: { taskId } }, ANY_RESULT, {
        signal: own,
        timeout: timeout ?? MAX_TIMEOUT_MS,
      }),
    );
  try {
    for (;;) {
      await pause(pollMs, signal);
      const task = await requestOnce(signal, (own) =>
        request({ method: 'tasks/get', params: { taskId } }, TASK_STATUS, { signal: own }),
      );
      if (task.status === 'completed' || task.status === 'failed' || task.status === 'input_required') {
        return await result();
      }
      if (task.status === 'cancelled') {
        const why = task.statusMessage ? `: ${task.statusMessage}` : '';
        throw new Error(`the MCP server cancelled the task ${taskId}${why}`);
      }
    }
  } catch (error) {
    if (signal.aborted) {
      request({ method: 'tasks/cancel', params: { taskId } }, ANY_RESULT).catch(() => {
        // The task may have ended meanwhile, or the connection closed: nothing more to cancel.
      });
      throw signal.reason;
    }
    throw error;
  }
}

/** Whether `mcpTool` is called as a task: it offers task execution and the server takes tasks for tools/call. */
function offersTasks(client: McpToolSource, mcpTool: McpTool): boolean {
  const support = mcpTool.execution?.taskSupport;
  if (support !== 'optional' && support !== 'required') return false;
  if (client.request === undefined || client.getServerCapabilities === undefined) return false;
  return client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
}

function importOne(client: McpToolSource, mcpTool: McpTool, name: string, options: ImportMcpToolsOptions) {
  const { timeoutMs } = options;
  const needsApproval =
    typeof options.needsApproval === 'function'
      ? options.needsApproval(mcpTool) === true
      : options.needsApproval === true;
  // The MCP request's own timeout is set past ours, so that ours always ends the call (status `timeout`) and
  // cancels the request through `ctx.signal`; two equal timers would race.
  const timeout =
    timeoutMs === undefined ? undefined : Math.min(MAX_TIMEOUT_MS, timeoutMs + MCP_TIMEOUT_MARGIN_MS);
  const asTask = offersTasks(client, mcpTool);
  const call = (input: Record<string, unknown>, ctx: ToolContext): Promise<unknown> => {
    const params = { name: mcpTool.name, arguments: input };
    const { request } = client;
    if (request === undefined) {
      return client.callTool(params, undefined, {
        signal: ctx.signal,
        onprogress: forwardProgress(ctx),
        ...(timeout === undefined ? {} : { timeout }),
      });
    }
    const bound: Request = request.bind(client);
    if (asTask) return callAsTask(bound, params, ctx, timeout);
    return bound({ method: 'tools/call', params }, ANY_RESULT, {
      signal: ctx.signal,
      onprogress: forwardProgress(ctx),
      ...(timeout === undefined ? {} : { timeout }),
    });
  };
  const execute = async (input: Record<string, unknown>, ctx: ToolContext): Promise<string | ToolContent> => {
    const result = await call(input, ctx);
    const text = mcpResultText(result);
    if (isRecord(result) && result.isError === true) throw new Error(errorText(text, mcpTool.name));
    return resultOf(result, text);
  };
  try {
    const imported = tool({
      name,
      description: descriptionOf(mcpTool),
      parameters: mcpTool.inputSchema,
      needsApproval,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      execute: execute as (input: unknown, ctx: ToolContext) => Promise<string | ToolContent>,
    }) as McpImportedTool;
    adviseRename(imported, PREFIX_ADVICE);
    return imported;
  } catch (error) {
    if (!(error instanceof ToolDefinitionError)) throw error;
    return fail(error.code, `the MCP tool ${JSON.stringify(mcpTool.name)}: ${error.message}`, error);
  }
}

/** How an imported tool whose name another tool has gets another: two MCP servers often share tool names. */
const PREFIX_ADVICE =
  "importMcpTools() names each tool after its MCP tool: give each MCP server's importMcpTools() call its own prefix option (e.g. { prefix: 'files_' })";

/**
 * Turns the tools of a connected MCP client into toolwire tools, to give to a `Client` (or an `Agent`, or
 * `invokeTool`). Each imported tool:
 *
 * - is named after the MCP tool (see {@link ImportMcpToolsOptions.rename}), described by its description (else
 *   its title, else `The MCP tool "<name>".`), and announces the MCP input schema as its parameters;
 * - validates the arguments against that schema locally, before any MCP request: the model reads toolwire's
 *   `Invalid arguments for <name>: …` and the MCP server is not called;
 * - calls `tools/call` with the validated arguments; `ctx.signal` (the call cancelled by the service, or timed
 *   out) cancels the MCP request (`notifications/cancelled`);
 * - answers with the text of the result's content (see `mcpResultText`: text parts verbatim, a short note such
 *   as `[image omitted: image/png, 1234 bytes]` for each part that is not text, `structuredContent` as JSON
 *   when there is no content) as `output`; a result with images, audio or binary resources gives them as
 *   content parts (`content()`: an image of PNG, JPEG, GIF or WebP as an image, the others as files), so a
 *   model that takes images sees them, and its `output` reads each as `content()`'s note (`[image: image/png,
 *   1,234 bytes]`); an `isError` result is an `error` result, the model reading `Error running <name>: <the
 *   result's text>`; an MCP protocol failure (e.g. the connection closed) likewise.
 *   `structuredContent` is not checked against the tool's `outputSchema` (the MCP SDK's `callTool` would throw
 *   such a result away): the model reads the content;
 * - tells `ctx.progress()` each MCP progress notification of the call;
 * - calls a tool that offers task execution (`execution.taskSupport` `'optional'` or `'required'`, on a server
 *   that takes tasks for `tools/call`) as an MCP task: polled with `tasks/get`, its result from `tasks/result`,
 *   `tasks/cancel` when the call is cancelled or times out.
 *
 * Tools are listed once, now (every page of `tools/list`); a tool added to the server later needs another call.
 * Resources, prompts, sampling and elicitation are not bridged; widgets cannot be returned.
 *
 * @param mcpClient - a connected `Client` from `@modelcontextprotocol/sdk/client/index.js`.
 * @returns the tools, in the order the server lists them (after `filter`).
 * @throws OptionsError (as a rejection) `invalid_mcp_client` when `mcpClient` is not an MCP client (an
 *   `McpServer`, nothing) or is an MCP SDK `Client` not connected yet, saying what to give.
 * @throws OptionsError (as a rejection) for bad options: `invalid_options`, `unknown_option` (with "did you
 *   mean"), `invalid_option`.
 * @throws ToolDefinitionError for a name that cannot be made valid (`invalid_name`), two tools given the same name
 *   (`duplicate_tool`; two imports' tools of one name meet theirs where they are given together, which says to
 *   give each import its own `prefix`), or an input schema toolwire cannot use (`invalid_parameters`, naming the MCP tool and
 *   the JSON Pointer): leave such a tool out with `filter`. ProtocolError `mcp_cursor_loop` when the server
 *   pages forever; the MCP client's own error when `tools/list` fails.
 * @example
 * ```ts
 * import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
 * import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
 * import { Client } from 'toolwire';
 * import { importMcpTools } from 'toolwire/mcp';
 *
 * const mcp = new McpClient({ name: 'my-worker', version: '1.0.0' });
 * await mcp.connect(new StdioClientTransport({ command: 'node', args: ['files-server.js'] }));
 * const tools = await importMcpTools(mcp, { prefix: 'files_', timeoutMs: 30_000 });
 * const client = new Client({ tools });
 * ```
 */
export async function importMcpTools(
  mcpClient: McpToolSource,
  options: ImportMcpToolsOptions = {},
): Promise<McpImportedTool[]> {
  checkMcpClient(mcpClient);
  checkOptions(options, OPTIONS, { name: 'importMcpTools()', error: OptionsError });
  const listed = await listAll(mcpClient);
  const names = new Map<string, string>();
  const tools: McpImportedTool[] = [];
  for (const mcpTool of listed) {
    if (options.filter && options.filter(mcpTool) !== true) continue;
    const name = nameFor(mcpTool.name, options);
    const other = names.get(name);
    if (other !== undefined) {
      fail(
        'duplicate_tool',
        `the MCP tools ${JSON.stringify(other)} and ${JSON.stringify(mcpTool.name)} would both be named ` +
          `${JSON.stringify(name)}; give a rename option, or leave one out with filter`,
      );
    }
    names.set(name, mcpTool.name);
    tools.push(importOne(mcpClient, mcpTool, name, options));
  }
  return tools;
}
