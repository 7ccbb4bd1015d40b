/**
 * The feature `approval_waits` (docs/protocol/approvals.md): a client says which calls wait for its own approver (a
 * person, say), so the service counts them in no slot and sends the worker calls that can run at once, within the
 * client's bound; such a call stays leased and is never asked back. An older client, or a service without the
 * feature, works as before.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Agent, Client, tool } from '../../src/index';
import { FEATURES } from '../../src/wire/protocol';
import { afterTest } from '../support/after-test';
import { olderWebSocket } from '../support/older-websocket';
import { agent, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const REFUNDS = 8;

/** 8 refunds wait for a person (`onApproval` never answers) on a worker of 4 slots; then a `lookup` run. */
async function refundsWaiting(options: { stubFeatures?: readonly string[]; older?: boolean }) {
  const server = await stub({
    callDeadlineMs: 1_500,
    // The client renews the leases of the calls waiting for its approver: they outlive their deadline.
    leaseMs: 1_000,
    heartbeatIntervalMs: 300,
    model: scriptedModel({
      Refunder: [
        {
          toolCalls: Array.from({ length: REFUNDS }, (_, n) => ({
            name: 'refund',
            arguments: { orderId: `o${n}` },
          })),
        },
        { text: 'refunds done' },
      ],
      Reader: [{ toolCalls: [{ name: 'lookup' }] }, { text: 'read' }],
    }),
    ...(options.stubFeatures === undefined ? {} : { features: options.stubFeatures as never }),
  });
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: { type: 'object', properties: { orderId: { type: 'string' } } } as const,
    needsApproval: true,
    execute: ({ orderId }) => `refunded ${orderId}`,
  });
  const lookup = tool({ name: 'lookup', description: 'Reads.', execute: () => 'looked up' });
  const asked: string[] = [];
  const client = new Client({
    url: server.url,
    apiKey: 'k',
    tools: [refund, lookup],
    maxConcurrency: 4,
    // A person who has not answered yet.
    onApproval: (request) => {
      asked.push(request.callId);
      return new Promise<boolean>(() => {});
    },
    ...(options.older ? { WebSocket: olderWebSocket('approval_waits') as never } : {}),
  });
  afterTest(() => client.close({ drain: false }));
  await client.connect();
  void client.run(new Agent({ name: 'Refunder', instructions: '', tools: [refund] }), 'go').catch(() => {});
  while (asked.length < REFUNDS) await new Promise((resolve) => setTimeout(resolve, 10));
  const lookupRun = () =>
    client.run(new Agent({ name: 'Reader', instructions: '', tools: [lookup] }), 'read');
  return { client, lookupRun };
}

describe('approval_waits: calls waiting for the client’s approver', () => {
  it('sends an unrelated call to a worker whose calls all wait for its approver', async () => {
    const { client, lookupRun } = await refundsWaiting({});
    expect(client.stats).toMatchObject({ running: 0, waiting: REFUNDS });
    const result = await lookupRun();
    expect(result.toolCalls.map((call) => [call.toolName, call.status, call.output])).toEqual([
      ['lookup', 'ok', 'looked up'],
    ]);
  });

  it.each([
    ['with a client that does not offer the feature', { older: true }],
    [
      'against a service without the feature',
      { stubFeatures: FEATURES.filter((name) => name !== 'approval_waits') },
    ],
  ] as const)('works as before %s: the waiting calls count as holding slots', async (_, options) => {
    const { client, lookupRun } = await refundsWaiting(options);
    expect(client.stats).toMatchObject({ running: 0, waiting: REFUNDS });
    const result = await lookupRun();
    expect(result.toolCalls.map((call) => [call.toolName, call.status, call.output])).toEqual([
      ['lookup', 'timeout', 'Error running lookup: timed out after 1500ms'],
    ]);
  });
});

describe('approval_waits, as the service reads it', () => {
  it('sends a worker calls up to maxConcurrency + maxQueue, keeps them leased, and never asks them back', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: Array(5).fill({ name: 'work' }) }, { text: 'done' }]),
      callDeadlineMs: 300,
      leaseMs: 5_000,
      handBackAgainMs: 0,
    });
    const features = ['approval_waits', 'key_waits', 'hand_back', 'lease'];
    const holder = track(
      await TestClient.connect(server.url, {
        tools: [toolDef('work')],
        features,
        maxConcurrency: 1,
        maxQueue: 3,
      }),
    );
    // Started over HTTP, not by the holder: its calls may go to any worker.
    const runId = server.runs.start(agent('a', ['work']), 'go');
    // One slot and one more round: two calls; each said to wait for the approver leaves room for another.
    const waiting: string[] = [];
    for (let n = 0; n < 4; n++) {
      const call = await holder.next('tool_call');
      holder.send({ type: 'approval_waits', waiting: [call.callId] });
      waiting.push(call.callId);
    }
    // Four calls held (maxConcurrency + maxQueue): the fifth waits in the service. A worker with room joins: no
    // waiting call is asked back (a person is deciding on each); the fifth goes to it.
    const taker = track(
      await TestClient.connect(server.url, { tools: [toolDef('work')], features, maxConcurrency: 1 }),
    );
    const fifth = await taker.next('tool_call');
    expect(waiting).not.toContain(fifth.callId);
    // Past the deadline (300 ms) twice over: named, the waiting calls are leased (those sent to queue too) and not
    // cut, as a call waiting for its key would be.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(holder.all('hand_back')).toEqual([]);
    expect(holder.all('cancel')).toEqual([]);
    // Approved, the calls go on and end with their results.
    holder.send({ type: 'approval_waits', running: waiting });
    for (const callId of waiting) holder.result(callId, 'ok');
    taker.result(fifth.callId, 'ok');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.toolCalls.map((call) => call.status)).toEqual(Array(5).fill('ok'));
  });

  it('counts a waiting call in no slot only with the feature', async () => {
    const server = await stub({
      model: scriptedModel([{ toolCalls: Array(3).fill({ name: 'work' }) }, { text: 'done' }]),
    });
    const client = track(
      await TestClient.connect(server.url, {
        tools: [toolDef('work')],
        features: ['lease'],
        maxConcurrency: 1,
        maxQueue: 1,
      }),
    );
    client.send({ type: 'run_start', requestId: 'q1', agent: agent('a', ['work']), input: 'go' });
    const first = await client.next('tool_call');
    const second = await client.next('tool_call');
    // Not negotiated: the frame changes nothing, and the third call waits for a slot to free.
    client.send({ type: 'approval_waits', waiting: [first.callId, second.callId] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.all('tool_call')).toHaveLength(2);
    client.result(first.callId, 'ok');
    const third = await client.next('tool_call');
    client.result(second.callId, 'ok');
    client.result(third.callId, 'ok');
    expect((await client.next('run_result')).status).toBe('completed');
  });
});
