/**
 * Every frame a call sends fits the service's frame limit, or fails its waiter with a clear error (docs/protocol/
 * docs/protocol/limits.md): at the documented minimum of 1,024 bytes, a long approval reason, progress message, event
 * data or
 * preliminary output is cut to fit, a renewal of many leases is split, and a secret-bearing text that is matched
 * again (a redacted choice, a redacted step key) still finds what it names.
 */
import { describe, expect, it, vi } from 'vitest';
import { type LeasedCall, LeaseRenewal } from '../../src/client/lease-renewal';
import { ApprovalError, Client, QuestionError, tool } from '../../src/index';
import { type ClientFrame, FEATURES, utf8Length } from '../../src/wire/protocol';
import { FAKE_URL, type FakeConnection, fakeWebSocket, useFakeService, welcome } from './fake-service';

const KEY = 'sk-SECRETKEY-1234567890';
const LIMIT = 1_024;

const { service, clients } = useFakeService();

async function connected(
  tools: ConstructorParameters<typeof Client>[0]['tools'],
  extra: Partial<ConstructorParameters<typeof Client>[0]> = {},
): Promise<{ client: Client; connection: FakeConnection }> {
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: KEY,
    tools,
    reconnect: false,
    ...extra,
  });
  clients.push(client);
  const opened = service.nextConnection();
  const connecting = client.connect();
  const connection = await opened;
  await connection.next('hello');
  connection.send(welcome('s1', { features: [...FEATURES], maxPayloadBytes: LIMIT }));
  await connecting;
  return { client, connection };
}

const size = (frame: ClientFrame) => utf8Length(JSON.stringify(frame));
const call = (callId: string, toolName: string, extra: Record<string, unknown> = {}) => ({
  type: 'tool_call',
  callId,
  runId: 'r1',
  toolName,
  arguments: {},
  ...extra,
});

describe('frames within the limit', () => {
  it('cuts a predicate reason of 600 × "é" (1,200 bytes) to fit a 1,024-byte frame, and sends the request', async () => {
    const gated = tool({
      name: 'gated',
      description: 'd',
      needsApproval: () => ({ required: true, reason: 'é'.repeat(600) }),
      execute: () => 'ran',
    });
    const { connection } = await connected([gated]);
    const asked = connection.next('approval_request');
    connection.send(call('c1', 'gated'));
    const frame = await asked;
    expect(size(frame)).toBeLessThanOrEqual(LIMIT);
    expect(frame.reason).toMatch(/^é+…$/);
    expect(size({ ...frame, reason: `${frame.reason}é` })).toBeGreaterThan(LIMIT);
  });

  it('cuts a progress message and a preliminary output, and records event data that does not fit as truncated', async () => {
    const long = tool({
      name: 'long',
      description: 'd',
      async *execute(_args, ctx) {
        ctx.progress({ progress: 1, message: 'é'.repeat(1_000) });
        ctx.emit('big', { text: 'x'.repeat(5_000) });
        yield 'ü'.repeat(2_000);
        return 'done';
      },
    });
    const { connection } = await connected([long]);
    const callId = 'ï'.repeat(200); // 400 bytes of id, in every frame of the call
    const progress = connection.next('tool_progress');
    const event = connection.next('tool_event');
    const preliminary = connection.next('tool_preliminary');
    const result = connection.next('tool_result');
    connection.send(call(callId, 'long'));
    const frames = [await progress, await event, await preliminary, await result];
    for (const frame of frames) expect(size(frame), frame.type).toBeLessThanOrEqual(LIMIT);
    expect(frames[0]).toMatchObject({ message: expect.stringMatching(/^é+…$/) });
    expect(frames[1]).toMatchObject({ data: { truncated: true, bytes: 5_011 } });
    expect((frames[2] as { output: string }).output).toMatch(/^ü+/);
  });

  it('splits a renewal of many long call ids into lease frames that each fit', () => {
    vi.useFakeTimers();
    try {
      const sent: ClientFrame[] = [];
      const calls = new Map<string, LeasedCall>();
      for (let i = 0; i < 20; i++) {
        const callId = `${i}-${'c'.repeat(200)}`;
        calls.set(callId, { callId, heardAt: undefined });
      }
      const lease = new LeaseRenewal({
        send: (frame) => {
          sent.push(frame);
          return true;
        },
        now: () => Date.now(),
        calls,
        maxPayloadBytes: () => LIMIT,
      });
      lease.setInterval(1_000);
      for (const held of calls.values()) lease.started(held);
      vi.advanceTimersByTime(1_000);
      const ids = sent.flatMap((frame) => (frame.type === 'lease' ? frame.callIds : []));
      expect(ids).toEqual([...calls.keys()]);
      expect(sent.length).toBeGreaterThan(1);
      for (const frame of sent) expect(size(frame)).toBeLessThanOrEqual(LIMIT);
      lease.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('redacted texts matched again', () => {
  it('finds a kept step by its redacted key on replay: the step does not run again', async () => {
    const fn = vi.fn(() => 'fresh');
    const stepped = tool({
      name: 'stepped',
      description: 'd',
      execute: async (_args, ctx) => String(await ctx.step(`step-${KEY}`, fn)),
    });
    const { connection } = await connected([stepped]);
    const result = connection.next('tool_result');
    connection.send(call('c1', 'stepped', { steps: { 'step-[redacted]': 'kept' } }));
    expect(await result).toMatchObject({ status: 'ok', output: 'kept' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('refuses a question whose choices read the same once redacted, quoting no secret', async () => {
    let refused: unknown;
    const asking = tool({
      name: 'asking',
      description: 'd',
      execute: async (_args, ctx) => {
        refused = await ctx.askQuestion('which?', { choices: [`a ${KEY}`, 'a [redacted]'] }).catch((e) => e);
        return 'asked';
      },
    });
    const { connection } = await connected([asking]);
    const result = connection.next('tool_result');
    connection.send(call('c1', 'asking'));
    await result;
    expect(refused).toBeInstanceOf(QuestionError);
    expect(refused).toMatchObject({
      code: 'failed',
      message:
        'two choices read the same once their secrets are redacted: the answer could not tell them apart',
    });
    expect(connection.frames.map((frame) => frame.type)).not.toContain('question');
  });

  it('refuses edited arguments that hold the API key, and sends nothing', async () => {
    const { client, connection } = await connected([]);
    const refused = await client
      .decide('c1', { approved: true, arguments: { token: `Bearer ${KEY}` } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApprovalError);
    expect(refused).toMatchObject({ code: 'invalid_decision' });
    expect(String((refused as Error).message)).not.toContain(KEY);
    expect(connection.frames.map((frame) => frame.type)).toEqual(['hello']);
  });
});
