import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, dropAndWait, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

/** A final turn that joins what the tools returned, so the test can read what the model saw. */
const joinToolMessages = ({ messages }: { messages: readonly { role: string; content: string }[] }) => ({
  text: messages
    .filter((message) => message.role === 'tool')
    .map((message) => message.content)
    .join(' | '),
});

describe('tool calls', () => {
  it('dispatches the calls of one turn in parallel and resumes when every result is in', async () => {
    const server = await stub({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'add', arguments: { a: 1, b: 2 }, id: 'm1' },
            { name: 'mul', arguments: '{"a":3,"b":4}', id: 'm2' },
          ],
        },
        joinToolMessages,
      ]),
    });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('add'), toolDef('mul')] }));
    client.send({ type: 'run_start', requestId: 'q1', agent: agent('calc', ['add', 'mul']), input: 'go' });
    const { runId } = await client.next('run_started');
    const add = await client.next('tool_call', (frame) => frame.toolName === 'add');
    const mul = await client.next('tool_call', (frame) => frame.toolName === 'mul');
    expect(add).toEqual({
      type: 'tool_call',
      callId: expect.stringMatching(/^call_/),
      runId,
      toolName: 'add',
      arguments: { a: 1, b: 2 },
      depth: 0,
      deadlineMs: expect.any(Number),
    });
    expect(mul.arguments).toBe('{"a":3,"b":4}');
    expect(add.deadlineMs).toBeLessThanOrEqual(120_000);
    // Answer in the opposite order: the model still reads them in the order it asked.
    client.result(mul.callId, '12', { durationMs: 1 });
    expect(await client.next('ack')).toEqual({ type: 'ack', callId: mul.callId });
    client.result(add.callId, '3', { widget: { type: 'card', title: 'sum' } });
    expect(await client.next('ack')).toEqual({ type: 'ack', callId: add.callId });
    const result = await client.next('run_result');
    expect(result).toEqual({
      type: 'run_result',
      runId,
      status: 'completed',
      finalOutput: '3 | 12',
      toolCalls: [
        {
          callId: add.callId,
          toolName: 'add',
          arguments: { a: 1, b: 2 },
          status: 'ok',
          output: '3',
          widget: { type: 'card', title: 'sum' },
          durationMs: expect.any(Number),
        },
        {
          callId: mul.callId,
          toolName: 'mul',
          arguments: '{"a":3,"b":4}',
          status: 'ok',
          output: '12',
          durationMs: expect.any(Number),
        },
      ],
      turns: 2,
      model: 'scripted',
    });
    const transcript = server.runs.get(runId);
    expect(transcript?.messages).toEqual([
      { role: 'system', content: 'You are calc.' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'm1', name: 'add', arguments: { a: 1, b: 2 } },
          { id: 'm2', name: 'mul', arguments: '{"a":3,"b":4}' },
        ],
        model: 'scripted',
      },
      // The widget stays in the transcript; the model reads the output only.
      { role: 'tool', content: '3', toolCallId: 'm1' },
      { role: 'tool', content: '12', toolCallId: 'm2' },
      { role: 'assistant', content: '3 | 12', model: 'scripted' },
    ]);
    expect(transcript?.toolCalls.map((call) => [call.toolName, call.widget, call.clientDurationMs])).toEqual([
      ['add', { type: 'card', title: 'sum' }, undefined],
      ['mul', undefined, 1],
    ]);
    expect(client.all('run_event').map((frame) => frame.event.kind)).toEqual([
      'turn',
      'message',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      'turn',
      'message',
    ]);
  });

  it('cancels a call at its deadline and gives the model a timeout result', async () => {
    const server = await stub({
      callDeadlineMs: 40,
      model: scriptedModel([{ toolCalls: [{ name: 'slow' }] }, joinToolMessages]),
    });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('slow')] }));
    const runId = server.runs.start(agent('a', ['slow']), 'go');
    const call = await client.next('tool_call');
    expect(call.deadlineMs).toBeLessThanOrEqual(40);
    expect(call.arguments).toBe(null);
    expect(await client.next('cancel')).toEqual({ type: 'cancel', callId: call.callId, reason: 'deadline' });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.finalOutput).toBe('Error running slow: timed out after 40ms');
    expect(transcript.toolCalls[0]).toMatchObject({
      status: 'timeout',
      state: 'done',
      dispatchedTo: [client.sessionId],
    });
    // A late result from the client it was sent to is acknowledged, not recorded.
    client.result(call.callId, 'too late', { status: 'cancelled' });
    expect(await client.next('ack')).toEqual({ type: 'ack', callId: call.callId });
    expect(server.runs.get(runId)?.toolCalls[0]?.output).toBe('Error running slow: timed out after 40ms');
  });

  it('answers unknown_tool with the available tools when nobody offers the tool or the agent lacks it', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'ghost' }, { name: 'nope' }, { name: 'add' }] },
        joinToolMessages,
      ]),
    });
    const client = track(await TestClient.connect(server.url, { tools: [toolDef('add')] })).serve({
      add: () => '3',
    });
    const runId = server.runs.start(agent('a', ['add', 'ghost']), 'go');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.finalOutput).toBe(
      'Tool "ghost" not found. Available tools: add | Tool "nope" not found. Available tools: add | 3',
    );
    expect(
      transcript.toolCalls.map((call) => [call.toolName, call.status, call.dispatchedTo.length]),
    ).toEqual([
      ['ghost', 'unknown_tool', 0],
      ['nope', 'unknown_tool', 0],
      ['add', 'ok', 1],
    ]);
    expect(client.executions.size).toBe(1);
  });

  it('says no tools are available when no client offers any of the agent tools', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'ghost' }] }, joinToolMessages]),
    });
    const transcript = await server.runs.waitFor(server.runs.start(agent('a', ['ghost']), 'go'));
    expect(transcript.finalOutput).toBe('Tool "ghost" not found. No tools are available.');
  });

  it('spreads the calls of a run nobody owns by fewest calls in flight', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [1, 2, 3, 4].map((n) => ({ name: 'work', arguments: { n } })) },
        joinToolMessages,
      ]),
    });
    const a = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const b = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const onA = [await a.next('tool_call'), await a.next('tool_call')];
    const onB = [await b.next('tool_call'), await b.next('tool_call')];
    expect(onA.map((call) => call.arguments)).toEqual([{ n: 1 }, { n: 3 }]);
    expect(onB.map((call) => call.arguments)).toEqual([{ n: 2 }, { n: 4 }]);
    expect(server.sessions().map((session) => session.inFlight)).toEqual([2, 2]);
    for (const call of onA) a.result(call.callId, `a${JSON.stringify(call.arguments)}`);
    for (const call of onB) b.result(call.callId, `b${JSON.stringify(call.arguments)}`);
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.finalOutput).toBe('a{"n":1} | b{"n":2} | a{"n":3} | b{"n":4}');
  });

  it('sends a new call to the client with the fewest in flight', async () => {
    const server = await stub({
      model: scriptedModel({
        first: [{ toolCalls: [{ name: 'work' }, { name: 'work' }] }, joinToolMessages],
        second: [{ toolCalls: [{ name: 'work' }] }, joinToolMessages],
      }),
    });
    const a = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const b = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    server.runs.start(agent('first', ['work']), 'go');
    const [onA, onB] = [await a.next('tool_call'), await b.next('tool_call')];
    a.result(onA.callId, 'done');
    await a.next('ack');
    // A now has nothing in flight, B has one: the next call goes to A.
    server.runs.start(agent('second', ['work']), 'go');
    const next = await a.next('tool_call');
    expect(next.runId).not.toBe(onA.runId);
    expect(b.all('tool_call')).toEqual([onB]);
  });

  it('keeps the calls of a run on the client that started it', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'work' }, { name: 'work' }, { name: 'work' }] },
        joinToolMessages,
      ]),
    });
    const owner = track(await TestClient.connect(server.url, { tools: [toolDef('work')] })).serve({
      work: () => 'mine',
    });
    const other = track(await TestClient.connect(server.url, { tools: [toolDef('work')] })).serve({
      work: () => 'other',
    });
    owner.send({ type: 'run_start', requestId: 'q', agent: agent('a', ['work']), input: 'go' });
    const result = await owner.next('run_result');
    expect(result.finalOutput).toBe('mine | mine | mine');
    expect(other.executions.size).toBe(0);
  });

  it('offers a call answered "busy" to another client, without recording the busy answer', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const a = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const b = track(await TestClient.connect(server.url, { tools: [toolDef('work')] })).serve({
      work: () => 'from b',
    });
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const call = await a.next('tool_call');
    a.result(call.callId, 'Error running work: the client is busy; try again later', {
      status: 'error',
      retryable: true,
    });
    expect(await a.next('ack')).toEqual({ type: 'ack', callId: call.callId });
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.finalOutput).toBe('from b');
    expect(transcript.toolCalls[0]?.dispatchedTo).toEqual([a.sessionId, b.sessionId]);
    expect(b.executions.get(call.callId)).toBe(1);
  });

  it('offers a busy call again to the same client after busyRetryMs when no other client has the tool', async () => {
    const server = await stub({
      busyRetryMs: 10,
      model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, joinToolMessages]),
    });
    const a = track(await TestClient.connect(server.url, { tools: [toolDef('work')] }));
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const first = await a.next('tool_call');
    a.result(first.callId, 'busy', { status: 'error', retryable: true });
    const again = await a.next('tool_call');
    expect(again.callId).toBe(first.callId);
    a.result(again.callId, 'finally');
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('finally');
  });

  it('sends waiting calls to a client once tools_update announces the tool', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'late' }] }, joinToolMessages]),
    });
    const a = track(await TestClient.connect(server.url, { tools: [toolDef('late')] }));
    await dropAndWait(server, a); // detached: its session may come back, so the call waits
    const b = track(await TestClient.connect(server.url, { tools: [] }));
    const runId = server.runs.start(agent('a', ['late']), 'go');
    await once(server, 'run_event', (info) => info.runId === runId && info.kind === 'tool_call');
    expect(server.runs.get(runId)?.toolCalls[0]?.state).toBe('waiting');
    b.send({ type: 'tools_update', tools: [toolDef('late')] });
    const call = await b.next('tool_call');
    b.result(call.callId, 'here');
    expect((await server.runs.waitFor(runId)).finalOutput).toBe('here');
  });
});
