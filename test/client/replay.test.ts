/** `recordRun()` and `replayTools()`: a run replayed from its recording gives the same answers and runs nothing. */
import { tool as aiTool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ScriptedTurn, type ScriptInput, scriptedModel } from '../../server-stub/index';
import { Agent, content, type Tool, tool } from '../../src/index';
import { invokeTool, ReplayError, type RunRecording, recordRun, replayTools } from '../../src/testing';
import { toTools } from '../../src/tool/shapes';
import { useStubClients } from '../support/stub-client';

const { stub, connected } = useStubClients();

// biome-ignore lint/suspicious/noExplicitAny: tools of any input and output, as replayTools takes them.
type AnyTool = Tool<any, any, any>;

/** A run live, then again on the same stub with `tools` replayed from its recording (the script played twice). */
async function liveThenReplayed(tools: AnyTool[], script: ScriptedTurn[], features?: readonly []) {
  const server = await stub({
    ...(features === undefined ? {} : { features }),
    model: scriptedModel([...script, ...script]),
  });
  const live = await connected(server.url, { tools });
  const first = await live.run(new Agent({ name: 'S', instructions: '.', tools }), 'go');
  await live.close();
  const recording = JSON.parse(JSON.stringify(recordRun(first))) as RunRecording;
  const replayed = replayTools(recording, tools);
  const again = await connected(server.url, { tools: replayed });
  const second = await again.run(new Agent({ name: 'S', instructions: '.', tools: replayed }), 'go');
  return { first, second, recording };
}

/**
 * An AI SDK tool `guarded` (input `{ n }`) called twice with the same arguments, in a run live and then replayed:
 * its `execute` returns `returns(run)` (`run`: its runs so far, from 1), its `toModelOutput` is `project`. `lines`:
 * each run's calls as `[status, output]`; `runs`: how many times `execute` ran in all.
 */
async function guardedTwice<O>(
  description: string,
  returns: (run: number) => O,
  project: (output: O) => { type: 'execution-denied'; reason: string } | { type: 'text'; value: string },
) {
  let runs = 0;
  const [guarded] = toTools(
    {
      guarded: aiTool({
        description,
        inputSchema: z.object({ n: z.number() }),
        // `unknown` to the AI SDK's types: its inference of the output does not reach through `O`.
        execute: async (): Promise<unknown> => returns(++runs),
        toModelOutput: ({ output }) => project(output as O),
      }),
    },
    'test',
  );
  const turn = { toolCalls: [{ name: 'guarded', arguments: { n: 1 } }] };
  const { first, second, recording } = await liveThenReplayed(
    [guarded as AnyTool],
    [turn, turn, { text: 'done' }],
  );
  const lines = (r: typeof first) => r.toolCalls.map((c) => [c.status, c.output]);
  return { lines: { first: lines(first), second: lines(second) }, recording, runs };
}

/** `echo` replayed from a recording of run `r0` made of `calls`: `next()` answers its next call (arguments `{}`). */
function echoReplaying(calls: RunRecording['calls']) {
  const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'live' });
  const [replayed] = replayTools({ version: 1, runId: 'r0', calls }, [echo]);
  return { next: () => invokeTool(replayed as typeof echo, {}) };
}

describe('record and replay', () => {
  it('replays the recorded results without running execute, failures included', async () => {
    let runs = 0;
    const refund = tool({
      name: 'refund',
      description: 'Refunds an order.',
      parameters: {
        type: 'object',
        properties: { orderId: { type: 'string' } },
        required: ['orderId'],
      } as const,
      execute: ({ orderId }) => {
        runs += 1;
        if (orderId === 'bad') throw { code: 'E1' };
        return { refundId: `re_${orderId}`, at: runs };
      },
    });
    const script = [
      {
        toolCalls: [
          { name: 'refund', arguments: { orderId: 'o1' } },
          { name: 'refund', arguments: '{"orderId":"bad"}' },
        ],
      },
      { text: 'done' },
    ];
    const server = await stub({ model: scriptedModel([...script, ...script]) });
    const live = await connected(server.url, { tools: [refund] });
    const first = await live.run(new Agent({ name: 'S', instructions: '.', tools: [refund] }), 'go');
    expect(runs).toBe(2);
    const recording = JSON.parse(JSON.stringify(recordRun(first)));

    const replayed = replayTools(recording, [refund]);
    const again = await connected(server.url, { tools: replayed });
    await live.close();
    const second = await again.run(new Agent({ name: 'S', instructions: '.', tools: replayed }), 'go');
    expect(runs).toBe(2);
    const lines = (calls: typeof first.toolCalls) => calls.map((c) => [c.status, c.output, c.result]);
    expect(lines(second.toolCalls)).toEqual(lines(first.toolCalls));
    expect(lines(second.toolCalls)).toEqual([
      ['ok', '{"refundId":"re_o1","at":1}', { type: 'json', value: { refundId: 're_o1', at: 1 } }],
      ['error', 'Error running refund: {"code":"E1"}', { type: 'error-json', value: { code: 'E1' } }],
    ]);
  });

  it('hands out and records no secret, and replays the calls whose sensitive fields it hid', async () => {
    const key = 'sk-live-REPLAY-1234567';
    let runs = 0;
    const login = tool({
      name: 'login',
      description: 'Logs in.',
      parameters: {
        type: 'object',
        properties: { user: { type: 'string' }, password: { type: 'string' } },
        required: ['user', 'password'],
      } as const,
      sensitiveFieldNames: ['password'],
      execute: ({ user }) => {
        runs += 1;
        return `hi ${user}`;
      },
    });
    const turn = {
      toolCalls: [
        { name: 'login', arguments: { user: 'ada', password: 'horse-battery' } },
        { name: 'login', arguments: { user: `u-${key}`, password: 'staple' } },
      ],
    };
    const server = await stub({
      apiKeys: [key],
      model: scriptedModel([turn, { text: 'done' }, turn, { text: 'done' }]),
    });
    const live = await connected(server.url, { apiKey: key, tools: [login] });
    const first = await live.run(new Agent({ name: 'S', instructions: '.', tools: [login] }), 'go');
    // As the run's events have them (docs/guide/secrets.md): the key and the sensitive fields' values replaced.
    expect(first.toolCalls.map((call) => call.arguments)).toEqual([
      { user: 'ada', password: '[redacted]' },
      { user: 'u-[redacted]', password: '[redacted]' },
    ]);
    expect(first.toolCalls[1]?.output).toBe('hi u-[redacted]');
    const saved = JSON.stringify(recordRun(first));
    for (const secret of [key, 'horse-battery', 'staple']) expect(saved).not.toContain(secret);

    // A sensitive field is matched as hidden; the API key, which the recording no longer holds, is not.
    const replayed = replayTools(JSON.parse(saved), [login]);
    const again = await connected(server.url, { apiKey: key, tools: replayed });
    await live.close();
    const second = await again.run(new Agent({ name: 'S', instructions: '.', tools: replayed }), 'go');
    expect(runs).toBe(2);
    expect(second.toolCalls.map((call) => [call.status, call.output])).toEqual([
      ['ok', 'hi ada'],
      [
        'error',
        'Error running login: no recorded call of login with these arguments is left to replay (run ' +
          `${first.runId})`,
      ],
    ]);
  });

  it('fails a call the recording has no answer for, naming the tool', async () => {
    const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'live' });
    const [replayed] = replayTools({ version: 1, runId: 'r0', calls: [] }, [echo]);
    const { invokeTool } = await import('../../src/call/invoke');
    const result = await invokeTool(replayed as typeof echo, {});
    expect(result.status).toBe('error');
    expect(result.output).toBe(
      'Error running echo: no recorded call of echo with these arguments is left to replay (run r0)',
    );
    expect(result.error).toBeInstanceOf(ReplayError);
    expect(() => replayTools({} as never, [echo])).toThrow(
      new ReplayError(
        'invalid_recording',
        'replayTools(): the recording is not one recordRun() made (version 1)',
      ),
    );
  });

  it('says why where the run summary cut the arguments of a call of that tool', async () => {
    const echo = tool({
      name: 'echo',
      description: 'Echoes.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const,
      execute: () => 'live',
    });
    const cut = {
      toolName: 'echo',
      arguments: { truncated: true, bytes: 2_000_000 },
      status: 'ok',
      output: 'x',
    };
    const [replayed] = replayTools({ version: 1, runId: 'r1', calls: [cut] }, [echo]);
    const { invokeTool } = await import('../../src/call/invoke');
    const result = await invokeTool(replayed as typeof echo, { text: 'long' });
    expect(result.output).toBe(
      "Error running echo: no recorded call of echo with these arguments is left to replay (run r1); the recording has calls of echo whose arguments the run's summary cut to fit its frame (the run's transcript, GET /v1/runs/r1, has them whole)",
    );
  });

  it('matches the arguments as execute gets them: defaults filled in, unknown keys dropped, no parameters', async () => {
    const { invokeTool } = await import('../../src/call/invoke');
    const { z } = await import('zod');
    const withDefault = tool({
      name: 'with_default',
      description: 'Has a default.',
      parameters: z.object({ id: z.string(), n: z.number().default(1) }),
      execute: () => 'live',
    });
    const bare = tool({ name: 'bare', description: 'No parameters.', execute: () => 'live' });
    const recorded = (toolName: string, args: unknown, output: string) => ({
      toolName,
      arguments: args,
      status: 'ok',
      output,
    });
    const recording = {
      version: 1 as const,
      runId: 'r0',
      calls: [
        recorded('with_default', { id: 'o_1' }, 'first'),
        recorded('with_default', { id: 'o_1', extra: true }, 'second'),
        recorded('bare', { id: 'o_1' }, 'bare one'),
      ],
    };
    const [defaulted, none] = replayTools(recording as never, [withDefault, bare]);
    const outputs = [
      (await invokeTool(defaulted as typeof withDefault, { id: 'o_1' })).output,
      (await invokeTool(defaulted as typeof withDefault, { id: 'o_1', extra: true })).output,
      (await invokeTool(none as typeof bare, { id: 'o_1' })).output,
      (await invokeTool(defaulted as typeof withDefault, { id: 'o_1' })).output,
    ];
    expect(outputs).toEqual([
      'first',
      'second',
      'bare one',
      'Error running with_default: no recorded call of with_default with these arguments is left to replay (run r0)',
    ]);
  });

  it('refuses what is not a run result, a recording or a list of tools, saying what it got', () => {
    const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'live' });
    const recording = { version: 1 as const, runId: 'r0', calls: [] };
    const refusal = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        const { name, code, message } = error as ReplayError;
        return { name, code, message };
      }
      throw new Error('expected a refusal');
    };
    const invalid = (message: string) => ({ name: 'ReplayError', code: 'invalid_recording', message });
    expect(refusal(() => recordRun(undefined as never))).toEqual(
      invalid(
        'recordRun(): result must be what client.run() resolved with (an object with toolCalls), got undefined',
      ),
    );
    expect(refusal(() => recordRun({} as never))).toEqual(
      invalid(
        'recordRun(): result must be what client.run() resolved with (an object with toolCalls), got an object',
      ),
    );
    expect(refusal(() => replayTools(recording, 'echo' as never))).toEqual(
      invalid('replayTools(): tools must be an array of tools made with tool(), got "echo"'),
    );
    expect(refusal(() => replayTools(recording, [echo, {} as never]))).toEqual(
      invalid('replayTools(): tools[1] is not a tool made with tool(), got an object'),
    );
    expect(replayTools(recording, [])).toEqual([]);
  });

  it('records a result part of a type it does not know without it: the call replays as the text read', async () => {
    const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'live' });
    const recording = recordRun({
      runId: 'r0',
      toolCalls: [
        {
          toolName: 'echo',
          arguments: {},
          status: 'ok',
          output: 'pictured',
          result: { type: 'image', value: 'aGk=' },
        } as never,
      ],
    });
    expect(recording.calls[0]?.result).toBeUndefined();
    const [replayed] = replayTools(recording, [echo]);
    const result = await invokeTool(replayed as typeof echo, {});
    expect([result.status, result.output]).toEqual(['ok', 'pictured']);
  });

  it('refuses a recording whose calls lack what a replay answers with, naming the call and field', () => {
    const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'live' });
    const good = { toolName: 'echo', arguments: {}, status: 'ok', output: 'hi' };
    const refusal = (call: unknown) => {
      try {
        replayTools({ version: 1, runId: 'r0', calls: [good, call] } as never, [echo]);
      } catch (error) {
        const { name, code, message } = error as ReplayError;
        return { name, code, message };
      }
      throw new Error('expected a refusal');
    };
    const invalid = (message: string) => ({ name: 'ReplayError', code: 'invalid_recording', message });
    expect(refusal(null)).toEqual(invalid('replayTools(): calls[1] must be an object, got null'));
    expect(refusal({ ...good, toolName: 5 })).toEqual(
      invalid('replayTools(): calls[1].toolName must be a string, got 5'),
    );
    expect(refusal({ toolName: 'echo', arguments: {}, status: 'ok' })).toEqual(
      invalid('replayTools(): calls[1].output must be a string, got undefined'),
    );
    expect(refusal({ ...good, status: undefined })).toEqual(
      invalid('replayTools(): calls[1].status must be a string, got undefined'),
    );
    expect(refusal({ ...good, result: { type: 'jsonish', value: 1 } })).toEqual(
      invalid(
        'replayTools(): calls[1].result must be { type, value? } with type text, json, error-text, error-json or content, got an object',
      ),
    );
    // A part's value must be what its type says: else the replay would read `null`, `42` or a content() error.
    expect(refusal({ ...good, result: { type: 'json' } })).toEqual(
      invalid('replayTools(): calls[1].result.value must be the JSON value of a json part, got undefined'),
    );
    expect(refusal({ ...good, result: { type: 'text', value: 42 } })).toEqual(
      invalid('replayTools(): calls[1].result.value must be the string of a text part, got 42'),
    );
    expect(refusal({ ...good, result: { type: 'content', value: 'x' } })).toEqual(
      invalid(
        'replayTools(): calls[1].result.value must be the parts of a content part (content(): parts must be an array of 1 to 64 parts)',
      ),
    );
  });

  it('replays what the model read where the recording has no result part, past outputSchema and toModelOutput', async () => {
    // A service without `result_parts` (or a run summary cut to fit its frame) records each call's text only.
    const tools = [
      tool({ name: 'mo', description: 'm', execute: () => ({ a: 1 }), toModelOutput: (o) => `A is ${o.a}` }),
      tool({ name: 'num', description: 'n', execute: () => 42, outputSchema: { type: 'number' } as const }),
      tool({ name: 'plain', description: 'p', execute: () => ({ b: 2 }) }),
    ];
    const script: ScriptedTurn[] = [
      { toolCalls: ['mo', 'num', 'plain'].map((name) => ({ name, arguments: {} })) },
      ({ messages }: ScriptInput) => ({
        text: messages
          .slice(-3)
          .map((message) => message.content)
          .join(' | '),
      }),
    ];
    const { first, second, recording } = await liveThenReplayed(tools, script, []);
    expect(recording.calls.map((call) => call.result)).toEqual([undefined, undefined, undefined]);
    expect(first.finalOutput).toBe('A is 1 | 42 | {"b":2}');
    expect(second.finalOutput).toBe(first.finalOutput);
    const lines = (calls: typeof first.toolCalls) => calls.map((c) => [c.toolName, c.status, c.output]);
    expect(lines(second.toolCalls)).toEqual(lines(first.toolCalls));
  });

  it.each([
    ['with result parts', undefined],
    ['without result parts', []],
  ] as const)(
    'replays failures past errorFunction and content past toModelOutput as read (%s)',
    async (_name, features) => {
      const tools = [
        tool({
          name: 'sorry',
          description: 's',
          execute: () => {
            throw new Error('boom');
          },
          errorFunction: (_ctx, error) => `Sorry: ${(error as Error).message}`,
        }),
        tool({
          name: 'coded',
          description: 'c',
          execute: () => {
            throw { code: 42 };
          },
          errorFunction: (_ctx, error) => JSON.stringify({ failed: (error as { code: number }).code }),
        }),
        tool({
          name: 'parts',
          description: 'p',
          execute: () => ({ a: 1 }),
          toModelOutput: (output) => content([{ type: 'text', text: `A is ${output.a}` }]),
        }),
      ];
      const script: ScriptedTurn[] = [
        { toolCalls: tools.map((item) => ({ name: item.name, arguments: {} })) },
        ({ messages }: ScriptInput) => ({
          text: messages
            .slice(-3)
            .map((message) => message.content)
            .join(' | '),
        }),
      ];
      const { first, second } = await liveThenReplayed(tools, script, features);
      expect(first.finalOutput).toBe('Sorry: boom | {"failed":42} | A is 1');
      expect(second.finalOutput).toBe(first.finalOutput);
      const lines = (calls: typeof first.toolCalls) =>
        calls.map((c) => [c.toolName, c.status, c.output, c.result]);
      expect(lines(second.toolCalls)).toEqual(lines(first.toolCalls));
    },
  );

  it.each([
    ['with result parts', undefined],
    ['without result parts', []],
  ] as const)(
    'replays a call that timed out as timed out, errorFunction text as read (%s)',
    async (_n, features) => {
      // Runs until its signal aborts (at its timeout): the live client's drain then has no tool to wait for.
      const hangs = (_input: unknown, ctx: { signal: AbortSignal }) =>
        new Promise<never>((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        );
      const tools = [
        tool({ name: 'slow', description: 's', timeoutMs: 20, execute: hangs }),
        tool({
          name: 'sorry',
          description: 's',
          timeoutMs: 20,
          execute: hangs,
          errorFunction: (_ctx, error) => `Sorry: ${(error as Error).message}`,
        }),
      ];
      const script = [{ toolCalls: [{ name: 'slow' }, { name: 'sorry' }] }, { text: 'done' }];
      const { first, second } = await liveThenReplayed(tools, script, features);
      const lines = (calls: typeof first.toolCalls) => calls.map((c) => [c.toolName, c.status, c.output]);
      expect(lines(first.toolCalls)).toEqual([
        ['slow', 'timeout', 'Error running slow: timed out after 20ms'],
        ['sorry', 'timeout', 'Sorry: sorry timed out after 20ms'],
      ]);
      expect(lines(second.toolCalls)).toEqual(lines(first.toolCalls));
    },
  );

  it('replays a recorded cancelled call as cancelled, with the text the model read', async () => {
    const output = 'Error running echo: the call was cancelled';
    const echo = echoReplaying([
      {
        toolName: 'echo',
        arguments: {},
        status: 'cancelled',
        output,
        result: { type: 'error-text', value: output },
      },
      { toolName: 'echo', arguments: {}, status: 'error', output: 'Error running echo: boom' },
    ]);
    const cancelled = await echo.next();
    expect([cancelled.status, cancelled.output]).toEqual(['cancelled', output]);
    const failed = await echo.next();
    expect([failed.status, failed.output]).toEqual(['error', 'Error running echo: boom']);
  });

  it('answers a call approved in the replay with the next call the run ran, not one declined before it', async () => {
    let runs = 0;
    const refund = tool({
      name: 'refund',
      description: 'Refunds.',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } } } as const,
      needsApproval: true,
      execute: ({ orderId }) => {
        runs += 1;
        return `refunded ${orderId}`;
      },
    });
    const script = [
      { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1' } }] },
      { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1' } }] },
      { text: 'done' },
    ];
    const server = await stub({ model: scriptedModel([...script, ...script]) });
    const decide = () => {
      let n = 0;
      return async () => ({ approved: n++ > 0 });
    };
    const live = await connected(server.url, { tools: [refund], onApproval: decide() });
    const first = await live.run(new Agent({ name: 'S', instructions: '.', tools: [refund] }), 'go');
    await live.close();
    const recording = JSON.parse(JSON.stringify(recordRun(first))) as RunRecording;
    const replayed = replayTools(recording, [refund]);
    const again = await connected(server.url, { tools: replayed, onApproval: decide() });
    const second = await again.run(new Agent({ name: 'S', instructions: '.', tools: replayed }), 'go');
    const lines = (r: typeof first) => r.toolCalls.map((c) => [c.status, c.output]);
    expect(runs).toBe(1);
    expect(lines(second)).toEqual(lines(first));
  });

  it('answers an AI SDK execution-denied and a later ok of the same arguments in the order the run had them', async () => {
    const { lines, recording, runs } = await guardedTwice(
      'Runs when allowed.',
      (run) => ({ denied: run === 1, run }),
      (output) =>
        output.denied
          ? { type: 'execution-denied', reason: 'not yet' }
          : { type: 'text', value: `ran ${output.run}` },
    );
    expect(lines.first).toEqual([
      ['rejected', 'guarded was not run: the user declined. Reason: not yet'],
      ['ok', 'ran 2'],
    ]);
    // The denied call reached execute: its part holds what execute returned, as a projected result's does.
    expect(recording.calls.map((call) => call.result)).toEqual([
      { type: 'json', value: { denied: true, run: 1 } },
      { type: 'json', value: { denied: false, run: 2 } },
    ]);
    expect(runs).toBe(2);
    expect(lines.second).toEqual(lines.first);
  });

  it('keeps the order of an execution-denied call whose execute returned nothing, then an ok one', async () => {
    const { lines, recording } = await guardedTwice(
      'Runs when it has something.',
      (run) => (run === 1 ? undefined : 'fine'),
      (output) =>
        output === undefined
          ? { type: 'execution-denied', reason: 'nothing yet' }
          : { type: 'text', value: `got ${output}` },
    );
    expect(lines.first).toEqual([
      ['rejected', 'guarded was not run: the user declined. Reason: nothing yet'],
      ['ok', 'got fine'],
    ]);
    // It ran and returned nothing: its part says so (JSON has no undefined), unlike a call declined before execute.
    expect(recording.calls[0]?.result).toEqual({ type: 'json', value: null });
    expect(lines.second).toEqual(lines.first);
  });

  it('ends a rejected call that reached execute rejected, and never answers with an invalid_arguments call', async () => {
    const denied = 'echo was not run: the user declined.';
    const echo = echoReplaying([
      {
        toolName: 'echo',
        arguments: {},
        status: 'invalid_arguments',
        output: 'Invalid arguments for echo: x',
      },
      { toolName: 'echo', arguments: {}, status: 'rejected', output: denied },
    ]);
    const first = await echo.next();
    expect([first.status, first.output]).toEqual(['rejected', denied]);
    const second = await echo.next();
    expect(second.status).toBe('error');
    expect(second.output).toMatch(/^Error running echo: no recorded call of echo with these arguments/);
  });

  it('ends a recorded failure as recorded, whatever was thrown, errorFunction not run again', async () => {
    let asked = 0;
    const sorry = tool({
      name: 'sorry',
      description: 'Fails.',
      execute: () => 'live',
      errorFunction: () => {
        asked += 1;
        return 'Sorry';
      },
    });
    const recording: RunRecording = {
      version: 1,
      runId: 'r0',
      calls: [
        // A JSON value thrown that is no object, and a failure whose message was empty.
        {
          toolName: 'sorry',
          arguments: {},
          status: 'error',
          output: 'Sorry: 7',
          result: { type: 'error-json', value: 7 },
        },
        { toolName: 'sorry', arguments: {}, status: 'timeout', output: 'Sorry: late' },
      ],
    };
    const [replayed] = replayTools(recording, [sorry]);
    const thrown = await invokeTool(replayed as typeof sorry, {});
    expect([thrown.status, thrown.output, thrown.error]).toEqual(['error', 'Sorry: 7', 7]);
    const late = await invokeTool(replayed as typeof sorry, {});
    expect([late.status, late.output, (late.error as Error).message]).toEqual([
      'timeout',
      'Sorry: late',
      'Sorry: late',
    ]);
    expect(asked).toBe(0);
  });

  it('replays a result with its widget: the page shows it, toModelOutput reads it, past an outputSchema', async () => {
    const shown = tool({
      name: 'shown',
      description: 's',
      execute: () => ({ c: 3, widget: { type: 'Badge', label: 'C' } }),
      outputSchema: { type: 'object', properties: { c: { type: 'number' } } } as const,
    });
    const read = tool({
      name: 'read',
      description: 'r',
      execute: () => ({ rows: 1, widget: { type: 'Badge', label: 'R' } }),
      toModelOutput: (value: { rows: number; widget?: unknown }) =>
        `rows ${value.rows} ${value.widget !== undefined}`,
    });
    const tools = [shown, read];
    const script = [
      {
        toolCalls: [
          { name: 'shown', arguments: {} },
          { name: 'read', arguments: {} },
        ],
      },
      { text: 'done' },
    ];
    const { first, second } = await liveThenReplayed(tools, script);
    const lines = (calls: typeof first.toolCalls) =>
      calls.map((c) => [c.toolName, c.output, c.result, c.widget]);
    expect(lines(first.toolCalls)).toEqual([
      ['shown', '{"c":3}', { type: 'json', value: { c: 3 } }, { type: 'Badge', label: 'C' }],
      ['read', 'rows 1 true', { type: 'json', value: { rows: 1 } }, { type: 'Badge', label: 'R' }],
    ]);
    expect(lines(second.toolCalls)).toEqual(lines(first.toolCalls));
  });
});
