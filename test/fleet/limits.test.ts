/**
 * Limits in one process (keyed concurrency, slots) and across clients (fleet limits), bad input, a key
 * function that fails or is rotated, and a key list changed under a worker: several clients in one process against
 * one stub, where separate processes prove nothing.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiKeyEntry } from '../../server-stub/fleet';
import { scriptedModel } from '../../server-stub/index';
import { Agent, Client, ConnectionError, OptionsError, ToolDefinitionError, tool } from '../../src/index';
import { API_KEY, client, nextEvent, proxyTo, stub } from '../fault/harness';
import { AGENT, workTurns } from './helpers';

const parameters = z.object({ n: z.number().int(), tenant: z.string() });

/** A `work` tool whose calls wait for `release()`; records how many ran at once per tenant. */
function gatedWork(extra: Record<string, unknown>) {
  const running = new Map<string, number>();
  const peak = new Map<string, number>();
  const waiting: Array<() => void> = [];
  const work = tool({
    name: 'work',
    description: 'Work.',
    parameters,
    ...extra,
    execute: async ({ n, tenant }) => {
      running.set(tenant, (running.get(tenant) ?? 0) + 1);
      peak.set(tenant, Math.max(peak.get(tenant) ?? 0, running.get(tenant) ?? 0));
      await new Promise<void>((resolve) => waiting.push(resolve));
      running.set(tenant, (running.get(tenant) ?? 1) - 1);
      return `${tenant}:${n}`;
    },
  });
  return { work, peak, waiting };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('tool({ concurrency })', () => {
  it('runs at most limit calls per key, and a key at its limit holds no client slot', async () => {
    const server = await stub({ agents: [AGENT], model: scriptedModel(workTurns(8, 2)) });
    const { work, peak, waiting } = gatedWork({
      concurrency: { limit: 1, key: (input: { tenant: string }) => input.tenant },
    });
    const worker = client(server.url, { tools: [work], maxConcurrency: 4 });
    await worker.connect();
    const runId = server.runs.start('Fleet', 'go');
    await until(() => waiting.length === 2);
    expect(worker.stats.tools).toEqual({ work: { running: 2, waiting: 6 } });
    expect(worker.stats.running).toBe(2);
    while (waiting.length > 0 || worker.stats.tools?.work?.waiting) {
      waiting.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await server.runs.waitFor(runId)).status).toBe('completed');
    expect(Object.fromEntries(peak)).toEqual({ t0: 1, t1: 1 });
  });

  it('ends a call error when the key function returns no string', async () => {
    const work = tool({
      name: 'work',
      description: 'Work.',
      parameters,
      concurrency: { limit: 1, key: () => '' },
      execute: () => 'done',
    });
    const server = await stub({ agents: [AGENT], model: scriptedModel(workTurns(1)) });
    const worker = client(server.url, { tools: [work] });
    await worker.connect();
    const transcript = await server.runs.waitFor(server.runs.start('Fleet', 'go'));
    expect(transcript.toolCalls[0]?.status).toBe('error');
    expect(transcript.toolCalls[0]?.output).toBe(
      'Error running work: concurrency.key must return a string of 1 to 256 characters, got a string of 0 characters',
    );
  });
});

describe('bad input', () => {
  const execute = () => 'x';
  it('refuses limit 0 and a slots value over maxConcurrency when defined', () => {
    expect(() => tool({ name: 'w', description: 'd', execute, concurrency: { limit: 0 } })).toThrow(
      ToolDefinitionError,
    );
    const heavy = tool({ name: 'w', description: 'd', execute, slots: 5 });
    expect(() => new Client({ url: 'ws://x', apiKey: API_KEY, tools: [heavy], maxConcurrency: 4 })).toThrow(
      new OptionsError(
        'invalid_option',
        'new Client(options): tool "w" has slots 5, more than maxConcurrency (4): none of its calls could ever run',
      ),
    );
  });

  it('refuses a buildId that is empty, too long or not a string, naming the option', () => {
    for (const buildId of ['', 'x'.repeat(129), 7]) {
      expect(
        () => new Client({ url: 'ws://x', apiKey: API_KEY, tools: [], buildId: buildId as string }),
      ).toThrow(/buildId/);
    }
  });
});

describe('tool({ slots })', () => {
  it('counts a heavy call as its slots against maxConcurrency', async () => {
    const server = await stub({ agents: [AGENT], model: scriptedModel(workTurns(3)) });
    const { work, waiting } = gatedWork({ slots: 2 });
    const worker = client(server.url, { tools: [work], maxConcurrency: 4 });
    await worker.connect();
    server.runs.start('Fleet', 'go');
    await until(() => waiting.length === 2);
    expect(worker.stats).toMatchObject({ running: 2, slots: 4, queued: 1 });
    for (const release of waiting.splice(0)) release();
    await until(() => waiting.length === 1);
    waiting.shift()?.();
  });
});

describe('tool({ fleet })', () => {
  it('holds calls over the fleet-wide concurrency, counted across two clients', async () => {
    const server = await stub({ agents: [AGENT], model: scriptedModel(workTurns(6)) });
    const a = gatedWork({ fleet: { concurrency: 2 } });
    const b = gatedWork({ fleet: { concurrency: 2 } });
    const first = client(server.url, { tools: [a.work] });
    const second = client(server.url, { tools: [b.work] });
    await first.connect();
    await second.connect();
    const runId = server.runs.start('Fleet', 'go');
    await until(() => a.waiting.length + b.waiting.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.waiting.length + b.waiting.length).toBe(2);
    for (let released = 0; released < 6; released++) {
      await until(() => a.waiting.length + b.waiting.length > 0);
      (a.waiting.shift() ?? b.waiting.shift())?.();
      const inFlight = server.sessions().reduce((sum, session) => sum + session.inFlight, 0);
      expect(inFlight).toBeLessThanOrEqual(2);
    }
    expect((await server.runs.waitFor(runId)).status).toBe('completed');
  });

  it('refuses at connect a worker whose fleet limits disagree', async () => {
    const server = await stub({ agents: [AGENT] });
    const execute = () => 'x';
    const one = tool({ name: 'work', description: 'd', execute, fleet: { concurrency: 2 } });
    const two = tool({ name: 'work', description: 'd', execute, fleet: { concurrency: 3 } });
    await client(server.url, { tools: [one] }).connect();
    const error = await client(server.url, { tools: [two] })
      .connect()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('fleet_conflict');
    expect((error as ConnectionError).message).toBe(
      `${server.url}: the service refused the tools' fleet limits (4010: fleet limits of work disagree: this worker concurrency 3, the fleet concurrency 2); every worker offering a tool must announce the same fleet limits: to change them, replace every worker offering it, or rename the tool`,
    );
  });
});

/** `work` with fleet limits `{ concurrency }`. */
function workAt(concurrency: number) {
  return tool({ name: 'work', description: 'd', execute: () => 'ran', fleet: { concurrency } });
}

/**
 * A stub whose model calls `other`; a worker offering `work` at fleet concurrency 2; a second worker offering
 * `other`, through a proxy that can drop its socket, its `error` events recorded. `runsOther()` runs an agent with
 * `other` on the second worker: the status of each call.
 */
async function twoWorkers(reconnect: { initialDelayMs: number; maxDelayMs: number }) {
  const server = await stub({
    model: scriptedModel([{ toolCalls: [{ name: 'other', arguments: {} }] }, { text: 'done' }]),
  });
  const proxy = await proxyTo(server);
  await client(server.url, { tools: [workAt(2)] }).connect();
  const other = tool({ name: 'other', description: 'd', execute: () => 'ran' });
  const second = client(proxy.url, { tools: [other], reconnect });
  const errors: ConnectionError[] = [];
  second.on('error', (error) => errors.push(error as ConnectionError));
  await second.connect();
  const runsOther = async () => {
    const result = await second.run(new Agent({ name: 'a', instructions: '', tools: [other] }), 'go');
    return result.toolCalls.map((call) => [call.toolName, call.status]);
  };
  const offers = () => server.sessions().find((session) => session.tools.includes('other'))?.tools ?? [];
  return { proxy, second, errors, runsOther, offers };
}

describe('a tools_update whose fleet limits disagree', () => {
  it('drops the refused tool, announces the others, and keeps serving them across a reconnect', async () => {
    const { proxy, second, errors, runsOther, offers } = await twoWorkers({
      initialDelayMs: 1,
      maxDelayMs: 5,
    });
    // One update with a tool that agrees and one that does not: the service applies the first and names `work`.
    second.addTool(tool({ name: 'extra', description: 'd', execute: () => 'ran' }));
    second.addTool(workAt(3));
    await until(() => errors.length > 0);
    expect(errors.map((error) => [error.code, error.message])).toEqual([
      [
        'fleet_conflict',
        'the service refused tool "work": fleet limits of work disagree: this worker concurrency 3, the fleet concurrency 2; this client no longer offers it and goes on with its other tools. Every worker offering a tool must announce the same fleet limits: to change them, replace every worker offering it, or rename it',
      ],
    ]);
    await until(() => offers().includes('extra'));
    // A drop: the resume's hello no longer offers `work`, so it is not refused (4010), and `other` still runs.
    const resumed = nextEvent<{ resumed: boolean }>(second, 'connected');
    proxy.dropAll();
    expect((await resumed).resumed).toBe(true);
    expect(second.state).toBe('open');
    expect(await runsOther()).toEqual([['other', 'ok']]);
  });
});

describe('a tool added while the socket is down, whose limits disagree', () => {
  it('is dropped when the resume is refused (4010): a new session goes on with the other tools', async () => {
    const { proxy, second, errors, runsOther } = await twoWorkers({ initialDelayMs: 20, maxDelayMs: 40 });
    const firstSession = second.sessionId;
    second.once('reconnecting', () => second.addTool(workAt(3)));
    const connected = nextEvent<{ resumed: boolean; sessionId: string }>(second, 'connected');
    proxy.dropAll();
    const { resumed, sessionId } = await connected;
    expect([resumed, sessionId === firstSession, second.state]).toEqual([false, false, 'open']);
    expect(errors.map((error) => error.code)).toContain('fleet_conflict');
    expect(await runsOther()).toEqual([['other', 'ok']]);
  });
});

describe('a refusal that comes after the client changed its tools', () => {
  it('is stale: a tool added again with the fleet limits is kept, and no error is emitted for it', async () => {
    const { second, errors, runsOther, offers } = await twoWorkers({ initialDelayMs: 1, maxDelayMs: 5 });
    // Within one task: the refusal of the first update arrives after the corrected tool was added.
    second.addTool(workAt(3));
    second.removeTool('work');
    second.addTool(workAt(2));
    await until(() => offers().includes('work'));
    // A run is a round trip on the same socket: the refusal, sent before, has been read by its end.
    expect(await runsOther()).toEqual([['other', 'ok']]);
    expect(offers().sort()).toEqual(['other', 'work']);
    expect(errors).toEqual([]);
  });
});

describe('apiKey as a function', () => {
  it('fails the attempt when it throws, then connects once it answers', async () => {
    const server = await stub();
    let calls = 0;
    const errors: ConnectionError[] = [];
    const worker = client(server.url, {
      apiKey: () => {
        calls += 1;
        if (calls === 1) throw new Error('vault down');
        return API_KEY;
      },
      reconnect: { initialDelayMs: 1, maxDelayMs: 5 },
    });
    worker.on('error', (error) => errors.push(error as ConnectionError));
    await worker.connect();
    expect(calls).toBe(2);
    expect(errors[0]?.code).toBe('api_key_failed');
    expect(errors[0]?.message).toBe('the apiKey function threw: vault down');
  });

  it('reads the key once more after a refusal, and gives up when it is the same key', async () => {
    const server = await stub();
    let calls = 0;
    const worker = client(server.url, {
      apiKey: () => {
        calls += 1;
        return 'wrong-key-1234';
      },
    });
    const error = await worker.connect().catch((thrown: unknown) => thrown);
    expect(calls).toBe(2);
    expect((error as ConnectionError).code).toBe('unauthorized');
  });

  it('resumes its session when its key is rotated to a newly named tenant: the calls it holds finish there', async () => {
    const server = await stub({ apiKeys: ['key-1'], agents: [AGENT], model: scriptedModel(workTurns(2)) });
    const { work, waiting } = gatedWork({});
    let key = 'key-1';
    const worker = client(server.url, { apiKey: () => key, tools: [work], maxConcurrency: 1 });
    const connected: Array<{ sessionId: string; resumed: boolean }> = [];
    const errors: unknown[] = [];
    worker.on('connected', (info) => connected.push(info));
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    const runId = server.runs.start('Fleet', 'go', { apiKey: 'key-1' });
    await expect.poll(() => worker.stats).toMatchObject({ running: 1, queued: 1 });
    // The operator names key-1's tenant and gives it a second key; the worker gets the new key; key-1 goes.
    server.setApiKeys([
      { key: 'key-1', tenant: 'acme' },
      { key: 'key-2', tenant: 'acme' },
    ]);
    key = 'key-2';
    expect(server.setApiKeys([{ key: 'key-2', tenant: 'acme' }])).toBe(1);
    await until(() => connected.length === 2);
    const sessionId = connected[0]?.sessionId;
    expect(connected).toEqual([
      { sessionId, resumed: false },
      { sessionId, resumed: true },
    ]);
    while ((server.runs.get(runId)?.status ?? 'running') === 'running') {
      waiting.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => [call.output, call.answeredBy])).toEqual([
      ['t0:0', sessionId],
      ['t0:1', sessionId],
    ]);
    expect(errors).toEqual([]);
  });
});

describe('the key list changing under a worker', () => {
  const cases: Array<[string, ApiKeyEntry[] | undefined, ApiKeyEntry[]]> = [
    [
      "its tenant's last key moves into another tenant",
      ['key-1', { key: 'key-9', tenant: 'acme' }],
      [
        { key: 'key-1', tenant: 'acme' },
        { key: 'key-9', tenant: 'acme' },
      ],
    ],
    ['a stub that accepted any key is given keys', undefined, ['key-2', 'key-1']],
  ];

  it.each(cases)('keeps its session and the calls it holds when %s', async (_, before, after) => {
    const server = await stub({ apiKeys: before, agents: [AGENT], model: scriptedModel(workTurns(2)) });
    const { work, waiting } = gatedWork({});
    const worker = client(server.url, { apiKey: 'key-1', tools: [work], maxConcurrency: 1 });
    const connected: Array<{ sessionId: string; resumed: boolean }> = [];
    const errors: unknown[] = [];
    worker.on('connected', (info) => connected.push(info));
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    const runId = server.runs.start('Fleet', 'go', { apiKey: 'key-1' });
    await expect.poll(() => worker.stats).toMatchObject({ running: 1, queued: 1 });
    expect(server.setApiKeys(after)).toBe(0);
    while ((server.runs.get(runId)?.status ?? 'running') === 'running') {
      waiting.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const transcript = await server.runs.waitFor(runId);
    const sessionId = connected[0]?.sessionId;
    expect(transcript.toolCalls.map((call) => [call.output, call.answeredBy])).toEqual([
      ['t0:0', sessionId],
      ['t0:1', sessionId],
    ]);
    expect(connected).toEqual([{ sessionId, resumed: false }]);
    expect(errors).toEqual([]);
  });
});

describe('a tenant merged into another whose workers announce other fleet limits', () => {
  it('has the worker drop that tool: its session and its other tools go on, and it is told why', async () => {
    const server = await stub({
      apiKeys: ['key-1', { key: 'key-9', tenant: 'acme' }],
      model: scriptedModel([{ toolCalls: [{ name: 'other', arguments: {} }] }, { text: 'done' }]),
    });
    await client(server.url, { apiKey: 'key-9', tools: [workAt(2)] }).connect();
    const other = tool({ name: 'other', description: 'd', execute: () => 'ran' });
    const joining = client(server.url, { apiKey: 'key-1', tools: [workAt(3), other] });
    const errors: ConnectionError[] = [];
    const connected: unknown[] = [];
    joining.on('error', (error) => errors.push(error as ConnectionError));
    joining.on('connected', (info) => connected.push(info));
    await joining.connect();
    const merged: ApiKeyEntry[] = [
      { key: 'key-1', tenant: 'acme' },
      { key: 'key-9', tenant: 'acme' },
    ];
    expect(server.setApiKeys(merged)).toBe(0);
    await until(() => errors.length > 0);
    expect(errors.map((error) => [error.code, error.message])).toEqual([
      [
        'fleet_conflict',
        'the service refused tool "work": fleet limits of work disagree: this worker concurrency 3, the fleet concurrency 2; this client no longer offers it and goes on with its other tools. Every worker offering a tool must announce the same fleet limits: to change them, replace every worker offering it, or rename it',
      ],
    ]);
    expect(joining.state).toBe('open');
    expect(connected).toHaveLength(1);
    const runs = await joining.run(new Agent({ name: 'a', instructions: '', tools: [other] }), 'go');
    expect(runs.toolCalls.map((call) => [call.toolName, call.status])).toEqual([['other', 'ok']]);
  });
});
