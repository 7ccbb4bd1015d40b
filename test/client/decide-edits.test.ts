/**
 * Decisions with edited arguments over the real stub: `client.decide()` refuses what could never be sent with
 * the true reason (not `not_connected`), an edit decided over the socket passes the client's policies as one
 * decided by `onApproval` does, and an edit near the frame limit leaves the tool's output to the model.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ScriptedTurn, scriptedModel } from '../../server-stub/index';
import { Agent, type CallPolicy, tool } from '../../src/index';
import { useStubClients } from '../support/stub-client';

const { stub, connected } = useStubClients();

/** One refund call, then the tool message as the final text. */
const oneRefund = (): ScriptedTurn[] => [
  { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1', amount: 10 } }] },
  ({ messages }) => ({
    text: messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content)
      .join(' | '),
  }),
];

const refund = () =>
  tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ orderId: z.string(), amount: z.number(), lines: z.array(z.string()).optional() }),
    needsApproval: true,
    execute: ({ orderId, amount }) => `refunded ${amount} on ${orderId}`,
  });

const agentWith = (gated: ReturnType<typeof refund>) =>
  new Agent({ name: 'support', instructions: 'Refund when asked.', tools: [gated] });

const overFifty: CallPolicy = (call) =>
  (call.arguments as { amount: number }).amount > 50
    ? { block: 'Refunds over 50 need a manager.' }
    : undefined;

/** Nested arrays, `levels` deep. */
const nested = (levels: number): unknown => {
  let value: unknown = [];
  for (let level = 1; level < levels; level += 1) value = [value];
  return value;
};

describe('client.decide() with a decision that cannot be sent', () => {
  it('says too_large, too_deep or invalid_decision (naming what is not JSON), sends nothing, and the call can still be decided', async () => {
    const server = await stub({ model: scriptedModel(oneRefund()), maxPayloadBytes: 65_536 });
    const gated = refund();
    const client = await connected(server.url, { tools: [gated] });
    const errors: unknown[] = [];
    const cyclic: Record<string, unknown> = { orderId: 'o1', amount: 10 };
    cyclic.self = cyclic;
    client.on('approval_requested', (request) => {
      const tries = [
        { approved: true, arguments: { orderId: 'o1', amount: 10, lines: ['x'.repeat(70_000)] } },
        { approved: true, arguments: { orderId: 'o1', amount: 10, deep: nested(65) } },
        { approved: true, arguments: { orderId: 'o1', amount: 10n } },
        { approved: true, arguments: { orderId: 'o1', amount: 10, note: () => 'x' } },
        { approved: true, arguments: cyclic },
        { approved: true, arguments: { orderId: 'o1', amount: 10, lines: [new Map([['a', 1]])] } },
      ];
      void (async () => {
        for (const decision of tries) {
          await client
            .decide(request.callId, decision as never)
            .catch((error: unknown) => errors.push(error));
        }
        await client.decide(request.callId, { approved: true, arguments: { orderId: 'o1', amount: 11 } });
      })();
    });
    const result = await client.run(agentWith(gated), 'refund');
    expect(errors).toHaveLength(6);
    expect(errors[0]).toMatchObject({
      name: 'ApprovalError',
      code: 'too_large',
      message: expect.stringMatching(
        /^decide\(\): the decision makes an approval frame of 70\d{3} bytes, over the service's limit of 65536 bytes$/,
      ),
    });
    expect(errors[1]).toMatchObject({
      name: 'ApprovalError',
      code: 'too_deep',
      message:
        "decide(): the edited arguments nest deeper than 64 levels of objects and arrays, the most a call's arguments may",
    });
    expect(errors.slice(2)).toMatchObject(
      [
        'arguments.amount is a BigInt',
        'arguments.note is a function',
        'arguments.self holds a cycle',
        'arguments.lines[0] is a Map, not a plain object or an array',
      ].map((why) => ({
        name: 'ApprovalError',
        code: 'invalid_decision',
        message: `decide(): the decision is not JSON: ${why}`,
      })),
    );
    expect(result.finalOutput).toBe(
      'The approver edited the arguments of refund to {"orderId":"o1","amount":11}.\nrefunded 11 on o1',
    );
  });
});

describe('edited arguments and the client policies, on both paths', () => {
  it('blocks an edit decided with client.decide as it blocks one decided by onApproval', async () => {
    const gated = refund();
    const edit = { approved: true, arguments: { orderId: 'o1', amount: 90 } };
    const overSocket = await stub({ model: scriptedModel(oneRefund()) });
    const socketClient = await connected(overSocket.url, { tools: [gated], policies: [overFifty] });
    socketClient.on('approval_requested', (request) => void socketClient.decide(request.callId, edit));
    const decided = await socketClient.run(agentWith(gated), 'refund');

    const local = await stub({ model: scriptedModel(oneRefund()) });
    const localClient = await connected(local.url, {
      tools: [gated],
      policies: [overFifty],
      onApproval: () => edit,
    });
    const approved = await localClient.run(agentWith(gated), 'refund');

    const expected =
      'The approver edited the arguments of refund to {"orderId":"o1","amount":90}.\nRefunds over 50 need a manager.';
    expect(decided.finalOutput).toBe(expected);
    expect(approved.finalOutput).toBe(expected);
    expect(decided.toolCalls.map((call) => call.status)).toEqual(['rejected']);
  });
});

describe('an edit near the frame limit', () => {
  it("leaves the tool's own output in what the model reads", async () => {
    const server = await stub({ model: scriptedModel(oneRefund()) });
    const gated = refund();
    // About 1 MB of edited arguments: the default maxPayloadBytes is 1 MiB.
    const lines = Array.from({ length: 10_300 }, (_, index) => `line ${index}`.padEnd(97, '.'));
    const client = await connected(server.url, {
      tools: [gated],
      onApproval: () => ({ approved: true, arguments: { orderId: 'o1', amount: 6, lines } }),
    });
    const result = await client.run(agentWith(gated), 'refund');
    const size = JSON.stringify({ orderId: 'o1', amount: 6, lines }).length;
    expect(size).toBeGreaterThan(1_000_000);
    expect(result.finalOutput).toBe(
      `The approver edited the arguments of refund (fields "orderId", "amount", "lines"; ${size.toLocaleString('en-US')} bytes of JSON, too long to show).\nrefunded 6 on o1`,
    );
  });
});
