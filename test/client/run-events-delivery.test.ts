/**
 * What a run's events and result reach the application as (docs/reference/events.md, docs/guide/secrets.md): the
 * ids and words in them redacted at any depth, for `client.on('run_event')` and a run's `onEvent` alike; each
 * event once, those of an ended run sent again after a resume included; an `onEvent` that throws reported; a
 * completed run without the model's text refused.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client/run-events';
import { Agent, Client, RunError, tool } from '../../src/index';
import { FAKE_URL, type FakeConnection, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();
const KEY = 'sk-run-events-4242';
const agent = new Agent({ name: 'A', instructions: '' });

async function connected() {
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: KEY,
    tools: [],
    reconnect: false,
  });
  clients.push(client);
  const connection = await service.connect(client);
  return { client, connection };
}

/** Starts a run on `connection`, answers `run_started` with `runId`; resolves with the run's promise. */
async function started(
  client: Client,
  connection: FakeConnection,
  runId: string,
  onEvent?: (e: RunEvent) => void,
) {
  const start = connection.next('run_start');
  const run = client.run(agent, 'go', onEvent === undefined ? {} : { onEvent });
  const { requestId } = await start;
  connection.send({ type: 'run_started', requestId, runId });
  return { run };
}

const message = (runId: string, seq: number) => ({
  type: 'run_event',
  runId,
  seq,
  event: {
    kind: 'message',
    data: {
      role: 'assistant',
      content: `use ${KEY}`,
      toolCalls: [{ id: `call-${KEY}`, name: 'x', arguments: { k: KEY } }],
    },
  },
});
const result = (runId: string, finalOutput: unknown) => ({
  type: 'run_result',
  runId,
  status: 'completed',
  ...(finalOutput === undefined ? {} : { finalOutput }),
  toolCalls: [],
  turns: 1,
});

describe('a run’s events', () => {
  it('reach onEvent and run_event listeners redacted at any depth', async () => {
    const { client, connection } = await connected();
    const seen: unknown[] = [];
    client.on('run_event', (event) => seen.push(event));
    const runId = `run-${KEY}`;
    const { run } = await started(client, connection, runId, (event) => seen.push(event));
    connection.send(message(runId, 1));
    connection.send(result(runId, 'done'));
    await run;
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toMatchObject({
      kind: 'message',
      runId: 'run-[redacted]',
      content: 'use [redacted]',
      toolCalls: [{ id: 'call-[redacted]', arguments: { k: '[redacted]' } }],
    });
    expect(JSON.stringify(seen)).not.toContain(KEY);
  });

  it('come once: those of an ended run sent again after a resume are dropped', async () => {
    const { client, connection } = await connected();
    const seen: string[] = [];
    client.on('run_event', (event) => seen.push(`${event.runId} ${event.kind}`));
    const { run } = await started(client, connection, 'r1');
    connection.send(message('r1', 1));
    connection.send(result('r1', 'done'));
    await expect(run).resolves.toMatchObject({ finalOutput: 'done' });
    // The service sends the ended run's events again (a resume within its replay window).
    connection.send(message('r1', 1));
    const again = await started(client, connection, 'r2');
    connection.send(message('r2', 1));
    connection.send(result('r2', 'done'));
    await again.run;
    expect(seen).toEqual(['r1 message', 'r2 message']);
  });

  it('of a run this client did not start are dropped, an approval of it included', async () => {
    const { client, connection } = await connected();
    const seen: string[] = [];
    client.on('run_event', (event) => seen.push(`${event.runId} ${event.kind}`));
    client.on('approval_requested', (request) => seen.push(`approval ${request.callId}`));
    connection.send(message('stranger', 1));
    connection.send({
      type: 'run_event',
      runId: 'stranger',
      seq: 2,
      event: {
        kind: 'approval_requested',
        data: { callId: 'c9', toolName: 'x', arguments: {} },
      },
    });
    const { run } = await started(client, connection, 'r1');
    connection.send(message('r1', 1));
    connection.send(result('r1', 'done'));
    await run;
    expect(seen).toEqual(['r1 message']);
  });

  it('whose fields do not have their kind’s shape are not delivered (a turn below 1, a negative duration)', async () => {
    const { client, connection } = await connected();
    const seen: string[] = [];
    client.on('run_event', (event) => seen.push(`${event.kind} ${event.seq}`));
    const { run } = await started(client, connection, 'r1');
    const event = (seq: number, kind: string, data: object) =>
      connection.send({ type: 'run_event', runId: 'r1', seq, event: { kind, data } });
    const call = { callId: 'c1', toolName: 'x' };
    event(1, 'turn', { turn: -3 });
    event(2, 'turn', { turn: 1.5 });
    event(3, 'text_delta', { turn: 0, delta: 'a' });
    event(4, 'tool_call', { ...call, arguments: {}, depth: -1 });
    event(5, 'tool_result', { ...call, status: 'ok', output: 'o', durationMs: -1 });
    event(6, 'turn', { turn: 1 });
    event(7, 'tool_call', { ...call, arguments: {}, depth: 0 });
    event(8, 'tool_result', { ...call, status: 'ok', output: 'o', durationMs: 0 });
    connection.send(result('r1', 'done'));
    await run;
    expect(seen).toEqual(['turn 6', 'tool_call 7', 'tool_result 8']);
  });

  it('an onEvent that throws is reported as listener_failed; the run goes on', async () => {
    const { client, connection } = await connected();
    const errors: Error[] = [];
    client.on('error', (error) => errors.push(error));
    const { run } = await started(client, connection, 'r1', () => {
      throw new Error('listener bug');
    });
    connection.send(message('r1', 1));
    connection.send(result('r1', 'done'));
    await expect(run).resolves.toMatchObject({ finalOutput: 'done' });
    expect(errors).toEqual([
      expect.objectContaining({ code: 'listener_failed', cause: new Error('listener bug') }),
    ]);
  });
});

describe('a run’s events about a tool with sensitive fields', () => {
  it('show those fields redacted, in a call’s arguments and in a message’s tool calls', async () => {
    const pay = tool({
      name: 'pay',
      description: 'Pays.',
      parameters: {
        type: 'object',
        properties: { pin: { type: 'string' }, amount: { type: 'number' } },
      } as const,
      sensitiveFieldNames: ['pin'],
      execute: () => 'paid',
    });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: KEY,
      tools: [pay],
      reconnect: false,
    });
    clients.push(client);
    const connection = await service.connect(client);
    const seen: unknown[] = [];
    client.on('run_event', (event) => seen.push(event));
    const { run } = await started(client, connection, 'r1', (event) => seen.push(event));
    connection.send({
      type: 'run_event',
      runId: 'r1',
      seq: 1,
      event: {
        kind: 'message',
        data: {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'm1', name: 'pay', arguments: '{"pin":"97531","amount":5}' }],
        },
      },
    });
    connection.send({
      type: 'run_event',
      runId: 'r1',
      seq: 2,
      event: {
        kind: 'tool_call',
        data: { callId: 'c1', toolName: 'pay', arguments: { pin: '97531', amount: 5 }, depth: 0 },
      },
    });
    connection.send(result('r1', 'done'));
    await run;
    expect(seen).toHaveLength(4);
    expect(JSON.stringify(seen)).not.toContain('97531');
    expect(seen[3]).toMatchObject({ kind: 'tool_call', arguments: { pin: '[redacted]', amount: 5 } });
  });
});

describe('a completed run without the model’s text', () => {
  it.each([
    [undefined, 'none'],
    [42, 'number'],
    [null, 'null'],
  ])('rejects run() invalid_output (finalOutput %s)', async (finalOutput, got) => {
    const { client, connection } = await connected();
    const { run } = await started(client, connection, 'r1');
    connection.send(result('r1', finalOutput));
    const error = await run.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({
      code: 'invalid_output',
      message: `the final output of A does not match its output (no outputType): expected the model's text (a string), got ${got}`,
    });
  });
});
