/**
 * An option given as `undefined` (a spread config object without it) is taken as absent by every entry point,
 * as the types allow under `exactOptionalPropertyTypes` (test/tool/types/exact-optional-options.ts): the
 * defaults apply, and nothing is refused. Covers `tool()` (and its `retry`), `invokeTool()`, `new Client()` (and its
 * `reconnect` and `handleSignals`), `new Agent()`, `asTool()`, `run()`, `close()`, `approvalNeeded()`, the `ctx`
 * methods and the adapters.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { toAiSdkTools } from '../../src/ai-sdk';
import { approvalNeeded } from '../../src/call/invoke';
import type { ProgressUpdate, QuestionRequest } from '../../src/call/types';
import { agentDefinition } from '../../src/client/agent';
import {
  CLIENT_DEFAULTS,
  checkCloseOptions,
  checkRunArguments,
  resolveClientOptions,
} from '../../src/client/client-options';
import { Agent, invokeTool, tool } from '../../src/index';
import { importMcpTools, registerMcpTools } from '../../src/mcp/index';
import { otelTracing } from '../../src/otel';

const url = 'ws://127.0.0.1:1';
const apiKey = 'a-key-of-some-length';

describe('options given as undefined', () => {
  it('tool(): every optional option undefined makes the same tool as none given', async () => {
    const plain = tool({ name: 'every', description: 'd', execute: () => 'ran' });
    const given = tool({
      name: 'every',
      description: 'd',
      execute: () => 'ran',
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
    expect(given.definition).toEqual(plain.definition);
    const result = await invokeTool(given, {});
    expect([result.status, result.output]).toEqual(['ok', 'ran']);
  });

  it('tool(): a retry with its delays undefined retries with the default delays', async () => {
    let runs = 0;
    const flaky = tool({
      name: 'flaky',
      description: 'd',
      sideEffect: 'none',
      retry: { maxAttempts: 2, initialDelayMs: undefined, maxDelayMs: undefined, when: undefined },
      execute: () => {
        runs += 1;
        if (runs === 1) throw new Error('first');
        return 'second';
      },
    });
    const result = await invokeTool(flaky, {});
    expect([result.status, result.output, runs]).toEqual(['ok', 'second', 2]);
  });

  it('invokeTool(): every call option undefined runs the call as with none', async () => {
    const echo = tool({ name: 'echo', description: 'd', execute: () => 'echoed' });
    const result = await invokeTool(
      echo,
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
    expect([result.status, result.output]).toEqual(['ok', 'echoed']);
  });

  it('new Client(): every optional option undefined resolves to the defaults', () => {
    const plain = resolveClientOptions({ url, apiKey, tools: [] });
    const given = resolveClientOptions({
      url,
      apiKey,
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
    expect(given).toEqual(plain);
    expect(plain.reconnect).toEqual(CLIENT_DEFAULTS.reconnect);
  });

  it('new Client(): reconnect and handleSignals fields undefined take their defaults', () => {
    const given = resolveClientOptions({
      url,
      apiKey,
      tools: [],
      reconnect: { initialDelayMs: undefined, maxDelayMs: undefined, maxAttempts: undefined },
      handleSignals: { timeoutMs: undefined },
    });
    expect(given.reconnect).toEqual(CLIENT_DEFAULTS.reconnect);
    expect(given.signalDrainMs).toBe(30_000);
    const some = resolveClientOptions({
      url,
      apiKey,
      tools: [],
      reconnect: { maxDelayMs: 500, maxAttempts: undefined },
    });
    expect(some.reconnect).toEqual({ ...CLIENT_DEFAULTS.reconnect, maxDelayMs: 500 });
  });

  it('new Agent() and asTool(): optional options undefined make the same agent and tool as none given', () => {
    const plain = new Agent({ name: 'A', instructions: 'i' });
    const given = new Agent({
      name: 'A',
      instructions: 'i',
      tools: undefined,
      model: undefined,
      outputType: undefined,
    });
    expect(agentDefinition(given)).toEqual(agentDefinition(plain));
    const asTool = given.asTool({
      toolDescription: 'd',
      toolName: undefined,
      outputExtractor: undefined,
      maxTurns: undefined,
      maxDepth: undefined,
    });
    expect(asTool.definition).toEqual(plain.asTool({ toolDescription: 'd' }).definition);
  });

  it('run() and close(): options undefined are accepted', () => {
    const agent = new Agent({ name: 'A', instructions: 'i' });
    expect(() =>
      checkRunArguments(agent, 'hi', {
        context: undefined,
        signal: undefined,
        maxTurns: undefined,
        onEvent: undefined,
      }),
    ).not.toThrow();
    expect(() => checkCloseOptions({ drain: undefined, timeoutMs: undefined })).not.toThrow();
  });

  it('approvalNeeded() and the ctx methods: options undefined are taken as absent', async () => {
    const guarded = tool({ name: 'guarded', description: 'd', needsApproval: true, execute: () => 1 });
    expect(
      await approvalNeeded(guarded, {}, { callId: undefined, context: undefined, signal: undefined }),
    ).toBe(true);
    const progress: ProgressUpdate[] = [];
    const questions: QuestionRequest[] = [];
    const steps: string[] = [];
    const asking = tool({
      name: 'asking',
      description: 'd',
      execute: async (_input, ctx) => {
        ctx.progress({ progress: 1, total: undefined, message: undefined });
        const key = ctx.idempotencyKey('charge', { per: undefined });
        await ctx.step('load', () => 1, { metadata: undefined });
        const answer = await ctx.askQuestion('Which?', {
          choices: undefined,
          schema: undefined,
          timeoutMs: undefined,
        });
        return `${key} ${String(answer)}`;
      },
    });
    const result = await invokeTool(
      asking,
      {},
      {
        callId: 'c1',
        onProgress: (update) => progress.push(update),
        onStep: (step) => steps.push(step.key),
        onQuestion: (request) => {
          questions.push(request);
          return { answer: 'this one' };
        },
      },
    );
    expect([result.status, result.output]).toEqual(['ok', 'toolwire:c1:charge this one']);
    expect(progress.map(({ progress: done, total, message }) => ({ done, total, message }))).toEqual([
      { done: 1, total: undefined, message: undefined },
    ]);
    expect(Object.keys(progress[0] ?? {})).not.toContain('total');
    expect(steps).toEqual(['load']);
    expect(questions.map((question) => [question.question, 'choices' in question])).toEqual([
      ['Which?', false],
    ]);
  });

  it('the adapters: options undefined are taken as absent', async () => {
    const source = {
      listTools: async () => ({ tools: [{ name: 'get', inputSchema: { type: 'object' as const } }] }),
      callTool: async () => ({ content: [{ type: 'text' as const, text: 'got' }] }),
    };
    const imported = await importMcpTools(source as never, {
      prefix: undefined,
      rename: undefined,
      filter: undefined,
      timeoutMs: undefined,
      needsApproval: undefined,
    });
    expect(imported.map((made) => [made.name, made.definition.needsApproval])).toEqual([['get', false]]);
    expect((await invokeTool(imported[0]!, {})).output).toBe('got');
    const echo = tool({ name: 'echo', description: 'd', execute: () => 'echoed' });
    const registered = registerMcpTools(new McpServer({ name: 's', version: '1' }), [echo], {
      context: undefined,
      approve: undefined,
    });
    expect(registered).toHaveLength(1);
    expect(Object.keys(toAiSdkTools([echo], { context: undefined, approve: undefined }))).toEqual(['echo']);
    expect(() =>
      otelTracing({ tracer: undefined, recordArguments: undefined, recordOutputs: undefined }),
    ).not.toThrow();
  });
});
