/**
 * Over the real stub: the side-effect class announced in `hello` and recorded with the call, retries, the call's
 * scope (`ctx.sessionId`, `ctx.agentName`, `ctx.logger`) from the service, against a service without the feature
 * too, and `sensitiveFieldNames` scrubbing what the client sends (results, events, progress, step results) and
 * logs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Agent, Client, tool } from '../../src/index';
import type { ToolContext } from '../../src/tool/tool';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stub(toolName: string, args: unknown = {}, options = {}): Promise<StubServer> {
  const server = await startStubServer({
    logger: silentLogger,
    model: scriptedModel([
      { toolCalls: [{ name: toolName, arguments: args }] },
      ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
    ]),
    ...options,
  });
  cleanups.push(() => server.close());
  return server;
}

function client(url: string, options: Partial<ConstructorParameters<typeof Client>[0]>): Client {
  const made = new Client({ url, apiKey: 'scope-test-key', tools: [], ...options });
  cleanups.push(() => made.close({ drain: false }));
  return made;
}

function recordingLogger() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const at = (fields: Record<string, unknown>, message: string) => lines.push({ fields, message });
  return { lines, logger: { debug: at, info: at, warn: at, error: at } };
}

describe('the call scope over the stub', () => {
  it('announces sideEffect in hello; the stub records it with the call', async () => {
    const read = tool({ name: 'read', description: 'Reads.', sideEffect: 'none', execute: () => 'r' });
    const server = await stub('read');
    const worker = client(server.url, { tools: [read] });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [read] }), 'go');
    expect(result.finalOutput).toBe('r');
    const runId = server.runs.list()[0]!.runId;
    expect(server.runs.get(runId)?.toolCalls[0]?.sideEffect).toBe('none');
  });

  it('gives ctx.sessionId (the session that started the run), ctx.agentName and ctx.logger', async () => {
    const { lines, logger } = recordingLogger();
    let seen: Pick<ToolContext, 'sessionId' | 'agentName'> | undefined;
    const whoami = tool({
      name: 'whoami',
      description: 'Says who asks.',
      execute: (_input, ctx) => {
        seen = { sessionId: ctx.sessionId, agentName: ctx.agentName };
        ctx.logger.info({ step: 'one' }, 'hello from the tool');
        return 'ok';
      },
    });
    const server = await stub('whoami');
    const worker = client(server.url, { tools: [whoami], logger });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'Support', instructions: '', tools: [whoami] }), 'go');
    expect(seen).toEqual({ sessionId: worker.sessionId, agentName: 'Support' });
    expect(lines).toContainEqual({
      fields: { callId: result.toolCalls[0]?.callId, toolName: 'whoami', attempt: 1, step: 'one' },
      message: 'hello from the tool',
    });
  });

  it('leaves sessionId and agentName undefined over a service without the feature call_context', async () => {
    let seen: unknown;
    const whoami = tool({
      name: 'whoami',
      description: 'Says who asks.',
      execute: (_input, ctx) => {
        seen = [ctx.sessionId, ctx.agentName];
        return 'ok';
      },
    });
    const server = await stub('whoami', {}, { features: [] });
    const worker = client(server.url, { tools: [whoami] });
    await worker.connect();
    await worker.run(new Agent({ name: 'Support', instructions: '', tools: [whoami] }), 'go');
    expect(seen).toEqual([undefined, undefined]);
  });

  it('retries a failing idempotent tool; the model reads the successful attempt', async () => {
    const attempts: number[] = [];
    const flaky = tool({
      name: 'flaky',
      description: 'Fails twice.',
      sideEffect: 'idempotent',
      retry: { maxAttempts: 3, initialDelayMs: 0 },
      execute: (_input, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) throw new Error('try again');
        return `done on attempt ${ctx.attempt}`;
      },
    });
    const server = await stub('flaky');
    const worker = client(server.url, { tools: [flaky] });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [flaky] }), 'go');
    expect(result.finalOutput).toBe('done on attempt 3');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('scrubs sensitiveFieldNames values from everything the client sends and logs', async () => {
    const { lines, logger } = recordingLogger();
    const login = tool({
      name: 'login',
      description: 'Logs in.',
      parameters: z.object({ user: z.string(), credentials: z.object({ password: z.string() }) }),
      sensitiveFieldNames: ['password'],
      execute: async ({ user, credentials }, ctx) => {
        ctx.emit('login.tried', { user, password: credentials.password });
        ctx.progress({ progress: 1, message: `using ${credentials.password}` });
        await ctx.step('session', () => ({ user, password: credentials.password }));
        ctx.logger.info({}, `password is ${credentials.password}`);
        throw new Error(`wrong password ${credentials.password} for ${user}`);
      },
    });
    const server = await stub('login', { user: 'ada', credentials: { password: 'correct-horse-42' } });
    const worker = client(server.url, { tools: [login], logger });
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [login] }), 'go');
    expect(result.toolCalls[0]).toMatchObject({
      status: 'error',
      output: 'Error running login: wrong password [redacted] for ada',
    });
    const transcript = server.runs.get(server.runs.list()[0]!.runId);
    // The arguments are the model's (the service's own record of the model's messages and calls); everything
    // the client sent is scrubbed.
    const { arguments: _modelArguments, ...sent } = transcript!.toolCalls[0]!;
    const fromClient = transcript!.events.filter((event) => !['tool_call', 'message'].includes(event.kind));
    expect(JSON.stringify([sent, fromClient, lines])).not.toContain('correct-horse-42');
    expect(sent.steps).toEqual({ session: { user: 'ada', password: '[redacted]' } });
  });
});
