/**
 * MCP tasks (2025-11-25, experimental in the MCP SDK) both ways, over a real MCP client and server linked in
 * memory: toolwire tools served as tasks by `registerMcpTools({ tasks })` (polled, answered, cancelled), and MCP
 * tools that offer tasks called as tasks by `importMcpTools`, with progress and cancellation mapped.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import {
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { invokeTool, OptionsError, type ProgressUpdate, ToolDefinitionError, tool } from 'toolwire';
import { importMcpTools, registerMcpTools } from 'toolwire/mcp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, linkedClient, PATIENT } from './helpers';

const TASK_CAPABILITIES = { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } } as const;

/** An McpServer that takes tasks, with the MCP SDK's in-memory store and queue (cleaned up after the test). */
function taskServer() {
  const taskStore = new InMemoryTaskStore();
  closers.push(async () => taskStore.cleanup());
  return new McpServer(
    { name: 'long-tools', version: '1.0.0' },
    { taskStore, taskMessageQueue: new InMemoryTaskMessageQueue(), capabilities: TASK_CAPABILITIES },
  );
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A long tool: reports progress, waits for `gate`, then answers; records whether it was aborted. */
function longTool() {
  const gate = deferred();
  const seen = { aborted: false };
  const exportTables = tool({
    name: 'export_tables',
    description: 'Exports every table.',
    execute: async (_input: unknown, ctx) => {
      ctx.progress({ progress: 1, total: 3, message: 'exported users' });
      ctx.signal.addEventListener('abort', () => {
        seen.aborted = true;
      });
      await Promise.race([
        gate.promise,
        new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
      ]);
      ctx.signal.throwIfAborted();
      return 'exported 3 tables';
    },
  });
  return { exportTables, gate, seen };
}

const failing = tool({
  name: 'charge',
  description: 'Charges a card.',
  execute: () => {
    throw new Error('the card was declined');
  },
});

describe('registerMcpTools({ tasks })', () => {
  it('lists the tools it offers as tasks with taskSupport optional, the others forbidden', async () => {
    const { exportTables } = longTool();
    const server = taskServer();
    registerMcpTools(server, [exportTables, failing], { tasks: (t) => t.name === 'export_tables' });
    const mcp = await linkedClient(server);
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => [t.name, t.execution])).toEqual([
      ['export_tables', { taskSupport: 'optional' }],
      ['charge', { taskSupport: 'forbidden' }],
    ]);
  });

  it('refuses a name the server has already, as without tasks, and leaves that tool in place', async () => {
    const { exportTables } = longTool();
    const server = taskServer();
    server.registerTool('charge', { description: 'theirs' }, () => ({ content: [] }));
    expect(() => registerMcpTools(server, [exportTables, failing], { tasks: true })).toThrow(
      new ToolDefinitionError(
        'duplicate_tool',
        'registerMcpTools(): the MCP server already has a tool named "charge" (remove it first, or rename one of them)',
      ),
    );
    const mcp = await linkedClient(server);
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([['charge', 'theirs']]);
  });

  it('runs a call as a task: a task id at once, progress, polled to the result', async () => {
    const { exportTables, gate } = longTool();
    const server = taskServer();
    registerMcpTools(server, [exportTables], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    await mcp.listTools();
    const progress: Progress[] = [];
    const statuses: string[] = [];
    const stream = mcp.experimental.tasks.callToolStream(
      { name: 'export_tables', arguments: {} },
      undefined,
      {
        onprogress: (update) => progress.push(update),
      },
    );
    let result: unknown;
    for await (const message of stream) {
      if (message.type === 'taskCreated') {
        expect(message.task).toMatchObject({ status: 'working', pollInterval: 10, ttl: 3_600_000 });
        gate.resolve();
      }
      if (message.type === 'taskStatus') statuses.push(message.task.status);
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'exported 3 tables' }] });
    expect(statuses.at(-1)).toBe('completed');
    expect(progress).toEqual([{ progress: 1, total: 3, message: 'exported users' }]);
  });

  it('stores a failed call as a completed task whose result is an isError text', async () => {
    const server = taskServer();
    registerMcpTools(server, [failing], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    const created = await mcp.request(
      { method: 'tools/call', params: { name: 'charge', arguments: {} } },
      CreateTaskResultSchema,
      { task: {} },
    );
    const { taskId } = created.task;
    await expect
      .poll(async () => (await mcp.experimental.tasks.getTask(taskId)).status, PATIENT)
      .toBe('completed');
    expect(await mcp.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).toMatchObject({
      content: [{ type: 'text', text: 'Error running charge: the card was declined' }],
      isError: true,
    });
  });

  it('aborts ctx.signal when the client cancels the task', async () => {
    const { exportTables, seen } = longTool();
    const server = taskServer();
    registerMcpTools(server, [exportTables], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    const created = await mcp.request(
      { method: 'tools/call', params: { name: 'export_tables', arguments: {} } },
      CreateTaskResultSchema,
      { task: {} },
    );
    const { taskId } = created.task;
    expect(await mcp.experimental.tasks.cancelTask(taskId)).toMatchObject({ status: 'cancelled' });
    await expect.poll(() => seen.aborted, PATIENT).toBe(true);
    expect((await mcp.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  });

  it('asks ctx.askQuestion() inside a task as an elicitation the client answers through tasks/result', async () => {
    const ship = tool({
      name: 'ship',
      description: 'Ships the order from a warehouse.',
      execute: async (_input: unknown, ctx) =>
        `shipped from ${await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] })}`,
    });
    const server = taskServer();
    registerMcpTools(server, [ship], { tasks: true, taskPollIntervalMs: 10 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = new McpClient(
      { name: 'asker', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    mcp.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { answer: 'Lyon' } };
    });
    await mcp.connect(clientSide);
    closers.push(async () => {
      await mcp.close();
      await server.close();
    });
    await mcp.listTools();
    const statuses: string[] = [];
    let result: unknown;
    for await (const message of mcp.experimental.tasks.callToolStream({ name: 'ship', arguments: {} })) {
      if (message.type === 'taskStatus') statuses.push(message.task.status);
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(statuses).toContain('input_required');
    expect(asked).toMatchObject([
      {
        mode: 'form',
        message: 'Which warehouse?',
        requestedSchema: {
          type: 'object',
          properties: { answer: { type: 'string', enum: ['Berlin', 'Lyon'] } },
          required: ['answer'],
        },
      },
    ]);
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'shipped from Lyon' }] });
  });

  it('asks ctx.askQuestion() of a client that asked for no task with the call itself, not queued for tasks/result', async () => {
    const ship = tool({
      name: 'ship',
      description: 'Ships the order from a warehouse.',
      execute: async (_input: unknown, ctx) =>
        `shipped from ${await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] })}`,
    });
    const server = taskServer();
    registerMcpTools(server, [ship], { tasks: true, taskPollIntervalMs: 10 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = new McpClient(
      { name: 'asker', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    mcp.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { answer: 'Berlin' } };
    });
    await mcp.connect(clientSide);
    closers.push(async () => {
      await mcp.close();
      await server.close();
    });
    const result = await mcp.callTool({ name: 'ship', arguments: {} }, undefined, { timeout: 2000 });
    expect(asked).toMatchObject([{ mode: 'form', message: 'Which warehouse?' }]);
    expect(result.content).toEqual([{ type: 'text', text: 'shipped from Berlin' }]);
  });

  it('answers a client that does not ask for a task with the result, through the MCP SDK’s polling', async () => {
    const { exportTables, gate } = longTool();
    gate.resolve();
    const server = taskServer();
    registerMcpTools(server, [exportTables], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    const result = await mcp.callTool({ name: 'export_tables', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'exported 3 tables' }]);
  });

  it('aborts ctx.signal and cancels the task when a client that asked for no task cancels its call', async () => {
    const { exportTables, seen } = longTool();
    const server = taskServer();
    registerMcpTools(server, [exportTables], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    const stop = new AbortController();
    const called = mcp.callTool({ name: 'export_tables', arguments: {} }, undefined, { signal: stop.signal });
    await vi.waitFor(async () => expect((await mcp.experimental.tasks.listTasks()).tasks).toHaveLength(1));
    stop.abort('the user pressed stop');
    await expect(called).rejects.toThrow(/pressed stop/);
    await vi.waitFor(() => expect(seen.aborted).toBe(true));
    const [task] = (await mcp.experimental.tasks.listTasks()).tasks;
    expect(task?.status).toBe('cancelled');
  });

  it('refuses tasks on an McpServer that does not take them', () => {
    const { exportTables } = longTool();
    const server = new McpServer({ name: 'plain', version: '1.0.0' });
    expect(() => registerMcpTools(server, [exportTables], { tasks: true })).toThrow(
      new OptionsError(
        'invalid_option',
        'registerMcpTools(): tasks needs an McpServer that takes tasks: new McpServer(info, { taskStore, ' +
          'capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } } })',
      ),
    );
  });
});

describe('importMcpTools: tools that offer tasks', () => {
  it('calls them as tasks: progress reaches ctx.progress(), the result the model', async () => {
    const { exportTables, gate } = longTool();
    const server = taskServer();
    registerMcpTools(server, [exportTables, failing], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    const [imported, importedFailing] = await importMcpTools(mcp);
    const updates: ProgressUpdate[] = [];
    const calling = invokeTool(imported!, {}, { onProgress: (update) => updates.push(update) });
    await expect.poll(() => updates.length, PATIENT).toBe(1);
    expect((await mcp.experimental.tasks.listTasks()).tasks.map((t) => t.status)).toEqual(['working']);
    gate.resolve();
    expect(await calling).toMatchObject({ status: 'ok', output: 'exported 3 tables' });
    expect(updates.map(({ progress, total, message }) => ({ progress, total, message }))).toEqual([
      { progress: 1, total: 3, message: 'exported users' },
    ]);
    expect(await invokeTool(importedFailing!, {})).toMatchObject({
      status: 'error',
      output: 'Error running charge: the card was declined',
    });
  });

  it('keeps no abort listener of a poll once it is answered, however long the task runs', async () => {
    const { exportTables, gate } = longTool();
    const server = taskServer();
    registerMcpTools(server, [exportTables], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    let polls = 0;
    const request = mcp.request.bind(mcp);
    mcp.request = ((...args: Parameters<typeof request>) => {
      if (args[0].method === 'tasks/get') polls += 1;
      return request(...args);
    }) as typeof request;
    const [imported] = await importMcpTools(mcp);
    // Live abort listeners per signal, as the MCP SDK and toolwire add and remove them during the call.
    const live = new Map<EventTarget, number>();
    let most = 0;
    const { addEventListener, removeEventListener } = AbortSignal.prototype;
    AbortSignal.prototype.addEventListener = function (
      this: AbortSignal,
      ...args: Parameters<typeof addEventListener>
    ) {
      if (args[0] === 'abort') {
        live.set(this, (live.get(this) ?? 0) + 1);
        most = Math.max(most, live.get(this) ?? 0);
      }
      return addEventListener.apply(this, args);
    };
    AbortSignal.prototype.removeEventListener = function (
      this: AbortSignal,
      ...args: Parameters<typeof removeEventListener>
    ) {
      if (args[0] === 'abort') live.set(this, (live.get(this) ?? 1) - 1);
      return removeEventListener.apply(this, args);
    };
    try {
      const calling = invokeTool(imported!, {});
      await expect.poll(() => polls, PATIENT).toBeGreaterThanOrEqual(20);
      gate.resolve();
      expect(await calling).toMatchObject({ status: 'ok', output: 'exported 3 tables' });
    } finally {
      AbortSignal.prototype.addEventListener = addEventListener;
      AbortSignal.prototype.removeEventListener = removeEventListener;
    }
    expect(most).toBeLessThanOrEqual(4);
  });

  it('cancels the task when the call is cancelled', async () => {
    const { exportTables, seen } = longTool();
    const server = taskServer();
    registerMcpTools(server, [exportTables], { tasks: true, taskPollIntervalMs: 10 });
    const mcp = await linkedClient(server);
    const [imported] = await importMcpTools(mcp);
    const controller = new AbortController();
    const calling = invokeTool(imported!, {}, { signal: controller.signal });
    await expect.poll(async () => (await mcp.experimental.tasks.listTasks()).tasks.length, PATIENT).toBe(1);
    controller.abort();
    expect(await calling).toMatchObject({
      status: 'cancelled',
      output: 'Error running export_tables: the call was cancelled',
    });
    await expect.poll(() => seen.aborted, PATIENT).toBe(true);
    expect((await mcp.experimental.tasks.listTasks()).tasks.map((t) => t.status)).toEqual(['cancelled']);
  });
});
