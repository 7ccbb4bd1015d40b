import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Script,
  type StubServer,
  scriptedModel,
  silentLogger,
  startStubServer,
} from '../../server-stub/index';
import {
  Agent,
  type ApprovalRequest,
  type CallInfo,
  Client,
  OptionsError,
  RunError,
  type RunEvent,
  type Tool,
  tool,
} from '../../src/index';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  script: Script,
  tools: Tool<never, unknown, never>[],
  extra: Partial<ConstructorParameters<typeof Client>[0]> = {},
) {
  const server = await startStubServer({
    apiKeys: ['agents-test-key'],
    logger: silentLogger,
    model: scriptedModel(script),
    callDeadlineMs: 10_000,
  });
  cleanups.push(() => server.close());
  const client = new Client({ url: server.url, apiKey: 'agents-test-key', tools, ...extra });
  cleanups.push(() => client.close({ drain: false }));
  await client.connect();
  return { server, client };
}

/**
 * Starts a run of an agent with the tool `whoami` over the stub's HTTP API, as another service would (not
 * `client.run()`: the client's `context` option gives the context), and waits for its transcript.
 */
async function whoamiRunOverHttp(server: StubServer) {
  const started = await fetch(`${server.httpUrl}/v1/runs`, {
    method: 'POST',
    headers: { authorization: 'Bearer agents-test-key', 'content-type': 'application/json' },
    body: JSON.stringify({ agent: { name: 'H', instructions: '', tools: ['whoami'] }, input: 'hi' }),
  });
  const { runId } = (await started.json()) as { runId: string };
  return server.runs.waitFor(runId);
}

const lastTool = ({ messages }: { messages: readonly { role: string; content: string }[] }) => ({
  text: [...messages].reverse().find((message) => message.role === 'tool')?.content ?? '(none)',
});

async function decide(
  server: StubServer,
  runId: string,
  callId: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.httpUrl}/v1/runs/${runId}/approvals/${callId}`, {
    method: 'POST',
    headers: { authorization: 'Bearer agents-test-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Resolves with the first approval_requested run event (of any run of the client, or of `onRun` when given). */
function nextApproval(
  client: Client,
  onRun?: Promise<string>,
): Promise<{ runId: string; callId: string; eventRunId: string }> {
  return new Promise((resolve) => {
    let wanted: string | undefined;
    void onRun?.then((runId) => {
      wanted = runId;
    });
    const listener = (event: RunEvent) => {
      if (event.kind !== 'approval_requested') return;
      if (onRun && event.runId !== wanted) return;
      client.off('run_event', listener);
      resolve({ runId: event.nestedRunId ?? event.runId, callId: event.callId, eventRunId: event.runId });
    };
    client.on('run_event', listener);
  });
}

describe('runs with tools', () => {
  it('returns every tool call of a run with two tools and a widget; the widget never reaches the model', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      parameters: z.object({ id: z.string() }),
      execute: ({ id }) => ({
        id,
        status: 'shipped',
        widget: { type: 'Badge', label: 'shipped', color: 'success' },
      }),
    });
    const count = tool({ name: 'count', description: 'Counts.', execute: () => 3 });
    const { client, server } = await setup(
      [{ toolCalls: [{ name: 'lookup', arguments: { id: 'o1' } }, { name: 'count' }] }, { text: 'done' }],
      [lookup, count] as never,
    );
    const result = await client.run(new Agent({ name: 'A', instructions: '', tools: [lookup, count] }), 'go');
    expect(result.finalOutput).toBe('done');
    expect(
      result.toolCalls.map(({ toolName, status, output, widget }) => ({ toolName, status, output, widget })),
    ).toEqual(
      expect.arrayContaining([
        {
          toolName: 'lookup',
          status: 'ok',
          output: '{"id":"o1","status":"shipped"}',
          widget: { type: 'Badge', label: 'shipped', color: 'success' },
        },
        { toolName: 'count', status: 'ok', output: '3', widget: undefined },
      ]),
    );
    const messages = JSON.stringify(server.runs.get(result.runId)?.messages);
    expect(messages).not.toContain('Badge');
  });

  it('gives each concurrent run its own context, which never crosses the wire', async () => {
    let arrived = 0;
    let release!: () => void;
    const bothIn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const whoami = tool({
      name: 'whoami',
      description: 'Says the tenant.',
      execute: async (_input, ctx) => {
        arrived += 1;
        if (arrived === 2) release();
        await bothIn;
        return (ctx.context as { tenant: string }).tenant;
      },
    });
    const { client, server } = await setup([{ toolCalls: [{ name: 'whoami' }] }, lastTool], [
      whoami,
    ] as never);
    const agent = new Agent({ name: 'A', instructions: '', tools: [whoami] });
    const [a, b] = await Promise.all([
      client.run(agent, 'x', { context: { tenant: 'tenant-a', secret: 'ctx-secret-a' } }),
      client.run(agent, 'y', { context: { tenant: 'tenant-b', secret: 'ctx-secret-b' } }),
    ]);
    expect([a.finalOutput, b.finalOutput]).toEqual(['tenant-a', 'tenant-b']);
    const everything = JSON.stringify([server.runs.get(a.runId), server.runs.get(b.runId)]);
    expect(everything).not.toContain('ctx-secret');
  });

  it('uses the client context option (a function of the call) for runs started over HTTP', async () => {
    const whoami = tool({
      name: 'whoami',
      description: 'Says the tenant.',
      execute: (_i, ctx) => String(ctx.context),
    });
    const { server } = await setup([{ toolCalls: [{ name: 'whoami' }] }, lastTool], [whoami] as never, {
      context: (call: CallInfo) => `tenant-for-${call.toolName}`,
    });
    const transcript = await whoamiRunOverHttp(server);
    expect(transcript.finalOutput).toBe('tenant-for-whoami');
  });
});

describe('run() and context mistakes', () => {
  it('fails the call without running the tool when the context function throws, and awaits an async one', async () => {
    const seen: unknown[] = [];
    const whoami = tool({
      name: 'whoami',
      description: 'Says the tenant.',
      execute: (_i, ctx) => {
        seen.push(ctx.context);
        return String(ctx.context);
      },
    });
    const failing = await setup([{ toolCalls: [{ name: 'whoami' }] }, lastTool], [whoami] as never, {
      context: () => {
        throw new Error('no tenant header');
      },
    });
    const errors: string[] = [];
    failing.client.on('error', (error) => {
      // The client's own option failed, not a tool definition (ToolDefinitionError is thrown only where one is
      // given, never mid-call).
      expect(error).toBeInstanceOf(OptionsError);
      expect(error).toMatchObject({ code: 'context_failed', cause: new Error('no tenant header') });
      errors.push(error.message);
    });
    const failed = await whoamiRunOverHttp(failing.server);
    expect(failed.finalOutput).toBe(
      'Error running whoami: the client could not provide its context (no tenant header)',
    );
    expect(errors).toEqual(['the context function failed for whoami']);
    expect(seen).toEqual([]);
    const asynchronous = await setup([{ toolCalls: [{ name: 'whoami' }] }, lastTool], [whoami] as never, {
      context: async (call: CallInfo) => `async-${call.toolName}`,
    });
    const done = await whoamiRunOverHttp(asynchronous.server);
    expect(done.finalOutput).toBe('async-whoami');
  });

  it('fails the call, its tool not run, when the context is a thenable whose then getter throws', async () => {
    // A context at hand runs the tool without settleNow (src/client/calls.ts `#start`): its `then` read as
    // Promise.resolve reads it.
    let ran = false;
    const whoami = tool({
      name: 'whoami',
      description: 'Says the tenant.',
      execute: () => {
        ran = true;
        return 'never';
      },
    });
    const failing = await setup([{ toolCalls: [{ name: 'whoami' }] }, lastTool], [whoami] as never, {
      context: () => ({
        // biome-ignore lint/suspicious/noThenProperty: a thenable whose then getter throws is the case tested
        get then(): never {
          throw new Error('then unreadable');
        },
      }),
    });
    failing.client.on('error', () => {});
    const failed = await whoamiRunOverHttp(failing.server);
    expect(failed.finalOutput).toBe(
      'Error running whoami: the client could not provide its context (then unreadable)',
    );
    expect(ran).toBe(false);
  });

  it('sends a result made outside the tool (its context failed) with a lone surrogate made U+FFFD', async () => {
    const whoami = tool({ name: 'whoami', description: 'Says the tenant.', execute: () => 'never' });
    const failing = await setup([{ toolCalls: [{ name: 'whoami' }] }, lastTool], [whoami] as never, {
      context: () => {
        throw new Error('half \uD83D an emoji');
      },
    });
    failing.client.on('error', () => {});
    const failed = await whoamiRunOverHttp(failing.server);
    expect(failed.finalOutput).toBe(
      'Error running whoami: the client could not provide its context (half \uFFFD an emoji)',
    );
  });

  it('rejects run() arguments that could never work, before sending anything', async () => {
    const { client } = await setup([], []);
    const agent = new Agent({ name: 'A', instructions: '' });
    await expect(client.run(agent, 42 as never)).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_input',
      message: 'client.run(): input must be a string, got 42',
    });
    await expect(client.run({ name: 'x' } as never, 'hi')).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_agent',
      message: 'client.run(): agent must be made with new Agent(), got an object',
    });
    await expect(client.run(agent, 'hi', { maxTurns: 0 })).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_option',
      message: 'client.run(): maxTurns must be a positive integer, got 0',
    });
    await expect(client.run(agent, 'x'.repeat(2_000_000))).rejects.toMatchObject({
      name: 'RunError',
      code: 'frame_too_large',
    });
  });

  it('refuses an agent whose tool has the name of a different tool of the client', async () => {
    const mine = tool({ name: 'a', description: 'Client A.', execute: () => 'CLIENT A' });
    const theirs = tool({ name: 'a', description: 'Agent A.', execute: () => 'AGENT A' });
    const { client } = await setup([{ text: 'done' }], [mine] as never);
    await expect(
      client.run(new Agent({ name: 'A', instructions: '', tools: [theirs] }), 'x'),
    ).rejects.toMatchObject({
      name: 'ToolDefinitionError',
      code: 'duplicate_tool',
      message:
        'agent "A" has a tool "a", but this client already runs a different tool with that name; give the agent and ' +
        'the client the same tool object (tools are compared by identity: two tool() calls make two tools, even ' +
        'with the same options), or rename one of them',
    });
    // The same tool object in both is no conflict: the run starts with it.
    const result = await client.run(new Agent({ name: 'A', instructions: '', tools: [mine] }), 'x');
    expect(result.finalOutput).toBe('done');
  });
});

describe('runs in progress at once', () => {
  it("refuses a run past the service's limit of runs in progress per session at once, saying what to do", async () => {
    const server = await startStubServer({
      apiKeys: ['agents-test-key'],
      logger: silentLogger,
      model: scriptedModel([
        { toolCalls: [{ name: 'hold' }] },
        { toolCalls: [{ name: 'hold' }] },
        { text: 'done' },
        { text: 'done' },
      ]),
      maxRunsPerSession: 2,
    });
    cleanups.push(() => server.close());
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = 0;
    let bothInside = () => {};
    const inside = new Promise<void>((resolve) => {
      bothInside = resolve;
    });
    const hold = tool({
      name: 'hold',
      description: 'Holds the run.',
      execute: async () => {
        entered += 1;
        if (entered === 2) bothInside();
        await held;
        return 'held';
      },
    });
    const client = new Client({ url: server.url, apiKey: 'agents-test-key', tools: [hold] });
    cleanups.push(() => client.close({ drain: false }));
    await client.connect();
    const agent = new Agent({ name: 'A', instructions: '', tools: [hold] });
    const first = [client.run(agent, 'one'), client.run(agent, 'two')];
    await inside;
    const error = await client.run(agent, 'three').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({
      code: 'busy',
      message:
        'this session already has 2 runs in progress (maxRunsPerSession); no run was started. The service limits ' +
        "the runs in progress at once in one client's session: wait for some of these runs to end before starting " +
        'more (keep fewer run() calls going at once), or start the others from another Client, which has its own ' +
        'session',
    });
    release();
    expect((await Promise.all(first)).map((result) => result.finalOutput)).toEqual(['done', 'done']);
  });
});

describe('outputType', () => {
  it('parses the final answer with the agent outputType and types it', async () => {
    const agent = new Agent({
      name: 'Scorer',
      instructions: 'Answer as JSON.',
      outputType: z.object({ label: z.string(), score: z.string().transform(Number) }),
    });
    const { client } = await setup([{ text: '{"label":"good","score":"0.9"}' }], []);
    const result = await client.run(agent, 'rate it');
    const output: { label: string; score: number } = result.finalOutput;
    expect(output).toEqual({ label: 'good', score: 0.9 });
  });

  it('rejects with invalid_output when the answer is not JSON', async () => {
    const agent = new Agent({
      name: 'Scorer',
      instructions: '',
      outputType: z.object({ score: z.number() }),
    });
    const { client } = await setup([{ text: 'not json' }], []);
    const error = await client.run(agent, 'rate it').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({
      code: 'invalid_output',
      message: expect.stringMatching(
        /^the final output is not JSON, but the agent has an outputSchema \(the SDK's outputType\): invalid syntax at position 1$/,
      ),
    });
  });

  it('rejects with invalid_output naming the field when the JSON does not match outputType', async () => {
    const agent = new Agent({
      name: 'Scorer',
      instructions: '',
      outputType: z.object({ answer: z.string() }),
    });
    const { client } = await setup([{ text: '{"answer": 5}' }], []);
    const error = await client.run(agent, 'rate it').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ code: 'invalid_output' });
    expect((error as Error).message).toBe(
      'the final output does not match the agent\'s outputSchema (the SDK\'s outputType): #: Property "answer" does not match schema.; #/answer: Instance type "number" is invalid. Expected "string".',
    );
  });

  it('rejects with invalid_output when only the client-side check (a refine) fails, with secrets redacted', async () => {
    const agent = new Agent({
      name: 'Scorer',
      instructions: '',
      outputType: z.object({
        answer: z.string().refine((text) => text.length > 5, 'too short for sk-SECRET-OUTPUT-1'),
      }),
    });
    const { client } = await setup([{ text: '{"answer": "ok"}' }], [], {
      redact: ['sk-SECRET-OUTPUT-1'],
    });
    const error = await client.run(agent, 'rate it').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ code: 'invalid_output' });
    expect((error as Error).message).toBe(
      'the final output of Scorer does not match its outputType: answer: too short for [redacted]',
    );
  });

  it('rejects with invalid_output giving the size of a final output the service cut to fit its frame', async () => {
    const agent = new Agent({ name: 'Scorer', instructions: '', outputType: z.object({ text: z.string() }) });
    const server = await startStubServer({
      apiKeys: ['agents-test-key'],
      logger: silentLogger,
      model: scriptedModel([{ text: JSON.stringify({ text: 'x'.repeat(2_000) }) }]),
      maxPayloadBytes: 1024,
    });
    cleanups.push(() => server.close());
    const client = new Client({ url: server.url, apiKey: 'agents-test-key', tools: [] });
    cleanups.push(() => client.close({ drain: false }));
    await client.connect();
    const error = await client.run(agent, 'rate it').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ code: 'invalid_output' });
    expect((error as Error).message).toMatch(
      /^the final output of Scorer was 2011 bytes, over the frame limit: the service sent its size in its place \(its transcript of run \S+ has it whole\)$/,
    );
  });

  it('keeps run_failed for a failure that is not about the output', async () => {
    const agent = new Agent({
      name: 'Scorer',
      instructions: '',
      outputType: z.object({ score: z.number() }),
    });
    const { client } = await setup([], []);
    await expect(client.run(agent, 'rate it')).rejects.toMatchObject({
      name: 'RunError',
      code: 'run_failed',
    });
  });
});

describe('agents as tools', () => {
  it('runs an agent two levels deep and returns its answer to the outer model', async () => {
    const fact = tool({ name: 'fact', description: 'A fact.', execute: () => 'the sky is blue' });
    const inner = new Agent({ name: 'Inner', instructions: '', tools: [fact] });
    const middle = new Agent({
      name: 'Middle',
      instructions: '',
      tools: [inner.asTool({ toolName: 'ask_inner', toolDescription: 'Ask Inner.' })],
    });
    const askMiddle = middle.asTool({ toolName: 'ask_middle', toolDescription: 'Ask Middle.' });
    const outer = new Agent({ name: 'Outer', instructions: '', tools: [askMiddle] });
    const { client, server } = await setup(
      {
        Outer: [
          { toolCalls: [{ name: 'ask_middle', arguments: { input: 'sky?' } }] },
          (input) => ({ text: `outer: ${lastTool(input).text}` }),
        ],
        Middle: [
          { toolCalls: [{ name: 'ask_inner', arguments: { input: 'sky?' } }] },
          (input) => ({ text: `middle: ${lastTool(input).text}` }),
        ],
        Inner: [{ toolCalls: [{ name: 'fact' }] }, (input) => ({ text: `inner: ${lastTool(input).text}` })],
      },
      [],
    );
    const result = await client.run(outer, 'what colour is the sky?');
    expect(result.finalOutput).toBe('outer: middle: inner: the sky is blue');
    const runs = server.runs.list();
    expect(runs.map((run) => [run.agent, run.depth]).sort()).toEqual([
      ['Inner', 2],
      ['Middle', 1],
      ['Outer', 0],
    ]);
    const innerRun = runs.find((run) => run.agent === 'Inner');
    const middleRun = runs.find((run) => run.agent === 'Middle');
    expect(innerRun?.parentRunId).toBe(middleRun?.runId);
  });

  /** An outer agent whose turn calls `asks` (two) agents-as-tools, each running `Inner`, which calls `fact`. */
  async function twoNestedAsks(options: Partial<ConstructorParameters<typeof Client>[0]>, asks = 2) {
    const fact = tool({ name: 'fact', description: 'A fact.', execute: () => 'blue' });
    const inner = new Agent({ name: 'Inner', instructions: '', tools: [fact] });
    const outer = new Agent({
      name: 'Outer',
      instructions: '',
      tools: [inner.asTool({ toolName: 'ask', toolDescription: 'Ask.' })],
    });
    const ask = (input: string) => ({ name: 'ask', arguments: { input } });
    const { client } = await setup(
      {
        Outer: [{ toolCalls: Array.from({ length: asks }, (_, index) => ask(`q${index}`)) }, lastTool],
        Inner: [{ toolCalls: [{ name: 'fact' }] }, lastTool],
      },
      [],
      options,
    );
    return { client, outer };
  }

  it('does not deadlock when every concurrency slot holds an agent waiting for its nested run', async () => {
    const { client, outer } = await twoNestedAsks({ maxConcurrency: 1 });
    const results = await Promise.all([client.run(outer, 'one'), client.run(outer, 'two')]);
    expect(results.map((result) => result.finalOutput)).toEqual(['blue', 'blue']);
  });

  it("takes a nested run's calls while its callers fill maxConcurrency + maxQueue, waiting", async () => {
    // Room for two calls in all, both taken by callers waiting on nested runs: the waiting ones count apart, else
    // the nested runs' own calls (which come back to this client) were answered busy until the stub's 10 s
    // deadline, and the model read a timeout.
    const { client, outer } = await twoNestedAsks({ maxConcurrency: 1, maxQueue: 1 });
    const result = await client.run(outer, 'one');
    expect(result.finalOutput).toBe('blue');
  });

  it("takes a nested run's calls while its callers fill twice maxConcurrency + maxQueue, waiting", async () => {
    // Room for one call, two callers waiting on nested runs: every call held counts within twice the room, and
    // the nested runs' own calls, which alone can end those waits, were answered busy until the 10 s deadline.
    const { client, outer } = await twoNestedAsks({ maxConcurrency: 1, maxQueue: 0 });
    const result = await client.run(outer, 'one');
    expect(result.finalOutput).toBe('blue');
    expect(result.toolCalls.map((call) => [call.toolName, call.status, call.output])).toEqual([
      ['ask', 'ok', 'blue'],
      ['ask', 'ok', 'blue'],
    ]);
  });

  it('runs more agents-as-tools in one turn than the client takes at once, the rest offered as room frees', async () => {
    // Room for one call: two callers wait on their nested runs, the client answers the other two busy, and the
    // nested runs' calls go past those (the stub offers the room a busy call held to the calls behind it).
    const { client, outer } = await twoNestedAsks({ maxConcurrency: 1, maxQueue: 0 }, 4);
    const result = await client.run(outer, 'one');
    expect(result.toolCalls.map((call) => [call.toolName, call.status, call.output])).toEqual(
      Array.from({ length: 4 }, () => ['ask', 'ok', 'blue']),
    );
  });

  it('runs agents-as-tools fanned out two levels deep with room for one call', async () => {
    // Two Middles wait (twice the room), each asking two Inners: each depth has room of its own for its calls.
    const fact = tool({ name: 'fact', description: 'A fact.', execute: () => 'blue' });
    const inner = new Agent({ name: 'Inner', instructions: '', tools: [fact] });
    const middle = new Agent({
      name: 'Middle',
      instructions: '',
      tools: [inner.asTool({ toolName: 'ask_inner', toolDescription: 'Ask Inner.' })],
    });
    const outer = new Agent({
      name: 'Outer',
      instructions: '',
      tools: [middle.asTool({ toolName: 'ask_middle', toolDescription: 'Ask Middle.' })],
    });
    const both = (name: string) => ({
      toolCalls: [0, 1].map((n) => ({ name, arguments: { input: `${n}` } })),
    });
    const joined = ({ messages }: { messages: readonly { role: string; content: string }[] }) => ({
      text: messages.flatMap((message) => (message.role === 'tool' ? [message.content] : [])).join('+'),
    });
    const { client } = await setup(
      {
        Outer: [both('ask_middle'), joined],
        Middle: [both('ask_inner'), joined],
        Inner: [{ toolCalls: [{ name: 'fact' }] }, lastTool],
      },
      [],
      { maxConcurrency: 1, maxQueue: 0 },
    );
    const result = await client.run(outer, 'what colour is the sky?');
    expect(result.finalOutput).toBe('blue+blue+blue+blue');
  });

  it('stops an agent that calls itself at the nesting bound, with an error text the model reads', async () => {
    const tools: Tool<never, unknown, never>[] = [];
    const loop = new Agent({ name: 'Loop', instructions: '', tools });
    tools.push(loop.asTool({ toolName: 'loop', toolDescription: 'Ask yourself.', maxDepth: 3 }) as never);
    const { client, server } = await setup(
      { Loop: [{ toolCalls: [{ name: 'loop', arguments: { input: 'again' } }] }, lastTool] },
      [],
    );
    const result = await client.run(loop, 'go');
    expect(result.finalOutput).toBe(
      'Error running loop: agents are nested 3 deep, at the limit of 3; not starting Loop',
    );
    expect(server.runs.list()).toHaveLength(4);
  });

  it('reports a failed nested run to the outer model as the tool error text', async () => {
    const inner = new Agent({ name: 'Inner', instructions: '', tools: [] });
    const outer = new Agent({
      name: 'Outer',
      instructions: '',
      tools: [inner.asTool({ toolName: 'ask', toolDescription: 'Ask.', maxTurns: 1 })],
    });
    const { client } = await setup(
      {
        Outer: [{ toolCalls: [{ name: 'ask', arguments: { input: 'x' } }] }, lastTool],
        Inner: [{ toolCalls: [{ name: 'missing' }] }, { toolCalls: [{ name: 'missing' }] }],
      },
      [],
    );
    const result = await client.run(outer, 'go');
    expect(String(result.finalOutput)).toMatch(/^Error running ask: .*turn/);
  });

  it('ends a call past asTool timeoutMs, cancelling its nested run or waiting no more for outputExtractor', async () => {
    // The nested call starts within the 50 ms only on a machine that is not loaded: whenever it started, it is
    // cancelled with its run (a call of the cancelled run that started later and was never aborted fails the poll).
    let started = 0;
    let aborted = 0;
    const stuck = tool({
      name: 'stuck',
      description: 'Never answers.',
      execute: (_input, ctx) => {
        started += 1;
        return new Promise<string>((_resolve, reject) => {
          const abort = () => {
            aborted += 1;
            reject(ctx.signal.reason);
          };
          if (ctx.signal.aborted) abort();
          else ctx.signal.addEventListener('abort', abort);
        });
      },
    });
    const hangs = new Agent({ name: 'Hangs', instructions: '', tools: [stuck] });
    const quick = new Agent({ name: 'Quick', instructions: '', tools: [] });
    const outer = new Agent({
      name: 'Outer',
      instructions: '',
      tools: [
        hangs.asTool({ toolName: 'ask_hangs', toolDescription: 'Ask.', timeoutMs: 50 }),
        quick.asTool({
          toolName: 'ask_quick',
          toolDescription: 'Ask.',
          timeoutMs: 50,
          outputExtractor: () => new Promise<string>(() => {}),
        }),
      ],
    });
    const { client } = await setup(
      {
        Outer: [
          { toolCalls: [{ name: 'ask_hangs', arguments: { input: 'x' } }] },
          { toolCalls: [{ name: 'ask_quick', arguments: { input: 'y' } }] },
          lastTool,
        ],
        Hangs: [{ toolCalls: [{ name: 'stuck' }] }, lastTool],
        Quick: [{ text: 'fine' }],
      },
      [stuck] as never,
    );
    const result = await client.run(outer, 'go');
    expect(result.toolCalls.map((call) => [call.toolName, call.status])).toEqual([
      ['ask_hangs', 'timeout'],
      ['ask_quick', 'timeout'],
    ]);
    expect(result.toolCalls.map((call) => call.output)).toEqual([
      expect.stringMatching(/timed out after 50ms/),
      expect.stringMatching(/timed out after 50ms/),
    ]);
    expect(started).toBeLessThanOrEqual(1);
    await expect.poll(() => aborted === started).toBe(true);
  });

  it('refuses an asTool timeoutMs that is not a positive integer of milliseconds', () => {
    const inner = new Agent({ name: 'Inner', instructions: '', tools: [] });
    expect(() => inner.asTool({ timeoutMs: 0 })).toThrow(
      'Agent "Inner".asTool(): timeoutMs must be a positive integer of milliseconds',
    );
  });
});

describe('approvals', () => {
  const refundTool = (runs: string[]) =>
    tool({
      name: 'refund',
      description: 'Refunds an order.',
      parameters: z.object({ orderId: z.string() }),
      needsApproval: true,
      execute: ({ orderId }, ctx) => {
        runs.push(ctx.callId);
        return `refunded ${orderId} (approved=${ctx.approved})`;
      },
    });
  const script: Script = [{ toolCalls: [{ name: 'refund', arguments: { orderId: 'o1' } }] }, lastTool];

  it('runs an approved call once, and refuses a second decision with 409', async () => {
    const runs: string[] = [];
    const refund = refundTool(runs);
    const { client, server } = await setup(script, [refund] as never);
    const requested: ApprovalRequest[] = [];
    client.on('approval_requested', (request) => requested.push(request));
    const approval = nextApproval(client);
    const running = client.run(new Agent({ name: 'A', instructions: '', tools: [refund] }), 'go');
    const { runId, callId } = await approval;
    expect(runs).toEqual([]);
    expect(requested).toEqual([
      { callId, runId, toolName: 'refund', input: { orderId: 'o1' }, sideEffect: 'external' },
    ]);
    expect(requested[0]!.signal).toBeInstanceOf(AbortSignal);
    expect((await decide(server, runId, callId, { approved: true })).status).toBe(200);
    const result = await running;
    expect(result.finalOutput).toBe('refunded o1 (approved=true)');
    // Decided: the run's end does not tell the approver the decision is no longer wanted.
    expect(requested[0]!.signal.aborted).toBe(false);
    expect((await decide(server, runId, callId, { approved: true })).status).toBe(409);
    expect(runs).toEqual([callId]);
  });

  it('gives status rejected with the reason when a human rejects, and runs nothing', async () => {
    const runs: string[] = [];
    const refund = refundTool(runs);
    const { client, server } = await setup(script, [refund] as never);
    const approval = nextApproval(client);
    const running = client.run(new Agent({ name: 'A', instructions: '', tools: [refund] }), 'go');
    const { runId, callId } = await approval;
    await decide(server, runId, callId, { approved: false, reason: 'order already refunded' });
    const result = await running;
    expect(result.toolCalls[0]).toMatchObject({
      status: 'rejected',
      output: 'refund was not run: the user declined. Reason: order already refunded',
    });
    expect(runs).toEqual([]);
  });

  it('runs nothing for an approval that arrives after the run was cancelled', async () => {
    const runs: string[] = [];
    const refund = refundTool(runs);
    const { client, server } = await setup(script, [refund] as never);
    const approval = nextApproval(client);
    const controller = new AbortController();
    const running = client.run(new Agent({ name: 'A', instructions: '', tools: [refund] }), 'go', {
      signal: controller.signal,
    });
    const requested: ApprovalRequest[] = [];
    client.on('approval_requested', (request) => requested.push(request));
    const { runId, callId } = await approval;
    await expect.poll(() => requested.length).toBe(1);
    const { signal } = requested[0]!;
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    // The run ended undecided (its `run_result` came): whoever shows the prompt is told it is moot.
    await expect.poll(() => signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({
      name: 'AbortError',
      message: `run ${runId} ended before a decision`,
      cause: 'run_ended',
    });
    expect((await decide(server, runId, callId, { approved: true })).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toEqual([]);
  });

  it('asks the service when a predicate says so, and runs without asking when it says no', async () => {
    const runs: string[] = [];
    const pay = tool({
      name: 'pay',
      description: 'Pays.',
      parameters: z.object({ cents: z.number() }),
      needsApproval: (_ctx, { cents }) => cents > 10_000,
      execute: ({ cents }) => {
        runs.push(String(cents));
        return `paid ${cents}`;
      },
    });
    const { client, server } = await setup(
      [
        {
          toolCalls: [
            { name: 'pay', arguments: { cents: 500 } },
            { name: 'pay', arguments: { cents: 50_000 } },
          ],
        },
        { text: 'ok' },
      ],
      [pay] as never,
    );
    const approval = nextApproval(client);
    const running = client.run(new Agent({ name: 'A', instructions: '', tools: [pay] }), 'go');
    const { runId, callId } = await approval;
    await expect.poll(() => runs).toEqual(['500']);
    await decide(server, runId, callId, { approved: true });
    await running;
    expect(runs.sort()).toEqual(['500', '50000']);
  });

  it('lets a local onApproval decide, with a reason on rejection', async () => {
    const runs: string[] = [];
    const refund = refundTool(runs);
    const asked: unknown[] = [];
    const { client } = await setup(script, [refund] as never, {
      onApproval: (request) => {
        asked.push(request.input);
        return { approved: false, reason: 'not today' };
      },
    });
    const result = await client.run(new Agent({ name: 'A', instructions: '', tools: [refund] }), 'go');
    expect(asked).toEqual([{ orderId: 'o1' }]);
    expect(result.finalOutput).toBe('refund was not run: the user declined. Reason: not today');
    expect(runs).toEqual([]);
  });

  it('surfaces an approval inside a nested agent on the outer run, and resumes after the decision', async () => {
    const runs: string[] = [];
    const refund = refundTool(runs);
    const clerk = new Agent({ name: 'Clerk', instructions: '', tools: [refund] });
    const boss = new Agent({
      name: 'Boss',
      instructions: '',
      tools: [clerk.asTool({ toolName: 'ask_clerk', toolDescription: 'Ask the clerk.' })],
    });
    const { client, server } = await setup(
      {
        Boss: [
          { toolCalls: [{ name: 'ask_clerk', arguments: { input: 'refund o1' } }] },
          (input) => ({ text: `boss: ${lastTool(input).text}` }),
        ],
        Clerk: script as never,
      },
      [],
    );
    const outerRunId = new Promise<string>((resolve) =>
      client.once('tool_call', (info) => resolve(info.runId)),
    );
    // The outer run's listener gets the copy (data.runId names the nested run); the client's own `run_event`
    // carries the nested run's event once, and no copy.
    let seen!: (value: { runId: string; callId: string; eventRunId: string }) => void;
    const approval = new Promise<{ runId: string; callId: string; eventRunId: string }>((resolve) => {
      seen = resolve;
    });
    const running = client.run(boss, 'go', {
      onEvent: (event) => {
        if (event.kind !== 'approval_requested') return;
        seen({ runId: event.nestedRunId as string, callId: event.callId, eventRunId: event.runId });
      },
    });
    const { runId, callId, eventRunId } = await approval;
    expect(eventRunId).toBe(await outerRunId);
    expect(runId).not.toBe(eventRunId);
    await decide(server, runId, callId, { approved: true });
    expect((await running).finalOutput).toBe('boss: refunded o1 (approved=true)');
    expect(runs).toEqual([callId]);
  });
});
