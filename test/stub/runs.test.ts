import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type Model, type RunTranscript, scriptedModel } from '../../server-stub/index';
import { Agent, tool } from '../../src/index';
import { agent, http, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const lookupModel = () =>
  scriptedModel([
    { toolCalls: [{ name: 'lookup', arguments: { id: 7 }, id: 'm1' }], text: 'let me look' },
    ({ messages }) => ({ text: `found ${messages.at(-1)?.content}` }),
  ]);

describe('runs over HTTP', () => {
  it('starts a run by agent name, executes its tool in a client and returns the transcript', async () => {
    const support = agent('support', ['lookup']);
    const server = await stub({ apiKeys: ['k'], model: lookupModel(), agents: [support] });
    const client = track(
      await TestClient.connect(server.url, { apiKey: 'k', tools: [toolDef('lookup')] }),
    ).serve({
      lookup: (args) => ({
        output: `order ${(args as { id: number }).id}`,
        widget: { type: 'order', id: 7 },
      }),
    });
    const started = await http(server, 'POST', '/v1/runs', { agent: 'support', input: 'where is 7?' }, 'k');
    expect(started.status).toBe(201);
    const { runId } = started.body as { runId: string };
    expect(started.body).toEqual({ runId, status: 'running' });
    expect(started.headers.get('location')).toBe(`/v1/runs/${runId}`);
    await server.runs.waitFor(runId);
    const { status, body } = await http(server, 'GET', `/v1/runs/${runId}`, undefined, 'k');
    expect(status).toBe(200);
    const transcript = body as RunTranscript;
    const callId = client.all('tool_call')[0]?.callId;
    expect(transcript).toEqual({
      runId,
      agent: support,
      input: 'where is 7?',
      status: 'completed',
      depth: 0,
      startedBy: 'http',
      maxTurns: 10,
      turns: 2,
      messages: [
        { role: 'system', content: 'You are support.' },
        { role: 'user', content: 'where is 7?' },
        {
          role: 'assistant',
          content: 'let me look',
          toolCalls: [{ id: 'm1', name: 'lookup', arguments: { id: 7 } }],
          model: 'scripted',
        },
        { role: 'tool', content: 'order 7', toolCallId: 'm1' },
        { role: 'assistant', content: 'found order 7', model: 'scripted' },
      ],
      toolCalls: [
        {
          callId,
          modelCallId: 'm1',
          turn: 1,
          toolName: 'lookup',
          arguments: { id: 7 },
          depth: 0,
          state: 'done',
          status: 'ok',
          output: 'order 7',
          result: { type: 'text', value: 'order 7' },
          widget: { type: 'order', id: 7 },
          dispatchedTo: [client.sessionId],
          answeredBy: client.sessionId,
          startedAt: expect.any(String),
          finishedAt: expect.any(String),
          durationMs: expect.any(Number),
        },
      ],
      events: expect.any(Array),
      finalOutput: 'found order 7',
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      durationMs: expect.any(Number),
    });
    expect(transcript.events.map((event) => event.kind)).toEqual([
      'turn',
      'message',
      'tool_call',
      'tool_result',
      'turn',
      'message',
    ]);
  });

  it('starts a run from an inline agent definition and lists runs newest first', async () => {
    const server = await stub({ model: scriptedModel([{ text: 'hi' }]) });
    const first = await http(server, 'POST', '/v1/runs', { agent: agent('one', []), input: 'a' });
    const second = await http(server, 'POST', '/v1/runs', {
      agent: agent('two', []),
      input: 'b',
      maxTurns: 3,
    });
    const ids = [first, second].map((response) => (response.body as { runId: string }).runId);
    await Promise.all(ids.map((id) => server.runs.waitFor(id)));
    const listed = await http(server, 'GET', '/v1/runs');
    expect(listed.status).toBe(200);
    expect((listed.body as { runs: unknown[] }).runs).toEqual([
      {
        runId: ids[1],
        agent: 'two',
        inputPreview: 'b',
        status: 'completed',
        depth: 0,
        turns: 1,
        toolCalls: 0,
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
      },
      {
        runId: ids[0],
        agent: 'one',
        inputPreview: 'a',
        status: 'completed',
        depth: 0,
        turns: 1,
        toolCalls: 0,
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
      },
    ]);
    expect(server.runs.get(ids[1] ?? '')?.maxTurns).toBe(3);
  });

  it('refuses requests without the key, bad JSON, bad bodies, unknown agents and unknown runs', async () => {
    const server = await stub({ apiKeys: ['k'], agents: [agent('known', [])] });
    expect(await http(server, 'GET', '/v1/runs')).toMatchObject({
      status: 401,
      body: {
        error: { code: 'unauthorized', message: 'missing API key: send "Authorization: Bearer <key>"' },
      },
    });
    expect(await http(server, 'GET', '/v1/runs', undefined, 'wrong')).toMatchObject({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'invalid API key' } },
    });
    const badJson = await http(server, 'POST', '/v1/runs', '{"agent":', 'k');
    expect(badJson.status).toBe(400);
    expect((badJson.body as { error: { code: string; message: string } }).error.code).toBe('invalid_json');
    expect((badJson.body as { error: { message: string } }).error.message).toMatch(
      /^request body is not valid JSON: /,
    );
    expect(await http(server, 'POST', '/v1/runs', { agent: 'known' }, 'k')).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'input must be a string' } },
    });
    expect(await http(server, 'POST', '/v1/runs', [1], 'k')).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'request body must be a JSON object' } },
    });
    expect(await http(server, 'POST', '/v1/runs', { agent: { name: '' }, input: 'x' }, 'k')).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message:
            'agent.name must be at least 1 character; agent.instructions must be a string; agent.tools must be an array',
        },
      },
    });
    expect(await http(server, 'POST', '/v1/runs', { agent: 'unknown', input: 'x' }, 'k')).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_agent', message: 'no agent named "unknown" (known: known)' } },
    });
    expect(
      await http(server, 'POST', '/v1/runs', { agent: 'known', input: 'x', maxTurns: 0 }, 'k'),
    ).toMatchObject({
      status: 400,
      body: {
        error: { code: 'invalid_request', message: 'maxTurns must be an integer from 1 to 9007199254740991' },
      },
    });
    expect(await http(server, 'GET', '/v1/runs/run_nope', undefined, 'k')).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_run', message: 'no run "run_nope"' } },
    });
    expect(await http(server, 'DELETE', '/v1/runs', undefined, 'k')).toMatchObject({
      status: 405,
      body: { error: { code: 'method_not_allowed', message: 'DELETE is not allowed on /v1/runs' } },
    });
    expect(await http(server, 'GET', '/v2/else', undefined, 'k')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'no route for /v2/else' } },
    });
    expect(await http(server, 'GET', '/v1/health')).toMatchObject({
      status: 200,
      body: { ok: true, protocol: 1 },
    });
  });

  it('answers 413 to a body over maxHttpBodyBytes', async () => {
    const server = await stub({ maxHttpBodyBytes: 100 });
    expect(await http(server, 'POST', '/v1/runs', { agent: 'x', input: 'y'.repeat(200) })).toMatchObject({
      status: 413,
      body: { error: { code: 'payload_too_large', message: 'request body is 224 bytes; the limit is 100' } },
    });
    // Without a Content-Length (chunked), the limit holds while reading.
    const chunked = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
      const request = httpRequest(`${server.httpUrl}/v1/runs`, { method: 'POST' }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode, body }));
      });
      request.on('error', reject);
      for (let i = 0; i < 10; i++) request.write('x'.repeat(50));
      request.end();
    });
    expect(chunked).toEqual({
      status: 413,
      body: JSON.stringify({
        error: { code: 'payload_too_large', message: 'request body exceeds 100 bytes' },
      }),
    });
  });

  it('cancels a run over HTTP, cancelling its call in flight, and refuses to cancel it twice', async () => {
    const server = await stub({ model: lookupModel() });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('lookup')] }));
    const { runId } = (await http(server, 'POST', '/v1/runs', { agent: agent('a', ['lookup']), input: 'x' }))
      .body as { runId: string };
    const call = await client.next('tool_call');
    expect((await http(server, 'POST', `/v1/runs/${runId}/cancel`)).body).toEqual({
      runId,
      status: 'cancelled',
    });
    expect(await client.next('cancel')).toEqual({
      type: 'cancel',
      callId: call.callId,
      reason: 'run_cancelled',
    });
    expect(await http(server, 'POST', `/v1/runs/${runId}/cancel`)).toMatchObject({
      status: 409,
      body: { error: { code: 'not_allowed', message: `run ${runId} is already cancelled` } },
    });
    expect(server.runs.get(runId)).toMatchObject({ status: 'cancelled', error: 'the run was cancelled' });
  });

  it('starts a run of an Agent given as it is, its tools by name', async () => {
    const server = await stub({ model: lookupModel() });
    track(await TestClient.connect(server.url, { tools: [toolDef('lookup')] })).serve({
      lookup: () => 'found',
    });
    const lookup = tool({ name: 'lookup', description: 'Looks up.', execute: () => 'not run here' });
    const runId = server.runs.start(new Agent({ name: 'a', instructions: '', tools: [lookup] }), 'x');
    expect(await server.runs.waitFor(runId)).toMatchObject({
      status: 'completed',
      toolCalls: [expect.objectContaining({ toolName: 'lookup', status: 'ok', output: 'found' })],
    });
  });

  it('streams the events of a run as Server-Sent Events', async () => {
    const server = await stub({ model: lookupModel() });
    track(await TestClient.connect(server.url, { tools: [toolDef('lookup')] })).serve({
      lookup: () => 'found',
    });
    const runId = server.runs.start(agent('a', ['lookup']), 'x');
    const response = await fetch(`${server.httpUrl}/v1/runs/${runId}/events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    const names = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(names).toEqual(['turn', 'message', 'tool_call', 'tool_result', 'turn', 'message', 'end']);
    expect(text.endsWith('event: end\ndata: {"status":"completed"}\n\n')).toBe(true);
  });
});

describe('runs over the socket', () => {
  it('fails a run whose model keeps calling tools after maxTurns', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'loop' }] }, { toolCalls: [{ name: 'loop' }] }]),
    });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('loop')] })).serve({
      loop: () => 'again',
    });
    client.send({ type: 'run_start', requestId: 'q', agent: agent('a', ['loop']), input: 'go', maxTurns: 2 });
    const result = await client.next('run_result');
    expect(result).toMatchObject({
      status: 'failed',
      error: 'Max turns (2) exceeded: the model was still calling tools after 2 turns',
      turns: 2,
    });
    expect(result.toolCalls).toHaveLength(2);
  });

  it('fails a run with the model error message when the model throws', async () => {
    const broken: Model = {
      nextTurn: async () => {
        throw new Error('model exploded');
      },
    };
    const server = await stub({ model: broken });
    const client = track(await TestClient.connect(server.url));
    client.send({ type: 'run_start', requestId: 'q', agent: agent('a', []), input: 'go' });
    expect(await client.next('run_result')).toMatchObject({
      status: 'failed',
      error: 'model exploded',
      turns: 0,
    });
  });

  it('parses and checks the final output against the agent outputSchema', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const server = await stub({
      model: scriptedModel({
        good: [{ text: '{"n":4}' }],
        bad: [{ text: '{"m":4}' }],
        prose: [{ text: 'four' }],
      }),
    });
    const client = track(await TestClient.connect(server.url));
    for (const name of ['good', 'bad', 'prose']) {
      client.send({
        type: 'run_start',
        requestId: name,
        agent: agent(name, [], { outputSchema: schema }),
        input: '?',
      });
    }
    const results = new Map<string, unknown>();
    for (let i = 0; i < 3; i++) {
      const started = await client.next('run_started');
      const result = await client.next('run_result', (frame) => frame.runId === started.runId);
      results.set(started.requestId, result.status === 'completed' ? result.finalOutput : result.error);
    }
    expect(Object.fromEntries(results)).toEqual({
      good: { n: 4 },
      bad: 'the final output does not match the agent\'s outputSchema (the SDK\'s outputType): #: Instance does not have required property "n".',
      prose:
        "the final output is not JSON, but the agent has an outputSchema (the SDK's outputType): invalid syntax at position 1",
    });
  });

  it('names an output mismatch run_result.code invalid_output, only to a client with the feature run_codes', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const server = await stub({
      model: scriptedModel([{ text: '{"m":4}' }, { text: 'four' }, { text: '{"m":4}' }]),
    });
    const codes: unknown[] = [];
    for (const features of [['run_codes'], ['run_codes'], undefined]) {
      const client = track(await TestClient.connect(server.url, features === undefined ? {} : { features }));
      client.send({
        type: 'run_start',
        requestId: 'q',
        agent: agent('a', [], { outputSchema: schema }),
        input: '?',
      });
      const result = await client.next('run_result');
      expect(result.status).toBe('failed');
      codes.push(result.code);
    }
    expect(codes).toEqual(['invalid_output', 'invalid_output', undefined]);
  });

  it('runs a nested run one level deeper, carrying depth in its tool calls', async () => {
    const server = await stub({
      model: scriptedModel({
        outer: [
          { toolCalls: [{ name: 'research', arguments: { input: 'cats' } }] },
          ({ messages }) => ({ text: `outer: ${messages.at(-1)?.content}` }),
        ],
        researcher: [
          { toolCalls: [{ name: 'search' }] },
          ({ messages }) => ({ text: `inner: ${messages.at(-1)?.content}` }),
        ],
      }),
    });
    const client = track(
      await TestClient.connect(server.url, { tools: [toolDef('research'), toolDef('search')] }),
    );
    client.send({ type: 'run_start', requestId: 'outer', agent: agent('outer', ['research']), input: 'go' });
    const { runId: outerId } = await client.next('run_started');
    const research = await client.next('tool_call', (frame) => frame.toolName === 'research');
    expect(research.depth).toBe(0);
    client.send({
      type: 'run_start',
      requestId: 'inner',
      agent: agent('researcher', ['search']),
      input: 'cats',
      parentRunId: outerId,
      parentCallId: research.callId,
    });
    const { runId: innerId } = await client.next('run_started', (frame) => frame.requestId === 'inner');
    const search = await client.next('tool_call', (frame) => frame.toolName === 'search');
    expect(search).toMatchObject({ runId: innerId, depth: 1 });
    client.result(search.callId, '3 results');
    const inner = await client.next('run_result', (frame) => frame.runId === innerId);
    expect(inner.finalOutput).toBe('inner: 3 results');
    client.result(research.callId, String(inner.finalOutput));
    const outer = await client.next('run_result', (frame) => frame.runId === outerId);
    expect(outer.finalOutput).toBe('outer: inner: 3 results');
    expect(server.runs.get(innerId)).toMatchObject({
      depth: 1,
      parentRunId: outerId,
      parentCallId: research.callId,
    });
  });

  it('refuses a nested run beyond maxRunDepth and one whose parent is unknown', async () => {
    const server = await stub({ maxRunDepth: 1, model: scriptedModel([{ toolCalls: [{ name: 'wait' }] }]) });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('wait')] }));
    client.send({ type: 'run_start', requestId: 'r0', agent: agent('a', ['wait']), input: 'go' });
    const { runId: r0 } = await client.next('run_started');
    client.send({
      type: 'run_start',
      requestId: 'r1',
      agent: agent('a', ['wait']),
      input: 'go',
      parentRunId: r0,
    });
    const { runId: r1 } = await client.next('run_started');
    client.send({
      type: 'run_start',
      requestId: 'r2',
      agent: agent('a', ['wait']),
      input: 'go',
      parentRunId: r1,
    });
    expect(await client.next('error')).toEqual({
      type: 'error',
      code: 'not_allowed',
      message: 'run nesting depth 2 exceeds the limit of 1 (maxRunDepth)',
      requestId: 'r2',
    });
    client.send({
      type: 'run_start',
      requestId: 'r3',
      agent: agent('a', []),
      input: 'go',
      parentRunId: 'run_nope',
    });
    expect(await client.next('error')).toEqual({
      type: 'error',
      code: 'unknown_run',
      message: 'no run "run_nope"',
      requestId: 'r3',
    });
  });

  it('cancels a run and its nested runs on run_cancel', async () => {
    const server = await stub({ model: scriptedModel([{ toolCalls: [{ name: 'wait' }] }]) });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('wait')] }));
    client.send({ type: 'run_start', requestId: 'outer', agent: agent('a', ['wait']), input: 'go' });
    const { runId: outer } = await client.next('run_started');
    const outerCall = await client.next('tool_call');
    client.send({
      type: 'run_start',
      requestId: 'inner',
      agent: agent('a', ['wait']),
      input: 'go',
      parentRunId: outer,
    });
    const { runId: inner } = await client.next('run_started');
    const innerCall = await client.next('tool_call', (frame) => frame.runId === inner);
    const innerEnded = once(server, 'run_finished', (transcript) => transcript.runId === inner);
    client.send({ type: 'run_cancel', runId: outer, reason: 'user pressed stop' });
    expect(await client.next('run_result', (frame) => frame.runId === outer)).toMatchObject({
      status: 'cancelled',
      error: 'the run was cancelled: user pressed stop',
      toolCalls: [
        {
          callId: outerCall.callId,
          status: 'cancelled',
          output: 'Error running wait: the call was cancelled',
        },
      ],
    });
    expect((await innerEnded).error).toBe(`the run was cancelled: its parent run ${outer} is cancelled`);
    const cancels = client.all('cancel').map((frame) => frame.callId);
    expect(cancels.sort()).toEqual([outerCall.callId, innerCall.callId].sort());
  });

  it('fails a run the script has no turn for, saying so, instead of making up an answer', async () => {
    const server = await stub({ model: scriptedModel({ known: [{ text: 'one' }], empty: [] }) });
    const ran = server.runs.start(agent('known', []), 'x');
    const other = server.runs.start(agent('other', []), 'x');
    const empty = server.runs.start(agent('empty', []), 'x');
    expect(await server.runs.waitFor(ran)).toMatchObject({ status: 'completed', finalOutput: 'one' });
    const noScript =
      'The stub plays a scripted model, not a language model: give it turns (startStubServer({ model: scriptedModel([...]) }), toolwire-stub --script turns.json) or a real model (openAIChatModel, --openai-base-url)';
    for (const [runId, name] of [
      [other, 'other'],
      [empty, 'empty'],
    ] as const) {
      const transcript = await server.runs.waitFor(runId);
      expect(transcript).toMatchObject({
        status: 'failed',
        turns: 0,
        error: `scriptedModel: no script for agent "${name}" (it has turns for: known), so the run cannot go on. ${noScript}`,
      });
      expect(transcript).not.toHaveProperty('finalOutput');
    }
  });

  it('fails a run of a stub started without a model, and tells the client it was scripted', async () => {
    const server = await stub();
    const client = track(await TestClient.connect(server.url));
    client.send({ type: 'run_start', requestId: 'q1', agent: agent('Support', []), input: 'hello?' });
    const result = await client.next('run_result');
    expect(result).toEqual({
      type: 'run_result',
      runId: expect.any(String),
      status: 'failed',
      error:
        'scriptedModel: no script for agent "Support", so the run cannot go on. The stub plays a scripted model, not a language model: give it turns (startStubServer({ model: scriptedModel([...]) }), toolwire-stub --script turns.json) or a real model (openAIChatModel, --openai-base-url)',
      toolCalls: [],
      turns: 0,
      model: 'scripted',
    });
  });

  it('fails a run that asks for more turns than the script has', async () => {
    const server = await stub({ model: scriptedModel([{ toolCalls: [{ name: 'nope' }] }]) });
    const runId = server.runs.start(agent('a', ['nope']), 'x');
    expect(await server.runs.waitFor(runId)).toMatchObject({
      status: 'failed',
      turns: 1,
      error: 'scriptedModel: the script for agent "a" has no turn 2 (it has 1), so the run cannot go on',
    });
  });
});
