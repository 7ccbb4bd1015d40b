import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ScriptedTurn, scriptedModel } from '../../server-stub/index';
import { Agent, ApprovalError, type ApprovalRequest, approvalRequired, tool } from '../../src/index';
import { useStubClients } from '../support/stub-client';

const { stub, connected } = useStubClients();

/** Two turns of one refund call each, then the tool messages joined. */
const twoRefunds = (): ScriptedTurn[] => [
  { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1', amount: 90 } }] },
  { toolCalls: [{ name: 'refund', arguments: { orderId: 'o2', amount: 20 } }] },
  ({ messages }) => ({
    text: messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content)
      .join(' | '),
  }),
];

const refund = (needsApproval: unknown) =>
  tool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ orderId: z.string(), amount: z.number().max(100) }),
    needsApproval: needsApproval as never,
    execute: ({ orderId, amount }) => `refunded ${amount} on ${orderId}`,
  });

const agentWith = (gated: ReturnType<typeof refund>, name = 'support') =>
  new Agent({ name, instructions: 'Refund when asked.', tools: [gated] });

describe('approvals with a reason, edited arguments and always, over the stub', () => {
  it('shows the reason of approvalRequired, runs edited arguments decided with client.decide, and applies always', async () => {
    const server = await stub({ model: scriptedModel(twoRefunds()) });
    const gated = refund(approvalRequired('Refunds move money.'));
    const client = await connected(server.url, { tools: [gated] });
    const requests: ApprovalRequest[] = [];
    const decided: Promise<void>[] = [];
    client.on('approval_requested', (request) => {
      requests.push(request);
      decided.push(
        client.decide(request.callId, {
          approved: true,
          arguments: { orderId: 'o1', amount: 50 },
          always: true,
        }),
      );
    });
    const agent = new Agent({ name: 'support', instructions: 'Refund.', tools: [gated] });
    const result = await client.run(agent, 'refund both');
    await Promise.all(decided);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ toolName: 'refund', reason: 'Refunds move money.' });
    expect(result.finalOutput).toBe(
      'The approver edited the arguments of refund to {"orderId":"o1","amount":50}.\nrefunded 50 on o1 | refunded 20 on o2',
    );
    const calls = server.runs.get(result.runId)?.toolCalls ?? [];
    expect(calls[0]?.approval).toMatchObject({
      requestedBy: 'definition',
      reason: 'Refunds move money.',
      decision: { approved: true, by: 'socket', arguments: { orderId: 'o1', amount: 50 }, always: true },
    });
    expect(calls[1]?.approval?.decision).toMatchObject({ approved: true, by: 'always' });
  });

  it('lets an approval_requested listener decide at once when the client asked (a predicate, no onApproval)', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1', amount: 90 } }] },
        { text: 'done' },
      ]),
    });
    const gated = refund(() => ({ required: true, reason: 'checked here' }));
    const client = await connected(server.url, { tools: [gated] });
    const decided: Promise<void>[] = [];
    client.on('approval_requested', (request) => {
      // The README's pattern: decide from inside the listener, synchronously.
      decided.push(client.decide(request.callId, true));
    });
    const result = await client.run(agentWith(gated), 'refund');
    await Promise.all(decided);
    expect(result.toolCalls.map((call) => [call.status, call.output])).toEqual([['ok', 'refunded 90 on o1']]);
  });

  it("redacts a predicate's and a policy's reason for approval_requested listeners and onApproval, as in the frame", async () => {
    const secrets = 'key test-key, word hunter2';
    const reasons = [
      () => ({ required: true, reason: `predicate: ${secrets}` }),
      approvalRequired(`policy-made: ${secrets}`),
    ];
    for (const needsApproval of reasons) {
      for (const local of [false, true]) {
        const server = await stub({
          model: scriptedModel([
            { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1', amount: 90 } }] },
            { text: 'done' },
          ]),
        });
        const gated = refund(needsApproval);
        const heard: Array<string | undefined> = [];
        const asked: Array<string | undefined> = [];
        const client = await connected(server.url, {
          tools: [gated],
          redact: ['hunter2'],
          policies: [() => ({ requireApproval: `policy: ${secrets}` })],
          ...(local
            ? {
                onApproval: (request: ApprovalRequest) => {
                  asked.push(request.reason);
                  return true;
                },
              }
            : {}),
        });
        const decided: Promise<void>[] = [];
        client.on('approval_requested', (request) => {
          heard.push(request.reason);
          if (!local) decided.push(client.decide(request.callId, true));
        });
        const result = await client.run(agentWith(gated), 'refund');
        await Promise.all(decided);
        expect(result.toolCalls.map((call) => call.status)).toEqual(['ok']);
        const kept = server.runs.get(result.runId)?.toolCalls[0]?.approval?.reason;
        if (typeof needsApproval === 'function') {
          // Asked by this client: the predicate's reason and the policy's, joined.
          const expected =
            'predicate: key [redacted], word [redacted]; policy: key [redacted], word [redacted]';
          expect(heard).toEqual([expected]);
          expect(asked).toEqual(local ? [expected] : []);
          if (!local) expect(kept).toBe(expected);
        } else {
          // Announced in the definition: the service holds the call, or onApproval is asked with both reasons.
          expect(heard[0]).toMatch(/^policy-made: key \[redacted\], word \[redacted\]/);
          expect(asked).toEqual(local ? [heard[0]] : []);
        }
        expect(JSON.stringify([heard, asked, kept])).not.toMatch(/test-key|hunter2/);
      }
    }
  });

  it.each([
    ['onApproval', true, true],
    ['a predicate, decided with client.decide', () => true, false],
    ['a call the service holds, decided with client.decide', true, false],
  ] as const)(
    'shows a redact match as [redacted] to %s, and an edit leaving it keeps the original',
    async (_path, needsApproval, local) => {
      const server = await stub({
        model: scriptedModel([
          { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1-tok-secret-1', amount: 90 } }] },
          { text: 'done' },
        ]),
      });
      const ran: unknown[] = [];
      const gated = tool({
        name: 'refund',
        description: 'Refunds an order.',
        parameters: z.object({ orderId: z.string(), amount: z.number() }),
        needsApproval: needsApproval as never,
        execute: (input) => {
          ran.push(input);
          return 'refunded';
        },
      });
      const edit = (request: ApprovalRequest) => ({
        approved: true,
        arguments: { ...(request.input as object), amount: 50 },
      });
      const shown: unknown[] = [];
      const client = await connected(server.url, {
        tools: [gated],
        redact: ['tok-secret-1'],
        ...(local ? { onApproval: edit } : {}),
      });
      const decided: Promise<void>[] = [];
      client.on('approval_requested', (request) => {
        shown.push(request.input);
        // An edit holding the secret is refused (invalid_decision): the call is then declined, not left held.
        if (!local)
          decided.push(
            client.decide(request.callId, edit(request)).catch(() => client.decide(request.callId, false)),
          );
      });
      const result = await client.run(agentWith(gated), 'refund');
      await Promise.all(decided);
      expect(shown).toEqual([{ orderId: 'o1-[redacted]', amount: 90 }]);
      expect(Object.isFrozen(shown[0])).toBe(true);
      expect(ran).toEqual([{ orderId: 'o1-tok-secret-1', amount: 50 }]);
      expect(result.toolCalls.map((call) => call.status)).toEqual(['ok']);
    },
  );

  it.each([
    ['onApproval', true],
    ['a call the service holds, decided with client.decide', false],
  ] as const)(
    'decodes arguments written as JSON text for %s, a short sensitive field shown as [redacted]',
    async (_path, local) => {
      const server = await stub({
        model: scriptedModel([
          { toolCalls: [{ name: 'unlock', arguments: '{"door":"front","pin":"12"}' }] },
          { text: 'done' },
        ]),
      });
      const ran: unknown[] = [];
      const unlock = tool({
        name: 'unlock',
        description: 'Unlocks a door.',
        parameters: z.object({ door: z.string(), pin: z.string() }),
        sensitiveFieldNames: ['pin'],
        needsApproval: true,
        execute: (input) => {
          ran.push(input);
          return 'open';
        },
      });
      const edit = (request: ApprovalRequest) => ({
        approved: true,
        arguments: { ...(request.input as object), door: 'back' },
      });
      const shown: unknown[] = [];
      const client = await connected(server.url, { tools: [unlock], ...(local ? { onApproval: edit } : {}) });
      const decided: Promise<void>[] = [];
      client.on('approval_requested', (request) => {
        shown.push(request.input);
        if (!local) decided.push(client.decide(request.callId, edit(request)));
      });
      const result = await client.run(new Agent({ name: 'A', instructions: 'x', tools: [unlock] }), 'go');
      await Promise.all(decided);
      expect(shown).toEqual([{ door: 'front', pin: '[redacted]' }]);
      expect(ran).toEqual([{ door: 'back', pin: '12' }]);
      expect(result.toolCalls.map((call) => call.status)).toEqual(['ok']);
    },
  );

  it('gives onApproval the reason of a predicate, and keeps its always decision for the run', async () => {
    const server = await stub({ model: scriptedModel(twoRefunds()) });
    const asked: ApprovalRequest[] = [];
    const gated = refund((_ctx: unknown, input: { amount: number }) => ({
      required: true,
      reason: `amount ${input.amount}`,
    }));
    const client = await connected(server.url, {
      tools: [gated],
      onApproval: (request) => {
        asked.push(request);
        return { approved: false, reason: 'no refunds today', alwaysReject: true };
      },
    });
    const result = await client.run(
      new Agent({ name: 'support', instructions: 'Refund.', tools: [gated] }),
      'go',
    );
    expect(asked).toMatchObject([
      { toolName: 'refund', reason: 'amount 90', input: { orderId: 'o1', amount: 90 } },
    ]);
    expect(result.toolCalls.map((call) => [call.status, call.output])).toEqual([
      ['rejected', 'refund was not run: the user declined. Reason: no refunds today'],
      ['rejected', 'refund was not run: the user declined. Reason: no refunds today'],
    ]);
  });

  it('sends the predicate reason in approval_request to the service, and the edited arguments come back to run', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'refund', arguments: { orderId: 'o1', amount: 90 } }] },
        { text: 'done' },
      ]),
    });
    const gated = refund(() => ({ required: true, reason: 'over the limit' }));
    const client = await connected(server.url, { tools: [gated] });
    client.on('run_event', (event) => {
      if (event.kind !== 'approval_requested') return;
      expect(event.reason).toBe('over the limit');
      void client.decide(event.callId, { approved: true, arguments: { orderId: 'o1', amount: 500 } });
    });
    const result = await client.run(
      new Agent({ name: 'support', instructions: 'Refund.', tools: [gated] }),
      'go',
    );
    expect(result.toolCalls[0]).toMatchObject({
      status: 'invalid_arguments',
      output: expect.stringMatching(
        /^refund was not run: the arguments the approver edited are invalid: amount: /,
      ),
    });
  });

  it('takes edited arguments and always over HTTP, echoing them', async () => {
    const server = await stub({ model: scriptedModel(twoRefunds()) });
    const gated = refund(true);
    const client = await connected(server.url, { tools: [gated] });
    const answers: unknown[] = [];
    client.on('approval_requested', (request) => {
      void fetch(`${server.httpUrl}/v1/runs/${request.runId}/approvals/${request.callId}`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true, arguments: { orderId: 'o9', amount: 1 }, always: true }),
      }).then(async (response) => answers.push(await response.json()));
    });
    const result = await client.run(agentWith(gated), 'go');
    expect(answers).toEqual([
      {
        runId: result.runId,
        callId: expect.any(String),
        approved: true,
        arguments: { orderId: 'o9', amount: 1 },
        always: true,
      },
    ]);
    expect(result.finalOutput).toBe(
      'The approver edited the arguments of refund to {"orderId":"o9","amount":1}.\nrefunded 1 on o9 | refunded 20 on o2',
    );
  });

  it.each([
    ['client.decide, by a worker that did not start the run', 'decide'],
    ['HTTP, in a run this client started', 'http'],
  ] as const)('reports no later call an always decision covers, decided with %s', async (_how, via) => {
    const server = await stub({ model: scriptedModel(twoRefunds()) });
    const gated = refund(() => ({ required: true, reason: 'asked here' }));
    const client = await connected(server.url, { tools: [gated] });
    const requests: ApprovalRequest[] = [];
    const decided: Array<Promise<unknown>> = [];
    client.on('approval_requested', (request) => {
      requests.push(request);
      decided.push(
        via === 'decide'
          ? client.decide(request.callId, { approved: true, always: true })
          : fetch(`${server.httpUrl}/v1/runs/${request.runId}/approvals/${request.callId}`, {
              method: 'POST',
              headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
              body: JSON.stringify({ approved: true, always: true }),
            }),
      );
    });
    let runId: string;
    if (via === 'http') runId = (await client.run(agentWith(gated), 'go')).runId;
    else {
      // Started over HTTP: this client gets the calls, not the run's events.
      const started = await fetch(`${server.httpUrl}/v1/runs`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
        body: JSON.stringify({
          agent: { name: 'support', instructions: '', tools: ['refund'] },
          input: 'go',
        }),
      });
      runId = ((await started.json()) as { runId: string }).runId;
    }
    const transcript = await server.runs.waitFor(runId);
    await Promise.all(decided);
    expect(transcript.finalOutput).toBe('refunded 90 on o1 | refunded 20 on o2');
    expect(transcript.toolCalls.map((call) => call.approval?.decision?.by)).toEqual([
      via === 'decide' ? 'socket' : 'http',
      'always',
    ]);
    expect(requests.map((request) => request.toolName)).toEqual(['refund']);
  });

  it('refuses client.decide for an unknown call and for a call already decided, with typed errors', async () => {
    const server = await stub({ model: scriptedModel(twoRefunds()) });
    const gated = refund(true);
    const client = await connected(server.url, { tools: [gated] });
    await expect(client.decide('nope', true)).rejects.toMatchObject({
      name: 'ApprovalError',
      code: 'unknown_call',
    });
    await expect(client.decide('nope', 'yes' as never)).rejects.toBeInstanceOf(ApprovalError);
    const errors: unknown[] = [];
    client.on('approval_requested', (request) => {
      void client
        .decide(request.callId, true)
        .then(() => client.decide(request.callId, false))
        .catch((error: unknown) => errors.push(error));
    });
    await client.run(agentWith(gated), 'go');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({
      name: 'ApprovalError',
      code: 'not_pending',
      message: expect.stringContaining('was already approved'),
    });
  });

  it('rejects client.decide with ConnectionError once the client is closed', async () => {
    const server = await stub({ model: scriptedModel(twoRefunds()) });
    const client = await connected(server.url, { tools: [refund(true)] });
    await client.close();
    await expect(client.decide('call_1', true)).rejects.toMatchObject({
      name: 'ConnectionError',
      code: 'closed',
      message: 'decide(): the client is closed',
    });
  });

  it('still decides with an older service (no features): plain decisions go through, edits are refused', async () => {
    const server = await stub({ model: scriptedModel(twoRefunds()), features: [] });
    const gated = refund(true);
    const client = await connected(server.url, { tools: [gated] });
    const refused: unknown[] = [];
    client.on('approval_requested', (request) => {
      void client
        .decide(request.callId, { approved: true, always: true })
        .catch((error: unknown) => refused.push(error))
        .then(() => client.decide(request.callId, true));
    });
    const result = await client.run(agentWith(gated), 'go');
    expect(result.finalOutput).toBe('refunded 90 on o1 | refunded 20 on o2');
    expect(refused).toEqual([
      expect.objectContaining({ code: 'unsupported' }),
      expect.objectContaining({ code: 'unsupported' }),
    ]);
  });
});
