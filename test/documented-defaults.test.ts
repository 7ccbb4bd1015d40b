import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  consoleLogger,
  OPENAI_MODEL_DEFAULTS,
  openAIChatModel,
  STUB_DEFAULTS,
  scriptedModel,
  startStubServer,
} from '../server-stub/index';
import { resolveStubOptions } from '../server-stub/options';
import { toAiSdkTools } from '../src/ai-sdk';
import { approvalNeeded } from '../src/call/invoke';
import { DEFAULT_MAX_DEPTH } from '../src/client/agent';
import { CLIENT_DEFAULTS, CLOSE_DEFAULTS } from '../src/client/client-options';
import {
  Agent,
  approvalRequired,
  Client,
  type ClientOptions,
  invokeTool,
  STEP_LIMITS,
  tool,
} from '../src/index';
import { consoleErrorLogger } from '../src/logger';
import { importMcpTools, registerMcpTools } from '../src/mcp/index';
import { otelTracing } from '../src/otel';
import { validateWidget } from '../src/testing';
import { thrownMessage } from '../src/tool/output';
import { RETRY_DEFAULTS } from '../src/tool/tool';
import { FEATURES, PROTOCOL_DEFAULTS } from '../src/wire/protocol';

/**
 * Every `@default` stated in the TSDoc of src/ and server-stub/, passed explicitly, is accepted. The tags are read
 * from the sources, so a new one fails this test until it has a case below (or is marked internal).
 */
const root = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'ui' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node): string | undefined {
  const name = (node as { name?: ts.Node }).name;
  return name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

/** `Owner.option` (or `function`) → the text after `@default`, for every tag in the sources. */
function documentedDefaults(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of [...sourceFiles('src'), ...sourceFiles('server-stub')]) {
    const source = ts.createSourceFile(
      file,
      readFileSync(join(root, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node) => {
      for (const doc of (node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []) {
        for (const tag of doc.tags ?? []) {
          if (tag.tagName.text !== 'default') continue;
          let owner = node.parent;
          while (owner !== undefined && nameOf(owner) === undefined) owner = owner.parent;
          const own = nameOf(node);
          const key =
            ts.isFunctionDeclaration(node) || ts.isInterfaceDeclaration(node) || owner === undefined
              ? `${own}`
              : `${nameOf(owner)}.${own}`;
          found.set(key, ts.getTextOfJSDocComment(tag.comment)?.trim() ?? '');
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The documented text as a value, when it is a literal (`16`, `10_000`, `Infinity`, `[]`, `{ a: 1 }`, `'x'`). */
function literalOf(text: string): { value: unknown } | undefined {
  const head = text.replace(/\s*\(.*$/s, '');
  if (!/^(?:[\d_.]+|Infinity|true|false|\[\]|'[^']*'|\{[\w\s:,_.]*\})$/.test(head)) return undefined;
  return { value: new Function(`return (${head});`)() };
}

const execute = () => 'ok';
const echo = tool({ name: 'echo', description: 'Echoes.', execute });
const base: ClientOptions = { url: 'ws://127.0.0.1:1', apiKey: 'test-key', tools: [echo] };
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const agent = new Agent({ name: 'Helper', instructions: 'Help.' });

const client = (extra: Record<string, unknown>) => new Client({ ...base, ...extra });
const reconnect = (key: string) => (value: unknown) => client({ reconnect: { [key]: value } });
const run = async (value: unknown) => {
  // Accepted options get as far as the connection check.
  const error = await client({})
    .run(agent, 'hi', { maxTurns: value as number })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ name: 'ConnectionError', code: 'not_connected' });
};
const invoke = (key: string) => async (value: unknown) =>
  expect((await invokeTool(echo, {}, { [key]: value })).status).toBe('ok');
const needed = (key: string) => async (value: unknown) =>
  expect(await approvalNeeded(echo, {}, { [key]: value })).toBe(false);
const stub = (key: string) => (value: unknown) => resolveStubOptions({ [key]: value });

type Case =
  | { value: unknown; accept: (value: unknown) => unknown }
  /** Not a public option: why it is left out. */
  | { internal: string };

const CASES: Record<string, Case> = {
  // new Client(options)
  // process.env.TOOLWIRE_URL and TOOLWIRE_API_KEY, read when each case runs
  'ClientOptions.url': { value: undefined, accept: () => client({ url: process.env.TOOLWIRE_URL }) },
  'ClientOptions.apiKey': {
    value: undefined,
    accept: () => client({ apiKey: process.env.TOOLWIRE_API_KEY }),
  },
  'ClientOptions.maxConcurrency': { value: 16, accept: (v) => client({ maxConcurrency: v }) },
  'ClientOptions.maxQueue': { value: 1000, accept: (v) => client({ maxQueue: v }) },
  'ClientOptions.heartbeatIntervalMs': { value: 15_000, accept: (v) => client({ heartbeatIntervalMs: v }) },
  'ClientOptions.reconnect': {
    value: { initialDelayMs: 100, maxDelayMs: 10_000, maxAttempts: Number.POSITIVE_INFINITY },
    accept: (v) => client({ reconnect: v }),
  },
  'ClientOptions.connectTimeoutMs': { value: 30_000, accept: (v) => client({ connectTimeoutMs: v }) },
  'ClientOptions.highWaterMarkBytes': { value: 1_048_576, accept: (v) => client({ highWaterMarkBytes: v }) },
  'ClientOptions.maxBufferedBytes': { value: 16_777_216, accept: (v) => client({ maxBufferedBytes: v }) },
  'ClientOptions.maxOutboxBytes': { value: 16_777_216, accept: (v) => client({ maxOutboxBytes: v }) },
  'ClientOptions.maxQueueBytes': { value: 16_777_216, accept: (v) => client({ maxQueueBytes: v }) },
  'ClientOptions.WebSocket': { value: globalThis.WebSocket, accept: (v) => client({ WebSocket: v }) },
  'ClientOptions.logger': { value: consoleErrorLogger, accept: (v) => client({ logger: v }) },
  'ClientOptions.redact': { value: [], accept: (v) => client({ redact: v }) },
  'ClientOptions.buildId': { value: undefined, accept: (v) => client({ buildId: v as undefined }) },
  'ClientOptions.tracing': { value: undefined, accept: (v) => client({ tracing: v }) }, // no tracing
  'ClientOptions.handleSignals': { value: false, accept: (v) => client({ handleSignals: v }) },
  'BackoffOptions.initialDelayMs': { value: 100, accept: reconnect('initialDelayMs') },
  'BackoffOptions.maxDelayMs': { value: 10_000, accept: reconnect('maxDelayMs') },
  'ReconnectOptions.maxAttempts': { value: Number.POSITIVE_INFINITY, accept: reconnect('maxAttempts') },
  // client.run() and client.close()
  'RunOptions.maxTurns': { value: 10, accept: run },
  'RunOptions.userId': {
    value: undefined, // none
    accept: async (userId) => {
      const error = await client({})
        .run(agent, 'hi', { userId: userId as undefined })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'ConnectionError', code: 'not_connected' });
    },
  },
  'CloseOptions.drain': { value: true, accept: (drain) => client({}).close({ drain: drain as boolean }) },
  'CloseOptions.timeoutMs': {
    value: 30_000,
    accept: (timeoutMs) => client({}).close({ timeoutMs: timeoutMs as number }),
  },
  // new Agent() and agent.asTool()
  'AgentOptions.tools': {
    value: [],
    accept: (tools) => new Agent({ name: 'A', instructions: '', tools } as never),
  },
  'AgentOptions.instructions': {
    value: '', // none: the model gets only the run's input
    accept: (instructions) =>
      expect(new Agent({ name: 'A', instructions: instructions as string }).instructions).toBe(
        new Agent({ name: 'A' }).instructions,
      ),
  },
  'AgentOptions.model': {
    value: undefined, // the service's default model
    accept: (model) => new Agent({ name: 'A', instructions: '', model } as never),
  },
  'AgentOptions.outputType': {
    value: undefined, // a string answer
    accept: (outputType) => new Agent({ name: 'A', instructions: '', outputType } as never),
  },
  'AsToolOptions.toolName': {
    value: 'Research_team',
    accept: (toolName) =>
      expect(
        new Agent({ name: 'Research team', instructions: '' }).asTool({
          toolName: toolName as string,
          toolDescription: 'x',
        }).name,
      ).toBe('Research_team'),
  },
  'AsToolOptions.toolDescription': {
    value: 'Runs the agent "Helper" with the input as its request and returns its final answer.',
    accept: (toolDescription) =>
      expect(agent.asTool({ toolDescription: toolDescription as string }).description).toBe(
        agent.asTool().description,
      ),
  },
  'AsToolOptions.outputExtractor': {
    value: (result: { finalOutput: unknown }) =>
      typeof result.finalOutput === 'string'
        ? result.finalOutput
        : JSON.stringify(result.finalOutput ?? null),
    accept: (outputExtractor) => agent.asTool({ toolDescription: 'x', outputExtractor } as never),
  },
  'AsToolOptions.maxTurns': {
    value: 10,
    accept: (maxTurns) => agent.asTool({ toolDescription: 'x', maxTurns } as never),
  },
  'AsToolOptions.maxDepth': {
    value: 5,
    accept: (maxDepth) => agent.asTool({ toolDescription: 'x', maxDepth } as never),
  },
  'AsToolOptions.timeoutMs': {
    value: undefined, // none
    accept: (timeoutMs) => agent.asTool({ toolDescription: 'x', timeoutMs } as never),
  },
  // tool() and invokeTool()
  'ToolOptionsBase.needsApproval': {
    value: false,
    accept: (v) => tool({ name: 't', description: 'd', execute, needsApproval: v as boolean }),
  },
  'ToolOptionsBase.strict': {
    value: false,
    accept: (v) => tool({ name: 't', description: 'd', execute, strict: v as boolean }),
  },
  'ToolOptionsBase.timeoutMs': {
    value: undefined, // none
    accept: (v) => tool({ name: 't', description: 'd', execute, timeoutMs: v as undefined }),
  },
  'ToolOptionsBase.allowedAgentNames': {
    value: undefined, // every agent may call it
    accept: (v) => tool({ name: 't', description: 'd', execute, allowedAgentNames: v as undefined }),
  },
  'ApprovalPolicy.sideEffect': {
    value: 'external',
    accept: (v) =>
      tool({ name: 't', description: 'd', execute, needsApproval: approvalRequired('why', v as 'external') }),
  },
  'InvokeOptions.agentName': { value: undefined, accept: invoke('agentName') }, // unknown
  'InvokeOptions.tenantId': { value: undefined, accept: invoke('tenantId') }, // unknown
  'InvokeOptions.userId': { value: undefined, accept: invoke('userId') }, // unknown
  'InvokeOptions.agentRevision': { value: undefined, accept: invoke('agentRevision') }, // unknown
  'ApprovalNeededOptions.callId': { value: randomUUID(), accept: needed('callId') },
  'ApprovalNeededOptions.context': { value: undefined, accept: needed('context') },
  'ApprovalNeededOptions.signal': { value: undefined, accept: needed('signal') }, // none
  'InvokeOptions.policies': { value: [], accept: invoke('policies') },
  'ClientOptions.policies': { value: [], accept: (v) => client({ policies: v }) },
  'InvokeOptions.callId': { value: randomUUID(), accept: invoke('callId') },
  'InvokeOptions.runId': { value: randomUUID(), accept: invoke('runId') },
  'InvokeOptions.depth': { value: 0, accept: invoke('depth') },
  'InvokeOptions.maxOutputBytes': { value: undefined, accept: invoke('maxOutputBytes') }, // no cap
  'InvokeOptions.onWidgetInvalid': {
    value: (info: { path: string }) => console.warn(`widget dropped at ${info.path}`),
    accept: invoke('onWidgetInvalid'),
  },
  thrownMessage: {
    value: 'the tool',
    accept: (v) => expect(thrownMessage(undefined, v as string)).toBe('the tool threw undefined'),
  },
  BadgeWidget: {
    value: 'neutral',
    accept: (color) => expect(validateWidget({ type: 'Badge', label: 'open', color }).ok).toBe(true),
  },
  // the protocol's defaults, as exported
  ...Object.fromEntries(
    Object.entries(PROTOCOL_DEFAULTS).map(([key, held]) => [
      `PROTOCOL_DEFAULTS.${key}`,
      { value: held, accept: (v: unknown) => expect(v).toBe(held) },
    ]),
  ),
  // startStubServer(options) and openAIChatModel(options)
  ...Object.fromEntries(
    (
      [
        ['port', 0],
        ['host', '127.0.0.1'],
        ['heartbeatIntervalMs', 15_000],
        ['callDeadlineMs', 120_000],
        ['sessionGraceMs', 60_000],
        ['maxPayloadBytes', 1_048_576],
        ['helloTimeoutMs', 10_000],
        ['maxFramesPerSecond', 2_000],
        ['maxFrameBurst', 4_000],
        ['maxTurns', 10],
        ['maxRunDepth', 8],
        ['maxRunsPerSession', 64],
        ['busyRetryMs', 250],
        ['handBackAgainMs', 1_000],
        ['maxHttpBodyBytes', 1_048_576],
        ['maxBufferedBytes', 16_777_216],
        ['features', [...FEATURES]],
        ['leaseMs', 45_000],
        ['maxCallDurationMs', 86_400_000],
        ['model', scriptedModel([])],
        ['logger', consoleLogger()],
      ] as const
    ).map(([key, value]) => [`StubServerOptions.${key}`, { value, accept: stub(key) }]),
  ),
  'OpenAIChatModelOptions.fetch': {
    value: globalThis.fetch,
    accept: (fetch) =>
      openAIChatModel({
        baseURL: 'http://127.0.0.1:1/v1',
        model: 'm',
        fetch: fetch as typeof globalThis.fetch,
      }),
  },
  ...Object.fromEntries(
    (
      [
        ['timeoutMs', 60_000],
        ['maxRetries', 2],
        ['stream', true],
      ] as const
    ).map(([key, value]) => [
      `OpenAIChatModelOptions.${key}`,
      {
        value,
        accept: (v: unknown) => openAIChatModel({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', [key]: v }),
      },
    ]),
  ),
  // toolwire/otel
  'OtelTracingOptions.tracer': { value: undefined, accept: (v) => otelTracing({ tracer: v as undefined }) },
  'OtelTracingOptions.recordArguments': {
    value: false,
    accept: (v) => otelTracing({ recordArguments: v as boolean }),
  },
  'OtelTracingOptions.recordOutputs': {
    value: false,
    accept: (v) => otelTracing({ recordOutputs: v as boolean }),
  },
  'RunInit.traceId': { internal: 'Run is not exported: a new random trace id per top-level run' },
  // toolwire/mcp and toolwire/ai-sdk
  ...Object.fromEntries(
    (
      [
        ['prefix', ''],
        ['rename', undefined], // the prefix and the MCP name, mapped
        ['filter', undefined], // every tool
        ['timeoutMs', undefined], // none
        ['needsApproval', false],
      ] as const
    ).map(([key, value]) => [
      `ImportMcpToolsOptions.${key}`,
      {
        value,
        accept: (v: unknown) =>
          importMcpTools(
            { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) } as never,
            {
              [key]: v,
            },
          ),
      },
    ]),
  ),
  ...Object.fromEntries(
    (['context', 'approve'] as const).flatMap((key) => [
      [
        `RegisterMcpToolsOptions.${key}`,
        {
          value: undefined,
          accept: (v: unknown) =>
            registerMcpTools(new McpServer({ name: 'd', version: '1' }), [], { [key]: v }),
        },
      ],
      [
        `ToAiSdkToolsOptions.${key}`,
        { value: undefined, accept: (v: unknown) => toAiSdkTools([], { [key]: v }) },
      ],
    ]),
  ),
  ...Object.fromEntries(
    (
      [
        ['tasks', false],
        ['taskPollIntervalMs', 1_000],
        ['taskTtlMs', 3_600_000],
      ] as const
    ).map(([key, value]) => [
      `RegisterMcpToolsOptions.${key}`,
      {
        value,
        accept: (v: unknown) =>
          registerMcpTools(new McpServer({ name: 'd', version: '1' }), [], { [key]: v }),
      },
    ]),
  ),
  'ConnectOptions.maxAttempts': {
    value: Number.POSITIVE_INFINITY, // reconnect.maxAttempts, Infinity by default
    accept: (maxAttempts) => {
      const worker = client({});
      const connecting = worker.connect({ maxAttempts: maxAttempts as number }).catch(() => {});
      return worker.close().then(() => connecting);
    },
  },
  'InvokeOptions.onProgress': { value: undefined, accept: invoke('onProgress') },
  'InvokeOptions.onPreliminary': { value: undefined, accept: invoke('onPreliminary') },
  'InvokeOptions.onEmit': { value: undefined, accept: invoke('onEmit') },
  'InvokeOptions.onQuestion': { value: undefined, accept: invoke('onQuestion') },
  'InvokeOptions.steps': { value: undefined, accept: invoke('steps') }, // none
  'InvokeOptions.onStep': { value: undefined, accept: invoke('onStep') },
  'InvokeOptions.logger': { value: undefined, accept: invoke('logger') }, // nothing is logged
  'ToolOptionsBase.sideEffect': {
    value: 'external',
    accept: (v) =>
      expect(tool({ name: 't', description: 'd', execute, sideEffect: v as 'external' }).definition).toEqual(
        tool({ name: 't', description: 'd', execute }).definition,
      ),
  },
  'ToolOptionsBase.retry': {
    value: undefined, // one attempt
    accept: (v) => tool({ name: 't', description: 'd', execute, retry: v as undefined }),
  },
  'ToolOptionsBase.concurrency': {
    value: undefined, // no limit but the client's
    accept: (v) => tool({ name: 't', description: 'd', execute, concurrency: v as undefined }),
  },
  'ToolConcurrency.key': {
    value: undefined, // one key
    accept: (v) =>
      tool({ name: 't', description: 'd', execute, concurrency: { limit: 1, key: v as undefined } }),
  },
  'ToolOptionsBase.slots': {
    value: 1,
    accept: (v) => tool({ name: 't', description: 'd', execute, slots: v as number }),
  },
  'ToolOptionsBase.fleet': {
    value: undefined,
    accept: (v) => tool({ name: 't', description: 'd', execute, fleet: v as undefined }),
  },
  'ToolOptionsBase.defaultEnabled': {
    value: undefined, // the service decides
    accept: (v) =>
      expect(
        tool({ name: 't', description: 'd', execute, defaultEnabled: v as undefined }).definition,
      ).toEqual(tool({ name: 't', description: 'd', execute }).definition),
  },
  'ToolOptionsBase.capability': {
    value: undefined, // none
    accept: (v) =>
      expect(tool({ name: 't', description: 'd', execute, capability: v as undefined }).definition).toEqual(
        tool({ name: 't', description: 'd', execute }).definition,
      ),
  },
  'ToolCapability.visibility': {
    value: 'auto',
    accept: (v) =>
      expect(
        tool({ name: 't', description: 'd', execute, capability: { visibility: v as 'auto' } }).definition
          .capability,
      ).toEqual({ visibility: 'auto' }),
  },
  'ToolCapability.execution': {
    value: 'auto',
    accept: (v) =>
      expect(
        tool({ name: 't', description: 'd', execute, capability: { execution: v as 'auto' } }).definition
          .capability,
      ).toEqual({ execution: 'auto' }),
  },
  'ToolOptionsBase.sensitiveFieldNames': {
    value: [],
    accept: (v) => tool({ name: 't', description: 'd', execute, sensitiveFieldNames: v as string[] }),
  },
  ...Object.fromEntries(
    (
      [
        ['initialDelayMs', 100],
        ['maxDelayMs', 2_000],
        ['when', () => true],
      ] as const
    ).map(([key, value]) => [
      `RetryOptions.${key}`,
      {
        value,
        accept: (v: unknown) =>
          tool({
            name: 't',
            description: 'd',
            execute,
            sideEffect: 'none',
            retry: { maxAttempts: 2, [key]: v },
          }),
      },
    ]),
  ),
  'IdempotencyKeyOptions.per': {
    value: 'call',
    accept: (per) =>
      invokeTool(
        tool({
          name: 'keys',
          description: 'd',
          execute: (_input, ctx) =>
            ctx.idempotencyKey('s', { per: per as 'call' }) === ctx.idempotencyKey('s'),
        }),
        {},
      ).then((result) => expect(result.output).toBe('true')),
  },
  'AskOptions.timeoutMs': {
    value: undefined, // none
    accept: (timeoutMs) =>
      invokeTool(
        tool({
          name: 'asks',
          description: 'Asks.',
          execute: (_input, ctx) => ctx.askQuestion('Which?', { timeoutMs: timeoutMs as undefined }),
        }),
        {},
        { onQuestion: () => ({ answer: 'a' }) },
      ).then((result) => expect(result.status).toBe('ok')),
  },
  // not part of the public API
  'CallRunnerOptions.updates': { internal: 'CallRunner is not exported' },
  'CallRunnerOptions.maxOutboxBytes': { internal: 'CallRunner is not exported (the client passes its own)' },
  'CallRunnerOptions.maxQueueBytes': { internal: 'CallRunner is not exported (the client passes its own)' },
  'OutboxOptions.maxBytes': { internal: 'Outbox is not exported' },
  'SlotsOptions.mayStart': { internal: 'Slots is not exported' },
  'ConnectionOptions.highWaterMarkBytes': { internal: 'Connection is not exported' },
  'ConnectionOptions.maxBufferedBytes': { internal: 'Connection is not exported' },
  'CallUpdatesOptions.now': { internal: 'CallUpdates is not exported' },
  'ConnectionOptions.heartbeatClock': { internal: 'Connection is not exported' },
  'ConnectionOptions.redactor': { internal: 'Connection is not exported' },
  'UnknownKeysTextOptions.aliases': { internal: 'unknownKeysText is not exported from the package' },
  'UnknownKeysTextOptions.noun': { internal: 'unknownKeysText is not exported from the package' },
  'UnknownKeysTextOptions.prefix': { internal: 'unknownKeysText is not exported from the package' },
  'UnknownKeysTextOptions.redact': { internal: 'unknownKeysText is not exported from the package' },
  'UnknownKeysTextOptions.notes': { internal: 'unknownKeysText is not exported from the package' },
  // none: the operator routes are off, answering 404
  'StubServerOptions.adminKey': {
    value: undefined,
    accept: async (adminKey) => {
      const server = await startStubServer({ adminKey: adminKey as undefined, logger: silent });
      try {
        expect((await fetch(`${server.httpUrl}/v1/admin/build`)).status).toBe(404);
      } finally {
        await server.close();
      }
    },
  },
  // []: only the stub's own pages; a page of another origin is refused
  'StubServerOptions.corsOrigins': {
    value: [],
    accept: async (corsOrigins) => {
      const server = await startStubServer({ corsOrigins: corsOrigins as string[], logger: silent });
      try {
        const answer = await fetch(`${server.httpUrl}/v1/runs`, {
          headers: { origin: 'http://elsewhere.test' },
        });
        expect(answer.status).toBe(403);
      } finally {
        await server.close();
      }
    },
  },
  'HeartbeatOptions.clock': { internal: 'Heartbeat is not exported' },
  'SchemaAdapter.acceptsOnlyAnnounced': { internal: 'a flag set by the schema adapters themselves' },
  'SettleOptions.timeoutMs': { internal: 'settleThen is not exported' },
  backoffDelay: { internal: 'backoffDelay is not exported' },
  decodeServiceFrame: { internal: 'not exported from the package' },
  decodeClientFrame: { internal: 'not exported from the package' },
  // stub.runs.start(agent, input, { apiKey }): the first of the server's apiKeys
  'StubRuns.start': {
    value: 'first-tenant-key',
    accept: async (apiKey) => {
      const server = await startStubServer({ apiKeys: ['first-tenant-key', 'second-key'], logger: silent });
      try {
        const runId = server.runs.start({ name: 'A', instructions: '', tools: [] }, 'hi', {
          apiKey: apiKey as string,
        });
        expect(server.runs.get(runId)).toBeDefined();
      } finally {
        await server.close();
      }
    },
  },
};

describe('documented defaults', () => {
  const documented = documentedDefaults();

  beforeEach(() => {
    vi.stubEnv('TOOLWIRE_URL', 'ws://127.0.0.1:1');
    vi.stubEnv('TOOLWIRE_API_KEY', 'env-key');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('has a case for every @default in the sources, and none for a default no longer documented', () => {
    expect([...documented.keys()].sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(
    [...documented].filter(([key]) => CASES[key] !== undefined && !('internal' in (CASES[key] as Case))),
  )('accepts %s passed explicitly as its documented default (%s)', async (key, text) => {
    const test = CASES[key] as Extract<Case, { accept: unknown }>;
    const literal = literalOf(text);
    if (literal !== undefined) expect(test.value).toEqual(literal.value);
    await test.accept(test.value);
  });

  it('accepts the documented defaults of new Client() all at once, and with the URL and key from the environment', () => {
    expect(
      () =>
        new Client({
          url: process.env.TOOLWIRE_URL,
          apiKey: process.env.TOOLWIRE_API_KEY,
          tools: [echo],
          maxConcurrency: 16,
          maxQueue: 1000,
          heartbeatIntervalMs: 15_000,
          reconnect: { initialDelayMs: 100, maxDelayMs: 10_000, maxAttempts: Number.POSITIVE_INFINITY },
          connectTimeoutMs: 30_000,
          highWaterMarkBytes: 1_048_576,
          maxBufferedBytes: 16_777_216,
          maxOutboxBytes: 16_777_216,
          maxQueueBytes: 16_777_216,
          WebSocket: globalThis.WebSocket as never,
          logger: silent,
          redact: [],
        }),
    ).not.toThrow();
  });
});

/**
 * docs/reference/defaults.md states every default in tables under a heading per owner; each row is checked here
 * against the constant the code uses, and every entry of those constants must have its row.
 */
describe('the defaults page', () => {
  const { reconnect, ...client } = CLIENT_DEFAULTS;
  const sources: Record<string, Record<string, unknown>> = {
    '`new Client()`': {
      ...client,
      ...Object.fromEntries(Object.entries(reconnect).map(([key, value]) => [`reconnect.${key}`, value])),
    },
    '`client.close()`': CLOSE_DEFAULTS,
    '`tool()`': Object.fromEntries(
      Object.entries(RETRY_DEFAULTS).map(([key, value]) => [`retry.${key}`, value]),
    ),
    '`agent.asTool()`': { maxDepth: DEFAULT_MAX_DEPTH },
    'The protocol': {
      ...PROTOCOL_DEFAULTS,
      ...Object.fromEntries(Object.entries(STEP_LIMITS).map(([key, value]) => [`steps.${key}`, value])),
    },
    '`startStubServer()`': STUB_DEFAULTS,
    '`openAIChatModel()`': OPENAI_MODEL_DEFAULTS,
  };

  /** Heading → option → the default as written. */
  function stated(): Map<string, Map<string, string>> {
    const tables = new Map<string, Map<string, string>>();
    let rows: Map<string, string> | undefined;
    for (const line of readFileSync(join(root, 'docs/reference/defaults.md'), 'utf8').split('\n')) {
      const heading = /^## (.+)$/.exec(line);
      if (heading) {
        rows = new Map();
        tables.set(heading[1] as string, rows);
        continue;
      }
      const row = /^\| `([\w.]+)` +\| `([^`]+)` +\|$/.exec(line);
      if (row && rows) rows.set(row[1] as string, row[2] as string);
    }
    return tables;
  }

  it.each(Object.keys(sources))('states each default of %s as the code has it, and every one', (heading) => {
    const rows = stated().get(heading);
    expect(rows, heading).toBeDefined();
    const written = Object.fromEntries(
      [...(rows ?? [])].map(([option, text]) => [option, literalOf(text)?.value ?? `unreadable: ${text}`]),
    );
    expect(written).toEqual({ ...(sources[heading] as Record<string, unknown>) });
  });
});
