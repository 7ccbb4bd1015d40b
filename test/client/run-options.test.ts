/**
 * `toolChoice` and `metadata` on a run (feature `run_options`), a result's part from `execute` to the run result
 * (feature `result_parts`), and run events typed by kind, against the stub.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../server-stub/index';
import { Agent, OptionsError, RunError, type RunEvent, tool } from '../../src/index';
import { useStubClients } from '../support/stub-client';

const { stub, connected } = useStubClients();

const lookup = tool({
  name: 'lookup',
  description: 'Looks up a record.',
  execute: () => ({ summary: 'Found a', internalScore: 0.98 }),
  toModelOutput: (output: { summary: string }) => ({ summary: output.summary }),
});
const greet = tool({ name: 'greet', description: 'Greets.', execute: () => 'hello' });
const fail = tool({
  name: 'fail',
  description: 'Fails.',
  execute: (): never => {
    throw { code: 'E1', retryAfter: 5 };
  },
});
const crash = tool({
  name: 'crash',
  description: 'Crashes.',
  execute: (): never => {
    throw new Error('boom');
  },
});
const agent = new Agent({ name: 'A', instructions: 'Use the tools.', tools: [lookup, greet, fail, crash] });

describe('toolChoice and metadata', () => {
  it('reach the model and the run: a named tool offers only that tool, then auto', async () => {
    const seen: unknown[] = [];
    const server = await stub({
      model: scriptedModel([
        ({ tools, toolChoice }) => {
          seen.push([toolChoice, tools.map((t) => t.name)]);
          return { toolCalls: [{ name: 'greet' }] };
        },
        ({ tools, toolChoice }) => {
          seen.push([toolChoice, tools.length]);
          return { text: 'done' };
        },
      ]),
    });
    const client = await connected(server.url, { tools: [lookup, greet, fail, crash] });
    const result = await client.run(agent, 'go', {
      toolChoice: { type: 'tool', name: 'greet' },
      metadata: { requestId: 'req-7', plan: 'pro' },
    });
    expect(seen).toEqual([
      [{ type: 'tool', name: 'greet' }, ['greet']],
      ['auto', 4],
    ]);
    const transcript = server.runs.get(result.runId);
    expect(transcript?.metadata).toEqual({ requestId: 'req-7', plan: 'pro' });
    expect(transcript?.toolChoice).toEqual({ type: 'tool', name: 'greet' });
  });

  it("fails a run whose model calls a tool although toolChoice is 'none' (from the agent)", async () => {
    const server = await stub({ model: scriptedModel([{ toolCalls: [{ name: 'greet' }] }]) });
    const client = await connected(server.url, { tools: [greet] });
    const quiet = new Agent({ name: 'Q', instructions: '.', tools: [greet], toolChoice: 'none' });
    const error = await client.run(quiet, 'go').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({
      code: 'run_failed',
      message: "the model called greet although toolChoice is 'none'",
    });
  });

  it('rejects with RunError unsupported when the service lacks run_options, and drops metadata', async () => {
    const server = await stub({
      features: ['progress', 'content'],
      model: scriptedModel([{ text: 'ok' }, { text: 'ok' }]),
    });
    const client = await connected(server.url, { tools: [greet] });
    const error = await client.run(agent, 'go', { toolChoice: 'required' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({
      code: 'unsupported',
      message:
        'the service does not take toolChoice (it did not negotiate the feature run_options); the run was not started',
    });
    const result = await client.run(agent, 'go', { metadata: { a: 1 } });
    expect(result.finalOutput).toBe('ok');
    expect(server.runs.get(result.runId)?.metadata).toBeUndefined();
  });

  it('refuses a bad toolChoice or metadata before anything is sent', async () => {
    const server = await stub({ model: scriptedModel([]) });
    const client = await connected(server.url, { tools: [greet] });
    await expect(client.run(agent, 'go', { toolChoice: 'any' as never })).rejects.toThrow(
      new OptionsError(
        'invalid_option',
        "client.run(): toolChoice must be 'auto', 'none', 'required' or { type: 'tool', name }, got \"any\"",
      ),
    );
    await expect(client.run(agent, 'go', { toolChoice: { type: 'tool', name: 'nope' } })).rejects.toThrow(
      'client.run(): toolChoice names the tool "nope", which is not one of the tools of agent "A"',
    );
    await expect(client.run(agent, 'go', { metadata: { big: 'x'.repeat(20_000) } })).rejects.toThrow(
      'metadata must be a JSON object of at most 16384 bytes',
    );
  });
});

describe('result parts', () => {
  it('keep text, JSON, thrown JSON and error text apart, and give the app the full result of toModelOutput', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'lookup' }, { name: 'greet' }, { name: 'fail' }, { name: 'crash' }] },
        ({ messages }) => ({ text: messages.find((m) => m.role === 'tool')?.content ?? '' }),
      ]),
    });
    const client = await connected(server.url, { tools: [lookup, greet, fail, crash] });
    const events: RunEvent[] = [];
    const result = await client.run(agent, 'go', { onEvent: (event) => events.push(event) });
    // The model read the projection; the app gets the whole result.
    expect(result.finalOutput).toBe('{"summary":"Found a"}');
    expect(result.toolCalls.map((call) => [call.toolName, call.output, call.result])).toEqual([
      [
        'lookup',
        '{"summary":"Found a"}',
        { type: 'json', value: { summary: 'Found a', internalScore: 0.98 } },
      ],
      ['greet', 'hello', { type: 'text', value: 'hello' }],
      [
        'fail',
        'Error running fail: {"code":"E1","retryAfter":5}',
        { type: 'error-json', value: { code: 'E1', retryAfter: 5 } },
      ],
      ['crash', 'Error running crash: boom', { type: 'error-text', value: 'Error running crash: boom' }],
    ]);
    const results = events.filter((event) => event.kind === 'tool_result');
    expect(results.map((event) => (event.kind === 'tool_result' ? event.result : undefined))).toEqual(
      result.toolCalls.map((call) => call.result),
    );
  });
});

describe('result parts after an approver edited the arguments', () => {
  it.each([
    [
      'JSON',
      (n: number) => ({ n, widget: { type: 'Badge', label: `n=${n}`, color: 'info' } }),
      { type: 'json', value: { n: 2 } },
      '{"n":2}',
    ],
    ['text', (n: number) => `n is ${n}`, { type: 'text', value: 'n is 2' }, 'n is 2'],
  ] as const)(
    'carry the %s result itself, since output starts with the note',
    async (_kind, made, part, shown) => {
      const edited = tool({
        name: 'edited',
        description: 'Is edited.',
        parameters: z.object({ n: z.number() }),
        needsApproval: true,
        execute: ({ n }) => made(n),
      });
      const server = await stub({
        model: scriptedModel([{ toolCalls: [{ name: 'edited', arguments: { n: 1 } }] }, { text: 'done' }]),
      });
      const client = await connected(server.url, { tools: [edited] });
      const decided: Promise<void>[] = [];
      client.on('approval_requested', (request) => {
        decided.push(client.decide(request.callId, { approved: true, arguments: { n: 2 } }));
      });
      const events: RunEvent[] = [];
      const result = await client.run(new Agent({ name: 'A', instructions: '', tools: [edited] }), 'go', {
        onEvent: (event) => events.push(event),
      });
      await Promise.all(decided);
      const output = `The approver edited the arguments of edited to {"n":2}.\n${shown}`;
      expect(result.toolCalls.map((call) => [call.output, call.result])).toEqual([[output, part]]);
      const event = events.find((item) => item.kind === 'tool_result');
      expect(event?.kind === 'tool_result' ? event.result : undefined).toEqual(part);
    },
  );
});

describe('typed run events', () => {
  it('are flat objects told apart by kind, read with no cast', async () => {
    const slow = tool({
      name: 'slow',
      description: 'Reports progress.',
      execute: (_input, ctx) => {
        ctx.progress({ progress: 1, total: 2, message: 'half' });
        return 'ok';
      },
    });
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'slow' }] }, { text: 'done' }]),
    });
    const client = await connected(server.url, { tools: [slow] });
    const progress: string[] = [];
    const kinds: string[] = [];
    await client.run(new Agent({ name: 'S', instructions: '.', tools: [slow] }), 'go', {
      onEvent: (e) => {
        kinds.push(e.kind);
        if (e.kind === 'tool_progress') progress.push(`${e.toolName} ${e.progress}/${e.total} ${e.message}`);
      },
    });
    expect(progress).toEqual(['slow 1/2 half']);
    expect(kinds).toEqual([
      'turn',
      'message',
      'tool_call',
      'tool_progress',
      'tool_result',
      'turn',
      'message',
    ]);
  });
});
