/**
 * The order of the phases of one call (Assemble's sequence): validate → allowlist → policies → approval → execute
 * (with retries) → output schema. Each phase records itself; the allowlist shows by what does not run after it.
 * A retry runs `execute` again, and nothing before it; the output schema checks the attempt that returned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type StubServer, scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Agent, Client, tool } from '../../src/index';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stub(): Promise<StubServer> {
  const server = await startStubServer({
    apiKeys: ['test-key'],
    logger: silentLogger,
    model: scriptedModel([
      {
        toolCalls: [
          { name: 'refund', arguments: { orderId: 'o1', amount: 5 } },
          { name: 'refund', arguments: { orderId: 'o2', amount: -1 } },
        ],
      },
      { text: 'done' },
    ]),
  });
  cleanups.push(() => server.close());
  return server;
}

function sequencedClient(url: string, failures = 0) {
  const phases = new Map<string, string[]>();
  const log = (orderId: string, phase: string): void => {
    phases.set(orderId, [...(phases.get(orderId) ?? []), phase]);
  };
  const refund = tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z
      .object({ orderId: z.string(), amount: z.number().positive() })
      .superRefine((input) => log(input.orderId, 'validate')),
    outputSchema: z
      .object({ refunded: z.string() })
      .superRefine((output) => log(output.refunded, 'output schema')),
    allowedAgentNames: ['refund-specialist'],
    needsApproval: true,
    sideEffect: 'idempotent',
    retry: { maxAttempts: 3, initialDelayMs: 0 },
    execute: ({ orderId }, ctx) => {
      log(orderId, failures === 0 ? 'execute' : `execute ${ctx.attempt}`);
      if (ctx.attempt <= failures) throw new Error('flaky');
      return { refunded: orderId };
    },
  });
  const client = new Client({
    url,
    apiKey: 'test-key',
    tools: [refund],
    reconnect: false,
    policies: [
      (call) => {
        log((call.arguments as { orderId: string }).orderId, 'policy 1');
      },
      async (call) => {
        log((call.arguments as { orderId: string }).orderId, 'policy 2');
        return undefined;
      },
    ],
    onApproval: (request) => {
      log((request.input as { orderId: string }).orderId, 'approval');
      return true;
    },
  });
  cleanups.push(() => client.close({ drain: false }));
  return { client, refund, phases };
}

describe('the sequence of one call', () => {
  it('runs validate → allowlist → policies → approval → execute → output schema, and stops at the first refusal', async () => {
    const server = await stub();
    const { client, refund, phases } = sequencedClient(server.url);
    await client.connect();
    const specialist = new Agent({ name: 'refund-specialist', instructions: 'Refund.', tools: [refund] });
    const result = await client.run(specialist, 'refund');
    expect(Object.fromEntries(phases)).toEqual({
      o1: ['validate', 'policy 1', 'policy 2', 'approval', 'execute', 'output schema'],
      o2: ['validate'],
    });
    expect(result.toolCalls.map((call) => call.status).sort()).toEqual(['invalid_arguments', 'ok']);

    phases.clear();
    const chat = new Agent({ name: 'chat', instructions: 'Help.', tools: [refund] });
    const refused = await client.run(chat, 'refund');
    // The allowlist comes after validation and before the policies: nothing else ran.
    expect(Object.fromEntries(phases)).toEqual({ o1: ['validate'], o2: ['validate'] });
    expect(refused.toolCalls.map((call) => call.status).sort()).toEqual(['invalid_arguments', 'rejected']);
  });

  it('retries execute only: validation, the allowlist, the policies and approval run once, the output schema on the attempt that returned', async () => {
    const server = await stub();
    const { client, refund, phases } = sequencedClient(server.url, 2);
    await client.connect();
    const specialist = new Agent({ name: 'refund-specialist', instructions: 'Refund.', tools: [refund] });
    const result = await client.run(specialist, 'refund');
    expect(Object.fromEntries(phases)).toEqual({
      o1: [
        'validate',
        'policy 1',
        'policy 2',
        'approval',
        'execute 1',
        'execute 2',
        'execute 3',
        'output schema',
      ],
      o2: ['validate'],
    });
    expect(result.toolCalls.map((call) => call.status).sort()).toEqual(['invalid_arguments', 'ok']);
  });
});
