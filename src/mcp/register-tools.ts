/**
 * `registerMcpTools()`: serves toolwire tools from an `McpServer`, so the same tools run in any MCP host.
 *
 * @module
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  ServerCapabilities,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { looseObject, optional, string } from 'zod/mini';
import { invokeTool } from '../call/invoke';
import { ANSWER_FIELD } from '../call/questions';
import type {
  ApprovalDecision,
  ApprovalRequest,
  InvokeOptions,
  ProgressUpdate,
  QuestionReply,
  QuestionRequest,
} from '../call/types';
import { OptionsError, QuestionError, ToolDefinitionError } from '../errors';
import { cloneJson } from '../json';
import { MAX_TIMEOUT_MS } from '../limits';
import {
  aBoolean,
  aDuration,
  aFunction,
  anything,
  checkOptions,
  type OptionsSpec,
  oneOf,
} from '../tool/check-options';
import { type ContentPart, partText } from '../tool/content';
import { thrownMessage } from '../tool/output';
import { type ToolSetOf, type ToolsContext, type ToolsGiven, toolsOf } from '../tool/shapes';
import { inputSchemaOf, type Tool } from '../tool/tool';
import { checkMcpServer } from './sdk-objects';

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
  internals.toJSONSchema = () => ({ $schema: DRAFT_2020_12, ...cloneJson(jsonSchema) });
  return schema;
}

/** What the MCP SDK gives a tool handler besides the arguments: `signal`, `sessionId`, `authInfo`, … */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Options of {@link registerMcpTools}. Every field is optional. */
export interface RegisterMcpToolsOptions<C = unknown> {
  /**
   * `ctx.context` of every call, or a function of the MCP request giving it (or a promise of it), e.g. from
   * `extra.authInfo`; of the type the tools declare (`ToolContext<…>`, all of them at once), as `invokeTool`
   * checks its `context`. If the function throws, the call fails without running: the MCP client reads
   * `Error running <name>: the MCP server could not provide its context (<message>)`. @default undefined
   */
  context?: C | ((extra: McpRequestExtra) => C | Promise<C>) | undefined;
  /**
   * Decides calls of tools that need approval (`needsApproval`), as `invokeTool`'s `approve` does. MCP has no
   * approval step of its own: without `approve` such a call is `rejected` and the MCP client reads
   * `<name> was not run: it needs a human's approval, and no approver is available.` @default none
   */
  approve?: ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>) | undefined;
  /**
   * Which tools an MCP client may call as tasks (MCP 2025-11-25 tasks, experimental in the MCP SDK): `true` for
   * every tool, or a function of the tool (e.g. the long ones, that report progress). Such a tool is listed with
   * `execution.taskSupport: 'optional'`: a client that asks for a task gets a task id at once, polls
   * `tasks/get`, reads `tasks/result` and may `tasks/cancel` (which aborts `ctx.signal`); a client that does not
   * is answered by the MCP SDK's own polling of the task, up to one `taskPollIntervalMs` later than the call
   * ends. Needs an `McpServer` made with a `taskStore` and the capability `tasks.requests.tools.call` (and a
   * `taskMessageQueue` for `ctx.askQuestion()` inside a task). @default false
   */
  tasks?: boolean | ((tool: Tool) => boolean) | undefined;
  /** How often a task's client is told to poll, and how often a running task checks it was cancelled, in ms. @default 1_000 */
  taskPollIntervalMs?: number | undefined;
  /**
   * How long a task is kept, in ms, when the client asks for no `ttl`: from its start, and again from its end
   * (the MCP SDK's in-memory store drops a task that long after either). A task dropped while it runs is
   * aborted. @default 3_600_000
   */
  taskTtlMs?: number | undefined;
}

/** The defaults of {@link RegisterMcpToolsOptions}' task options. */
export const MCP_TASK_DEFAULTS = { taskPollIntervalMs: 1_000, taskTtlMs: 3_600_000 } as const;

// biome-ignore lint/suspicious/noExplicitAny: tools of any input and output type, sharing the context type.
type AnyTool<C> = Tool<any, any, C>;

/** What {@link registerMcpTools} accepts: one rule per option, checked by toolwire's shared checker. */
const OPTIONS: OptionsSpec<RegisterMcpToolsOptions> = {
  rules: {
    context: anything,
    approve: aFunction,
    tasks: oneOf(aBoolean, aFunction),
    taskPollIntervalMs: aDuration(1),
    taskTtlMs: aDuration(1),
  },
  aliases: { onApproval: 'approve', pollIntervalMs: 'taskPollIntervalMs', ttlMs: 'taskTtlMs' },
};

/** The progress token of the MCP request, when its client asked for progress. */
function progressTokenOf(extra: McpRequestExtra): string | number | undefined {
  const token = extra._meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** `invokeTool`'s `onProgress` that sends each `ctx.progress()` as an MCP progress notification, or none. */
function progressSender(extra: McpRequestExtra): InvokeOptions['onProgress'] {
  const progressToken = progressTokenOf(extra);
  if (progressToken === undefined) return undefined;
  return (update: ProgressUpdate) => {
    const { progress, total, message } = update;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      })
      .catch(() => {
        // The connection closed: progress is advisory, the call goes on.
      });
  };
}

/*
 * `ctx.askQuestion()` over MCP: an elicitation (`elicitation/create`, form mode) when the MCP client declared
 * the capability. Its `requestedSchema` is a flat object: a question with `choices` asks for `answer` among them,
 * one without a schema for an `answer` string, one whose JSON Schema is an object for that object, any other
 * JSON Schema for an `answer` of that schema. "decline" and "cancel" decline the question.
 */
const ELICIT_RESULT = looseObject({ action: string(), content: optional(looseObject({})) });

function requestedSchema(request: QuestionRequest): { schema: Record<string, unknown>; wrapped: boolean } {
  const { choices, schema } = request;
  if (schema !== undefined && schema.type === 'object') return { schema, wrapped: false };
  const answer = choices !== undefined ? { type: 'string', enum: choices } : (schema ?? { type: 'string' });
  return {
    schema: { type: 'object', properties: { answer }, required: ['answer'] },
    wrapped: true,
  };
}

/** The `format`s of a string an MCP form elicitation takes. */
const FORM_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

/** What a JSON Schema is, for a refusal: `an object`, `an array of numbers`, `a union (anyOf)`, … */
function describeSchema(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return `the schema ${JSON.stringify(schema)}`;
  const node = schema as Record<string, unknown>;
  for (const keyword of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(node[keyword])) return `a union (${keyword})`;
  if (node.type === 'array') return `an array of ${describeSchema(node.items).replace(/^an? /, '')}s`;
  if (typeof node.type === 'string') return `${/^[aeiou]/.test(node.type) ? 'an' : 'a'} ${node.type}`;
  if (Array.isArray(node.type)) return `one of the types ${node.type.join(', ')}`;
  if (typeof node.$ref === 'string') return `a reference (${node.$ref})`;
  return 'a schema without a type';
}

/**
 * Why the MCP form elicitation cannot ask a property of this schema, or `undefined` when it can: a form takes flat
 * properties of type `string` (with a `format` of `email`, `uri`, `date` or `date-time` at most; an `enum` or
 * titled `oneOf` is a choice), `number`, `integer` or `boolean`, or an array of enum values (a multiple choice).
 */
function unaskable(name: string, property: unknown): string | undefined {
  const node = (typeof property === 'object' && property !== null ? property : {}) as Record<string, unknown>;
  const unionOf = ['anyOf', 'oneOf', 'allOf'].some((keyword) => Array.isArray(node[keyword]));
  if (node.type === 'string' && typeof node.format === 'string' && !FORM_FORMATS.has(node.format))
    return `"${name}" is a string of format "${node.format}" (a form takes email, uri, date or date-time)`;
  if (node.type === 'string' || node.type === 'boolean') return undefined;
  if ((node.type === 'number' || node.type === 'integer') && !unionOf) return undefined;
  if (node.type === 'array' && typeof node.items === 'object' && node.items !== null) {
    const items = node.items as Record<string, unknown>;
    if ((items.type === 'string' && Array.isArray(items.enum)) || Array.isArray(items.anyOf))
      return undefined;
  }
  return `"${name}" is ${describeSchema(property)}`;
}

/**
 * Refuses a question whose form the MCP client could not be sent, before it is sent (the MCP SDK would refuse
 * it with a dump of its own schema): a form elicitation takes flat properties of primitive types only.
 * @throws QuestionError `unsupported`, naming the first property it cannot ask.
 */
function refuseUnaskable(schema: Record<string, unknown>): void {
  const properties = schema.properties;
  const entries =
    typeof properties === 'object' && properties !== null ? Object.entries(properties as object) : [];
  for (const [name, property] of entries) {
    const why = unaskable(name, property);
    if (why === undefined) continue;
    throw new QuestionError(
      'unsupported',
      `an MCP form elicitation takes flat properties of type string, number, integer or boolean (or a list of choices), and ${why}`,
    );
  }
}

/** `invokeTool`'s `onQuestion` sending an elicitation, in the task `taskId` when given; none without the capability. */
function questionAsker(
  mcpServer: McpServer,
  extra: McpRequestExtra,
  taskId?: string,
): InvokeOptions['onQuestion'] {
  if (mcpServer.server.getClientCapabilities()?.elicitation === undefined) return undefined;
  return async (request: QuestionRequest): Promise<QuestionReply> => {
    const { schema, wrapped } = requestedSchema(request);
    refuseUnaskable(schema);
    try {
      const reply = await extra.sendRequest(
        {
          method: 'elicitation/create',
          params: { mode: 'form', message: request.question, requestedSchema: schema as never },
        },
        ELICIT_RESULT,
        {
          signal: request.signal,
          // The question's own `timeoutMs` and the call's end stop the wait (`signal`), not the MCP SDK's 60 s.
          timeout: MAX_TIMEOUT_MS,
          ...(taskId === undefined ? {} : { relatedTask: { taskId } }),
        },
      );
      if (reply.action !== 'accept')
        return { declined: true, reason: `the MCP client answered ${reply.action}` };
      const content = reply.content ?? {};
      // A wrapped answer's issues point at its form field, `answer`, not at `(root)`.
      if (!wrapped) return { answer: content };
      const marked = { answer: content.answer, [ANSWER_FIELD]: 'answer' };
      return marked;
    } finally {
      // The MCP SDK sets a task `input_required` while it waits for the answer, and leaves it so.
      if (taskId !== undefined && extra.taskStore !== undefined) {
        await extra.taskStore.updateTaskStatus(taskId, 'working').catch(() => {
          // The task ended meanwhile (cancelled, or dropped at its ttl).
        });
      }
    }
  };
}

/** `ctx.context` of a call: the option's value, or what its function gives for this MCP request. */
async function contextFor<C>(
  options: RegisterMcpToolsOptions<C>,
  extra: McpRequestExtra,
): Promise<C | undefined> {
  const given = options.context;
  return typeof given === 'function'
    ? await (given as (extra: McpRequestExtra) => C | Promise<C>)(extra)
    : given;
}

const contextError = (name: string, error: unknown): CallToolResult => ({
  content: [
    {
      type: 'text',
      text: `Error running ${name}: the MCP server could not provide its context (${thrownMessage(error)})`,
    },
  ],
  isError: true,
});

/** Runs `served` as `invokeTool` does and answers with the text the model would read. */
async function run<C>(
  served: AnyTool<C>,
  args: Record<string, unknown>,
  context: C | undefined,
  options: RegisterMcpToolsOptions<C>,
  call: Pick<InvokeOptions, 'signal' | 'onProgress' | 'onQuestion'>,
): Promise<CallToolResult> {
  const { approve } = options;
  // No callId: MCP request ids restart at 0 on every connection, and `ctx.idempotencyKey()` must not repeat.
  const result = await invokeTool(served, args, {
    ...call,
    ...(context === undefined ? {} : { context }),
    ...(approve === undefined ? {} : { approve }),
  });
  if (result.status !== 'ok') return { content: [{ type: 'text', text: result.output }], isError: true };
  const parts = result.content;
  return { content: parts === undefined ? [{ type: 'text', text: result.output }] : parts.map(mcpPart) };
}

/**
 * A toolwire content part as an MCP content part: text as text; an image as an image; a file of an `audio/*` type
 * as audio (MCP audio has no name: the filename is not sent); any other file as an embedded `resource` with its
 * `blob`, `mimeType` and a `uri` of `file:///` and its filename (percent-encoded; `part-<n>` for the part at
 * 1-based position n when it has none: MCP needs a URI, and the resource is in the result only, not readable
 * with `resources/read`); a JSON part as the text of its JSON.
 */
function mcpPart(part: ContentPart, index: number): CallToolResult['content'][number] {
  switch (part.type) {
    case 'text':
    case 'json':
      return { type: 'text', text: partText(part) };
    case 'image':
      return { type: 'image', data: part.data, mimeType: part.mediaType };
    case 'file': {
      if (part.mediaType.toLowerCase().startsWith('audio/'))
        return { type: 'audio', data: part.data, mimeType: part.mediaType };
      const name = part.filename === undefined ? `part-${index + 1}` : encodeURIComponent(part.filename);
      return {
        type: 'resource',
        resource: { uri: `file:///${name}`, mimeType: part.mediaType, blob: part.data },
      };
    }
  }
}

function handlerFor<C>(mcpServer: McpServer, served: AnyTool<C>, options: RegisterMcpToolsOptions<C>) {
  return async (args: Record<string, unknown>, extra: McpRequestExtra): Promise<CallToolResult> => {
    let context: C | undefined;
    try {
      context = await contextFor(options, extra);
    } catch (error) {
      return contextError(served.name, error);
    }
    const onProgress = progressSender(extra);
    const onQuestion = questionAsker(mcpServer, extra);
    return run(served, args, context, options, {
      signal: extra.signal,
      ...(onProgress === undefined ? {} : { onProgress }),
      ...(onQuestion === undefined ? {} : { onQuestion }),
    });
  };
}

/** What the MCP SDK gives a task tool's `createTask`: the request's extra with the task store. */
type TaskExtra = McpRequestExtra & { taskStore: NonNullable<McpRequestExtra['taskStore']> };

/**
 * The task handler of a tool offered as a task. `createTask` makes the task and answers at once; the call runs
 * on, its progress sent with the `tools/call` request's progress token, its questions as elicitations queued for
 * the task, and its result stored as `completed` (an `isError` result too: MCP keeps `failed` for a request that
 * failed as a protocol error, and the MCP SDK's clients read no result of a `failed` task). The MCP SDK marks a
 * task `cancelled` on `tasks/cancel` without telling the work: the running call checks the task every
 * `taskPollIntervalMs` and aborts `ctx.signal` once it is cancelled or gone.
 */
function taskHandlerFor<C>(mcpServer: McpServer, served: AnyTool<C>, options: RegisterMcpToolsOptions<C>) {
  const pollInterval = options.taskPollIntervalMs ?? MCP_TASK_DEFAULTS.taskPollIntervalMs;
  const ttl = options.taskTtlMs ?? MCP_TASK_DEFAULTS.taskTtlMs;
  const runTask = async (
    taskId: string,
    args: Record<string, unknown>,
    extra: TaskExtra,
    context: C | undefined,
  ) => {
    const store = extra.taskStore;
    const controller = new AbortController();
    const watch = setInterval(() => {
      store.getTask(taskId).then(
        (task) => {
          if (task.status === 'cancelled') controller.abort(new Error('the MCP client cancelled the task'));
        },
        () => controller.abort(new Error('the task is gone (past its ttl)')),
      );
    }, pollInterval);
    // A call whose client asked for no task (the MCP SDK polls the task for it) is still open: it is cancelled as a
    // plain call is (its request's abort signal, `notifications/cancelled`), the client knowing no task id to cancel,
    // and the task with it; its questions go with it. Queued for the task, only tasks/result would deliver them.
    const plain = plainCalls.has(extra.signal);
    const onCancelled = () => {
      controller.abort(extra.signal.reason ?? new Error('the MCP client cancelled the call'));
      store.updateTaskStatus(taskId, 'cancelled').catch(() => {
        // Already ended, or gone: nothing to mark.
      });
    };
    if (plain) {
      if (extra.signal.aborted) onCancelled();
      else extra.signal.addEventListener('abort', onCancelled, { once: true });
    }
    try {
      const onProgress = progressSender(extra);
      const onQuestion = questionAsker(mcpServer, extra, plain ? undefined : taskId);
      const result = await run(served, args, context, options, {
        signal: controller.signal,
        ...(onProgress === undefined ? {} : { onProgress }),
        ...(onQuestion === undefined ? {} : { onQuestion }),
      });
      await store.storeTaskResult(taskId, 'completed', result);
    } finally {
      clearInterval(watch);
      if (plain) extra.signal.removeEventListener('abort', onCancelled);
    }
  };
  return {
    createTask: async (args: Record<string, unknown>, extra: TaskExtra) => {
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? ttl, pollInterval });
      let context: C | undefined;
      let failed: CallToolResult | undefined;
      try {
        context = await contextFor(options, extra);
      } catch (error) {
        failed = contextError(served.name, error);
      }
      const running =
        failed === undefined
          ? runTask(task.taskId, args, extra, context)
          : extra.taskStore.storeTaskResult(task.taskId, 'completed', failed);
      running.catch(() => {
        // The task was cancelled or dropped before its result: there is nobody left to tell.
      });
      return { task };
    },
    getTask: (_args: unknown, extra: TaskExtra & { taskId: string }) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: (_args: unknown, extra: TaskExtra & { taskId: string }) =>
      extra.taskStore.getTaskResult(extra.taskId) as Promise<CallToolResult>,
  };
}

/** The abort signals of `tools/call` requests run as a task for a client that asked for none. */
const plainCalls = new WeakSet<AbortSignal>();
/** The McpServers whose plain calls of task tools are marked in {@link plainCalls}. */
const marking = new WeakSet<McpServer>();

/**
 * Marks each `tools/call` of a tool offered as a task whose client asked for no task, by its request's abort
 * signal (the `extra` the MCP SDK gives `createTask` is a copy, its signal the request's own). The MCP SDK (1.x)
 * runs such a call through its `handleAutomaticTaskPolling` method, which makes the task and polls it for the
 * client, and nothing it gives `createTask` says so. Left unmarked when the method is not there (another SDK
 * version): a call is then taken as a task, as before.
 */
function markPlainTaskCalls(mcpServer: McpServer): void {
  if (marking.has(mcpServer)) return;
  type Polling = (tool: unknown, request: unknown, extra: { signal?: unknown }) => Promise<unknown>;
  const server = mcpServer as unknown as { handleAutomaticTaskPolling?: Polling };
  const polling = server.handleAutomaticTaskPolling;
  if (typeof polling !== 'function') return;
  marking.add(mcpServer);
  server.handleAutomaticTaskPolling = function (this: unknown, tool, request, extra) {
    if (extra?.signal instanceof AbortSignal) plainCalls.add(extra.signal);
    return polling.call(this, tool, request, extra);
  };
}

/** The McpServer's capabilities, when the MCP SDK lets them be read. */
function capabilitiesOf(mcpServer: McpServer): ServerCapabilities | undefined {
  // `getCapabilities` is not public in the MCP SDK 1.x types; read when present, else not checked.
  const read = (mcpServer.server as unknown as { getCapabilities?: () => ServerCapabilities })
    .getCapabilities;
  return typeof read === 'function' ? (read.call(mcpServer.server) ?? {}) : undefined;
}

/** Whether the McpServer takes tasks for tools/call, when the MCP SDK lets that be read. */
function serverTakesToolTasks(mcpServer: McpServer): boolean | undefined {
  const capabilities = capabilitiesOf(mcpServer);
  return capabilities === undefined ? undefined : capabilities.tasks?.requests?.tools?.call !== undefined;
}

/**
 * Refuses an McpServer that is connected without the `tools` capability: the MCP SDK announces capabilities when
 * it connects and cannot add one later (its `registerTool` throws "Cannot register capabilities after connecting
 * to transport"), and a client told of no tools would never list them.
 * @throws OptionsError `invalid_mcp_server`, saying how to offer tools.
 */
function refuseConnectedWithoutTools(mcpServer: McpServer): void {
  const connected = typeof mcpServer.isConnected === 'function' && mcpServer.isConnected();
  if (!connected) return;
  // Capabilities the MCP SDK does not let be read are not checked (its `registerTool` says what it refuses).
  const capabilities = capabilitiesOf(mcpServer);
  if (capabilities === undefined || capabilities.tools !== undefined) return;
  throw new OptionsError(
    'invalid_mcp_server',
    'registerMcpTools(): the McpServer is connected and was not offering tools when it connected (the MCP SDK ' +
      'cannot add the tools capability then): register the tools before mcpServer.connect(), or make the ' +
      'McpServer with capabilities: { tools: { listChanged: true } }',
  );
}

/**
 * Refuses, before anything is registered, a tool whose name the McpServer has already (enabled or not): its
 * `registerTool` would throw, and its `experimental.tasks.registerToolTask` would replace that tool silently.
 * A name every object has (`constructor`, `toString`, `__proto__`) is refused too: the SDK's registry is a plain
 * object, so its `registerTool` says such a tool is registered already, and `__proto__` would be lost.
 * The MCP SDK 1.x keeps its tools in `_registeredTools` (not in its public types); a server whose tools cannot be
 * read is not checked here, and its `registerTool` says what it refuses.
 * @throws ToolDefinitionError `duplicate_tool` naming the tool.
 */
function refuseRegisteredNames(mcpServer: McpServer, tools: readonly { readonly name: string }[]): void {
  const known = (mcpServer as unknown as { _registeredTools?: unknown })._registeredTools;
  if (typeof known !== 'object' || known === null) return;
  // As the MCP SDK asks: `_registeredTools[name]`, so a name every object has (`constructor`) reads as taken too.
  const taken = tools.find((served) => (known as Record<string, unknown>)[served.name] !== undefined);
  if (taken === undefined) return;
  const name = JSON.stringify(taken.name);
  throw new ToolDefinitionError(
    'duplicate_tool',
    Object.hasOwn(known, taken.name)
      ? `registerMcpTools(): the MCP server already has a tool named ${name} (remove it first, or rename one of them)`
      : `registerMcpTools(): the MCP server cannot take a tool named ${name}: its registry of tools is a plain object, where ${taken.name} is taken by every object (rename the tool)`,
  );
}

/**
 * Registers toolwire tools on an `McpServer` (from `@modelcontextprotocol/sdk/server/mcp.js`): each is listed
 * with its name, description and input JSON Schema ({@link inputSchemaOf}: `tool.definition.parameters`, but
 * for a `strict: true` tool its ordinary form, since MCP has no strict mode and an MCP client may validate
 * arguments against the listed schema; with the `$schema` of draft 2020-12), and each `tools/call` runs it as `invokeTool` does:
 *
 * - the MCP client reads `ToolCallResult.output`, as one text part, exactly what the hosted model would read;
 *   a result made with `content()` is its parts instead: text and JSON (its JSON text) as text parts, images as
 *   image parts, `audio/*` files as audio parts, other files as embedded resources (`blob`, `mimeType`, and
 *   `uri` `file:///<filename>`, or `file:///part-<n>` for the n-th part when it has no filename);
 * - any status other than `ok` (invalid arguments, a throw, a timeout, a rejection, a cancel) sets `isError`;
 * - the MCP request's abort signal (the client's `notifications/cancelled`, or the connection closing) is the
 *   call's `signal`: `ctx.signal` aborts;
 * - `ctx.callId` is a fresh UUID per request (MCP request ids repeat across connections), `ctx.runId` too;
 * - `ctx.progress()` is sent as `notifications/progress` when the request carries a progress token;
 * - `ctx.askQuestion()` is a form elicitation when the MCP client declared `elicitation` (else it rejects with
 *   `QuestionError` `unsupported`);
 * - with {@link RegisterMcpToolsOptions.tasks}, a call that asks for a task runs as an MCP task.
 *
 * Widgets, events and preliminary results are not sent (an MCP host has no place for them); `needsApproval`
 * needs {@link RegisterMcpToolsOptions.approve}. Register before `mcpServer.connect()`, or after it on a server that
 * offered tools when it connected (tools registered before, or `capabilities: { tools: { listChanged: true } }`):
 * the MCP SDK tells connected clients that the list changed.
 *
 * @returns the MCP SDK's handles, one per tool in order (`disable()`, `enable()`, `remove()`).
 * `tools` takes every shape `new Client({ tools })` takes: an array or a record keyed by name of `tool()`
 * results, plain objects, AI SDK tools and (in a record) bare functions.
 *
 * @throws OptionsError `invalid_mcp_server` when `mcpServer` is not an `McpServer` (the low-level `Server`, an MCP
 *   client, nothing), saying what to give, or is connected without offering tools (none registered before
 *   `connect()`).
 * @throws ToolDefinitionError `invalid_tools` when `tools` is neither an array nor a record of tools,
 *   `not_a_tool` for an entry of no accepted shape (named by its index or key), what `tool()` throws for an
 *   object it refuses, `duplicate_tool` for two tools of one name or a name already registered on the server
 *   (checked before any is registered, also for `tasks`); OptionsError `invalid_options` / `unknown_option` (with "did you mean")
 *   / `invalid_option` for bad options, from toolwire's shared options checker, and `invalid_option` for `tasks`
 *   on an `McpServer` whose capabilities take no tasks for `tools/call`.
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
export function registerMcpTools<C extends ToolsContext<T>, T = ToolsGiven>(
  mcpServer: McpServer,
  tools: ToolSetOf<T, C>,
  options: RegisterMcpToolsOptions<C> = {},
): RegisteredTool[] {
  checkMcpServer(mcpServer);
  const made = toolsOf(tools, 'registerMcpTools()') as AnyTool<C>[];
  checkOptions(options, OPTIONS, { name: 'registerMcpTools()', error: OptionsError });
  const offered = (served: AnyTool<C>): boolean =>
    typeof options.tasks === 'function' ? options.tasks(served) === true : options.tasks === true;
  if (made.some(offered) && serverTakesToolTasks(mcpServer) === false) {
    throw new OptionsError(
      'invalid_option',
      'registerMcpTools(): tasks needs an McpServer that takes tasks: new McpServer(info, { taskStore, ' +
        'capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } } })',
    );
  }
  refuseConnectedWithoutTools(mcpServer);
  refuseRegisteredNames(mcpServer, made);
  if (made.some(offered)) markPlainTaskCalls(mcpServer);
  const registered: RegisteredTool[] = [];
  for (const served of made) {
    const { name, description } = served.definition;
    const inputSchema = announcedSchema(inputSchemaOf(served));
    try {
      registered.push(
        offered(served)
          ? mcpServer.experimental.tasks.registerToolTask(
              name,
              { description, inputSchema, execution: { taskSupport: 'optional' } },
              taskHandlerFor(mcpServer, served, options) as never,
            )
          : mcpServer.registerTool(
              name,
              { description, inputSchema },
              handlerFor(mcpServer, served, options),
            ),
      );
    } catch (error) {
      // The MCP SDK's own refusal (a name taken is refused above, where its registry can be read).
      for (const handle of registered) handle.remove();
      throw error;
    }
  }
  return registered;
}
