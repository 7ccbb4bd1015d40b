/**
 * Compiled with `exactOptionalPropertyTypes: true` by test/tool/exact-optional-types.test.ts (and with the
 * project's options as part of `tsc -p .`): every optional option of `tool()`, `new Client()`, `connect()`,
 * `run()`, `close()`, `new Agent()`, `agent.asTool()`, `invokeTool()`, `approvalNeeded()`, the `ctx` methods and
 * the adapters (`importMcpTools()`, `registerMcpTools()`, `toAiSdkTools()`, `otelTracing()`) may be given as
 * `undefined`, as a spread config object gives it (the runtime takes it as absent:
 * test/tool/explicit-undefined-options.test.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toAiSdkTools } from '../../../src/ai-sdk';
import { approvalNeeded } from '../../../src/call/invoke';
import { Agent, Client, invokeTool, tool } from '../../../src/index';
import { importMcpTools, type McpToolSource, registerMcpTools } from '../../../src/mcp/index';
import { otelTracing } from '../../../src/otel';

declare const client: Client;
declare const agent: Agent;
const url = 'ws://127.0.0.1:1';

tool({
  name: 'every',
  description: 'd',
  execute: () => 1,
  parameters: undefined,
  inputSchema: undefined,
  errorFunction: undefined,
  needsApproval: undefined,
  requiresApproval: undefined,
  allowedAgentNames: undefined,
  strict: undefined,
  timeoutMs: undefined,
  outputSchema: undefined,
  toModelOutput: undefined,
  sideEffect: undefined,
  retry: undefined,
  sensitiveFieldNames: undefined,
});
tool({
  name: 'retried',
  description: 'd',
  execute: () => 1,
  sideEffect: 'none',
  retry: { maxAttempts: 2, initialDelayMs: undefined, maxDelayMs: undefined, when: undefined },
});

new Client({
  url: undefined,
  apiKey: undefined,
  tools: [],
  context: undefined,
  maxConcurrency: undefined,
  maxQueue: undefined,
  heartbeatIntervalMs: undefined,
  reconnect: undefined,
  connectTimeoutMs: undefined,
  highWaterMarkBytes: undefined,
  maxBufferedBytes: undefined,
  maxOutboxBytes: undefined,
  WebSocket: undefined,
  logger: undefined,
  redact: undefined,
  onApproval: undefined,
  onQuestion: undefined,
  tracing: undefined,
  handleSignals: undefined,
  policies: undefined,
});
new Client({
  url,
  tools: [],
  reconnect: { initialDelayMs: undefined, maxDelayMs: undefined, maxAttempts: undefined },
  handleSignals: { timeoutMs: undefined },
});
void client.connect({ maxAttempts: undefined });
void client.run(agent, 'hi', {
  context: undefined,
  signal: undefined,
  maxTurns: undefined,
  onEvent: undefined,
});
void client.close({ drain: undefined, timeoutMs: undefined });

new Agent({ name: 'A', instructions: 'i', tools: undefined, model: undefined, outputType: undefined });
agent.asTool({
  toolDescription: 'd',
  toolName: undefined,
  outputExtractor: undefined,
  maxTurns: undefined,
  maxDepth: undefined,
});

declare const made: ReturnType<typeof tool>;
void invokeTool(
  made,
  {},
  {
    callId: undefined,
    runId: undefined,
    depth: undefined,
    context: undefined,
    signal: undefined,
    approved: undefined,
    agentName: undefined,
    policies: undefined,
    approve: undefined,
    timeoutMs: undefined,
    maxOutputBytes: undefined,
    onWidgetInvalid: undefined,
    onProgress: undefined,
    onPreliminary: undefined,
    onEmit: undefined,
    onQuestion: undefined,
    sessionId: undefined,
    steps: undefined,
    onStep: undefined,
    logger: undefined,
  },
);

void approvalNeeded(made, {}, { callId: undefined, context: undefined, signal: undefined });
tool({
  name: 'ctx',
  description: 'd',
  execute: async (_input, ctx) => {
    ctx.progress({ progress: 1, total: undefined, message: undefined });
    ctx.idempotencyKey('charge', { per: undefined });
    await ctx.step('k', () => 1, { metadata: undefined });
    return ctx.askQuestion('q', { choices: undefined, schema: undefined, timeoutMs: undefined });
  },
});

declare const mcpServer: McpServer;
declare const mcpClient: McpToolSource;
void importMcpTools(mcpClient, {
  prefix: undefined,
  rename: undefined,
  filter: undefined,
  timeoutMs: undefined,
  needsApproval: undefined,
});
registerMcpTools(mcpServer, [made], { context: undefined, approve: undefined });
toAiSdkTools([made], { context: undefined, approve: undefined });
otelTracing({ tracer: undefined, recordArguments: undefined, recordOutputs: undefined });
