/**
 * Feature `owed_calls` (docs/protocol/calls-no-longer-held.md): the stub lists in a resume's `welcome` the calls the session still
 * owes a result for (`owed`), so that its client drops the others, whose `cancel` was lost with the socket. Only to
 * a client that offered the feature, only on a resume, and only when the list fits the frame limit. Every step
 * waits for a frame or an event, never for time.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { agent, dropAndWait, stub, track } from './helpers';
import { TestClient, type TestClientOptions, toolDef } from './test-client';

/** A model that calls `export` `count` times in one turn, then ends the run. */
const calling = (count: number) =>
  scriptedModel([{ toolCalls: Array.from({ length: count }, () => ({ name: 'export' })) }, { text: 'done' }]);

/** A worker offering `export` (closed after the test). */
async function worker(url: string, options: TestClientOptions = {}): Promise<TestClient> {
  return track(await TestClient.connect(url, { tools: [toolDef('export')], ...options }));
}

/** The next `count` tool calls `client` gets, by id. */
async function calls(client: TestClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await client.next('tool_call')).callId);
  return ids;
}

/** Resolves once the stub has read every frame `client` sent before. */
async function settled(client: TestClient): Promise<void> {
  const id = `sync-${client.received.length}`;
  client.send({ type: 'ping', id });
  await client.next('pong', (frame) => frame.id === id);
}

describe('welcome.owed on a resume', () => {
  it('lists the calls the session still owes (dispatched, held for its approval), not those that ended while it was away', async () => {
    const server = await stub({ model: calling(3) });
    const client = await worker(server.url, { features: ['owed_calls'] });
    const cancelled = server.runs.start(agent('a', ['export']), 'refund');
    const [a1, a2, a3] = await calls(client, 3);
    const kept = server.runs.start(agent('a', ['export']), 'export');
    const [b1, b2, b3] = await calls(client, 3);
    // b1 answered (its result recorded), b2 held for the approval its worker asked for, b3 still running.
    client.result(b1 as string, 'exported');
    await client.next('ack');
    client.send({ type: 'approval_request', callId: b2 as string });
    await settled(client);
    await dropAndWait(server, client);
    // The run's cancels are written while the socket is down: lost, and not repeated on the resume.
    expect(server.runs.cancel(cancelled)).toBe(true);
    const welcome = await client.reconnect();
    expect(welcome).toMatchObject({ resumed: true, features: ['owed_calls'] });
    expect([...(welcome.owed ?? [])].sort()).toEqual([b2, b3].sort());
    expect(welcome.owed).not.toContain(a1);
    expect(welcome.owed).not.toContain(a2);
    expect(welcome.owed).not.toContain(a3);
    expect(server.runs.get(kept)?.toolCalls.map((call) => call.state)).toEqual([
      'done',
      'awaiting_approval',
      'dispatched',
    ]);
  });

  it('is an empty list when every call of the session ended while it was away', async () => {
    const server = await stub({ model: calling(2) });
    const client = await worker(server.url, { features: ['owed_calls'] });
    const runId = server.runs.start(agent('a', ['export']), 'refund');
    await calls(client, 2);
    await dropAndWait(server, client);
    server.runs.cancel(runId);
    expect((await client.reconnect()).owed).toEqual([]);
  });

  it('is left out when it would take the welcome over the frame limit, with a warn', async () => {
    const server = await stub({ model: calling(30), maxPayloadBytes: 1024 });
    const client = await worker(server.url, { features: ['owed_calls'] });
    server.runs.start(agent('a', ['export']), 'export');
    await calls(client, 30);
    await dropAndWait(server, client);
    const welcome = await client.reconnect();
    expect(welcome.resumed).toBe(true);
    expect(welcome).not.toHaveProperty('owed');
    expect(server.log.filter((line) => line.message.startsWith('welcome.owed'))).toMatchObject([
      {
        level: 'warn',
        message: 'welcome.owed left out: the list of calls owed would take the welcome over the frame limit',
        fields: { calls: 30, maxPayloadBytes: 1024 },
      },
    ]);
    // The calls are sent again as before: the client keeps what it holds.
    await calls(client, 30);
  });

  it.each([
    ['a client that did not offer owed_calls (an older one)', {}, { features: ['lease'] }],
    [
      'a service that does not use owed_calls',
      { features: ['lease'] as const },
      { features: ['lease', 'owed_calls'] },
    ],
  ])('is not sent to %s', async (_case, stubOptions, clientOptions) => {
    const server = await stub({ model: calling(1), ...stubOptions });
    const client = await worker(server.url, clientOptions);
    const runId = server.runs.start(agent('a', ['export']), 'refund');
    await calls(client, 1);
    await dropAndWait(server, client);
    server.runs.cancel(runId);
    const welcome = await client.reconnect();
    expect(welcome).toMatchObject({ resumed: true, features: ['lease'] });
    expect(welcome).not.toHaveProperty('owed');
  });

  it('is not sent in the welcome of a new session', async () => {
    const server = await stub({ model: calling(1) });
    const client = await worker(server.url, { features: ['owed_calls'] });
    expect(client.welcome).toMatchObject({ resumed: false, features: ['owed_calls'] });
    expect(client.welcome).not.toHaveProperty('owed');
  });
});
