/**
 * A rolling deploy without `buildId` that adds `needsApproval: true` to a tool: an old and a new worker (two real
 * clients in this process) offer `refund` to one stub, one tenant, each with its own definition
 * (docs/protocol/routing.md, "Workers that disagree on a definition").
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ScriptInput, scriptedModel } from '../../server-stub/index';
import { tool } from '../../src/index';
import { captureLogger, http } from '../stub/helpers';
import { useStubClients } from '../support/stub-client';

const { stub, connected } = useStubClients();

const ORDERS = ['o1', 'o2', 'o3', 'o4'];
const AGENT = { name: 'support', instructions: 'Refund when asked.', tools: ['refund'] };

/**
 * `refund` as a worker defines it; each execution is recorded as `<worker>:<order>:<approved>`, then waits for
 * `gate.wait` and tells `gate.ran`.
 */
function refund(
  worker: string,
  ran: string[],
  gate: { needsApproval?: true; wait?: Promise<void>; ran?: () => void } = {},
) {
  return tool({
    name: 'refund',
    description: gate.needsApproval ? 'Refunds an order, once a person approves.' : 'Refunds an order.',
    parameters: z.object({ orderId: z.string() }),
    ...(gate.needsApproval ? { needsApproval: true } : {}),
    execute: async ({ orderId }, ctx) => {
      ran.push(`${worker}:${orderId}:${ctx.approved}`);
      await gate.wait;
      gate.ran?.();
      return `refunded ${orderId}`;
    },
  });
}

/** A stub whose model asks for every order's refund in one turn (keeping what it was shown), then answers. */
async function deployStub() {
  const logger = captureLogger();
  const shown: ScriptInput['tools'][] = [];
  const server = await stub({
    logger,
    model: scriptedModel([
      ({ tools }) => {
        shown.push(tools);
        return { toolCalls: ORDERS.map((orderId) => ({ name: 'refund', arguments: { orderId } })) };
      },
      { text: 'done' },
    ]),
  });
  // A person approves every call the service holds, over HTTP.
  server.events.on('run_event', ({ runId, kind, data }) => {
    if (kind !== 'approval_requested') return;
    const { callId } = data as { callId: string };
    void http(server, 'POST', `/v1/runs/${runId}/approvals/${callId}`, { approved: true }, 'test-key');
  });
  return { server, shown, warnings: () => logger.lines.filter((line) => line.level === 'warn') };
}

describe('a rolling deploy without buildId that adds needsApproval', () => {
  it('holds every call for a person, whichever worker runs it, the model shown the new definition', async () => {
    const { server, shown, warnings } = await deployStub();
    const ran: string[] = [];
    // The old worker connects first: it is the older and the idler, and its definition needs no approval.
    await connected(server.url, { tools: [refund('old', ran)] });
    await connected(server.url, { tools: [refund('new', ran, { needsApproval: true })] });
    const runId = server.runs.start(AGENT, 'refund every order');
    const transcript = await server.runs.waitFor(runId);
    expect(transcript.status).toBe('completed');
    // Both take the same arguments: they share the calls, every one decided first.
    expect(ran.map((entry) => entry.replace(/^\w+:/, '')).sort()).toEqual(
      ORDERS.map((orderId) => `${orderId}:true`),
    );
    expect(shown[0]?.map((definition) => [definition.description, definition.needsApproval])).toEqual([
      ['Refunds an order, once a person approves.', true],
    ]);
    expect(transcript.toolCalls.map((call) => [call.status, call.approval?.requestedBy])).toEqual(
      ORDERS.map(() => ['ok', 'definition']),
    );
    expect(warnings()).toEqual([
      expect.objectContaining({
        message:
          'workers disagree on tool refund (description, needsApproval): the model is shown the newest definition; its calls are held for approval while any worker asks for it',
      }),
    ]);
  });

  it('sends calls to the old worker once the new one has no room, decided all the same', async () => {
    const { server } = await deployStub();
    const ran: string[] = [];
    // The new worker holds its one call until the old worker has run the three others.
    let oldDone!: () => void;
    const wait = new Promise<void>((resolve) => {
      oldDone = resolve;
    });
    const ranOld = () => {
      if (ran.filter((entry) => entry.startsWith('old:')).length === 3) oldDone();
    };
    await connected(server.url, { tools: [refund('old', ran, { ran: ranOld })] });
    await connected(server.url, {
      tools: [refund('new', ran, { needsApproval: true, wait })],
      maxConcurrency: 1,
      maxQueue: 0,
    });
    const runId = server.runs.start(AGENT, 'refund every order');
    expect((await server.runs.waitFor(runId)).status).toBe('completed');
    expect(ran.map((entry) => entry.replace(/:o\d:/, ':')).sort()).toEqual([
      'new:true',
      'old:true',
      'old:true',
      'old:true',
    ]);
  });

  it('keeps holding the calls when a worker of the old code restarts while the new one is connected', async () => {
    const { server, shown } = await deployStub();
    const ran: string[] = [];
    const old = await connected(server.url, { tools: [refund('old', ran)] });
    await connected(server.url, { tools: [refund('new', ran, { needsApproval: true })] });
    // A crash loop, or a pod of the old ReplicaSet rescheduled: the old code comes back after its session ended.
    await old.close();
    await connected(server.url, { tools: [refund('restarted', ran)] });
    const runId = server.runs.start(AGENT, 'refund every order');
    expect((await server.runs.waitFor(runId)).status).toBe('completed');
    expect(shown[0]?.map((definition) => definition.needsApproval)).toEqual([true]);
    expect(ran.filter((entry) => !entry.endsWith(':true'))).toEqual([]);
    expect(ran).toHaveLength(ORDERS.length);
  });
});
